/* cuda_rk.h - the per-thread Runge-Kutta schemes' hooks on the CUDA
 * backend (cuda_rk.c), which radau5's part (src/schemes/radau5/
 * cuda_radau5.c) runs too: the same kernel template with its tableau. */
#ifndef PICARD_CUDA_RK_H
#define PICARD_CUDA_RK_H

#include "cuda_solver.h"

/* One thread per trajectory, traj_per_block of them a block. */
void picard_cuda_rk_layout(picard_grid *grid, const picard_options_layout *asked, int dim,
			   long ntraj, int sms);
/* picard_rk_kernel of the scheme's tableau; fixed and adaptive steps are
 * instances of their own. */
int picard_cuda_rk_instance(const picard_grid *grid, const struct picard_launch *L,
			    const char *model, const char *real, char *buf, size_t len);

#endif
