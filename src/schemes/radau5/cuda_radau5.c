/* cuda_radau5.c - radau5 on the CUDA backend: a per-thread scheme run by
 * the Runge-Kutta kernel template with its tableau (src/schemes/rk/
 * cuda_rk.c), whose step (radau5_integrate.cuh) needs local memory that
 * grows as the model's dim squared. */
#include "cuda_rk.h"
#include "errors.h"

/* radau5's step holds four dim x dim matrices (J, E1, E2's real and
 * imaginary parts: radau::work, src/schemes/radau5/radau5_integrate.cuh) in its
 * thread's local memory, which CUDA caps at 512 KB a thread: a larger
 * model is refused before any compile, with the reason. */
#define RADAU5_LOCAL_MAX_BYTES (512u * 1024)

static int check_local(const picard_model *model, const picard_grid *grid, size_t real_size)
{
	const double bytes = 4.0 * model->dim * model->dim * real_size;

	(void)grid;
	if (bytes <= RADAU5_LOCAL_MAX_BYTES)
		return PICARD_OK;
	return picard_fail(PICARD_EINVAL, "radau5 on the GPU: model %s (dim %d) needs %.0f KB of "
			   "local memory a thread for its step's four dim x dim matrices in %s, past "
			   "the %u KB CUDA allows: run it on the CPU backend (--backend cpu)",
			   model->name, model->dim, bytes / 1024,
			   real_size == sizeof(double) ? "double" : "float",
			   RADAU5_LOCAL_MAX_BYTES / 1024);
}

const struct picard_cuda_scheme picard_cuda_radau5 = {
	.layout = picard_cuda_rk_layout,
	.instance = picard_cuda_rk_instance,
	.group = picard_cuda_one_lane,
	.threads_per_traj = picard_cuda_one_thread_each,
	.block_threads = picard_cuda_traj_per_block,
	.check_model = check_local,
};
