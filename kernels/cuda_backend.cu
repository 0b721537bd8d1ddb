/* cuda_backend.cu - the CUDA side of picard_solve: device checks, the
 * solver's device memory (allocated once, in picard_cuda_create), host <->
 * device transfers with the SoA layout x[k*ntraj + i] the kernels read
 * coalesced, and the launch through the model's compiled launcher. Only the
 * model's launcher writes <<<>>>; every CUDA call here is checked. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "errors.h"
#include "model_impl.h"

struct picard_cuda_solver {
	const picard_model *model;  /* what is integrated */
	picard_grid grid;           /* the fitted grid */
	picard_precision precision; /* float or double kernels */
	long ntraj;                 /* trajectories, one block each */
	size_t real_size;           /* sizeof(float) or sizeof(double) */
	void *x0, *params, *x_final; /* device, real SoA [component][traj] */
	int *status;                /* device, per trajectory */
	long *fail_window;          /* device, per trajectory */
	long *sweeps;               /* device, sweeps per trajectory */
	int *sweeps_max;            /* device, most sweeps in a window */
	void *staging;              /* host, reals for the SoA conversions */
	int *staging_status;        /* host, status as the device wrote it */
	cudaEvent_t start, stop;    /* timing of the kernel alone */
};

/* Map a CUDA error to PICARD_ECUDA with what was being done. */
static int cuda_fail(cudaError_t err, const char *what)
{
	if (err == cudaErrorMemoryAllocation)
		return picard_fail(PICARD_ENOMEM, "%s: %s", what, cudaGetErrorString(err));
	return picard_fail(PICARD_ECUDA, "%s: %s", what, cudaGetErrorString(err));
}

#define CUDA_TRY(call, what)                                                   \
	do {                                                                   \
		cudaError_t cuda_err_ = (call);                                \
		if (cuda_err_ != cudaSuccess) {                                \
			err = cuda_fail(cuda_err_, what);                      \
			goto out;                                              \
		}                                                              \
	} while (0)

extern "C" bool picard_cuda_available(void)
{
	int count = 0;

	return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

extern "C" int picard_cuda_device_name(char *buf, size_t len)
{
	cudaDeviceProp prop;
	cudaError_t e = cudaGetDeviceProperties(&prop, 0);

	if (e != cudaSuccess)
		return picard_fail(PICARD_ENODEV, "no CUDA device: %s", cudaGetErrorString(e));
	snprintf(buf, len, "%s", prop.name);
	return PICARD_OK;
}

/* Check the launch shape against the device: m*n threads per block,
 * 2*m*n reals of shared memory, ntraj blocks, memory for the ensemble. */
static int check_limits(const picard_model *model, const picard_grid *grid,
			size_t real_size, long ntraj, size_t bytes)
{
	cudaDeviceProp prop;
	size_t free_bytes = 0, total_bytes = 0;
	int count = 0, threads = grid->m * model->dim, kernel_threads = 0;
	size_t shared = 2 * (size_t)threads * real_size;
	cudaError_t e;

	e = cudaGetDeviceCount(&count);
	if (e != cudaSuccess || count == 0)
		return picard_fail(PICARD_ENODEV, "no CUDA device: %s",
				   e != cudaSuccess ? cudaGetErrorString(e) : "none found");
	e = cudaGetDeviceProperties(&prop, 0);
	if (e != cudaSuccess)
		return cuda_fail(e, "cudaGetDeviceProperties");
	if (threads > prop.maxThreadsPerBlock)
		return picard_fail(PICARD_EBLOCK, "m*n = %d*%d = %d threads, the device allows %d per block",
				   grid->m, model->dim, threads, prop.maxThreadsPerBlock);
	e = (cudaError_t)(real_size == sizeof(double) ? model->impl->prepare_double(&kernel_threads) :
			  model->impl->prepare_float(&kernel_threads));
	if (e != cudaSuccess)
		return cuda_fail(e, "loading the kernel");
	if (threads > kernel_threads)
		return picard_fail(PICARD_EBLOCK, "m*n = %d*%d = %d threads, this model's kernel allows %d per block",
				   grid->m, model->dim, threads, kernel_threads);
	if (shared > prop.sharedMemPerBlock)
		return picard_fail(PICARD_ESHMEM, "2*m*n reals = %zu bytes of shared memory, the device allows %zu",
				   shared, (size_t)prop.sharedMemPerBlock);
	if (ntraj > prop.maxGridSize[0])
		return picard_fail(PICARD_EINVAL, "%ld trajectories: one block each, the device allows %d blocks",
				   ntraj, prop.maxGridSize[0]);
	e = cudaMemGetInfo(&free_bytes, &total_bytes);
	if (e != cudaSuccess)
		return cuda_fail(e, "cudaMemGetInfo");
	if (bytes > free_bytes)
		return picard_fail(PICARD_ENOMEM, "the ensemble needs %.1f MiB of device memory, %.1f MiB are free",
				   bytes / 1048576.0, free_bytes / 1048576.0);
	return PICARD_OK;
}

extern "C" void picard_cuda_free(struct picard_cuda_solver *cuda)
{
	if (!cuda)
		return;
	cudaFree(cuda->x0);
	cudaFree(cuda->params);
	cudaFree(cuda->x_final);
	cudaFree(cuda->status);
	cudaFree(cuda->fail_window);
	cudaFree(cuda->sweeps);
	cudaFree(cuda->sweeps_max);
	if (cuda->start)
		cudaEventDestroy(cuda->start);
	if (cuda->stop)
		cudaEventDestroy(cuda->stop);
	free(cuda->staging);
	free(cuda->staging_status);
	free(cuda);
}

extern "C" int picard_cuda_create(struct picard_cuda_solver **out,
				  const picard_model *model,
				  const picard_grid *grid,
				  picard_precision precision, long ntraj)
{
	struct picard_cuda_solver *cuda;
	const int n = model->dim, np = model->nparams;
	const size_t rs = precision == PICARD_DOUBLE ? sizeof(double) : sizeof(float);
	const size_t width = n > np ? n : np;
	const size_t bytes = ntraj * ((2 * n + np) * rs + 2 * (sizeof(int) + sizeof(long)));
	int err;

	err = check_limits(model, grid, rs, ntraj, bytes);
	if (err)
		return err;
	cuda = (struct picard_cuda_solver *)calloc(1, sizeof(*cuda));
	if (!cuda)
		return picard_fail(PICARD_ENOMEM, "CUDA solver");
	cuda->model = model;
	cuda->grid = *grid;
	cuda->precision = precision;
	cuda->ntraj = ntraj;
	cuda->real_size = rs;
	cuda->staging = malloc(ntraj * width * rs);
	cuda->staging_status = (int *)malloc(ntraj * sizeof(int));
	if (!cuda->staging || !cuda->staging_status) {
		err = picard_fail(PICARD_ENOMEM, "host staging for %ld trajectories", ntraj);
		goto out;
	}
	CUDA_TRY(cudaMalloc(&cuda->x0, ntraj * n * rs), "device memory for x0");
	CUDA_TRY(cudaMalloc(&cuda->params, ntraj * (np ? np : 1) * rs), "device memory for parameters");
	CUDA_TRY(cudaMalloc(&cuda->x_final, ntraj * n * rs), "device memory for final states");
	CUDA_TRY(cudaMalloc(&cuda->status, ntraj * sizeof(int)), "device memory for status");
	CUDA_TRY(cudaMalloc(&cuda->fail_window, ntraj * sizeof(long)), "device memory for status");
	CUDA_TRY(cudaMalloc(&cuda->sweeps, ntraj * sizeof(long)), "device memory for sweep counts");
	CUDA_TRY(cudaMalloc(&cuda->sweeps_max, ntraj * sizeof(int)), "device memory for sweep counts");
	CUDA_TRY(cudaEventCreate(&cuda->start), "cudaEventCreate");
	CUDA_TRY(cudaEventCreate(&cuda->stop), "cudaEventCreate");
	*out = cuda;
	return PICARD_OK;
out:
	picard_cuda_free(cuda);
	return err;
}

/* Row-major doubles rows[i*stride + c] (ntraj rows of width; stride 0: one
 * row for all) to device SoA reals dev[c][i] of the solver's precision. */
static int upload_soa(struct picard_cuda_solver *cuda, const double *rows,
		      int width, int stride, void *dev)
{
	const long ntraj = cuda->ntraj;
	int err = PICARD_OK;

	for (long i = 0; i < ntraj; i++)
		for (int c = 0; c < width; c++) {
			double v = rows[i * stride + c];
			if (cuda->precision == PICARD_DOUBLE)
				((double *)cuda->staging)[c * ntraj + i] = v;
			else
				((float *)cuda->staging)[c * ntraj + i] = (float)v;
		}
	CUDA_TRY(cudaMemcpy(dev, cuda->staging, ntraj * width * cuda->real_size,
			    cudaMemcpyHostToDevice), "copy to device");
out:
	return err;
}

/* Device SoA reals of the solver's precision to row-major doubles. */
static int download_soa(struct picard_cuda_solver *cuda, const void *dev,
			int width, double *rows)
{
	const long ntraj = cuda->ntraj;
	int err = PICARD_OK;

	CUDA_TRY(cudaMemcpy(cuda->staging, dev, ntraj * width * cuda->real_size,
			    cudaMemcpyDeviceToHost), "copy from device");
	for (long i = 0; i < ntraj; i++)
		for (int c = 0; c < width; c++)
			rows[i * width + c] = cuda->precision == PICARD_DOUBLE ?
				((double *)cuda->staging)[c * ntraj + i] :
				(double)((float *)cuda->staging)[c * ntraj + i];
out:
	return err;
}

/* Device buffers for the job's records, poisoned with NaN (all bits set)
 * so a window end that was never reached reads as NaN, never as zero. */
static int alloc_records(struct picard_cuda_solver *cuda,
			 const struct picard_job *job, picard_launch *L)
{
	int err = PICARD_OK;

	L->nrecords = job->nrecords;
	for (int r = 0; r < job->nrecords; r++) {
		const picard_record *rec = &job->records[r];
		picard_device_record *dr = &L->records[r];
		size_t bytes;

		dr->every = rec->every;
		dr->traj_stride = rec->traj_stride;
		dr->slots = picard_record_slots(cuda->ntraj, rec->traj_stride);
		bytes = (cuda->grid.windows / rec->every) * dr->slots *
			cuda->model->dim * cuda->real_size;
		CUDA_TRY(cudaMalloc(&dr->states, bytes ? bytes : 1), "device memory for a record");
		CUDA_TRY(cudaMemset(dr->states, 0xff, bytes), "cudaMemset");
	}
out:
	return err;
}

/* Copy a device record back into the caller's doubles. */
static int download_record(struct picard_cuda_solver *cuda,
			   const picard_device_record *dr,
			   const picard_record *rec)
{
	size_t count = (cuda->grid.windows / rec->every) * dr->slots * cuda->model->dim;
	void *host = malloc(count * cuda->real_size + 1);
	int err = PICARD_OK;

	if (!host)
		return picard_fail(PICARD_ENOMEM, "host memory for a record of %zu states", count);
	CUDA_TRY(cudaMemcpy(host, dr->states, count * cuda->real_size,
			    cudaMemcpyDeviceToHost), "copy record from device");
	for (size_t i = 0; i < count; i++)
		rec->states[i] = cuda->precision == PICARD_DOUBLE ?
			((double *)host)[i] : (double)((float *)host)[i];
out:
	free(host);
	return err;
}

extern "C" int picard_cuda_solve(struct picard_cuda_solver *cuda,
				 const struct picard_job *job, double *seconds)
{
	const picard_model *model = cuda->model;
	const struct picard_model_impl *impl = model->impl;
	picard_launch L;
	float ms = 0;
	int err;

	memset(&L, 0, sizeof(L));
	L.ntraj = cuda->ntraj;
	L.m = cuda->grid.m;
	L.K = cuda->grid.K;
	L.adaptive = cuda->grid.adaptive;
	L.warm_start = cuda->grid.warm_start;
	L.iter_atol = cuda->grid.iter_atol;
	L.iter_rtol = cuda->grid.iter_rtol;
	L.h = cuda->grid.h;
	L.t0 = cuda->grid.t0;
	L.windows = cuda->grid.windows;
	L.bound = job->bound;
	L.x0 = cuda->x0;
	L.params = cuda->params;
	L.x_final = cuda->x_final;
	L.status = cuda->status;
	L.fail_window = cuda->fail_window;
	L.sweeps = cuda->sweeps;
	L.sweeps_max = cuda->sweeps_max;

	err = upload_soa(cuda, job->x0, model->dim, model->dim, cuda->x0);
	if (!err && model->nparams)
		err = upload_soa(cuda, job->params, model->nparams, job->param_stride, cuda->params);
	if (!err)
		err = alloc_records(cuda, job, &L);
	if (err)
		goto out;

	CUDA_TRY(cudaEventRecord(cuda->start, 0), "cudaEventRecord");
	CUDA_TRY((cudaError_t)(cuda->precision == PICARD_DOUBLE ?
			       impl->launch_double(&L) : impl->launch_float(&L)),
		 "kernel launch");
	CUDA_TRY(cudaEventRecord(cuda->stop, 0), "cudaEventRecord");
	CUDA_TRY(cudaEventSynchronize(cuda->stop), "kernel execution");
	CUDA_TRY(cudaEventElapsedTime(&ms, cuda->start, cuda->stop), "cudaEventElapsedTime");
	*seconds = ms * 1e-3;

	if (job->x_final) {
		err = download_soa(cuda, cuda->x_final, model->dim, job->x_final);
		if (err)
			goto out;
	}
	CUDA_TRY(cudaMemcpy(cuda->staging_status, cuda->status, cuda->ntraj * sizeof(int),
			    cudaMemcpyDeviceToHost), "copy status from device");
	CUDA_TRY(cudaMemcpy(job->fail_window, cuda->fail_window, cuda->ntraj * sizeof(long),
			    cudaMemcpyDeviceToHost), "copy status from device");
	CUDA_TRY(cudaMemcpy(job->sweeps, cuda->sweeps, cuda->ntraj * sizeof(long),
			    cudaMemcpyDeviceToHost), "copy sweep counts from device");
	CUDA_TRY(cudaMemcpy(job->sweeps_max, cuda->sweeps_max, cuda->ntraj * sizeof(int),
			    cudaMemcpyDeviceToHost), "copy sweep counts from device");
	for (long i = 0; i < cuda->ntraj; i++)
		job->status[i] = (picard_traj_status)cuda->staging_status[i];
	for (int r = 0; r < job->nrecords && !err; r++)
		err = download_record(cuda, &L.records[r], &job->records[r]);
out:
	for (int r = 0; r < L.nrecords; r++)
		cudaFree(L.records[r].states);
	return err;
}
