/* gauss_reference.h - the judge for tolerances GSL's rk8pd cannot check:
 * Gauss-Legendre collocation of 8 stages (order 16) in binary128
 * (src/reference/gauss_reference.c), its own error measured, and a dense
 * output of high order between its steps. */
#ifndef PICARD_GAUSS_REFERENCE_H
#define PICARD_GAUSS_REFERENCE_H

#include <stdbool.h>

#include "picard.h"

/* The judge's name, as the check line gives it. */
#define GAUSS_JUDGE_NAME "gauss16 in binary128"

/* One trajectory on equal steps: states and slopes at the step ends
 * (rounded to double), interpolated between them. */
struct gauss_traj {
	int dim;
	long nsteps;      /* steps of h from t0; t0 + nsteps h = t1 */
	double t0, t1, h;
	__float128 hq;    /* h unrounded: a step end's time is t0 + s hq */
	double *x;        /* [(nsteps + 1) * dim] states at the step ends */
	double *f;        /* [(nsteps + 1) * dim] slopes there */
	double own_error; /* measured: the run of half as many steps, its
			     dense output, against this run at every step
			     end of this run (a bound for this run's) */
	double seconds;   /* time it took, all runs */
};

/* The model has a right-hand side in binary128 (picard_model_impl). */
bool gauss_available(const picard_model *model);

/* Integrate from x0 at t0 to t1 (params may be NULL: the defaults),
 * halving the step until the measured own error is at most target or the
 * steps reach their limit (own_error then says what was reached). A
 * non-finite state or slope, or a stage iteration that converges at no
 * step, is PICARD_EREF naming trajectory traj (or, with traj < 0, the
 * model). */
int gauss_reference_build(struct gauss_traj *g, const picard_model *model,
			  const double *params, const double *x0, double t0, double t1,
			  double target, long traj);

/* The state at t (t0 <= t <= t1) into x. */
void gauss_traj_eval(const struct gauss_traj *g, double t, double *x);

void gauss_traj_free(struct gauss_traj *g);

/* picard_reference_tol's form: the states at the times (increasing, from
 * t0) into out, own error into *own_error. */
int gauss_reference_times(const picard_model *model, const double *params, const double *x0,
			  double t0, const double *times, long ntimes, double target,
			  long traj, double *out, double *own_error);

#endif
