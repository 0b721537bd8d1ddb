/* batch_memory.h - a batch's arrays made and freed on the host, and
 * copied to and freed on the device: for the bench and the test. */
#ifndef PICARD_TRIDIAG_BATCH_MEMORY_H
#define PICARD_TRIDIAG_BATCH_MEMORY_H

#include "tridiag/host_reference.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The six arrays of batch (its batch, n and layout set) on the host, the
 * four coefficient arrays also into *arrays to be filled; 0, or -1 with
 * nothing allocated. */
int tridiag_host_alloc(struct tridiag_batch *batch, struct tridiag_host_arrays *arrays);
void tridiag_host_free(struct tridiag_batch *batch);

/* *device: host's shape, its coefficient arrays copied to the device, x and
 * status allocated there; 0, or a cudaError_t with nothing allocated. */
int tridiag_device_copy(const struct tridiag_batch *host, struct tridiag_batch *device);
void tridiag_device_free(struct tridiag_batch *device);

#ifdef __cplusplus
}
#endif

#endif
