/* cuda_backend.cu - the CUDA side of picard_solve: device checks, the
 * solver's device memory (allocated once, in picard_cuda_create), host <->
 * device transfers with the SoA layout x[k*ntraj + i] the kernels read
 * coalesced, and the launch of the kernel instance the solve needs,
 * compiled at run time from the model's text (src/model/jit.c). What is a
 * scheme's own (its layouts, kernels, tables, loop of launches) is its
 * CUDA part, src/schemes/NAME/cuda_NAME.c, reached through its table's
 * hooks (cuda_solver.h). Every CUDA call here is checked. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cuda_solver.h"
#include "device_io.h"
#include "errors.h"
#include "jit.h"
#include "model_impl.h"
#include "scheme.h"
#include "device_counts.h"

extern "C" bool picard_cuda_available(void)
{
	int count = 0;

	return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

extern "C" void picard_cuda_warm_up(void)
{
	if (picard_cuda_available())
		cudaFree(0); /* creates the primary context */
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

/* ---- the kernel, its shape and its limits ---------------------------------------- */

/* The grid's scheme's CUDA part (src/schemes/NAME/cuda_NAME.c). */
static const struct picard_cuda_scheme *cuda_scheme(const picard_grid *grid)
{
	return picard_scheme_of(grid->scheme)->cuda;
}

/* The launch fields that say which kernel runs and in what shape. */
static void launch_shape(const picard_grid *grid, picard_launch *L)
{
	L->layout = grid->layout;
	L->group = cuda_scheme(grid)->group(grid);
	L->traj_per_block = grid->traj_per_block;
	L->block = grid->block;
	L->scan = grid->scan;
	L->m = grid->m;
	L->adaptive = grid->adaptive;
}

/* Compile (or load) the kernel instance L needs and describe it. */
static int load_kernel(const picard_model *model, const picard_grid *grid, const picard_launch *L,
		       size_t real_size, const void **kernel, picard_kernel_info *info)
{
	char expression[256];
	cudaFuncAttributes attr;
	cudaError_t e;
	int err = cuda_scheme(grid)->instance(grid, L, model->name,
					      real_size == sizeof(double) ? "double" : "float",
					      expression, sizeof(expression));

	if (!err)
		err = picard_jit_kernel(model, expression, kernel);
	if (err)
		return err;
	e = cudaFuncGetAttributes(&attr, *kernel);
	if (e != cudaSuccess)
		return picard_cuda_fail(e, "describing the kernel");
	*info = { attr.maxThreadsPerBlock, attr.numRegs, attr.localSizeBytes };
	return PICARD_OK;
}

/* Let kernel take bytes of dynamic shared memory, past the 48 KB a
 * kernel gets without asking. */
static int allow_shared(const void *kernel, size_t bytes)
{
	cudaError_t e = bytes > 48 * 1024 ?
		cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes) :
		cudaSuccess;

	return e == cudaSuccess ? PICARD_OK : picard_cuda_fail(e, "allowing the kernel its shared memory");
}

/* Check the launch shape against the device (paper: m*n threads per block,
 * 2*m*n reals of shared memory; warp: traj_per_block*G threads; thread:
 * traj_per_block threads) and choose how many of the ntraj trajectories,
 * per_traj bytes each, one chunk holds: as many as fit in the free memory
 * (or device_limit bytes, if lower) and in one grid. */
static int check_limits(const picard_model *model, picard_grid *grid,
			const picard_options_layout *asked, size_t real_size,
			long ntraj, long batch, size_t per_traj, size_t device_limit,
			long *chunk, const void **kernel,
			int *sm_count, int *kernel_threads)
{
	const struct picard_cuda_scheme *scheme = cuda_scheme(grid);
	cudaDeviceProp prop;
	size_t free_bytes = 0, total_bytes = 0, shared = 0;
	int count = 0, threads, threads_each;
	picard_kernel_info info;
	picard_launch L;
	cudaError_t e;
	int err;

	e = cudaGetDeviceCount(&count);
	if (e != cudaSuccess || count == 0)
		return picard_fail(PICARD_ENODEV, "no CUDA device: %s",
				   e != cudaSuccess ? cudaGetErrorString(e) : "none found");
	e = cudaGetDeviceProperties(&prop, 0);
	if (e != cudaSuccess)
		return picard_cuda_fail(e, "cudaGetDeviceProperties");
	*sm_count = prop.multiProcessorCount;
	scheme->layout(grid, asked, model->dim, ntraj, prop.multiProcessorCount);
	err = scheme->check_model ? scheme->check_model(model, grid, real_size) : PICARD_OK;
	if (err)
		return err;
	shared = scheme->shared_bytes ? scheme->shared_bytes(grid, model->dim, real_size) : 0;
	if (shared > prop.sharedMemPerBlockOptin)
		return picard_fail(PICARD_ESHMEM, "%s %s layout: model %s (dim %d) needs %zu bytes of shared memory a block in %s, the device allows %zu: fewer trajectories a block (--traj-per-block), another layout (--layout), or the CPU backend (--backend cpu)",
				   picard_scheme_of(grid->scheme)->name, picard_layout_name(grid->layout),
				   model->name, model->dim, shared,
				   real_size == sizeof(double) ? "double" : "float",
				   (size_t)prop.sharedMemPerBlockOptin);
	memset(&L, 0, sizeof(L));
	launch_shape(grid, &L);
	err = load_kernel(model, grid, &L, real_size, kernel, &info);
	if (!err)
		err = allow_shared(*kernel, shared);
	if (err)
		return err;
	*kernel_threads = info.max_threads;
	/* an automatic block shape within what this model's kernel allows: a
	 * register-heavy model (fisher_kpp's 32 components: 256 threads in
	 * double on an H100) gets fewer trajectories per block, not a refusal */
	threads_each = scheme->threads_per_traj(grid, &L);
	if (!asked->traj_per_block && threads_each > 0 && info.max_threads / threads_each >= 1 &&
	    grid->traj_per_block > info.max_threads / threads_each)
		grid->traj_per_block = info.max_threads / threads_each;
	if (threads_each == 0 && (grid->layout != PICARD_LAYOUT_PAPER || scheme->shared_bytes)) {
		/* the scheme's own block (lobatto's groups): one group of at
		 * most 32 lanes per trajectory, tables of 2 G^2 reals in
		 * static shared memory, within every device's limits */
		if (info.max_threads < 32)
			return picard_fail(PICARD_EBLOCK, "the %s kernel of this model allows %d threads per block",
					   picard_scheme_of(grid->scheme)->name, info.max_threads);
		goto memory;
	}
	if (grid->layout == PICARD_LAYOUT_PAPER) {
		threads = grid->m * model->dim;
		shared = 2 * (size_t)threads * real_size;
		if (threads > prop.maxThreadsPerBlock)
			return picard_fail(PICARD_EBLOCK, "m*n = %d*%d = %d threads, the device allows %d per block",
					   grid->m, model->dim, threads, prop.maxThreadsPerBlock);
	} else {
		threads = grid->traj_per_block * threads_each;
		if (threads > prop.maxThreadsPerBlock)
			return picard_fail(PICARD_EBLOCK, "%s layout: %d trajectories per block x %d threads = %d threads, the device allows %d per block",
					   picard_layout_name(grid->layout), grid->traj_per_block,
					   threads_each, threads, prop.maxThreadsPerBlock);
	}
	if (threads > info.max_threads)
		return picard_fail(PICARD_EBLOCK, "%s layout: %d threads per block, this model's kernel allows %d (%d registers per thread)",
				   picard_layout_name(grid->layout), threads, info.max_threads,
				   info.registers);
	if (grid->layout == PICARD_LAYOUT_PAPER && shared > prop.sharedMemPerBlock)
		return picard_fail(PICARD_ESHMEM, "2*m*n reals = %zu bytes of shared memory, the device allows %zu",
				   shared, (size_t)prop.sharedMemPerBlock);
memory:
	e = cudaMemGetInfo(&free_bytes, &total_bytes);
	if (e != cudaSuccess)
		return picard_cuda_fail(e, "cudaMemGetInfo");
	if (device_limit && device_limit < free_bytes)
		free_bytes = device_limit;
	/* 90% of what is free, the rest for records and the runtime */
	*chunk = (long)fmin((double)batch, 0.9 * free_bytes / per_traj);
	if (*chunk > prop.maxGridSize[0])
		*chunk = prop.maxGridSize[0];
	if (*chunk < 1)
		return picard_fail(PICARD_ENOMEM, "one trajectory needs %zu bytes of device memory, %.1f MiB are free",
				   per_traj, free_bytes / 1048576.0);
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
	cudaFree(cuda->fail_time);
	cudaFree(cuda->sweeps);
	cudaFree(cuda->sweeps_max);
	cudaFree(cuda->spans);
	if (cuda_scheme(&cuda->grid)->release)
		cuda_scheme(&cuda->grid)->release(cuda->own);
	if (cuda->start)
		cudaEventDestroy(cuda->start);
	if (cuda->stop)
		cudaEventDestroy(cuda->stop);
	for (int h = 0; h < 2; h++) {
		if (cuda->pipe_start[h])
			cudaEventDestroy(cuda->pipe_start[h]);
		if (cuda->pipe_stop[h])
			cudaEventDestroy(cuda->pipe_stop[h]);
	}
	if (cuda->inputs_ready)
		cudaEventDestroy(cuda->inputs_ready);
	if (cuda->pipe)
		cudaStreamDestroy(cuda->pipe);
	for (int r = 0; r < PICARD_MAX_RECORDS; r++) {
		cudaFree(cuda->record_dev[r]);
		cudaFree(cuda->times_dev[r]);
	}
	picard_cuda_events_free(cuda);
	free(cuda);
}

extern "C" int picard_cuda_create(struct picard_cuda_solver **out,
				  const picard_model *model, picard_grid *grid,
				  const picard_options_layout *layout,
				  picard_precision precision, long ntraj, long batch,
				  size_t device_limit, int event_log)
{
	const void *kernel = NULL;
	struct picard_cuda_solver *cuda;
	const int n = model->dim, np = model->nparams;
	const size_t rs = precision == PICARD_DOUBLE ? sizeof(double) : sizeof(float);
	/* the event log's count and entries (device_events.c: one at least) */
	const size_t log_bytes = model->events ? sizeof(int) + (size_t)(event_log > 0 ? event_log : 1) *
				 (sizeof(int) + (1 + 2 * (size_t)n) * sizeof(double)) : 0;
	const size_t per_traj = (2 * n + np) * rs + 2 * (sizeof(int) + sizeof(long)) + log_bytes +
				(cuda_scheme(grid)->traj_bytes ? cuda_scheme(grid)->traj_bytes(grid, n) : 0);
	long chunk = 0;
	int err, sm_count = 0, kernel_threads = 0;

	err = check_limits(model, grid, layout, rs, ntraj, batch, per_traj, device_limit, &chunk,
			   &kernel, &sm_count, &kernel_threads);
	if (err)
		return err;
	cuda = (struct picard_cuda_solver *)calloc(1, sizeof(*cuda));
	if (!cuda)
		return picard_fail(PICARD_ENOMEM, "CUDA solver");
	cuda->model = model;
	cuda->grid = *grid;
	cuda->kernel = kernel;
	cuda->precision = precision;
	cuda->chunk = chunk;
	cuda->real_size = rs;
	ntraj = chunk; /* the buffers below hold one chunk */
	CUDA_TRY(cudaMalloc(&cuda->x0, ntraj * n * rs), "device memory for x0");
	CUDA_TRY(cudaMalloc(&cuda->params, ntraj * (np ? np : 1) * rs), "device memory for parameters");
	CUDA_TRY(cudaMalloc(&cuda->x_final, ntraj * n * rs), "device memory for final states");
	CUDA_TRY(cudaMalloc(&cuda->status, ntraj * sizeof(int)), "device memory for status");
	CUDA_TRY(cudaMalloc(&cuda->fail_window, ntraj * sizeof(long)), "device memory for status");
	CUDA_TRY(cudaMalloc(&cuda->fail_time, 2 * ntraj * sizeof(double)),
		 "device memory for failure times");
	CUDA_TRY(cudaMalloc(&cuda->sweeps, ntraj * sizeof(long)), "device memory for sweep counts");
	CUDA_TRY(cudaMalloc(&cuda->sweeps_max, ntraj * sizeof(int)), "device memory for sweep counts");
	CUDA_TRY(cudaEventCreate(&cuda->start), "cudaEventCreate");
	CUDA_TRY(cudaEventCreate(&cuda->stop), "cudaEventCreate");
	for (int h = 0; h < 2; h++) {
		CUDA_TRY(cudaEventCreate(&cuda->pipe_start[h]), "cudaEventCreate");
		CUDA_TRY(cudaEventCreate(&cuda->pipe_stop[h]), "cudaEventCreate");
	}
	CUDA_TRY(cudaEventCreateWithFlags(&cuda->inputs_ready, cudaEventDisableTiming),
		 "cudaEventCreate");
	/* not the legacy stream 0, which the copies take: its kernels run
	 * while they copy */
	CUDA_TRY(cudaStreamCreateWithFlags(&cuda->pipe, cudaStreamNonBlocking), "cudaStreamCreate");
	if (cuda_scheme(grid)->upload) {
		err = cuda_scheme(grid)->upload(cuda, chunk, sm_count, kernel_threads);
		if (err)
			goto out;
		grid->traj_per_block = cuda->grid.traj_per_block; /* its block may be its own */
	}
	*out = cuda;
	return PICARD_OK;
out:
	picard_cuda_free(cuda);
	return err;
}

extern "C" int picard_cuda_upload_grown(void **dev, size_t *size, const void *host,
					size_t bytes, const char *what)
{
	int err = PICARD_OK;

	if (bytes > *size) {
		cudaFree(*dev);
		*dev = NULL;
		*size = 0;
		CUDA_TRY(cudaMalloc(dev, bytes), what);
		*size = bytes;
	}
	CUDA_TRY(picard_memcpy(*dev, host, bytes, cudaMemcpyHostToDevice), what);
out:
	return err;
}

/* Device buffers for the job's records, one chunk's slots each: the
 * solver's, grown when a record needs more than an earlier solve's (a
 * repeated solve allocates nothing). */
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
		dr->ntimes = rec->times ? rec->ntimes : 0;
		dr->times = NULL;
		dr->weights = NULL;
		if (rec->times) {
			err = picard_cuda_upload_grown((void **)&cuda->times_dev[r],
						       &cuda->times_dev_size[r], rec->times,
						       rec->ntimes * sizeof(double),
						       "a record's times");
			if (!err && cuda_scheme(&cuda->grid)->upload_dense)
				err = cuda_scheme(&cuda->grid)->upload_dense(cuda, r, rec,
									     &dr->weights);
			if (err)
				return err;
			dr->times = cuda->times_dev[r];
		}
		dr->slots = picard_record_slots(cuda->chunk, rec->traj_stride) + 1;
		bytes = picard_record_rows(&cuda->grid, rec) * dr->slots * cuda->model->dim *
			cuda->real_size + 1;
		if (bytes > cuda->record_dev_size[r]) {
			cudaFree(cuda->record_dev[r]);
			cuda->record_dev[r] = NULL;
			cuda->record_dev_size[r] = 0;
			CUDA_TRY(cudaMalloc(&cuda->record_dev[r], bytes), "device memory for a record");
			cuda->record_dev_size[r] = bytes;
		}
		dr->states = cuda->record_dev[r];
	}
out:
	return err;
}

/* Rows of a device record: its times, or the window ends it keeps. */
static long device_record_rows(const struct picard_cuda_solver *cuda,
			       const picard_device_record *dr)
{
	return dr->times ? dr->ntimes : cuda->grid.windows / dr->every;
}

/* Set a chunk's records up: trajectories offset .. offset+count-1 keep the
 * global slots first .. first+slots-1; NaN (all bits set) everywhere, so a
 * row never reached reads as NaN, never as zero. */
static int start_records(struct picard_cuda_solver *cuda, picard_launch *L,
			 long offset, long count)
{
	int err = PICARD_OK;

	for (int r = 0; r < L->nrecords; r++) {
		picard_device_record *dr = &L->records[r];
		long first = picard_record_slots(offset, dr->traj_stride);

		dr->first_slot = first;
		dr->slots = picard_record_slots(offset + count, dr->traj_stride) - first;
		CUDA_TRY(cudaMemset(dr->states, 0xff, device_record_rows(cuda, dr) * dr->slots *
				    cuda->model->dim * cuda->real_size), "cudaMemset");
	}
out:
	return err;
}

/* Copy a chunk's record into its slots of the caller's doubles: row r
 * of the device's at row r, slot first_slot of the caller's. */
static int download_record(struct picard_cuda_solver *cuda,
			   const picard_device_record *dr,
			   const picard_record *rec)
{
	const int n = cuda->model->dim;

	return picard_io_download_rows(dr->states, device_record_rows(cuda, dr), dr->slots * n,
				       cuda->real_size, rec->states + dr->first_slot * n,
				       picard_record_slots(cuda->job->ntraj, rec->traj_stride) * n);
}

/* A chunk's statuses, failing windows and failing times into the job's
 * arrays at offset. A chunk whose members all finished with no failing
 * window or time (none irregular) has nothing to say per member: its
 * statuses and failing windows are set here, not copied (the failing
 * times are NaN already: picard_solve). */
static int download_outcomes(const picard_launch *L, const struct picard_job *job,
			     long offset, long count, long irregular)
{
	int err = PICARD_OK;

	if (irregular) {
		err = picard_io_download_bytes(L->status, count * sizeof(int), job->status + offset);
		if (!err)
			err = picard_io_download_bytes(L->fail_window, count * sizeof(long),
						       job->fail_window + offset);
		if (!err)
			err = picard_io_download_bytes(L->fail_time, 2 * count * sizeof(double),
						       job->fail_time + 2 * offset);
		return err;
	}
#pragma omp parallel for
	for (long i = 0; i < count; i++) {
		job->status[offset + i] = PICARD_TRAJ_OK;
		job->fail_window[offset + i] = -1;
	}
	return err;
}

/* Per-trajectory results of a chunk into the job's arrays at offset (its
 * outcomes left on the device where the job says so), its totals added to
 * the job's. */
static int download_chunk(struct picard_cuda_solver *cuda, const struct picard_job *job,
			  const picard_launch *L, long offset, long count)
{
	const int n = cuda->model->dim;
	struct picard_job_totals t, *all = job->totals;
	long irregular = 0;
	int err = picard_io_totals(L->status, L->fail_window, L->fail_time, L->sweeps,
				   L->sweeps_max, count, cuda->grid.windows, &t, &irregular);

	if (err)
		return err;
	all->failed += t.failed;
	all->sweeps += t.sweeps;
	all->windows_run += t.windows_run;
	all->sweeps_max = t.sweeps_max > all->sweeps_max ? t.sweeps_max : all->sweeps_max;
	if (job->x_final)
		err = picard_io_download_soa(L->x_final, n, count, cuda->real_size,
					     job->x_final + offset * n);
	if (!err && !job->outcomes_on_device)
		err = download_outcomes(L, job, offset, count, irregular);
	for (int r = 0; r < L->nrecords && !err; r++)
		err = download_record(cuda, &L->records[r], &job->records[r]);
	if (!err)
		err = picard_cuda_events_download(cuda, job, L, offset, count);
	return err;
}

/* Threads per block of the launch, as its scheme shapes it. */
static int launch_block_threads(const struct picard_cuda_solver *cuda,
				const picard_launch *L)
{
	return cuda_scheme(&cuda->grid)->block_threads(cuda, L);
}

/* Launch the solver's kernel (the job's instance with dense output or spans) over
 * L's trajectories: one block each in the paper's layout, with 2*m*n reals
 * of shared memory (or the scheme's own); traj_per_block per block in the
 * others. */
static cudaError_t launch_kernel(const struct picard_cuda_solver *cuda, const picard_launch *L)
{
	const bool paper = L->layout == PICARD_LAYOUT_PAPER;
	const long blocks = paper ? L->ntraj : (L->ntraj + L->traj_per_block - 1) / L->traj_per_block;
	const struct picard_cuda_scheme *scheme = cuda_scheme(&cuda->grid);
	const size_t shared = scheme->shared_bytes ?
			      scheme->shared_bytes(&cuda->grid, cuda->model->dim, cuda->real_size) :
			      paper ? 2 * (size_t)L->m * cuda->model->dim * cuda->real_size : 0;
	void *args[] = { (void *)L };

	picard_count_launch();
	return cudaLaunchKernel(picard_cuda_kernel_of(cuda, L), dim3((unsigned)blocks),
				dim3((unsigned)launch_block_threads(cuda, L)), args, shared,
				(cudaStream_t)L->stream);
}

/* Trajectories offset .. offset+count-1's initial states and parameters
 * to the device, or drawn there (job->draw); on stream 0. */
static int upload_inputs(const struct picard_cuda_solver *cuda, const struct picard_job *job,
			 const picard_launch *L, long offset, long count)
{
	const picard_model *model = cuda->model;
	int err = job->draw ? picard_io_draw(job->draw, model->dim, model->nparams, offset, count,
					     cuda->real_size, (void *)L->x0,
					     job->param_stride ? (void *)L->params : NULL) :
		  picard_io_upload_soa(job->x0 + offset * model->dim, model->dim, model->dim,
				       count, cuda->real_size, (void *)L->x0);

	if (!err && job->span_t0) {
		const size_t bytes = (size_t)count * sizeof(double);

		if (picard_memcpy((void *)L->span_t0, job->span_t0 + offset, bytes,
			       cudaMemcpyHostToDevice) != cudaSuccess ||
		    picard_memcpy((void *)L->span_t1, job->span_t1 + offset, bytes,
			       cudaMemcpyHostToDevice) != cudaSuccess)
			err = picard_fail(PICARD_ECUDA, "copying the members' spans to the device");
	}
	if (job->draw && job->param_stride)
		return err; /* drawn with the states */
	if (!err && model->nparams && job->param_stride)
		err = picard_io_upload_soa(job->params + offset * job->param_stride,
					   job->param_stride, model->nparams, count,
					   cuda->real_size, (void *)L->params);
	else if (!err && model->nparams) /* one row for all: no copy per member */
		err = picard_io_broadcast_row(job->params, model->nparams, count, cuda->real_size,
					      (void *)L->params);
	return err;
}

/* Upload (unless the job starts from another solver's inputs on the
 * device), solve and download trajectories offset .. offset+count-1; the
 * kernel's time is added to *seconds. */
static int solve_chunk(struct picard_cuda_solver *cuda, const struct picard_job *job,
		       picard_launch *L, long offset, long count, double *seconds)
{
	float ms = 0;
	int err;

	L->ntraj = count;
	L->traj_offset = offset;
	err = job->inputs_of ? PICARD_OK : upload_inputs(cuda, job, L, offset, count);
	if (!err)
		err = start_records(cuda, L, offset, count);
	if (!err)
		err = picard_cuda_events_start(cuda, job, L, count);
	if (err)
		return err;
	/* all bits set is a NaN: the schemes that know no failing step
	 * leave it so */
	CUDA_TRY(cudaMemset(cuda->fail_time, 0xff, 2 * count * sizeof(double)),
		 "clear failure times");
	CUDA_TRY(cudaEventRecord(cuda->start, 0), "cudaEventRecord");
	if (cuda_scheme(&cuda->grid)->run) {
		err = cuda_scheme(&cuda->grid)->run(cuda, L);
		if (err)
			return err;
	} else {
		CUDA_TRY(launch_kernel(cuda, L), "kernel launch");
	}
	CUDA_TRY(cudaEventRecord(cuda->stop, 0), "cudaEventRecord");
	CUDA_TRY(picard_event_wait(cuda->stop), "kernel execution");
	CUDA_TRY(cudaEventElapsedTime(&ms, cuda->start, cuda->stop), "cudaEventElapsedTime");
	*seconds += ms * 1e-3;
	err = download_chunk(cuda, job, L, offset, count);
out:
	return err;
}


/* A pipelined solve's parts: the members one kernel takes, at least
 * PIPELINE_MIN (to fill the device), about a PIPELINE_PARTS-th of the
 * solve's. */
#define PIPELINE_MIN (1L << 20)
#define PIPELINE_PARTS 4

/* The members of each part where the job can be pipelined (solve_pipelined),
 * else 0: no records, no event log, no spans, no scheme of its own loop (newton,
 * imex), inputs from the host, and nothing read from the device arrays
 * after (the estimate's comparison); at least two parts, each within half
 * the chunk's buffers. */
static long pipeline_part(const struct picard_cuda_solver *cuda, const struct picard_job *job)
{
	long part = (job->ntraj + PIPELINE_PARTS - 1) / PIPELINE_PARTS;

	if (job->nrecords || job->events || job->inputs_of || job->outcomes_on_device || job->single_pass ||
	    job->span_t0 || cuda_scheme(&cuda->grid)->run)
		return 0;
	if (part < PIPELINE_MIN)
		part = PIPELINE_MIN;
	if (part > cuda->chunk / 2)
		part = cuda->chunk / 2;
	return part >= PIPELINE_MIN && job->ntraj > part ? part : 0;
}

/* Half h of the chunk's buffers, for parts of part members. */
static void pipeline_half(const struct picard_cuda_solver *cuda, picard_launch *L, int h,
			  long part)
{
	const size_t rs = cuda->real_size, at = (size_t)h * part;
	const int n = cuda->model->dim, np = cuda->model->nparams ? cuda->model->nparams : 1;

	L->x0 = (const char *)cuda->x0 + at * n * rs;
	L->params = (const char *)cuda->params + at * np * rs;
	L->x_final = (char *)cuda->x_final + at * n * rs;
	L->status = cuda->status + at;
	L->fail_window = cuda->fail_window + at;
	L->fail_time = cuda->fail_time + 2 * at;
	L->sweeps = cuda->sweeps + at;
	L->sweeps_max = cuda->sweeps_max + at;
	L->stream = cuda->pipe;
}

/* Start half h's kernel on the pipeline's stream, after its inputs on
 * stream 0 (a draw or a broadcast row runs there after the host returns),
 * its failing times cleared (all bits set: NaN) before it. */
static int start_part(struct picard_cuda_solver *cuda, const picard_launch *L, int h)
{
	int err = PICARD_OK;

	CUDA_TRY(cudaEventRecord(cuda->inputs_ready, 0), "cudaEventRecord");
	CUDA_TRY(cudaStreamWaitEvent(cuda->pipe, cuda->inputs_ready, 0), "cudaStreamWaitEvent");
	CUDA_TRY(cudaMemsetAsync(L->fail_time, 0xff, 2 * L->ntraj * sizeof(double), cuda->pipe),
		 "clear failure times");
	CUDA_TRY(cudaEventRecord(cuda->pipe_start[h], cuda->pipe), "cudaEventRecord");
	CUDA_TRY(launch_kernel(cuda, L), "kernel launch");
	CUDA_TRY(cudaEventRecord(cuda->pipe_stop[h], cuda->pipe), "cudaEventRecord");
out:
	return err;
}

/* Wait for half h's kernel; its time added to *seconds. */
static int finish_part(struct picard_cuda_solver *cuda, int h, double *seconds)
{
	float ms = 0;
	int err = PICARD_OK;

	CUDA_TRY(picard_event_wait(cuda->pipe_stop[h]), "kernel execution");
	CUDA_TRY(cudaEventElapsedTime(&ms, cuda->pipe_start[h], cuda->pipe_stop[h]),
		 "cudaEventElapsedTime");
	*seconds += ms * 1e-3;
out:
	return err;
}

/* The job in parts of part members, each half of the chunk's buffers
 * taking every other one: while the device runs a part's kernel, the host
 * copies the next part's inputs up and the last part's results down
 * (the copies on stream 0, the kernels on their own stream). A member's
 * results are those of one launch: only the launch's extent differs. */
static int solve_pipelined(struct picard_cuda_solver *cuda, const struct picard_job *job,
			   const picard_launch *L, long part, double *seconds)
{
	const long parts = (job->ntraj + part - 1) / part;
	picard_launch half[2] = {*L, *L};
	int err = PICARD_OK;

	for (int h = 0; h < 2; h++)
		pipeline_half(cuda, &half[h], h, part);
	for (long p = 0; p <= parts && !err; p++) {
		picard_launch *now = &half[p & 1], *last = &half[(p + 1) & 1];

		if (p < parts) {
			now->traj_offset = p * part;
			now->ntraj = job->ntraj - now->traj_offset < part ?
					     job->ntraj - now->traj_offset : part;
			err = upload_inputs(cuda, job, now, now->traj_offset, now->ntraj);
		}
		if (!err && p > 0)
			err = finish_part(cuda, (int)((p + 1) & 1), seconds);
		if (!err && p < parts)
			err = start_part(cuda, now, (int)(p & 1));
		if (!err && p > 0)
			err = download_chunk(cuda, job, last, last->traj_offset, last->ntraj);
	}
	if (err) /* no kernel left running on buffers the caller may free */
		picard_stream_wait(cuda->pipe);
	return err;
}

/* With dense output or spans the kernels run instances of their own,
 * which the solver did not load or check when it was made: load the job's
 * now (out of the timed solve) and check that the block still fits its
 * registers. */
static int prepare_job_kernel(struct picard_cuda_solver *cuda, const picard_launch *L)
{
	const int threads = launch_block_threads(cuda, L);
	picard_kernel_info info;
	const struct picard_cuda_scheme *scheme = cuda_scheme(&cuda->grid);
	int err = load_kernel(cuda->model, &cuda->grid, L, cuda->real_size, &cuda->kernel_job,
			      &info);

	if (!err && scheme->shared_bytes)
		err = allow_shared(cuda->kernel_job, scheme->shared_bytes(&cuda->grid, cuda->model->dim,
									  cuda->real_size));
	if (err)
		return err;
	if (threads > info.max_threads)
		return picard_fail(PICARD_EBLOCK, "%s: %d threads per block, the kernel with it allows %d (%d registers per thread); use fewer nodes or trajectories per block",
				   L->dense ? "dense output" : "per-member spans", threads,
				   info.max_threads, info.registers);
	return PICARD_OK;
}

extern "C" int picard_cuda_solve(struct picard_cuda_solver *cuda,
				 const struct picard_job *job, double *seconds)
{
	picard_launch L;
	long part;
	int err;

	memset(&L, 0, sizeof(L));
	launch_shape(&cuda->grid, &L);
	L.K = cuda->grid.K;
	L.adaptive = cuda->grid.adaptive;
	L.warm_start = cuda->grid.warm_start;
	L.iter_atol = cuda->grid.iter_atol;
	L.iter_rtol = cuda->grid.iter_rtol;
	L.h = cuda->grid.h;
	L.t0 = cuda->grid.t0;
	L.t1 = cuda->grid.t1;
	L.windows = cuda->grid.windows;
	L.bound = job->bound;
	if (job->inputs_of && !picard_cuda_shares_inputs(cuda, job->inputs_of, job->ntraj))
		return picard_fail(PICARD_EINVAL, "CUDA solve: another solver's inputs, of another "
				   "precision or more than one chunk");
	L.x0 = job->inputs_of ? job->inputs_of->x0 : cuda->x0;
	L.params = job->inputs_of ? job->inputs_of->params : cuda->params;
	L.x_final = cuda->x_final;
	L.status = cuda->status;
	L.fail_window = cuda->fail_window;
	L.fail_time = cuda->fail_time;
	L.sweeps = cuda->sweeps;
	L.sweeps_max = cuda->sweeps_max;
	L.window = cuda->grid.window;
	if (job->span_t0 && !cuda->spans &&
	    cudaMalloc(&cuda->spans, 2 * cuda->chunk * sizeof(double)) != cudaSuccess)
		return picard_fail(PICARD_ENOMEM, "device memory for the spans of %ld members",
				   cuda->chunk);
	L.span_t0 = job->span_t0 ? cuda->spans : NULL;
	L.span_t1 = job->span_t0 ? cuda->spans + cuda->chunk : NULL;
	if (cuda_scheme(&cuda->grid)->fill_launch)
		cuda_scheme(&cuda->grid)->fill_launch(cuda, &L);

	*seconds = 0;
	memset(job->totals, 0, sizeof(*job->totals));
	cuda->job = job;
	err = alloc_records(cuda, job, &L);
	for (int r = 0; r < job->nrecords; r++)
		L.dense |= job->records[r].times != NULL;
	if (!err && (L.dense || L.span_t0))
		err = prepare_job_kernel(cuda, &L);
	part = err ? 0 : pipeline_part(cuda, job);
	if (part)
		err = solve_pipelined(cuda, job, &L, part, seconds);
	for (long offset = 0; !err && !part && offset < job->ntraj; offset += cuda->chunk)
		err = solve_chunk(cuda, job, &L, offset,
				  job->ntraj - offset < cuda->chunk ? job->ntraj - offset : cuda->chunk,
				  seconds);
	cuda->job = NULL;
	return err;
}

extern "C" long picard_cuda_chunks(const struct picard_cuda_solver *cuda, long ntraj)
{
	return (ntraj + cuda->chunk - 1) / cuda->chunk;
}

extern "C" bool picard_cuda_one_chunk(const struct picard_cuda_solver *cuda, long count)
{
	return count <= cuda->chunk;
}

extern "C" bool picard_cuda_shares_inputs(const struct picard_cuda_solver *to,
					  const struct picard_cuda_solver *from, long count)
{
	return to->model == from->model && to->real_size == from->real_size &&
	       picard_cuda_one_chunk(to, count) && picard_cuda_one_chunk(from, count);
}

extern "C" int picard_cuda_final_errors(const struct picard_cuda_solver *solve,
					const struct picard_cuda_solver *ref, long count,
					const picard_tolerance *scale, double *errors)
{
	if (solve->model->dim != ref->model->dim || ref->real_size != sizeof(double) ||
	    !picard_cuda_one_chunk(solve, count) || !picard_cuda_one_chunk(ref, count))
		return picard_fail(PICARD_EINVAL, "final errors on the device: solves of %ld "
				   "members in one chunk each, the reference in double", count);
	return picard_io_final_errors(solve->x_final, solve->real_size, solve->status,
				      (const double *)ref->x_final, ref->status, solve->model->dim,
				      count, scale, errors);
}

/* ---- compiling ahead --------------------------------------------------------------- */

/* The kernel instance a solver of grid would load: the layout settled as
 * check_limits settles it (the device's multiprocessor count and ntraj),
 * without compiling or allocating. A block shape the kernel's registers
 * then shrink does not change the instance. */
extern "C" int picard_cuda_kernel_name(const picard_model *model, picard_grid *grid,
				       const picard_options_layout *asked, picard_precision precision,
				       long ntraj, char *buf, size_t len)
{
	int dev = 0, sm_count = 0;
	cudaError_t e = cudaGetDevice(&dev);
	picard_launch L;

	if (e == cudaSuccess)
		e = cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, dev);
	if (e != cudaSuccess)
		return picard_cuda_fail(e, "the device's multiprocessors");
	cuda_scheme(grid)->layout(grid, asked, model->dim, ntraj, sm_count);
	memset(&L, 0, sizeof(L));
	launch_shape(grid, &L);
	return cuda_scheme(grid)->instance(grid, &L, model->name,
					   precision == PICARD_DOUBLE ? "double" : "float", buf, len);
}

/* Every kernel instance a solve of model may run: each scheme's launch
 * shapes over the layouts, node counts that reach each compile-time bound
 * and group size, scans, dense output or not, fixed or adaptive steps,
 * both precisions; the scheme's instance hook names them, duplicates
 * dropped. only (if not NULL): that scheme's alone. */
static int model_instances(const picard_model *model, const picard_scheme *only, char ***out,
			   int *count)
{
	static const int ms[] = {2, 3, 4, 5, 8, 9, 16, 17, 32};
	static const picard_layout layouts[] = {PICARD_LAYOUT_PAPER, PICARD_LAYOUT_WARP,
						PICARD_LAYOUT_THREAD};
	char **list = NULL, expression[256];
	int n = 0, cap = 0;

	for (int s = 0; picard_scheme_list[s]; s++) {
		const picard_scheme_type *type = picard_scheme_list[s];

		if (!type->cuda || (only && type->id != *only))
			continue;
		for (int variant = 0; variant < 9 * 3 * 2 * 2 * 2 * 2; variant++) {
			picard_grid grid;
			picard_launch L;
			int v = variant, known = 0;

			memset(&grid, 0, sizeof(grid));
			memset(&L, 0, sizeof(L));
			grid.scheme = type->id;
			grid.m = ms[v % 9], v /= 9;
			grid.layout = layouts[v % 3], v /= 3;
			grid.scan = v % 2 ? PICARD_SCAN_PARALLEL : PICARD_SCAN_SERIAL, v /= 2;
			grid.adaptive = v % 2, v /= 2;
			L.dense = v % 2, v /= 2;
			if (grid.m > type->max_m && type->max_m > 0)
				continue;
			launch_shape(&grid, &L);
			if (type->cuda->instance(&grid, &L, model->name, v % 2 ? "double" : "float",
						 expression, sizeof(expression)))
				continue; /* a shape this scheme does not have */
			for (int i = 0; i < n && !known; i++)
				known = strcmp(list[i], expression) == 0;
			if (known)
				continue;
			if (n == cap) {
				char **grown = (char **)realloc(list, (cap = 2 * cap + 64) * sizeof(*list));

				if (!grown)
					break;
				list = grown;
			}
			list[n] = strdup(expression);
			if (list[n])
				n++;
		}
	}
	*out = list;
	*count = n;
	return list ? PICARD_OK : picard_fail(PICARD_ENOMEM, "kernel list");
}

static int precompile(const picard_model *model, const picard_scheme *only, int *instances)
{
	char **list = NULL;
	int count = 0, err = model_instances(model, only, &list, &count);

	if (!err)
		err = picard_jit_precompile(model, (const char *const *)list, count);
	for (int i = 0; i < count; i++)
		free(list[i]);
	free(list);
	if (instances)
		*instances = count;
	return err;
}

extern "C" int picard_precompile(const picard_model *model, int *instances)
{
	return precompile(model, NULL, instances);
}

extern "C" int picard_precompile_scheme(const picard_model *model, picard_scheme scheme,
					int *instances)
{
	return precompile(model, &scheme, instances);
}
