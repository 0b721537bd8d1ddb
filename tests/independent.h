/* independent.h - what the tests hold picard's answers against, computed
 * here without picard's solvers, references or ensemble code: the
 * trapezoid scheme's Picard iteration on a linear system written out in a
 * few lines (its exact output for a fixed K, not only its limit); the
 * documented ensemble x = c (1 + s (2u - 1)) with u from cuRAND's host
 * Philox generator called directly; a GSL rk8pd solve of a model's
 * right-hand side, and one of a system written out in a test that
 * locates an event on its own. */
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

/* A system for gsl_solve_events, written out in the test (not the
 * model's code): its right-hand side in GSL's form, one event function g
 * and the jump at its rising zeros (NULL: recorded only). */
struct gsl_event_system {
	int dim; /* at most 8 */
	int (*rhs)(double t, const double *x, double *dxdt, void *params);
	double (*g)(const double *x, const double *params);
	void (*jump)(double *x, const double *params);
	const double *params;
	double hmax; /* the longest step, so that no step holds two zeros */
};
/* From x0 at t0 to t1 by GSL's rk8pd at rtol = atol = tol, step by step:
 * a step over which g rises through 0 is bisected, the state at each
 * midpoint integrated again from the step's start, to a bracket of a few
 * ulps; the event is at its upper end (g >= 0 there), the jump acts and
 * the integration restarts. The first max events: times into t, the
 * states before and after the jump into before and after (dim each).
 * Their count; the test fails where GSL does. */
int gsl_solve_events(const struct gsl_event_system *sys, const double *x0, double t0, double t1,
		     double tol, int max, double *t, double *before, double *after);

#endif
