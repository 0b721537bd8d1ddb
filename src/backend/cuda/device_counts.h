/* device_counts.h - the kernel launches and the host's waits on the
 * device that the solves on this thread made, so that a solve can report
 * its own (picard_stats.launches, .host_waits): an iterated scheme whose
 * counts grow with its windows or iterations pays a launch (a few us) and
 * a round trip each time, where one launch a solve keeps the iteration on
 * the device (issue 40).
 *
 * src/ launches through these: a kernel<<<picard_counted(grid), ...>>>,
 * cudaLaunchKernel after picard_count_launch(); and waits through
 * picard_stream_wait, picard_event_wait, picard_device_wait and
 * picard_memcpy (a cudaMemcpy waits for the work before it on the legacy
 * stream). A library's launches inside one of its calls (cuSPARSE's) are
 * not seen. */
#ifndef PICARD_DEVICE_COUNTS_H
#define PICARD_DEVICE_COUNTS_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

struct picard_device_counts {
	long launches;   /* kernels launched */
	long host_waits; /* times the host waited for the device */
};

void picard_count_launch(void);
/* The counts so far on this thread (a solve's: the difference). */
struct picard_device_counts picard_device_counts_now(void);

cudaError_t picard_stream_wait(cudaStream_t stream);
cudaError_t picard_event_wait(cudaEvent_t event);
cudaError_t picard_device_wait(void);
cudaError_t picard_memcpy(void *to, const void *from, size_t bytes, enum cudaMemcpyKind kind);

#ifdef __cplusplus
}

/* A launch's grid, counted: kernel<<<picard_counted(blocks), ...>>>. */
template <class Grid> static inline Grid picard_counted(Grid grid)
{
	picard_count_launch();
	return grid;
}
#endif

#endif
