/* batch_memory.c - a batch's arrays on the host and the device
 * (batch_memory.h). */
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "tridiag/batch_memory.h"
#include "device_counts.h"

int tridiag_host_alloc(struct tridiag_batch *batch, struct tridiag_host_arrays *arrays)
{
	size_t bytes = (size_t)batch->batch * batch->n * sizeof(double);

	*arrays = (struct tridiag_host_arrays){malloc(bytes), malloc(bytes), malloc(bytes),
					       malloc(bytes)};
	batch->lower = arrays->lower;
	batch->diag = arrays->diag;
	batch->upper = arrays->upper;
	batch->rhs = arrays->rhs;
	batch->x = malloc(bytes);
	batch->status = malloc(batch->batch * sizeof(int));
	if (arrays->lower && arrays->diag && arrays->upper && arrays->rhs && batch->x && batch->status)
		return 0;
	tridiag_host_free(batch);
	return -1;
}

void tridiag_host_free(struct tridiag_batch *batch)
{
	free((void *)batch->lower);
	free((void *)batch->diag);
	free((void *)batch->upper);
	free((void *)batch->rhs);
	free(batch->x);
	free(batch->status);
}

int tridiag_device_copy(const struct tridiag_batch *host, struct tridiag_batch *device)
{
	size_t bytes = (size_t)host->batch * host->n * sizeof(double);
	const double *from[4] = {host->lower, host->diag, host->upper, host->rhs};
	double *to[5] = {NULL};
	int *status = NULL;
	int err = cudaSuccess;

	for (int k = 0; k < 5 && err == cudaSuccess; k++)
		err = cudaMalloc((void **)&to[k], bytes);
	if (err == cudaSuccess)
		err = cudaMalloc((void **)&status, host->batch * sizeof(int));
	for (int k = 0; k < 4 && err == cudaSuccess; k++)
		err = picard_memcpy(to[k], from[k], bytes, cudaMemcpyHostToDevice);
	*device = *host;
	device->lower = to[0];
	device->diag = to[1];
	device->upper = to[2];
	device->rhs = to[3];
	device->x = to[4];
	device->status = status;
	if (err != cudaSuccess)
		tridiag_device_free(device);
	return err;
}

void tridiag_device_free(struct tridiag_batch *device)
{
	cudaFree((void *)device->lower);
	cudaFree((void *)device->diag);
	cudaFree((void *)device->upper);
	cudaFree((void *)device->rhs);
	cudaFree(device->x);
	cudaFree(device->status);
}
