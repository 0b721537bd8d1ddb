/* cuda_radau5.c - radau5 on the CUDA backend, in two layouts (cuda_rk.h's
 * stiff hooks):
 * - thread: one thread per trajectory, the Runge-Kutta kernel template
 *   with its tableau (src/schemes/rk/cuda_rk.c), its step
 *   (radau5_integrate.cuh) in local memory that grows as dim squared;
 * - warp: a warp per trajectory (rk_warp_kernel.cuh), its step in shared
 *   memory, E1's and E2's LUs and the vectors split over the lanes, the
 *   three stages' right-hand sides on lanes 0-2 at once.
 * AUTO takes the thread layout, as the Rosenbrock schemes' does. */
#include "cuda_rk.h"

/* A warp's work: rk_warp_kernel.cuh's for radau5 (radau::work: J, E1,
 * E2's real and imaginary parts, z and w, the LUs' row swaps;
 * radau::vectors' 14 vectors; radau::polynomial's 3). */
static size_t shared_bytes(const picard_grid *grid, int dim, size_t real_size)
{
	const size_t n = (size_t)dim;

	return picard_cuda_stiff_shared_bytes(grid, 4 * n * n + 23 * n, 2 * n, dim, real_size);
}

/* The thread layout holds four dim x dim matrices (J, E1, E2's real and
 * imaginary parts: radau::work, radau5_integrate.cuh) in its thread's
 * local memory: a larger model is refused before any compile, with the
 * reason. */
static int check_model(const picard_model *model, const picard_grid *grid, size_t real_size)
{
	return picard_cuda_stiff_check_model(model, grid, real_size, 4,
					     "its step's four dim x dim matrices");
}

const struct picard_cuda_scheme picard_cuda_radau5 =
	PICARD_CUDA_STIFF_SCHEME(check_model, shared_bytes);
