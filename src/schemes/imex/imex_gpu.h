/* imex_gpu.h - the imex schemes on the GPU (src/schemes/imex/engine.cu): a chunk
 * of members integrated together, window by window, with per-step
 * launches. Per window and sweep: one launch of the run-time compiled
 * kernel (src/schemes/imex/imex_kernel.cuh) evaluates g at every stage of every
 * step from the previous sweep's values; then, step by step and stage by
 * stage, a launch builds the right-hand sides and the stage's system
 * (I - gamma h A) Y = r is solved for every member at once: a batch of
 * tridiagonal systems (1D), the Peaceman-Rachford ADI iteration over
 * batches of x and y lines (2D), each by a GPU tridiagonal method
 * (src/linsolve/gpu/tridiag/), or batched CG or BiCGStab over the members' M = I -
 * gamma h A in CSR, one sparsity pattern for all (src/linsolve/gpu/krylov/). Plain
 * C, called by the schemes' CUDA part, src/schemes/imex/cuda_imex.c. */
#ifndef PICARD_IMEX_GPU_H
#define PICARD_IMEX_GPU_H

#include <stddef.h>

#include "launch.h"
#include "picard.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tridiag_method;
struct krylov_method;
struct krylov_precond;

/* One scheme's coefficients (src/schemes/imex/imex.h: imex-euler, imex-sdirk2). */
struct imex_gpu_tableau {
	int stages;       /* s */
	double gamma;     /* every stage solves (I - gamma h A) Y = r */
	double c[2];      /* stage q at t_j + c[q] h */
	double carry[2];  /* r = y_j + gamma h g(G_q) + carry[q] (Y_{q-1} - y_j) */
};

/* How the linear systems are solved: a tridiagonal method (stencils;
 * 2D by ADI) or a Krylov one (any operator, assembled to CSR). */
struct imex_gpu_linsolve {
	const struct tridiag_method *tridiag; /* the lines' method, or NULL */
	const struct krylov_method *krylov;   /* or the Krylov method */
	const struct krylov_precond *precond; /* and its preconditioner */
	double rtol;  /* ADI, Krylov: ||r - M y||_2 <= rtol ||r||_2 */
	int maxit;    /* their iterations at most */
};

/* The first member (lowest index) whose linear solve failed: in words. */
struct imex_gpu_failure {
	long member;        /* -1: none */
	char message[256];  /* "linsolve-failed in window W (step J, stage I): ..." */
};

struct imex_gpu;

/* Device bytes a member of dim unknowns needs beyond what the backend
 * keeps for it, at most (any operator), stages per step, with a Krylov
 * method or not. */
size_t imex_gpu_member_bytes(int dim, const picard_grid *grid, int stages, int krylov);

/* Device memory for chunk members; PICARD_EINVAL naming what the GPU
 * cannot run (an operator kind, a method that does not take the lines). */
int imex_gpu_create(struct imex_gpu **out, const picard_model *model, const picard_grid *grid,
		    const struct imex_gpu_tableau *tableau, const struct imex_gpu_linsolve *lin,
		    long chunk);

/* Integrate L's members (L->ntraj <= chunk) over every window, kernel
 * the instance of picard::picard_imex_kernel for the model: statuses,
 * sweep counts, records and x_final through L. Enqueued on L's stream
 * and waited for; the first failed linear solve into *first. */
int imex_gpu_run(struct imex_gpu *g, const void *kernel, const struct picard_launch *L,
		 struct imex_gpu_failure *first);

void imex_gpu_free(struct imex_gpu *g);

#ifdef __cplusplus
}
#endif

#endif
