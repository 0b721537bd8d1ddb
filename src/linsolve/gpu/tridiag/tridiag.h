/* tridiag.h - batched tridiagonal solves on the GPU (issue 21): many
 * independent systems a_i x_{i-1} + b_i x_i + c_i x_{i+1} = d_i of one size
 * n, as the ADI sweeps of a 2D grid give them. Plain C, for the bench and
 * the tests; the kernels are in the .cuh files beside it.
 *
 * Each solver is a const type object (as the schemes are): its name, the
 * device workspace it needs, and a solve that enqueues its kernels on a
 * stream. Every array is in device memory. No solver pivots: each reports
 * a zero or non-finite pivot of a system in status[] (the cuSPARSE anchor,
 * which reports none, by a non-finite solution), and x of such a system is
 * undefined. */
#ifndef PICARD_TRIDIAG_GPU_H
#define PICARD_TRIDIAG_GPU_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where row i of system s lies in each of the five arrays. */
enum tridiag_layout {
	TRIDIAG_CONTIGUOUS,  /* s * n + i: one system after another (cuSPARSE's) */
	TRIDIAG_INTERLEAVED, /* i * batch + s: row i of every system together, so
				one thread per system reads coalesced */
};

/* What status[s] says of system s. */
enum tridiag_status {
	TRIDIAG_OK = 0,
	TRIDIAG_ZERO_PIVOT = 1,      /* a pivot was exactly zero */
	TRIDIAG_NONFINITE_PIVOT = 2, /* a pivot (or the solution) was inf or NaN */
};

/* A batch of systems and where their solutions go (device pointers). */
struct tridiag_batch {
	const double *lower; /* a_i; a_0 must be 0 (cuSPARSE reads it) */
	const double *diag;  /* b_i */
	const double *upper; /* c_i; c_{n-1} must be 0 */
	const double *rhs;   /* d_i, left unchanged */
	double *x;           /* the solutions, same layout */
	int *status;         /* batch entries, enum tridiag_status */
	long batch;          /* number of systems */
	int n;               /* rows of each, >= 1 */
	enum tridiag_layout layout;
	int parts;           /* checkerboard: sub-systems per system (the
				papers' nop); 0 for the default */
};

/* Returned by solve where the solver cannot take the batch, and where a
 * library it calls fails. */
#define TRIDIAG_EUNSUPPORTED (-1)
#define TRIDIAG_ELIBRARY (-2)

/* One solver. */
struct tridiag_solver {
	const char *name;
	/* Largest n it takes (shared memory bounds some), 0 for any. */
	int max_n;
	/* Smallest n it takes. */
	int min_n;
	/* Whether batch->parts matters to it (the checkerboard's). */
	int uses_parts;
	/* Whether it takes this layout. */
	int (*takes_layout)(enum tridiag_layout layout);
	/* Doubles of device workspace a solve of batch needs. */
	size_t (*work_doubles)(const struct tridiag_batch *batch);
	/* Enqueue the solve on stream: 0, a cudaError_t, or a negative
	 * TRIDIAG_E... code. */
	int (*solve)(const struct tridiag_batch *batch, double *work, cudaStream_t stream);
};

extern const struct tridiag_solver tridiag_thomas;           /* thomas.cu */
extern const struct tridiag_solver tridiag_checkerboard_global; /* checkerboard.cu */
extern const struct tridiag_solver tridiag_checkerboard_shared; /* checkerboard.cu */
extern const struct tridiag_solver tridiag_pcr_shared;       /* pcr.cu */
extern const struct tridiag_solver tridiag_cusparse;         /* cusparse_gtsv.cu */

/* Every solver above, NULL-terminated: what the bench and the test run. */
extern const struct tridiag_solver *const tridiag_solvers[];

/* The GPU methods a scheme names, by the host list's names
 * (src/linsolve/tridiag.h: thomas, checkerboard, pcr) and cusparse (GPU
 * only): which solver runs and the layout its batches are given in. */
struct tridiag_method {
	const char *name;                    /* --linsolve NAME */
	const struct tridiag_solver *solver; /* what runs */
	enum tridiag_layout layout;          /* the layout it is given */
};

/* thomas: one thread per system, interleaved (a warp's loads coalesce);
 * checkerboard: the global-memory variant, which takes any size
 * (bench/results/h100-2026-11-25-tridiag: the shared one loses past n =
 * 1024); pcr: shared memory, n <= its max_n; cusparse: contiguous only. */
extern const struct tridiag_method *const tridiag_method_list[];
/* The method called name, or NULL. */
const struct tridiag_method *tridiag_method_named(const char *name);
/* "thomas, checkerboard, ...": every name, into buf; returns buf. */
const char *tridiag_method_names(char *buf, size_t len);

/* The checkerboard's sub-systems per system when batch->parts is 0. */
#define TRIDIAG_DEFAULT_PARTS 16

/* Solvers that take any layout. */
int tridiag_any_layout(enum tridiag_layout layout);

/* Whether solver takes batch's layout and size (its solve may still
 * return TRIDIAG_EUNSUPPORTED, for a split too large for shared memory). */
int tridiag_solver_takes(const struct tridiag_solver *solver, const struct tridiag_batch *batch);

#ifdef __cplusplus
}
#endif

#endif
