/* krylov.h - Krylov solvers of A x = b for a sparse A (sparse.h) as type
 * objects, listed in picard_krylov_list: CG for symmetric positive
 * definite A, BiCGStab otherwise, each with a preconditioner (precond.h).
 * Gubaidullin & Nikiforov (filtration, CSR and MSR on the GPU) and
 * Mosayebi 2013 (CG over a tunable SpMV) are the methods' GPU sources;
 * these are the host versions. */
#ifndef PICARD_KRYLOV_H
#define PICARD_KRYLOV_H

#include "linsolve/precond.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct picard_krylov_options {
	double rtol;   /* stop at ||b - A x|| <= rtol ||b|| (0: 1e-10) */
	int max_iters; /* iterations at most (0: 10 n + 100) */
} picard_krylov_options;

/* What one solve did. */
typedef struct picard_krylov_result {
	/* PICARD_LINSOLVE_OK (converged), _NOT_CONVERGED, _BREAKDOWN,
	 * _NOT_SPD, _SINGULAR, _NONFINITE, _BAD_INPUT, _NO_MEMORY */
	picard_linsolve_code code;
	int iters;         /* iterations done */
	double residual;   /* ||b - A x|| / ||b|| of the x returned,
			      recomputed (not the recurrence's) */
	char message[192]; /* what happened, in words, for the user */
} picard_krylov_result;

typedef struct picard_krylov_type {
	const char *name;    /* the name it is looked up by */
	const char *summary; /* the method, one line */
	bool needs_spd;      /* it refuses a matrix that is not SPD */
	/* Solve a x = b from the guess in x; the result into *result, its
	 * code returned. Converged means the recomputed residual met rtol. */
	picard_linsolve_code (*solve)(const picard_sparse *a, const picard_precond *pc,
				      const double *b, double *x,
				      const picard_krylov_options *opt,
				      picard_krylov_result *result);
} picard_krylov_type;

/* Every solver, NULL-terminated. */
extern const picard_krylov_type *const picard_krylov_list[];
/* The solver called name, or NULL. */
const picard_krylov_type *picard_krylov_named(const char *name);

#ifdef __cplusplus
}
#endif

#endif
