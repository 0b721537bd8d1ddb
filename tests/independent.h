/* independent.h - what the tests hold picard's answers against, computed
 * here without picard's solvers, references or ensemble code: the
 * trapezoid scheme's Picard iteration on a linear system written out in a
 * few lines (its exact output for a fixed K, not only its limit); the
 * documented ensemble x = c (1 + s (2u - 1)) with u from cuRAND's host
 * Philox generator called directly; a GSL rk8pd solve of a model's
 * right-hand side. */
#ifndef PICARD_TESTS_INDEPENDENT_H
#define PICARD_TESTS_INDEPENDENT_H

#include "picard.h"

/* The paper's scheme on x' = A x (n x n, row-major, n <= 4): windows of
 * m nodes spaced h, each from the constant start x(window start) swept K
 * times by the cumulative trapezoid rule (Picard iteration); x holds x0
 * and becomes the state after windows windows. */
void linear_trapezoid_picard(int n, const double *A, int m, double h, int K, long windows,
			     double *x);
/* count uniforms in (0, 1] of seed's Philox sequence from its start,
 * drawn by curandGenerateUniformDouble on a host generator (count below
 * 2^16: one generation, the sequence itself). */
void philox_uniforms(unsigned long long seed, long count, double *u);
/* picard's ensemble as documented: member i's component k is center[k]
 * (1 + spread (2u - 1)), u the value i n + k of seed's sequence (n the
 * length of center); spread 0 gives center itself. */
void documented_ensemble(int n, const double *center, long ntraj, double spread,
			 unsigned long long seed, double *x);
/* model's state at each of times[ntimes] (increasing, >= t0) from x0 at
 * t0 by GSL's rk8pd at rtol = atol = 1e-12 on picard_model_rhs; the test
 * fails where GSL does. */
void gsl_solve(const picard_model *model, const double *params, const double *x0, double t0,
	       const double *times, long ntimes, double *out);

#endif
