/* cuda_rosenbrock.c - the Rosenbrock schemes on the CUDA backend, in two
 * layouts (cuda_rk.h's stiff hooks):
 * - thread: one thread per trajectory, the Runge-Kutta kernel template
 *   with the scheme's tableau (src/schemes/rk/cuda_rk.c), its step
 *   (rosenbrock_integrate.cuh) in local memory that grows as dim squared;
 * - warp: a warp per trajectory (rk_warp_kernel.cuh), its step in shared
 *   memory, the LU and the vectors split over the lanes.
 *
 * AUTO takes the thread layout, the faster on the chemistry measured
 * (H200, 2026-11-28, bench/results/h200-2026-11-28-issue38-warp: gri30's
 * 54 components 4.2 times, h2o2 11, robertson 15): a reactor's
 * right-hand sides and Jacobian are one lane's work in the warp layout,
 * and they, not the LU, take a step's time. The warp layout when asked
 * for, or when the tuner times it faster: where the right-hand side is
 * cheap beside the LU (heat1d's 47 components: 2.5 times the thread
 * layout's speed with its LU's loops kept; NVRTC had not finished its
 * unrolled kernel after 20 minutes). */
#include "cuda_rk.h"
#include "launch.h"

/* A warp's work: ros::work<n, real, PICARD_ROS_MAX_STAGES, false> (W,
 * J's one-real stand-in, the stages, seven vectors, then piv's ints). */
static size_t shared_bytes(const picard_grid *grid, int dim, size_t real_size)
{
	const size_t n = (size_t)dim;

	return picard_cuda_stiff_shared_bytes(grid, n * n + 1 + (PICARD_ROS_MAX_STAGES + 7) * n, n,
					      dim, real_size);
}

/* The thread layout holds two dim x dim matrices (J and W's LU:
 * ros::work, rosenbrock_integrate.cuh) in its thread's local memory: a
 * larger model is refused before any compile, with the reason. */
static int check_model(const picard_model *model, const picard_grid *grid, size_t real_size)
{
	return picard_cuda_stiff_check_model(model, grid, real_size, 2,
					     "its step's two dim x dim matrices (J and W)");
}

const struct picard_cuda_scheme picard_cuda_rosenbrock =
	PICARD_CUDA_STIFF_SCHEME(check_model, shared_bytes);
