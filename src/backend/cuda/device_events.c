/* device_events.c - a model's event log on the CUDA backend: the chunk's
 * buffers the kernels write (rk_kernel.cuh's rk_device_out::event), kept
 * by the solver and grown like the records', and their copy into the
 * job's log (picard_event_store), chunk by chunk. */
#include <cuda_runtime_api.h>
#include <stdlib.h>

#include "cuda_solver.h"
#include "device_io.h"
#include "errors.h"

void picard_cuda_events_free(struct picard_cuda_solver *cuda)
{
	struct picard_device_events *e = &cuda->events;

	cudaFree(e->count);
	cudaFree(e->index);
	cudaFree(e->time);
	cudaFree(e->before);
	cudaFree(e->after);
	*e = (struct picard_device_events){0};
	cuda->events_entries = 0;
}

/* Buffers for entries entries of the log (the counts one a trajectory of
 * the chunk), freed and made again when the ones held are smaller. */
static int grow(struct picard_cuda_solver *cuda, size_t entries)
{
	struct picard_device_events *e = &cuda->events;
	const size_t n = (size_t)cuda->model->dim;
	int err = PICARD_OK;

	if (e->count && entries <= cuda->events_entries)
		return PICARD_OK;
	picard_cuda_events_free(cuda);
	CUDA_TRY(cudaMalloc((void **)&e->count, (size_t)cuda->chunk * sizeof(int)),
		 "device memory for the event counts");
	CUDA_TRY(cudaMalloc((void **)&e->index, entries * sizeof(int)),
		 "device memory for the event log");
	CUDA_TRY(cudaMalloc((void **)&e->time, entries * sizeof(double)),
		 "device memory for the event log");
	CUDA_TRY(cudaMalloc((void **)&e->before, entries * n * sizeof(double)),
		 "device memory for the event log's states");
	CUDA_TRY(cudaMalloc((void **)&e->after, entries * n * sizeof(double)),
		 "device memory for the event log's states");
	cuda->events_entries = entries;
	return PICARD_OK;
out:
	picard_cuda_events_free(cuda);
	return err;
}

int picard_cuda_events_start(struct picard_cuda_solver *cuda, const struct picard_job *job,
			     struct picard_launch *L, long count)
{
	const struct picard_event_store *log = job->events;
	int err;

	L->events = (struct picard_device_events){0};
	if (!log)
		return PICARD_OK;
	/* at least one entry: a log of capacity 0 still counts */
	err = grow(cuda, (size_t)cuda->chunk * (size_t)(log->capacity ? log->capacity : 1));
	if (err)
		return err;
	L->events = cuda->events;
	L->events.capacity = log->capacity;
	CUDA_TRY(cudaMemset(L->events.count, 0, (size_t)count * sizeof(int)),
		 "clear the event counts");
out:
	return err;
}

/* Rows of width bytes, count of them, a pitch apart on both sides. Where
 * they fill half their pitch or more, the whole rows in one piece through
 * device_io's pinned buffers (the bytes past a row's width are entries no
 * member kept): a 2D copy to pageable memory moved a million bouncing
 * balls' log at about 1 GB/s (bench/results/h200-2026-11-29-issue39-mpgos). */
static int download_rows(const void *dev, void *host, size_t pitch, size_t width, long count)
{
	if (2 * width >= pitch)
		return picard_io_download_bytes(dev, pitch * (size_t)count, host);
	const cudaError_t e = cudaMemcpy2D(host, pitch, dev, pitch, width, (size_t)count,
					   cudaMemcpyDeviceToHost);

	return e == cudaSuccess ? PICARD_OK : picard_cuda_fail(e, "copying the event log");
}

/* The counts first; then of each member's entries only as many as the
 * chunk's busiest member kept, not the log's whole capacity. */
int picard_cuda_events_download(const struct picard_cuda_solver *cuda,
				const struct picard_job *job, const struct picard_launch *L,
				long offset, long count)
{
	const struct picard_event_store *log = job->events;
	const struct picard_device_events *e = &L->events;
	const size_t n = (size_t)cuda->model->dim, cap = (size_t)(log ? log->capacity : 0);
	const size_t at = (size_t)offset * cap;
	size_t used = 0;
	int err;

	if (!log)
		return PICARD_OK;
	err = picard_io_download_bytes(e->count, (size_t)count * sizeof(int), log->count + offset);
	for (long i = 0; !err && i < count; i++)
		used = (size_t)log->count[offset + i] > used ? (size_t)log->count[offset + i] : used;
	used = used < cap ? used : cap;
	if (err || !used)
		return err;
	err = download_rows(e->index, log->index + at, cap * sizeof(int), used * sizeof(int),
			    count);
	if (!err)
		err = download_rows(e->time, log->time + at, cap * sizeof(double),
				    used * sizeof(double), count);
	if (!err)
		err = download_rows(e->before, log->before + at * n, cap * n * sizeof(double),
				    used * n * sizeof(double), count);
	if (!err)
		err = download_rows(e->after, log->after + at * n, cap * n * sizeof(double),
				    used * n * sizeof(double), count);
	return err;
}
