/* cuda_rosenbrock.c - the Rosenbrock schemes on the CUDA backend, in two
 * layouts:
 * - thread: one thread per trajectory, the Runge-Kutta kernel template
 *   with the scheme's tableau (src/schemes/rk/cuda_rk.c), its step
 *   (rosenbrock_integrate.cuh) in local memory that grows as dim squared;
 * - warp: a warp per trajectory (rosenbrock_warp.cuh), its step in shared
 *   memory, the LU and the vectors split over the lanes. */
#include <stdio.h>

#include "cuda_rk.h"
#include "errors.h"
#include "scheme.h"

static bool warp_layout(const picard_grid *grid)
{
	return grid->layout == PICARD_LAYOUT_WARP;
}

/* AUTO: the thread layout, the faster on the chemistry measured (H200,
 * 2026-11-28, bench/results/h200-2026-11-28-issue38-warp: gri30's 54
 * components 4.2 times, h2o2 11, robertson 15): a reactor's right-hand
 * sides and Jacobian are one lane's work in the warp layout, and they,
 * not the LU, take a step's time. The warp layout when asked for, or
 * when the tuner times it faster: where the right-hand side is cheap
 * beside the LU (heat1d's 47 components: 2.5 times the thread layout's
 * speed with its LU's loops kept; NVRTC had not finished its unrolled
 * kernel after 20 minutes). */
static void layout(picard_grid *grid, const picard_options_layout *asked, int dim, long ntraj,
		   int sms)
{
	picard_cuda_rk_layout(grid, asked, dim, ntraj, sms);
	if (asked->layout == PICARD_LAYOUT_WARP) {
		grid->layout = PICARD_LAYOUT_WARP;
		grid->traj_per_block = asked->traj_per_block ? asked->traj_per_block : 1;
	}
}

static int instance(const picard_grid *grid, const struct picard_launch *L, const char *model,
		    const char *real, char *buf, size_t len)
{
	if (!warp_layout(grid))
		return picard_cuda_rk_instance(grid, L, model, real, buf, len);
	snprintf(buf, len, "picard::picard_ros_warp_kernel<%s, picard::%s, %s, %s, %s>", model,
		 picard_scheme_of(grid->scheme)->tableau, real, picard_cuda_flag(L->dense),
		 picard_cuda_flag(L->adaptive));
	return PICARD_OK;
}

static int group(const picard_grid *grid)
{
	return warp_layout(grid) ? 32 : 1;
}

static int threads_per_traj(const picard_grid *grid, const struct picard_launch *L)
{
	(void)L;
	return warp_layout(grid) ? 32 : 1;
}

static int block_threads(const struct picard_cuda_solver *cuda, const struct picard_launch *L)
{
	return L->traj_per_block * (warp_layout(&cuda->grid) ? 32 : 1);
}

/* A warp's slice: ros::work<n, real, PICARD_ROS_MAX_STAGES, false> (W,
 * J's one-real stand-in, the stages, seven vectors, then piv's ints) and
 * the state, rounded up to 16 bytes. */
static size_t warp_slice_bytes(int n, size_t rs)
{
	const size_t reals = (size_t)n * n + 1 + (size_t)(PICARD_ROS_MAX_STAGES + 7) * n;
	const size_t ints = ((size_t)n * sizeof(int) + rs - 1) / rs * rs;
	const size_t bytes = reals * rs + ints + (size_t)n * rs;

	return (bytes + 15) / 16 * 16;
}

static size_t shared_bytes(const picard_grid *grid, int dim, size_t real_size)
{
	return warp_layout(grid) ? grid->traj_per_block * warp_slice_bytes(dim, real_size) : 0;
}

/* The thread layout holds two dim x dim matrices (J and W's LU:
 * ros::work, rosenbrock_integrate.cuh) in its thread's local memory: a
 * larger model is refused before any compile, with the reason. The warp
 * layout's shared memory is checked against the device's. */
static int check_model(const picard_model *model, const picard_grid *grid, size_t real_size)
{
	if (warp_layout(grid))
		return PICARD_OK;
	return picard_cuda_rk_check_local(model, grid, real_size, 2,
					  "its step's two dim x dim matrices (J and W)");
}

const struct picard_cuda_scheme picard_cuda_rosenbrock = {
	.layout = layout,
	.instance = instance,
	.group = group,
	.threads_per_traj = threads_per_traj,
	.block_threads = block_threads,
	.check_model = check_model,
	.shared_bytes = shared_bytes,
};
