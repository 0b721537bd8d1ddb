/* model_impl.h - what a model file compiles into besides its description:
 * host right-hand sides for the CPU backend and the GSL reference, and the
 * CUDA launchers of the kernels instantiated for it (see kernels/
 * picard_model.cuh). Shared by C and CUDA code. */
#ifndef PICARD_MODEL_IMPL_H
#define PICARD_MODEL_IMPL_H

#include "launch.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void picard_rhs_double(double t, const double *x, const double *p,
			       double *dxdt);
typedef void picard_rhs_float(float t, const float *x, const float *p,
			      float *dxdt);

struct picard_model_impl {
	picard_rhs_double *rhs_double; /* f in double, on the host */
	picard_rhs_float *rhs_float;   /* f in float, on the host */
	/* Launch the paper's kernel for this model in float / double. Called
	 * once per solve, never on the hot path. */
	int (*launch_float)(const struct picard_launch *launch);
	int (*launch_double)(const struct picard_launch *launch);
	/* Load the float / double kernel and give its threads-per-block limit;
	 * returns a cudaError_t. */
	int (*prepare_float)(int *max_threads);
	int (*prepare_double)(int *max_threads);
	/* The same for the lobatto kernel (kernels/lobatto_kernel.cuh), whose
	 * instance depends on the group of lanes per trajectory too. */
	int (*launch_lobatto_float)(const struct picard_launch *launch);
	int (*launch_lobatto_double)(const struct picard_launch *launch);
	int (*prepare_lobatto_float)(int group, int *max_threads);
	int (*prepare_lobatto_double)(int group, int *max_threads);
};

#ifdef __cplusplus
}
#endif

#endif
