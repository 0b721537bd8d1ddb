/* reference.h - the GSL reference (rk8pd, msbdf for a stiff model or
 * trajectory: src/reference/reference.c) at a tolerance of the caller's choosing,
 * for the dense reference of the tuner and for picard_check_each.
 * picard_reference() is this at REF_TOL. */
#ifndef PICARD_REFERENCE_H
#define PICARD_REFERENCE_H

#include "picard.h"

/* rtol = atol of picard_reference() and picard_check(): far below any
 * error a Picard run in float or double is asked for, and loose enough
 * that rk8pd takes few steps. */
#define REF_TOL 1e-12
/* The tightest rtol = atol asked of rk8pd: a few hundred units in the last
 * place of a state of size 1. Tighter, the step controller chases rounding
 * and the reference gets no more accurate. */
#define REF_TOL_FLOOR 1e-14

/* picard_reference() with rk8pd's rtol = atol = tol. A failure's detail
 * names trajectory traj ("the reference solution of trajectory 3 blows up
 * near t = 1 ..."), or with traj < 0 the model; it always gives the time
 * where rk8pd stopped. */
int picard_reference_tol(const picard_model *model, const double *params,
			 const double *x0, double t0, const double *times,
			 long ntimes, double tol, long traj, double *out);

/* picard_reference_tol, and into *stiff whether the trajectory is stiff:
 * the model declared so, or rk8pd's step found held by stability on the
 * way (then msbdf integrated it). */
int picard_reference_tol_stiff(const picard_model *model, const double *params,
			       const double *x0, double t0, const double *times, long ntimes,
			       double tol, long traj, double *out, bool *stiff);

/* The times rk8pd's own step control chooses from t0 to t1 at tol: the
 * ends of its accepted steps, t1 last, into a malloc'd *times of *nsteps.
 * Failures read as picard_reference_tol()'s. */
int picard_reference_steps(const picard_model *model, const double *params,
			   const double *x0, double t0, double t1, double tol,
			   long traj, double **times, long *nsteps);

/* rk8pd's tolerance for judging errors under tol (picard_check_each and
 * every other check against the reference): REF_TOL, or below a 1e-6 part
 * of tol 1e-5 of that part, down to REF_TOL_FLOOR. */
double picard_check_ref_tol(const picard_tolerance *tol);

#endif
