/* cuda_lobatto.c - the lobatto scheme on the CUDA backend: its group
 * (warp) layout, whose block follows the ensemble (lobatto_kernel.cuh),
 * and its thread layout (lobatto_thread_kernel.cuh), the AUTO rule
 * between them, and the collocation tables the kernels read. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda_lobatto.h"
#include "errors.h"
#include "lobatto.h"
#include "scheme.h"
#include "device_counts.h"

/* The lobatto scheme's layouts, H100 2026-11-23, lotka float m = 6, 15
 * windows, iter_rtol 1e-6, bench-picard, median solve time (us):
 *
 *	ntraj      warp     thread
 *	8192       88.6     134.7
 *	65536      440.9    220.7
 *	262144     1661.9   772.9
 *	1048576    6436.6   2844.5
 *
 * The warp layout wins while its groups alone keep the SMs busy (62
 * trajectories per SM: by 1.5x), the thread layout once the ensemble does
 * (496 per SM: by 2.0x); AUTO switches at the geometric mean of the two,
 * not measured in between, and for m <= PICARD_LOBATTO_THREAD_MAX_M.
 * picard-tune times both. */
#define AUTO_LOBATTO_THREAD_TRAJ_PER_SM 176

/* Trajectories per warp of the lobatto kernel: 32/G, except for an
 * ensemble of at most 4 per multiprocessor, which cannot hide latency
 * anyway: one per warp, so that no trajectory's window waits on another's
 * sweeps (the groups of a warp diverge when their sweep counts differ). */
static int lobatto_groups_per_warp(long ntraj, int G, int sm_count)
{
	return ntraj <= 4L * sm_count ? 1 : 32 / G;
}

/* Threads per block of the lobatto kernel: 256 (8 warps), halved down to
 * one warp while the ensemble would fill fewer blocks than the device has
 * multiprocessors, so a small ensemble (kepler's 64 trajectories) still
 * spreads over many SMs; at most the kernel's limit. */
static int lobatto_block_threads(long ntraj, int groups_per_warp, int sm_count,
				 int kernel_threads)
{
	const double warps = ceil((double)ntraj / groups_per_warp);
	int threads = 256;

	while (threads > 32 && warps * 32 / threads < sm_count)
		threads /= 2;
	while (threads > 32 && threads > kernel_threads)
		threads /= 2;
	return threads;
}

/* Its own kernels: the group (warp) layout, whose block shape follows the
 * ensemble (lobatto_block_threads), or the thread layout
 * (lobatto_thread_kernel.cuh); AUTO by the ensemble (above). */
static void lobatto_layout(picard_grid *grid, const picard_options_layout *asked, int dim,
			   long ntraj, int sms)
{
	/* windows in flight: a group per window, or the paper layout's thread
	 * per node and component, where asked, and by AUTO where its block
	 * fits (whole warps a window, P windows within the kernel's bound):
	 * it was the faster on every grid measured
	 * (bench/results/h200-2026-11-29-issue40-paper/) */
	const int W = picard_cuda_group_lanes(grid->m) * dim;
	const bool paper_fits = W % 32 == 0 && grid->block * W <= PICARD_LOBATTO_TIME_THREADS;
	picard_layout layout = grid->block <= 1 ? asked->layout :
			       asked->layout == PICARD_LAYOUT_PAPER ||
			       (asked->layout == PICARD_LAYOUT_AUTO && paper_fits) ?
			       PICARD_LAYOUT_PAPER : PICARD_LAYOUT_WARP;

	if (layout == PICARD_LAYOUT_AUTO)
		layout = grid->m <= PICARD_LOBATTO_THREAD_MAX_M &&
			 (grid->m <= 8 ? 8 : 16) * dim <= PICARD_CUDA_THREAD_MAX_STATE &&
			 ntraj >= (long)AUTO_LOBATTO_THREAD_TRAJ_PER_SM * sms ?
			 PICARD_LAYOUT_THREAD : PICARD_LAYOUT_WARP;
	grid->layout = layout == PICARD_LAYOUT_THREAD || layout == PICARD_LAYOUT_PAPER ? layout :
		       PICARD_LAYOUT_WARP;
	grid->scan = PICARD_SCAN_AUTO;
	grid->traj_per_block = layout != PICARD_LAYOUT_THREAD ? 0 :
			       asked->traj_per_block ? asked->traj_per_block :
			       PICARD_CUDA_THREAD_BLOCK;
}

/* The group layout's instance of G = L->group lanes (with windows in
 * flight, grid->block > 1, the time kernel's); the thread layout's of the
 * bound MAXM (8 or 16) >= m. */
static int lobatto_instance(const picard_grid *grid, const struct picard_launch *L,
			    const char *model, const char *real, char *buf, size_t len)
{
	if (L->layout == PICARD_LAYOUT_THREAD) {
		if (L->m > PICARD_LOBATTO_THREAD_MAX_M)
			return picard_fail(PICARD_EINVAL, "lobatto thread layout: m = %d, at most %d",
					   L->m, PICARD_LOBATTO_THREAD_MAX_M);
		snprintf(buf, len, "picard_lobatto_thread_kernel<%s, %s, %d, %s>", model, real,
			 L->m <= 8 ? 8 : 16, picard_cuda_flag(L->dense));
		return PICARD_OK;
	}
	if (L->group < 2 || L->group > 32 || (L->group & (L->group - 1)))
		return picard_fail(PICARD_EINVAL, "lobatto: %d lanes per trajectory", L->group);
	snprintf(buf, len, "picard_lobatto_%skernel<%s, %s, %d, %s>",
		 grid->block <= 1 ? "" : L->layout == PICARD_LAYOUT_PAPER ? "time_paper_" : "time_",
		 model, real, L->group, picard_cuda_flag(L->dense));
	return PICARD_OK;
}

/* G lanes in both layouts: the thread layout's is only its tables' stride. */
int picard_cuda_lobatto_group(const picard_grid *grid)
{
	return picard_cuda_group_lanes(grid->m);
}

/* The thread layout: one thread each; the group layout's block (and the
 * paper layout's, windows in flight) is sized by picard_cuda_lobatto_upload. */
static int lobatto_threads_per_traj(const picard_grid *grid, const struct picard_launch *L)
{
	(void)L;
	return grid->layout == PICARD_LAYOUT_THREAD ? 1 : 0;
}

static int lobatto_launch_threads(const struct picard_cuda_solver *cuda,
				  const struct picard_launch *L)
{
	(void)cuda;
	return L->layout == PICARD_LAYOUT_THREAD ? L->traj_per_block : L->block_threads;
}

/* The lobatto kernel's shape (lanes per trajectory, threads per block for
 * a chunk of ntraj) and its tables on the device: A^T and E^T [l][j] with
 * rows of G (zero past m), then the node offsets, as picard_launch says. */
int picard_cuda_lobatto_upload(struct picard_cuda_solver *cuda, struct picard_cuda_lobatto *state,
			       long ntraj, int sm_count, int kernel_threads)
{
	const int m = cuda->grid.m;
	size_t bytes;
	struct picard_lobatto *lob = NULL;
	unsigned char *host = NULL;
	const int G = picard_cuda_group_lanes(m); /* lanes per trajectory, m >= 2 */
	int err;

	if (cuda->grid.block > 1 && cuda->grid.layout == PICARD_LAYOUT_PAPER) {
		/* a block per trajectory, a thread per node and component of
		 * each window in flight: whole warps a window */
		const int W = G * cuda->model->dim;

		if (W % 32)
			return picard_fail(PICARD_EINVAL, "layout paper with windows in flight: a window's "
					   "%d nodes (m = %d rounded up) times %s's %d components, %d "
					   "threads, must fill whole warps (a multiple of 32)", G, m,
					   cuda->model->name, cuda->model->dim, W);
		if (cuda->grid.block * W > kernel_threads)
			return picard_fail(PICARD_EBLOCK, "layout paper: block = %d windows in flight of "
					   "%d threads each, %d threads; the kernel of this model allows "
					   "%d per block", cuda->grid.block, W, cuda->grid.block * W,
					   kernel_threads);
		state->groups_per_warp = 1;
		state->block_threads = cuda->grid.block * W;
		cuda->grid.traj_per_block = 1;
	} else if (cuda->grid.block > 1) { /* a block per trajectory, a group per window in flight */
		if (kernel_threads < 2 * G)
			return picard_fail(PICARD_EBLOCK, "lobatto with windows in flight: the kernel "
					   "of this model allows %d threads per block", kernel_threads);
		if (cuda->grid.block > kernel_threads / G)
			cuda->grid.block = kernel_threads / G;
		state->groups_per_warp = 32 / G;
		state->block_threads = (cuda->grid.block * G + 31) / 32 * 32;
		cuda->grid.traj_per_block = 1;
	} else if (cuda->grid.layout == PICARD_LAYOUT_WARP) {
		state->groups_per_warp = lobatto_groups_per_warp(ntraj, G, sm_count);
		state->block_threads = lobatto_block_threads(ntraj, state->groups_per_warp,
							     sm_count, kernel_threads);
		cuda->grid.traj_per_block = state->block_threads / 32 * state->groups_per_warp;
	}
	bytes = 2 * (size_t)G * G * cuda->real_size + G * sizeof(double);
	lob = (struct picard_lobatto *)malloc(sizeof(*lob));
	host = (unsigned char *)calloc(1, bytes);
	if (!lob || !host) {
		err = picard_fail(PICARD_ENOMEM, "lobatto tables");
		goto out;
	}
	err = picard_scheme_of(cuda->grid.scheme)->collocation(m, lob);
	if (err)
		goto out;
	picard_lobatto_tables(lob, cuda->grid.window, cuda->precision == PICARD_DOUBLE, G, true,
			      host, host + (size_t)G * G * cuda->real_size,
			      (double *)(host + 2 * (size_t)G * G * cuda->real_size));
	CUDA_TRY(cudaMalloc(&state->tables, bytes), "device memory for the lobatto tables");
	CUDA_TRY(picard_memcpy(state->tables, host, bytes, cudaMemcpyHostToDevice),
		 "copy the lobatto tables");
out:
	free(lob);
	free(host);
	return err;
}

/* A lobatto record's dense output weights (picard_lobatto_dense_weights)
 * into the device buffer of record r. */
int picard_cuda_lobatto_upload_dense(struct picard_cuda_solver *cuda,
				     struct picard_cuda_lobatto *state, int r,
				     const picard_record *rec, const void **weights)
{
	const int m = cuda->grid.m;
	const size_t bytes = (size_t)rec->ntimes * m * cuda->real_size;
	struct picard_lobatto *lob = (struct picard_lobatto *)malloc(sizeof(*lob));
	void *host = malloc(bytes);
	int err = !lob || !host ? picard_fail(PICARD_ENOMEM, "dense output weights of %ld times",
					      rec->ntimes) :
				  picard_scheme_of(cuda->grid.scheme)->collocation(m, lob);

	if (!err) {
		picard_lobatto_dense_weights(lob, &cuda->grid, rec->times, rec->ntimes,
					     cuda->precision == PICARD_DOUBLE, host);
		err = picard_cuda_upload_grown(&state->weights[r], &state->weights_size[r], host,
					       bytes, "dense output weights");
	}
	*weights = state->weights[r];
	free(lob);
	free(host);
	return err;
}

void picard_cuda_lobatto_fill_launch(const struct picard_cuda_lobatto *state,
				     struct picard_launch *L)
{
	L->groups_per_warp = state->groups_per_warp;
	L->block_threads = state->block_threads;
	L->lobatto_tables = state->tables;
}

void picard_cuda_lobatto_free(struct picard_cuda_lobatto *state)
{
	cudaFree(state->tables);
	for (int r = 0; r < PICARD_MAX_RECORDS; r++)
		cudaFree(state->weights[r]);
}

/* ---- the scheme's hooks: its state is a struct picard_cuda_lobatto ------------- */

static int upload(struct picard_cuda_solver *cuda, long chunk, int sm_count, int kernel_threads)
{
	struct picard_cuda_lobatto *state = calloc(1, sizeof(*state));

	if (!state)
		return picard_fail(PICARD_ENOMEM, "lobatto tables");
	cuda->own = state;
	return picard_cuda_lobatto_upload(cuda, state, chunk, sm_count, kernel_threads);
}

static void fill_launch(const struct picard_cuda_solver *cuda, struct picard_launch *L)
{
	picard_cuda_lobatto_fill_launch(cuda->own, L);
}

static int upload_dense(struct picard_cuda_solver *cuda, int r, const picard_record *rec,
			const void **weights)
{
	return picard_cuda_lobatto_upload_dense(cuda, cuda->own, r, rec, weights);
}

static void release(void *own)
{
	if (own)
		picard_cuda_lobatto_free(own);
	free(own);
}

/* With windows in flight: their ends and sums, [2][P][n] each, and the
 * front's verdicts (lobatto_time_kernel.cuh); the paper layout's also the
 * windows' states [2][P][n][G] and its warps' votes and plain changes
 * (lobatto_time_paper_kernel.cuh); else none. */
static size_t shared_bytes(const picard_grid *grid, int dim, size_t real_size)
{
	const size_t P = grid->block > 1 ? (size_t)grid->block : 0;
	const size_t W = (size_t)picard_cuda_group_lanes(grid->m) * dim;
	const size_t warps = W / 32 > 0 ? W / 32 : 1;

	if (grid->layout == PICARD_LAYOUT_PAPER)
		return (4 * P * dim + 2 * P * W) * real_size + 2 * P * warps * (sizeof(int) +
									  sizeof(float));
	return P ? 4 * P * dim * real_size + 2 * sizeof(int) : 0;
}

const struct picard_cuda_scheme picard_cuda_lobatto = {
	.layout = lobatto_layout,
	.instance = lobatto_instance,
	.group = picard_cuda_lobatto_group,
	.threads_per_traj = lobatto_threads_per_traj,
	.block_threads = lobatto_launch_threads,
	.shared_bytes = shared_bytes,
	.upload = upload,
	.fill_launch = fill_launch,
	.upload_dense = upload_dense,
	.release = release,
};
