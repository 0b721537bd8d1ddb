/* cuda_rosenbrock.c - the Rosenbrock schemes on the CUDA backend: per-
 * thread schemes run by the Runge-Kutta kernel template with their
 * tableau (src/schemes/rk/cuda_rk.c), whose step (rosenbrock_integrate.cuh)
 * needs local memory that grows as the model's dim squared. */
#include "cuda_rk.h"

/* A Rosenbrock step holds two dim x dim matrices (J and W's LU:
 * ros::work, rosenbrock_integrate.cuh) in its thread's local memory: a
 * larger model is refused before any compile, with the reason. */
static int check_local(const picard_model *model, const picard_grid *grid, size_t real_size)
{
	return picard_cuda_rk_check_local(model, grid, real_size, 2,
					  "its step's two dim x dim matrices (J and W)");
}

const struct picard_cuda_scheme picard_cuda_rosenbrock = {
	.layout = picard_cuda_rk_layout,
	.instance = picard_cuda_rk_instance,
	.group = picard_cuda_one_lane,
	.threads_per_traj = picard_cuda_one_thread_each,
	.block_threads = picard_cuda_traj_per_block,
	.check_model = check_local,
};
