/* cuda_radau5.c - radau5 on the CUDA backend: a per-thread scheme run by
 * the Runge-Kutta kernel template with its tableau (src/schemes/rk/
 * cuda_rk.c), whose step (radau5_integrate.cuh) needs local memory that
 * grows as the model's dim squared. */
#include "cuda_rk.h"

/* radau5's step holds four dim x dim matrices (J, E1, E2's real and
 * imaginary parts: radau::work, src/schemes/radau5/radau5_integrate.cuh)
 * in its thread's local memory: a larger model is refused before any
 * compile, with the reason. */
static int check_local(const picard_model *model, const picard_grid *grid, size_t real_size)
{
	return picard_cuda_rk_check_local(model, grid, real_size, 4,
					  "its step's four dim x dim matrices");
}

const struct picard_cuda_scheme picard_cuda_radau5 = {
	.layout = picard_cuda_rk_layout,
	.instance = picard_cuda_rk_instance,
	.group = picard_cuda_one_lane,
	.threads_per_traj = picard_cuda_one_thread_each,
	.block_threads = picard_cuda_traj_per_block,
	.check_model = check_local,
};
