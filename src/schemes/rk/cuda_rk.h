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

/* The stiff per-thread schemes' layouts (the Rosenbrock schemes,
 * radau5): thread, as above, or, when asked, warp: a warp per trajectory
 * (rk_warp_kernel.cuh, picard_rk_warp_kernel of the scheme's tableau), 1
 * trajectory a block unless asked, its work in shared memory. */
void picard_cuda_stiff_layout(picard_grid *grid, const picard_options_layout *asked, int dim,
			      long ntraj, int sms);
int picard_cuda_stiff_instance(const picard_grid *grid, const struct picard_launch *L,
			       const char *model, const char *real, char *buf, size_t len);
int picard_cuda_stiff_group(const picard_grid *grid);
int picard_cuda_stiff_threads_per_traj(const picard_grid *grid, const struct picard_launch *L);
int picard_cuda_stiff_block_threads(const struct picard_cuda_solver *cuda,
				    const struct picard_launch *L);
/* The warp layout's shared memory a block: a warp's slice is its work's
 * reals and ints (the ints rounded up to whole reals, as the struct
 * lays them out) and the state's dim reals, rounded up to 16 bytes; 0
 * in the thread layout. */
size_t picard_cuda_stiff_shared_bytes(const picard_grid *grid, size_t reals, size_t ints,
				      int dim, size_t real_size);
/* picard_cuda_rk_check_local in the thread layout; the warp layout's
 * shared memory is checked against the device's at launch. */
int picard_cuda_stiff_check_model(const picard_model *model, const picard_grid *grid,
				  size_t real_size, int matrices, const char *what);

/* A stiff scheme's CUDA part: the hooks above, its own model check and
 * warp slice. */
#define PICARD_CUDA_STIFF_SCHEME(check, shared)                            \
	{                                                                  \
		.layout = picard_cuda_stiff_layout,                        \
		.instance = picard_cuda_stiff_instance,                    \
		.group = picard_cuda_stiff_group,                          \
		.threads_per_traj = picard_cuda_stiff_threads_per_traj,    \
		.block_threads = picard_cuda_stiff_block_threads,          \
		.check_model = check,                                      \
		.shared_bytes = shared,                                    \
	}

#endif
