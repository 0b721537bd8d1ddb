/* model_impl.h - what a model file compiles into besides its description:
 * host right-hand sides for the CPU backend and the GSL reference, and the
 * CUDA launchers of the kernels instantiated for it (see kernels/
 * picard_model.cuh). Shared by C and CUDA code. */
#ifndef PICARD_MODEL_IMPL_H
#define PICARD_MODEL_IMPL_H

#include "launch.h"
#include "picard.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void picard_rhs_double(double t, const double *x, const double *p,
			       double *dxdt);
typedef void picard_rhs_float(float t, const float *x, const float *p,
			      float *dxdt);

/* What the compiler made of a kernel (cudaFuncAttributes). */
struct picard_kernel_info {
	int max_threads;    /* threads per block it may be launched with */
	int registers;      /* registers per thread */
	size_t local_bytes; /* local memory per thread: spills, dynamic arrays */
};

/* One layout's kernel for one model and precision. */
struct picard_kernels {
	/* Launch it for launch (layout, shape, buffers). Called once per
	 * solve chunk, never on the hot path; returns a cudaError_t. */
	int (*launch)(const struct picard_launch *launch);
	/* Load the instantiation launch would run (so module loading stays
	 * out of the timed solve) and describe it; returns a cudaError_t. */
	int (*prepare)(const struct picard_launch *launch,
		       struct picard_kernel_info *info);
};

struct picard_job; /* src/backend.h */

/* A per-thread Runge-Kutta scheme for one model (kernels/rk_kernel.cuh):
 * trajectory traj of a job integrated on the host, [0] float, [1] double
 * (the CPU backend), and the kernel that does the same on the device. */
struct picard_rk_impl {
	picard_traj_status (*host[2])(const struct picard_job *job, long traj,
				      long *fail_window);
	struct picard_kernels cuda[2];
};

/* Slots of picard_model_impl.rk, one per Runge-Kutta scheme (its table's
 * impl_slot, src/scheme_rk.c). */
#define PICARD_RK_SLOTS 3

struct picard_model_impl {
	picard_rhs_double *rhs_double; /* f in double, on the host */
	picard_rhs_float *rhs_float;   /* f in float, on the host */
	/* The CUDA kernels instantiated for this model, [0] float, [1]
	 * double: the trapezoid scheme in the paper's layout (kernels/
	 * paper_kernel.cuh), the warp and the thread layouts (kernels/
	 * warp_kernel.cuh), and the lobatto scheme in the group layout
	 * (kernels/lobatto_kernel.cuh, whose instance depends on
	 * launch->group) and the thread layout (kernels/
	 * lobatto_thread_kernel.cuh). */
	struct picard_kernels paper[2], warp[2], thread[2], lobatto[2], lobatto_thread[2];
	/* dp5, dp8, vern9 */
	struct picard_rk_impl rk[PICARD_RK_SLOTS];
};

#ifdef __cplusplus
}
#endif

#endif
