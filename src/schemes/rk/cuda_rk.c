/* cuda_rk.c - the per-thread explicit Runge-Kutta schemes (dp5, dp8,
 * vern9) on the CUDA backend: one thread per trajectory, the instance of
 * rk_kernel.cuh for the scheme's tableau; and the stiff schemes' hooks
 * (cuda_rk.h), their warp layout's among them. */
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
	snprintf(buf, len, "picard::picard_rk_kernel<%s, picard::%s, %s, %s, %s, %s>", model,
		 picard_scheme_of(grid->scheme)->tableau, real, picard_cuda_flag(L->dense),
		 picard_cuda_flag(L->adaptive), picard_cuda_flag(L->span_t0 != NULL));
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

/* ---- the stiff schemes' warp layout (rk_warp_kernel.cuh) ---- */

static bool warp_layout(const picard_grid *grid)
{
	return grid->layout == PICARD_LAYOUT_WARP;
}

void picard_cuda_stiff_layout(picard_grid *grid, const picard_options_layout *asked, int dim,
			      long ntraj, int sms)
{
	picard_cuda_rk_layout(grid, asked, dim, ntraj, sms);
	if (asked->layout == PICARD_LAYOUT_WARP) {
		grid->layout = PICARD_LAYOUT_WARP;
		grid->traj_per_block = asked->traj_per_block ? asked->traj_per_block : 1;
	}
}

int picard_cuda_stiff_instance(const picard_grid *grid, const struct picard_launch *L,
			       const char *model, const char *real, char *buf, size_t len)
{
	if (!warp_layout(grid))
		return picard_cuda_rk_instance(grid, L, model, real, buf, len);
	snprintf(buf, len, "picard::picard_rk_warp_kernel<%s, picard::%s, %s, %s, %s, %s>", model,
		 picard_scheme_of(grid->scheme)->tableau, real, picard_cuda_flag(L->dense),
		 picard_cuda_flag(L->adaptive), picard_cuda_flag(L->span_t0 != NULL));
	return PICARD_OK;
}

int picard_cuda_stiff_group(const picard_grid *grid)
{
	return warp_layout(grid) ? 32 : 1;
}

int picard_cuda_stiff_threads_per_traj(const picard_grid *grid, const struct picard_launch *L)
{
	(void)L;
	return warp_layout(grid) ? 32 : 1;
}

int picard_cuda_stiff_block_threads(const struct picard_cuda_solver *cuda,
				    const struct picard_launch *L)
{
	return L->traj_per_block * (warp_layout(&cuda->grid) ? 32 : 1);
}

size_t picard_cuda_stiff_shared_bytes(const picard_grid *grid, size_t reals, size_t ints,
				      int dim, size_t real_size)
{
	const size_t int_bytes = (ints * sizeof(int) + real_size - 1) / real_size * real_size;
	const size_t slice = reals * real_size + int_bytes + (size_t)dim * real_size;

	return warp_layout(grid) ? grid->traj_per_block * ((slice + 15) / 16 * 16) : 0;
}

int picard_cuda_stiff_check_model(const picard_model *model, const picard_grid *grid,
				  size_t real_size, int matrices, const char *what)
{
	if (warp_layout(grid))
		return PICARD_OK; /* its shared memory is checked against the device's */
	return picard_cuda_rk_check_local(model, grid, real_size, matrices, what);
}

const struct picard_cuda_scheme picard_cuda_rk = {
	.layout = picard_cuda_rk_layout,
	.instance = picard_cuda_rk_instance,
	.group = picard_cuda_one_lane,
	.threads_per_traj = picard_cuda_one_thread_each,
	.block_threads = picard_cuda_traj_per_block,
};
