/* device_counts.c - per thread, since solvers on other threads launch on
 * their own: see device_counts.h. */
#include "device_counts.h"

#include <cuda_runtime.h>

static _Thread_local struct picard_device_counts counts;

void picard_count_launch(void)
{
	counts.launches++;
}

struct picard_device_counts picard_device_counts_now(void)
{
	return counts;
}

cudaError_t picard_stream_wait(cudaStream_t stream)
{
	counts.host_waits++;
	return cudaStreamSynchronize(stream);
}

cudaError_t picard_event_wait(cudaEvent_t event)
{
	counts.host_waits++;
	return cudaEventSynchronize(event);
}

cudaError_t picard_device_wait(void)
{
	counts.host_waits++;
	return cudaDeviceSynchronize();
}

cudaError_t picard_memcpy(void *to, const void *from, size_t bytes, enum cudaMemcpyKind kind)
{
	counts.host_waits++;
	return cudaMemcpy(to, from, bytes, kind);
}
