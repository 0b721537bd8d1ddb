/* model_impl.h - what a model file compiles into besides its description:
 * host right-hand sides for the CPU backend and the GSL reference, the
 * host integrations of the per-thread schemes, and the source its kernels
 * are compiled from at run time (see kernels/picard_model.cuh). Shared by
 * C and C++ code. */
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
/* f in binary128 on the host, for the Gauss-Legendre judge
 * (src/reference/gauss_reference.c): t, x[dim], p[nparams] and dxdt[dim]
 * are __float128, passed as void so that every compiler that reads this
 * header (nvcc, NVRTC) sees the same struct. */
typedef void picard_rhs_quad(const void *t, const void *x, const void *p, void *dxdt);
typedef void picard_jacobian_double(double t, const double *x, const double *p,
				    double *J);

/* What the compiler made of a kernel (cudaFuncAttributes). */
struct picard_kernel_info {
	int max_threads;    /* threads per block it may be launched with */
	int registers;      /* registers per thread */
	size_t local_bytes; /* local memory per thread: spills, dynamic arrays */
};

struct picard_job; /* src/backend.h */

/* A per-thread Runge-Kutta scheme's trajectory on the host (kernels/
 * rk_host.h): trajectory traj of a job, its status, the failing window
 * into *fail_window. */
typedef picard_traj_status picard_rk_host_fn(const struct picard_job *job, long traj,
					      long *fail_window);

/* Slots of picard_model_impl.rk_host, one per Runge-Kutta scheme (its
 * table's impl_slot, src/scheme_rk.c). */
#define PICARD_RK_SLOTS 7

struct picard_model_impl {
	picard_rhs_double *rhs_double; /* f in double, on the host */
	picard_rhs_float *rhs_float;   /* f in float, on the host */
	/* dp5, dp8, vern9, radau5, rodas5p, rodas4, ros23 on the host, [0]
	 * float, [1] double */
	picard_rk_host_fn *rk_host[PICARD_RK_SLOTS][2];
	/* The model file's text, from which NVRTC compiles the kernels a
	 * solve needs at run time (src/jit.c), and the path its messages
	 * name. */
	const char *source;
	const char *source_path;
	/* J[i*dim + k] = d f_i / d x_k on the host in double: [0] the model's
	 * own when it declares one, else by automatic differentiation, [1]
	 * always the latter (kernels/jacobian.cuh) */
	picard_jacobian_double *jacobian[2];
	int declares_jacobian; /* [0] is the model's own */
	picard_rhs_quad *rhs_quad; /* f in binary128, or NULL where the host
				      compiler has no __float128 */
};

/* The host integrations of Runge-Kutta slot (its tableau's struct
 * named), [0] float, [1] double, into *host: a built-in model's own, or,
 * for a model file loaded at run time, built on first use (src/
 * model_load.c). */
int picard_model_rk_host(const picard_model *model, int slot, const char *tableau,
			 picard_rk_host_fn *const **host);

/* Build, in parallel, the host sides of the n Runge-Kutta tableaus
 * (their structs' names) that picard_model_rk_host would build one after
 * the other on first use: a model file's, not yet in the cache. The
 * first failure is returned; what was built stays. Nothing to do for a
 * built-in model. */
int picard_model_prepare_rk_hosts(const picard_model *model, const char *const *tableaus, int n);

#ifdef __cplusplus
}
#endif

#endif
