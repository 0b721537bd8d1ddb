/* cuda_trapezoid.c - the paper's scheme on the CUDA backend: its three
 * layouts (the paper's m*n threads a trajectory, paper_kernel.cuh; a warp's
 * lanes over the nodes and a thread a trajectory, warp_kernel.cuh), the
 * AUTO rule that picks one, and each layout's block. */
#include <stdio.h>

#include "cuda_solver.h"
#include "scheme.h"

/* AUTO's rule and the warp/thread defaults, measured on an NVIDIA H100 80GB
 * HBM3 (132 SMs, driver 580.159.04), 2026-11-23, lotka in float, K = 2,
 * solve time (CUDA events) median of 7 solves, bin/bench-layouts:
 * bench/results/h100-2026-11-23/suite/layouts.csv, after the convergence
 * test became a vote without division (src/schemes/convergence.h; the first
 * measurements, before it, are in h100-2026-11-23/layouts.txt: there the
 * warp layout won at m = 8, the division having cost the thread layout,
 * which tests every node in one thread, the most).
 *
 * Which layout. 8192 trajectories, windows of length 0.42 (239 windows):
 *
 *	m      paper   warp (parallel)  warp (serial)  thread
 *	2      0.73    0.48             0.41           0.13  ms
 *	4      0.81    0.59             0.60           0.21
 *	8      1.01    0.71             0.75           0.41
 *	16     1.30    0.91             1.16           0.85
 *	32     2.86    1.63             3.36           1.69
 *
 * and m = 8, h = 0.06 over the ensemble size:
 *
 *	ntraj     paper   warp    thread
 *	8192      1.00    0.71    0.41  ms
 *	32768     3.83    2.58    0.45
 *	1048576   118     77.3    7.78
 *
 * The thread layout's time is flat until the ensemble fills the GPU; the
 * warp layout's grows with ntraj from 8192 on. The thread layout now wins
 * at 8192 for every m <= 16; at m = 32 the warp layout does, by 4%, and
 * the crossing with the ensemble size lies near 96 trajectories per SM
 * (first measurement). The paper's layout never wins where the others
 * apply. So:
 *   m > 32                                     -> paper
 *   m <= AUTO_THREAD_MAX_M, or
 *   ntraj >= AUTO_THREAD_TRAJ_PER_SM * SMs     -> thread
 *   otherwise (m of 17 to 32, small ensembles) -> warp
 * Not measured: other models (a costlier right-hand side favours the warp
 * layout, which evaluates the m nodes in parallel, and the thread layout
 * spills for kepler in double past m = 8 per ptxas); picard-tune times
 * every layout and keeps the fastest, whatever AUTO says.
 *
 * Which scan: the serial sum wins at m = 2 (0.41 vs 0.48 ms), ties at m =
 * 4, loses from m = 8 on (0.75 vs 0.71, 1.16 vs 0.91, 3.36 vs 1.63 ms).
 *
 * Trajectories per block of the warp layout, Table 1 at h = 0.06 (m = 8):
 * 1: 1.32, 2: 0.77, 4..64: 0.71 ms (within 1%); first measurement: at m =
 * 2, 4: 4 per block best, at m = 16, 32: 16 per block. The thread layout:
 * 32, 64 or 128 per block alike (0.41 ms), 256 slower (0.45). */
#define AUTO_THREAD_TRAJ_PER_SM 96   /* thread layout from this many
					trajectories per SM on */
#define AUTO_THREAD_MAX_M 16         /* and for windows this short */
#define AUTO_WARP_MAX_DIM 32
#define AUTO_SERIAL_SCAN_MAX_M 2     /* serial sum (5) for m up to this */

/* Warp layout: trajectories per block for G lanes each (above). */
static int warp_traj_per_block(int lanes)
{
	return lanes <= 4 ? 4 : lanes == 8 ? 8 : 16;
}

/* The thread layout's bound MAXM >= m: each bound unrolls its loops. */
static int thread_max_m(int m)
{
	return m <= 4 ? 4 : m <= 8 ? 8 : m <= 16 ? 16 : PICARD_LAYOUT_MAX_M;
}

static void trapezoid_layout(picard_grid *grid, const picard_options_layout *asked, int dim,
			     long ntraj, int sms)
{
	picard_layout layout = asked->layout;

	if (layout == PICARD_LAYOUT_AUTO)
		layout = grid->m > PICARD_LAYOUT_MAX_M || dim > AUTO_WARP_MAX_DIM ?
				 PICARD_LAYOUT_PAPER :
			 thread_max_m(grid->m) * dim > PICARD_CUDA_THREAD_MAX_STATE ? PICARD_LAYOUT_WARP :
			 grid->m <= AUTO_THREAD_MAX_M ||
			 ntraj >= (long)AUTO_THREAD_TRAJ_PER_SM * sms ? PICARD_LAYOUT_THREAD :
			 PICARD_LAYOUT_WARP;
	grid->layout = layout;
	grid->scan = PICARD_SCAN_AUTO;
	grid->traj_per_block = asked->traj_per_block;
	switch (layout) {
	case PICARD_LAYOUT_WARP:
		grid->scan = asked->scan != PICARD_SCAN_AUTO ? asked->scan :
			     grid->m <= AUTO_SERIAL_SCAN_MAX_M ? PICARD_SCAN_SERIAL :
			     PICARD_SCAN_PARALLEL;
		if (!grid->traj_per_block)
			grid->traj_per_block = warp_traj_per_block(picard_cuda_group_lanes(grid->m));
		break;
	case PICARD_LAYOUT_THREAD:
		if (!grid->traj_per_block)
			grid->traj_per_block = PICARD_CUDA_THREAD_BLOCK;
		break;
	default:
		grid->traj_per_block = 1;
		break;
	}
}

static int trapezoid_instance(const picard_grid *grid, const struct picard_launch *L,
			      const char *model, const char *real, char *buf, size_t len)
{
	(void)grid;
	switch (L->layout) {
	case PICARD_LAYOUT_WARP:
		snprintf(buf, len, "picard_warp_kernel<%s, %s, %s, %s>", model, real,
			 picard_cuda_flag(L->scan != PICARD_SCAN_SERIAL), picard_cuda_flag(L->dense));
		break;
	case PICARD_LAYOUT_THREAD:
		snprintf(buf, len, "picard_thread_kernel<%s, %s, %d, %s>", model, real,
			 thread_max_m(L->m), picard_cuda_flag(L->dense));
		break;
	default:
		snprintf(buf, len, "picard_paper_kernel<%s, %s, %s>", model, real,
			 picard_cuda_flag(L->dense));
		break;
	}
	return PICARD_OK;
}

static int trapezoid_group(const picard_grid *grid)
{
	return grid->layout == PICARD_LAYOUT_WARP ? picard_cuda_group_lanes(grid->m) : 1;
}

/* The paper's block is m*n threads for one trajectory: no automatic
 * block to size. */
static int trapezoid_threads_per_traj(const picard_grid *grid, const struct picard_launch *L)
{
	return grid->layout == PICARD_LAYOUT_PAPER ? 0 : L->group;
}

static int trapezoid_launch_threads(const struct picard_cuda_solver *cuda,
				    const struct picard_launch *L)
{
	if (L->layout == PICARD_LAYOUT_PAPER)
		return L->m * cuda->model->dim;
	return L->traj_per_block * L->group;
}

const struct picard_cuda_scheme picard_cuda_trapezoid = {
	.layout = trapezoid_layout,
	.instance = trapezoid_instance,
	.group = trapezoid_group,
	.threads_per_traj = trapezoid_threads_per_traj,
	.block_threads = trapezoid_launch_threads,
};
