/* cuda_newton.c - the newton schemes on the CUDA backend
 * (newton_kernel.cuh): windows across threads, a block per trajectory's
 * step; their device workspace (newton_rules.h) beside the lobatto
 * window's tables, and the host loop of launches that runs a chunk. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_lobatto.h"
#include "errors.h"
#include "newton_rules.h"
#include "scheme.h"
#include "device_counts.h"

/* Its state: the lobatto window's tables and the workspace. */
struct cuda_newton {
	struct picard_cuda_lobatto lobatto; /* tables, dense output weights */
	struct picard_newton_workspace ws;  /* device buffers (newton_rules.h) */
};

/* Its own shape: a thread per window, a block per trajectory's step. */
static void newton_layout(picard_grid *grid, const picard_options_layout *asked, int dim,
			  long ntraj, int sms)
{
	(void)asked, (void)dim, (void)ntraj, (void)sms;
	grid->layout = PICARD_LAYOUT_THREAD;
	grid->scan = PICARD_SCAN_AUTO;
	grid->traj_per_block = 1;
}

static int newton_instance(const picard_grid *grid, const struct picard_launch *L,
			   const char *model, const char *real, char *buf, size_t len)
{
	(void)grid;
	if (strcmp(real, "double") != 0)
		return picard_fail(PICARD_EINVAL, "the newton scheme runs in double");
	snprintf(buf, len, "picard::picard_newton_kernel<%s, %s>", model, picard_cuda_flag(L->dense));
	return PICARD_OK;
}

static int newton_threads_per_traj(const picard_grid *grid, const struct picard_launch *L)
{
	(void)grid, (void)L;
	return 0;
}

static int newton_launch_threads(const struct picard_cuda_solver *cuda,
				 const struct picard_launch *L)
{
	const struct cuda_newton *state = cuda->own;

	(void)L;
	return state->ws.step_threads;
}

/* The scan's maps (n x n and n) of each step thread, twice, within the
 * static limit of shared memory. */
#define NEWTON_SHARED_BYTES 48000
#define NEWTON_STEP_THREADS_MAX 256

static size_t newton_map_bytes(int n)
{
	return 2 * ((size_t)n * n + n) * sizeof(double);
}

static size_t newton_traj_bytes(const picard_grid *grid, int n)
{
	const size_t B = grid->block, m = grid->m, N = (m - 1) * n;

	return B * (m * n + N * (n + 1) + 1) * sizeof(double) + 3 * B * sizeof(int) +
	       n * sizeof(double) + sizeof(struct picard_newton_control);
}

/* Windows per block of the linearisation: as many warps as the shared
 * memory holds windows, at most NEWTON_LINEARISE_WARPS_MAX. */
#define NEWTON_LINEARISE_WARPS_MAX 4

static size_t newton_window_bytes(const struct picard_cuda_solver *cuda)
{
	const int n = cuda->model->dim, m = cuda->grid.m;

	return picard_newton_window_reals((m - 1) * n, n, m) * sizeof(double);
}

static int newton_upload(struct picard_cuda_solver *cuda, long chunk, int sm_count,
			 int kernel_threads)
{
	struct cuda_newton *state = calloc(1, sizeof(*state));
	struct picard_newton_workspace *ws = state ? &state->ws : NULL;
	const int n = cuda->model->dim, m = cuda->grid.m, B = cuda->grid.block;
	const size_t N = (size_t)(m - 1) * n, windows = (size_t)chunk * B;
	int T = NEWTON_STEP_THREADS_MAX, err;

	if (!state)
		return picard_fail(PICARD_ENOMEM, "newton: its state");
	cuda->own = state;
	err = picard_cuda_lobatto_upload(cuda, &state->lobatto, chunk, sm_count, kernel_threads);
	if (err)
		return err;
	while (T > 1 && (T * newton_map_bytes(n) > NEWTON_SHARED_BYTES || T > kernel_threads))
		T /= 2;
	if (T * newton_map_bytes(n) > NEWTON_SHARED_BYTES)
		return picard_fail(PICARD_EINVAL, "the newton scheme's scan holds a map of %d x %d "
				   "reals per thread in shared memory: at most %d components on the "
				   "GPU (--backend cpu runs any)", n, n, 50);
	if (newton_window_bytes(cuda) > NEWTON_SHARED_BYTES)
		return picard_fail(PICARD_EINVAL, "the newton scheme's linear system of a window, "
				   "(m-1) n = %zu unknowns, takes %zu bytes of shared memory, over %d: "
				   "fewer nodes (--m) or --backend cpu", N, newton_window_bytes(cuda),
				   NEWTON_SHARED_BYTES);
	ws->B = B;
	ws->N = (int)N;
	ws->step_threads = T;
	ws->linearise_warps = NEWTON_LINEARISE_WARPS_MAX;
	while (ws->linearise_warps > 1 &&
	       ws->linearise_warps * newton_window_bytes(cuda) > NEWTON_SHARED_BYTES)
		ws->linearise_warps--;
	CUDA_TRY(cudaMalloc((void **)&ws->X, windows * m * n * sizeof(double)),
		 "newton: device memory");
	CUDA_TRY(cudaMalloc((void **)&ws->R, windows * N * (n + 1) * sizeof(double)),
		 "newton: device memory");
	CUDA_TRY(cudaMalloc((void **)&ws->start, chunk * n * sizeof(double)),
		 "newton: device memory");
	CUDA_TRY(cudaMalloc((void **)&ws->change, windows * sizeof(double)),
		 "newton: device memory");
	CUDA_TRY(cudaMalloc((void **)&ws->slope, windows * sizeof(double)),
		 "newton: device memory");
	CUDA_TRY(cudaMalloc((void **)&ws->age, windows * sizeof(int)), "newton: device memory");
	CUDA_TRY(cudaMalloc((void **)&ws->linearised, windows * sizeof(int)),
		 "newton: device memory");
	CUDA_TRY(cudaMalloc((void **)&ws->trusted, windows * sizeof(int)), "newton: device memory");
	CUDA_TRY(cudaMalloc((void **)&ws->ctl, chunk * sizeof(*ws->ctl)), "newton: device memory");
	ws->predicted = NULL;
	if (picard_scheme_of(cuda->grid.scheme)->solves_stiff) /* the predictor check */
		CUDA_TRY(cudaMalloc((void **)&ws->predicted, windows * n * sizeof(double)),
			 "newton: device memory");
	CUDA_TRY(cudaMalloc((void **)&ws->ndone, sizeof(int)), "newton: device memory");
out:
	return err;
}

static void newton_release(void *own)
{
	struct cuda_newton *state = own;
	struct picard_newton_workspace *ws = state ? &state->ws : NULL;

	if (!state)
		return;
	picard_cuda_lobatto_free(&state->lobatto);
	cudaFree(ws->X), cudaFree(ws->R), cudaFree(ws->start);
	cudaFree(ws->change), cudaFree(ws->slope), cudaFree(ws->age), cudaFree(ws->linearised),
		cudaFree(ws->trusted);
	cudaFree(ws->ctl), cudaFree(ws->ndone), cudaFree(ws->predicted);
	free(state);
}

/* Iterations between two looks at how many trajectories are done: the
 * launches run ahead of the host meanwhile (a finished trajectory's
 * phases return at once). */
#define NEWTON_POLL 8

/* PICARD_NEWTON_PROFILE=1: each phase timed on its own (events around
 * every launch, which serialises them: the sum is slower than a plain
 * solve), reported on stderr after the solve: where an iteration's time
 * goes (bench/newton). */
struct newton_profile {
	bool on;
	cudaEvent_t mark[2];
	float ms[2];      /* linearise, step */
	long launches[2];
};

static void newton_profile_phase(struct newton_profile *prof, int phase, cudaStream_t stream,
				 bool after)
{
	float ms = 0;

	if (!prof->on)
		return;
	cudaEventRecord(prof->mark[after], stream);
	if (!after)
		return;
	picard_event_wait(prof->mark[1]);
	cudaEventElapsedTime(&ms, prof->mark[0], prof->mark[1]);
	prof->ms[phase - 1] += ms;
	prof->launches[phase - 1]++;
}

/* The host loop: start, then linearise and step until every trajectory
 * of the chunk is done. Each window is the block's first for at most K
 * iterations, so the loop is bounded. */
static int newton_run(struct picard_cuda_solver *cuda, const struct picard_launch *L)
{
	struct newton_profile prof = {0};
	const struct cuda_newton *state = cuda->own;
	const struct picard_newton_workspace *ws = &state->ws;
	const void *kernel = picard_cuda_kernel_of(cuda, L);
	const long per_traj = (ws->B + ws->linearise_warps - 1) / ws->linearise_warps;
	const size_t linearise_shared = ws->linearise_warps * newton_window_bytes(cuda);
	const double limit = (double)L->windows * (L->K + 2) + NEWTON_POLL;
	const size_t shared = (size_t)ws->step_threads * newton_map_bytes(cuda->model->dim);
	cudaStream_t stream = (cudaStream_t)L->stream;
	int phase = 0, done = 0, err = PICARD_OK;
	void *args[] = { (void *)L, (void *)ws, &phase };

	prof.on = getenv("PICARD_NEWTON_PROFILE") != NULL;
	for (int i = 0; prof.on && i < 2; i++)
		CUDA_TRY(cudaEventCreate(&prof.mark[i]), "cudaEventCreate");
	CUDA_TRY(cudaMemsetAsync(ws->ndone, 0, sizeof(int), stream), "cudaMemset");
	picard_count_launch();
	CUDA_TRY(cudaLaunchKernel(kernel, picard_cuda_dim((unsigned)((L->ntraj + 127) / 128)),
				  picard_cuda_dim(128), args, 0, stream), "newton: start");
	for (double it = 0; done < L->ntraj; it += NEWTON_POLL) {
		if (it > limit)
			return picard_fail(PICARD_EFAILED, "newton: %g iterations without an end", it);
		for (int i = 0; i < NEWTON_POLL; i++) {
			phase = 1;
			newton_profile_phase(&prof, phase, stream, false);
			picard_count_launch();
			CUDA_TRY(cudaLaunchKernel(kernel,
						  picard_cuda_dim((unsigned)(L->ntraj * per_traj)),
						  picard_cuda_dim(32 * ws->linearise_warps), args,
						  linearise_shared, stream), "newton: linearise");
			newton_profile_phase(&prof, phase, stream, true);
			phase = 2;
			newton_profile_phase(&prof, phase, stream, false);
			picard_count_launch();
			CUDA_TRY(cudaLaunchKernel(kernel, picard_cuda_dim((unsigned)L->ntraj),
						  picard_cuda_dim((unsigned)ws->step_threads), args,
						  shared, stream),
				 "newton: step");
			newton_profile_phase(&prof, phase, stream, true);
		}
		CUDA_TRY(cudaMemcpyAsync(&done, ws->ndone, sizeof(int), cudaMemcpyDeviceToHost, stream),
			 "newton: progress");
		CUDA_TRY(picard_stream_wait(stream), "newton: progress");
	}
	if (prof.on)
		fprintf(stderr, "newton profile: %ld iterations launched (%d between looks), "
			"linearise %.3f ms (%.1f us each, %d warps of %ld blocks), step %.3f ms "
			"(%.1f us each, %d threads)\n", prof.launches[0], NEWTON_POLL, prof.ms[0],
			1e3 * prof.ms[0] / prof.launches[0], ws->linearise_warps,
			L->ntraj * per_traj, prof.ms[1], 1e3 * prof.ms[1] / prof.launches[1],
			ws->step_threads);
out:
	for (int i = 0; prof.on && i < 2; i++)
		cudaEventDestroy(prof.mark[i]);
	return err;
}

static void newton_fill_launch(const struct picard_cuda_solver *cuda, struct picard_launch *L)
{
	const struct cuda_newton *state = cuda->own;

	picard_cuda_lobatto_fill_launch(&state->lobatto, L);
}

static int newton_upload_dense(struct picard_cuda_solver *cuda, int r, const picard_record *rec,
			       const void **weights)
{
	struct cuda_newton *state = cuda->own;

	return picard_cuda_lobatto_upload_dense(cuda, &state->lobatto, r, rec, weights);
}

const struct picard_cuda_scheme picard_cuda_newton = {
	.layout = newton_layout,
	.instance = newton_instance,
	.group = picard_cuda_lobatto_group,
	.threads_per_traj = newton_threads_per_traj,
	.block_threads = newton_launch_threads,
	.upload = newton_upload,
	.fill_launch = newton_fill_launch,
	.upload_dense = newton_upload_dense,
	.traj_bytes = newton_traj_bytes,
	.run = newton_run,
	.release = newton_release,
};
