/* krylov_run.h - what the Krylov solvers (cg.c, bicgstab.c) share: the
 * vectors' dot product and update, the checks of a solve's input, the
 * recomputed residual that decides convergence, and the result with its
 * message (krylov.c). Internal to src/linsolve/. */
#ifndef PICARD_KRYLOV_RUN_H
#define PICARD_KRYLOV_RUN_H

#include "linsolve/krylov.h"

/* One solve in progress. */
typedef struct krylov_run {
	const char *name;              /* the solver's, for messages */
	const picard_sparse *a;        /* the matrix */
	const picard_precond *pc;      /* set up for a */
	const double *b;               /* the right-hand side */
	double *x;                     /* the iterate */
	int n;                         /* unknowns */
	double b_norm;                 /* ||b|| */
	double rtol;                   /* the options', defaults settled */
	int max_iters;
	double *residual;              /* n: b - A x, recomputed */
	picard_krylov_result *result;  /* where it ends */
} krylov_run;

double krylov_dot(int n, const double *x, const double *y);
/* y += alpha x */
void krylov_axpy(int n, double alpha, const double *x, double *y);

/* Check the input and settle the options; PICARD_LINSOLVE_OK to iterate,
 * else the solve is over (a zero b converges at once to x = 0) and
 * *result says why. Allocates run->residual: krylov_end frees it. */
picard_linsolve_code krylov_begin(krylov_run *run, const char *name, const picard_sparse *a,
				  const picard_precond *pc, const double *b, double *x,
				  const picard_krylov_options *opt, picard_krylov_result *result);
/* Whether x meets rtol by its recomputed residual. */
bool krylov_converged(krylov_run *run);
/* The end of a solve: code after iters iterations, the recomputed
 * residual, and the message (detail for the codes other than converged
 * and not converged, printf-style). Returns code. */
picard_linsolve_code krylov_end(krylov_run *run, picard_linsolve_code code, int iters,
				const char *detail, ...) __attribute__((format(printf, 4, 5)));

#endif
