/* cuda_rk.h - the per-thread Runge-Kutta schemes' hooks on the CUDA
 * backend (cuda_rk.c), which the implicit per-thread schemes' parts
 * (src/schemes/radau5/cuda_radau5.c, src/schemes/rosenbrock/
 * cuda_rosenbrock.c) run too: the same kernel template with their
 * tableau, and the refusal of a model whose step outgrows a thread's
 * local memory. */
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

/* A thread's local memory, which CUDA caps at 512 KB. */
#define PICARD_CUDA_RK_LOCAL_MAX_BYTES (512u * 1024)

/* An implicit per-thread scheme's check_model: a step that holds
 * matrices dim x dim matrices (what: their names, for the message) in
 * its thread's local memory is refused before any compile where they
 * pass PICARD_CUDA_RK_LOCAL_MAX_BYTES, with the reason and the CPU
 * backend as the way out. */
int picard_cuda_rk_check_local(const picard_model *model, const picard_grid *grid,
			       size_t real_size, int matrices, const char *what);

#endif
