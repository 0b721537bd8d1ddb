/* krylov.h - batched sparse Krylov solvers on the GPU (issue 21): B
 * systems A_m x_m = b_m, m = 0 .. B-1, whose matrices share one sparsity
 * pattern (an ensemble's implicit operators: the same grid, coefficients
 * from each member's parameters), or one large system (B = 1). Plain C,
 * for the IMEX scheme's GPU side, the bench and the tests; the kernels
 * are in the .cuh files beside it.
 *
 * Layout: member-interleaved. Entry k of member m's values is val[k * B +
 * m], row i of member m's vectors is v[i * B + m]: the threads of a warp
 * take neighbouring members of one row, so they read one column index and
 * contiguous values (B = 1 is the plain layout). krylov_interleave()
 * converts from one-member-after-another arrays.
 *
 * Pieces, each usable alone:
 * - the SpMV y = A x of every member (struct krylov_spmv), whose kernel
 *   (threads per row or rows per thread, block size) a tuner picks by
 *   timing the candidates once per (pattern, B) on the device, the choice
 *   cached in memory for the process (Mossaiby 2013: a tunable SpMV whose
 *   parameters are found once, since the pattern does not change between
 *   time steps); cuSPARSE's generic cusparseSpMV as the anchor;
 * - CG and BiCGStab over it (struct krylov_method), with none, Jacobi and
 *   Neumann-polynomial preconditioners (struct krylov_precond;
 *   Gubaidullin & Nikiforov, section 1.2), mirroring the host solvers of
 *   src/linsolve/ (cg.c, bicgstab.c, precond.c): the same recurrences, the
 *   same checks, convergence on the recomputed residual ||b - A x|| <=
 *   rtol ||b||, and each member's own status (picard_linsolve_code);
 * - a CG on cuSPARSE SpMV and cuBLAS vector operations (B = 1), the
 *   library baseline of the bench.
 *
 * Every function returns 0, a cudaError_t (positive), or a negative
 * KRYLOV_E... code. Array arguments of the solve and the SpMV are device
 * pointers; the pattern's are host pointers. Not thread-safe per object;
 * the tuning cache is shared by the process under a lock. */
#ifndef PICARD_KRYLOV_GPU_H
#define PICARD_KRYLOV_GPU_H

#include <stdbool.h>
#include <stddef.h>

#include <cuda_runtime_api.h>

#include "linsolve/linsolve.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KRYLOV_EBADINPUT (-1) /* a size, pointer or option out of range */
#define KRYLOV_EPATTERN (-2)  /* the pattern is malformed: see krylov_pattern */
#define KRYLOV_ELIBRARY (-3)  /* cuSPARSE or cuBLAS failed */
#define KRYLOV_ENOMEM (-4)    /* host memory */
#define KRYLOV_EUNSUPPORTED (-5) /* this variant does not take the input */

/* The message of a return code (cudaError_t or KRYLOV_E...). */
const char *krylov_strerror(int code);

enum krylov_format {
	KRYLOV_CSR, /* row_start, col */
	KRYLOV_MSR, /* bindx (src/linsolve/sparse.h's MSR) */
};

/* The sparsity pattern of every member, host arrays, as src/linsolve/
 * sparse.h stores it; the values are the solver's argument. Columns in
 * range, no column twice in a row (and in MSR no diagonal among the
 * off-diagonal entries): else KRYLOV_EPATTERN. */
struct krylov_pattern {
	enum krylov_format format;
	int n;                /* rows, and columns */
	const int *row_start; /* CSR: n + 1 starts */
	const int *col;       /* CSR: the column of each entry */
	const int *bindx;     /* MSR: bindx[0..n] starts of the off-diagonal
				 entries (first n + 1), then their columns */
};

/* Values one member has: CSR row_start[n]; MSR bindx[n] (the n diagonal
 * entries, the unused slot n and the off-diagonal ones). */
long krylov_pattern_values(const struct krylov_pattern *pattern);

/* One SpMV kernel configuration: what the tuner chooses among. */
struct krylov_spmv_kernel {
	const char *name; /* "thread-r2-b256", "group-t8-b128", ... */
	int kind;         /* KRYLOV_SPMV_THREAD or KRYLOV_SPMV_GROUP */
	int param;        /* THREAD: (row, member) items per thread;
			     GROUP: threads per item, a power of 2 <= 32 */
	int block;        /* threads per block */
};
enum { KRYLOV_SPMV_THREAD, KRYLOV_SPMV_GROUP };

/* Every candidate, NULL-terminated. */
extern const struct krylov_spmv_kernel *const krylov_spmv_kernels[];

/* The SpMV of a batch: the pattern on the device and the chosen kernel. */
struct krylov_spmv;

/* The pattern uploaded for batch members; tune: pick the kernel by
 * timing (or take the cached choice for this pattern and batch), else the
 * first candidate until krylov_spmv_tune. */
int krylov_spmv_create(const struct krylov_pattern *pattern, int batch, bool tune,
		       struct krylov_spmv **out);
void krylov_spmv_free(struct krylov_spmv *spmv);
/* Time every candidate on scratch values (unless the cache has this
 * pattern and batch) and keep the fastest. */
int krylov_spmv_tune(struct krylov_spmv *spmv, cudaStream_t stream);
/* The kernel in use, and whether it came from the cache. */
const struct krylov_spmv_kernel *krylov_spmv_choice(const struct krylov_spmv *spmv,
						    bool *cached);
/* y = A x for every member with the chosen kernel, or with kernel. */
int krylov_spmv_apply(const struct krylov_spmv *spmv, const double *val, const double *x,
		      double *y, cudaStream_t stream);
int krylov_spmv_apply_with(const struct krylov_spmv *spmv, const struct krylov_spmv_kernel *kernel,
			   const double *val, const double *x, double *y, cudaStream_t stream);
/* Rows, members and values per member of spmv. */
int krylov_spmv_rows(const struct krylov_spmv *spmv);
int krylov_spmv_batch(const struct krylov_spmv *spmv);
long krylov_spmv_values(const struct krylov_spmv *spmv);

/* The cuSPARSE anchor (CSR only): cusparseSpMV on the batch as one
 * block-diagonal matrix of n B rows in the interleaved order, its values
 * gathered from val by krylov_cusparse_spmv_set_values. */
struct krylov_cusparse_spmv;
int krylov_cusparse_spmv_create(const struct krylov_pattern *pattern, int batch,
				struct krylov_cusparse_spmv **out);
int krylov_cusparse_spmv_set_values(struct krylov_cusparse_spmv *spmv, const double *val,
				    cudaStream_t stream);
int krylov_cusparse_spmv_apply(struct krylov_cusparse_spmv *spmv, const double *x, double *y,
			       cudaStream_t stream);
void krylov_cusparse_spmv_free(struct krylov_cusparse_spmv *spmv);

/* Options; zero means the default. */
struct krylov_options {
	double rtol;     /* stop at ||b - A x|| <= rtol ||b|| (0: 1e-10) */
	int max_iters;   /* iterations at most (0: 10 n + 100) */
	int degree;      /* Neumann: terms past the first (0: 2) */
	int check_every; /* iterations between the host's looks at whether
			    every member has finished (0: 8) */
	int direct;      /* 1: launch every kernel of every iteration; 0:
			    capture check_every iterations into a CUDA graph
			    once (again when val, b or x move) and replay it,
			    which costs a fraction of the launches */
};

struct krylov_solver;

/* A Krylov method (krylov_cg, krylov_bicgstab), named as the host's. */
struct krylov_method {
	const char *name;
	bool needs_spd; /* CG: a non-symmetric member or p^T A p <= 0 is NOT_SPD */
	/* Enqueue the method's start after the shared beginning, and one
	 * iteration of every running member (internal). */
	int (*start)(struct krylov_solver *solver, cudaStream_t stream);
	int (*step)(struct krylov_solver *solver, cudaStream_t stream);
};
extern const struct krylov_method krylov_cg, krylov_bicgstab;
extern const struct krylov_method *const krylov_methods[]; /* NULL-terminated */
const struct krylov_method *krylov_method_named(const char *name);

/* A preconditioner z = M^-1 r (krylov_precond_none, _jacobi, _neumann). */
struct krylov_precond {
	const char *name;
	bool takes_diagonal; /* zero or non-finite diagonal: ZERO_PIVOT, NONFINITE */
	bool identity;       /* z is r itself */
	/* z = M^-1 r for the running members (internal). */
	int (*apply)(struct krylov_solver *solver, const double *r, double *z,
		     cudaStream_t stream);
};
extern const struct krylov_precond krylov_precond_none, krylov_precond_jacobi,
	krylov_precond_neumann;
extern const struct krylov_precond *const krylov_preconds[]; /* NULL-terminated */
const struct krylov_precond *krylov_precond_named(const char *name);

/* A workspace for batch members of pattern, method and precond: made
 * once (the SpMV tuned then), used for many solves, freed. */
int krylov_solver_create(const struct krylov_pattern *pattern, int batch,
			 const struct krylov_method *method, const struct krylov_precond *precond,
			 const struct krylov_options *options, struct krylov_solver **out);
void krylov_solver_free(struct krylov_solver *solver);
/* The solver's SpMV (its choice, or to apply it). */
struct krylov_spmv *krylov_solver_spmv(struct krylov_solver *solver);

/* Solve A_m x_m = b_m for every member from the guess in x (device
 * arrays, interleaved; val as krylov_spmv_apply takes it). Into status[m]
 * a picard_linsolve_code (OK when converged), iters[m] the iterations
 * done, residual[m] the recomputed ||b - A x|| / ||b|| of the x returned
 * (host arrays of batch, each may be NULL). Returns when every member has
 * ended; a member's failure is its status, not the return value. Keep
 * val, b and x at the same addresses from solve to solve: the captured
 * graph of iterations is replayed only for the arrays it was captured
 * with (others are captured anew, some hundred microseconds). */
int krylov_solver_solve(struct krylov_solver *solver, const double *val, const double *b,
			double *x, int *status, int *iters, double *residual, cudaStream_t stream);

/* CG on cuSPARSE SpMV and cuBLAS (B = 1, CSR, no preconditioner), as
 * NVIDIA's conjugateGradient sample writes it: the bench's library
 * baseline. Stops at ||r|| <= rtol ||b|| of the recurrence's r or after
 * max_iters (rtol 0: runs max_iters); iterations into *iters. */
struct krylov_cusparse_cg;
int krylov_cusparse_cg_create(const struct krylov_pattern *pattern,
			      struct krylov_cusparse_cg **out);
int krylov_cusparse_cg_solve(struct krylov_cusparse_cg *cg, const double *val, const double *b,
			     double *x, double rtol, int max_iters, int *iters);
void krylov_cusparse_cg_free(struct krylov_cusparse_cg *cg);

/* out[j * batch + m] = in[m * count + j]: batch arrays of count, one after
 * another, into the interleaved layout; krylov_deinterleave the inverse
 * (device arrays, not overlapping). */
int krylov_interleave(const double *in, double *out, long count, int batch, cudaStream_t stream);
int krylov_deinterleave(const double *in, double *out, long count, int batch,
			cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
