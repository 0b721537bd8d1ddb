/* cuda_rk.c - the per-thread explicit Runge-Kutta schemes (dp5, dp8,
 * vern9) on the CUDA backend: one thread per trajectory, the instance of
 * rk_kernel.cuh for the scheme's tableau. */
#include <stdio.h>

#include "cuda_rk.h"
#include "errors.h"
#include "scheme.h"

void picard_cuda_rk_layout(picard_grid *grid, const picard_options_layout *asked, int dim,
			   long ntraj, int sms)
{
	(void)dim;
	(void)ntraj;
	(void)sms;
	grid->layout = PICARD_LAYOUT_THREAD;
	grid->scan = PICARD_SCAN_AUTO;
	grid->traj_per_block = asked->traj_per_block ? asked->traj_per_block :
						       PICARD_CUDA_THREAD_BLOCK;
}

int picard_cuda_rk_instance(const picard_grid *grid, const struct picard_launch *L,
			    const char *model, const char *real, char *buf, size_t len)
{
	snprintf(buf, len, "picard::picard_rk_kernel<%s, picard::%s, %s, %s, %s>", model,
		 picard_scheme_of(grid->scheme)->tableau, real, picard_cuda_flag(L->dense),
		 picard_cuda_flag(L->adaptive));
	return PICARD_OK;
}

int picard_cuda_rk_check_local(const picard_model *model, const picard_grid *grid,
			       size_t real_size, int matrices, const char *what)
{
	const double bytes = (double)matrices * model->dim * model->dim * real_size;

	if (bytes <= PICARD_CUDA_RK_LOCAL_MAX_BYTES)
		return PICARD_OK;
	return picard_fail(PICARD_EINVAL, "%s on the GPU: model %s (dim %d) needs %.0f KB of "
			   "local memory a thread for %s in %s, past the %u KB CUDA allows: run it "
			   "on the CPU backend (--backend cpu)",
			   picard_scheme_of(grid->scheme)->name, model->name, model->dim,
			   bytes / 1024, what, real_size == sizeof(double) ? "double" : "float",
			   PICARD_CUDA_RK_LOCAL_MAX_BYTES / 1024);
}

const struct picard_cuda_scheme picard_cuda_rk = {
	.layout = picard_cuda_rk_layout,
	.instance = picard_cuda_rk_instance,
	.group = picard_cuda_one_lane,
	.threads_per_traj = picard_cuda_one_thread_each,
	.block_threads = picard_cuda_traj_per_block,
};
