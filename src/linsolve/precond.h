/* precond.h - preconditioners of the Krylov solvers (krylov.h) as type
 * objects, listed in picard_precond_list: none, Jacobi, and the Neumann
 * polynomial of Gubaidullin & Nikiforov (a truncated Neumann series of the
 * Jacobi-scaled matrix). Each approximates z = A^-1 r and is symmetric
 * positive definite where A is SPD and diagonally dominant, so CG takes
 * all of them. */
#ifndef PICARD_PRECOND_H
#define PICARD_PRECOND_H

#include "linsolve/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

struct picard_precond;

typedef struct picard_precond_type {
	const char *name;    /* the name it is looked up by */
	const char *summary; /* what it applies, one line */
	bool takes_diagonal; /* it divides by A's diagonal: setup needs it
				nonzero and finite */
	/* z = M^-1 r for the set-up pc (r and z of n, not overlapping). */
	void (*apply)(const struct picard_precond *pc, const double *r, double *z);
} picard_precond_type;

/* A preconditioner set up for one matrix. */
typedef struct picard_precond {
	const picard_precond_type *type; /* what it applies */
	const picard_sparse *a;          /* the matrix, not owned */
	int degree;                      /* Neumann: terms of the series past
					    the first (0: Jacobi's) */
	double *inv_diag;                /* 1 / a_ii, when takes_diagonal */
	double *work;                    /* Neumann: A z, n of them */
	int failed_row;                  /* the row of a zero or non-finite
					    diagonal, -1 */
} picard_precond;

/* Every preconditioner, NULL-terminated. */
extern const picard_precond_type *const picard_precond_list[];
/* The preconditioner called name, or NULL. */
const picard_precond_type *picard_precond_named(const char *name);

/* Set pc up for a with degree (Neumann's; the others ignore it): 0, or
 * PICARD_LINSOLVE_ZERO_PIVOT (a zero diagonal: pc->failed_row),
 * _NONFINITE, _BAD_INPUT (degree < 0), _NO_MEMORY. */
picard_linsolve_code picard_precond_setup(picard_precond *pc, const picard_precond_type *type,
					  const picard_sparse *a, int degree);
void picard_precond_free(picard_precond *pc);

#ifdef __cplusplus
}
#endif

#endif
