/* tridiag.h - batched tridiagonal solvers as type objects, as the schemes
 * are (src/schemes/scheme.h): one const table per method (thomas.c,
 * checkerboard.c, pcr.c), listed in picard_tridiag_list and looked up by
 * name. A batch is many systems of one size n,
 *
 *     lower[i] x[i-1] + diag[i] x[i] + upper[i] x[i+1] = rhs[i],  i = 0..n-1
 *
 * (lower[0] and upper[n-1] are not read), laid out by two strides, so that
 * both the CPU's system after system (row_stride 1, system_stride n) and
 * the GPU's interleaved layout (row_stride batch, system_stride 1) are
 * described. These are the host versions; the CUDA ones (src/linsolve/gpu/tridiag/)
 * take the same batch. */
#ifndef PICARD_TRIDIAG_H
#define PICARD_TRIDIAG_H

#include <stddef.h>

#include "linsolve/linsolve.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A batch of tridiagonal systems: element i of system s is at
 * s * system_stride + i * row_stride in each array. */
typedef struct picard_tridiag_batch {
	const double *lower; /* sub-diagonal a_i, coupling x[i-1] */
	const double *diag;  /* main diagonal b_i */
	const double *upper; /* super-diagonal c_i, coupling x[i+1] */
	const double *rhs;   /* right-hand sides d_i */
	double *x;           /* the solutions (may be rhs itself) */
	int n;               /* unknowns per system, at least 1 */
	long count;          /* systems in the batch */
	long row_stride;     /* from element i to i+1 of one system */
	long system_stride;  /* from system s to s+1 */
} picard_tridiag_batch;

/* What became of one system of a batch. */
typedef struct picard_tridiag_status {
	picard_linsolve_code code; /* PICARD_LINSOLVE_OK, _ZERO_PIVOT or _NONFINITE */
	int row;                   /* the row whose pivot failed, -1 when solved */
} picard_tridiag_status;

/* One system, gathered into contiguous arrays of n: a method's solve
 * writes x (never the inputs) using work, work_doubles(n) long. It
 * returns PICARD_LINSOLVE_OK, or the failed pivot's code and its row in
 * *row. */
typedef picard_linsolve_code (*picard_tridiag_solve_one)(int n, const double *lower,
							  const double *diag, const double *upper,
							  const double *rhs, double *x, double *work,
							  int *row);

typedef struct picard_tridiag_type {
	const char *name;    /* the name it is looked up by */
	const char *summary; /* the method, one line */
	/* Solve every system of batch, status[s] for system s (count long).
	 * Returns PICARD_LINSOLVE_OK when all were solved, else the first
	 * failed system's code (PICARD_LINSOLVE_BAD_INPUT, _NO_MEMORY for the
	 * batch as a whole). A failed system's x is left NaN, never garbage.
	 * The host methods' is picard_tridiag_each, over the two below. */
	picard_linsolve_code (*solve)(const struct picard_tridiag_type *self,
				      const picard_tridiag_batch *batch,
				      picard_tridiag_status *status);
	/* A host method: one system, and the scratch it takes for n. */
	picard_tridiag_solve_one solve_one;
	size_t (*work_doubles)(int n);
} picard_tridiag_type;

/* The methods (thomas.c, checkerboard.c, pcr.c). */
extern const picard_tridiag_type picard_tridiag_thomas, picard_tridiag_checkerboard,
	picard_tridiag_pcr;
/* Every method, NULL-terminated. */
extern const picard_tridiag_type *const picard_tridiag_list[];
/* The method called name, or NULL. */
const picard_tridiag_type *picard_tridiag_named(const char *name);

/* The batch loop of the host methods: each system gathered, solved by
 * self->solve_one with self->work_doubles(n) of scratch, scattered back;
 * systems in parallel (OpenMP). */
picard_linsolve_code picard_tridiag_each(const picard_tridiag_type *self,
					 const picard_tridiag_batch *batch,
					 picard_tridiag_status *status);

/* Thomas's algorithm on one contiguous system, the building block of the
 * others: forward elimination and back substitution (thomas.c). work
 * holds n doubles. */
picard_linsolve_code picard_thomas_solve(int n, const double *lower, const double *diag,
					 const double *upper, const double *rhs, double *x,
					 double *work, int *row);

/* The checkerboard method with nop sub-systems (checkerboard.c; the
 * listed one takes 4), and the scratch it needs for n unknowns. */
picard_linsolve_code picard_checkerboard_solve(int n, int nop, const double *lower,
					       const double *diag, const double *upper,
					       const double *rhs, double *x, double *work, int *row);
size_t picard_checkerboard_work(int n);

/* A pivot of a system of n unknowns fails when it is not finite, or when
 * it is zero against its row: |pivot| <= n DBL_EPSILON (|a_i| + |b_i| +
 * |c_i|) is zero to rounding (the eliminations leave that much of a
 * cancelled pivot behind where the matrix is singular). */
picard_linsolve_code picard_pivot_check(int n, double pivot, double lower, double diag,
					double upper);

#ifdef __cplusplus
}
#endif

#endif
