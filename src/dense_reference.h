/* dense_reference.h - a reference solution that can be evaluated at any
 * time, so one GSL integration serves every grid the tolerance search
 * tries (their window ends all differ). */
#ifndef PICARD_DENSE_REFERENCE_H
#define PICARD_DENSE_REFERENCE_H

#include "picard.h"

/* States and slopes of ntraj trajectories on a uniform grid, interpolated
 * by cubic Hermite polynomials between grid points. */
struct dense_reference {
	const picard_model *model; /* whose solutions these are */
	long ntraj;                /* trajectories */
	long npoints;              /* grid points, t0 .. t1 inclusive */
	double t0, dt;             /* grid start and spacing */
	double *x;                 /* [traj][point][k] states */
	double *f;                 /* [traj][point][k] slopes f(t, x) */
	double interp_error;       /* largest |Hermite - rk8pd| measured at the
				      grid's midpoints: the floor of any E
				      measured against this reference */
};

/* Integrate ntraj trajectories (x0, params: rows; params may be NULL) over
 * [t0, t1] with picard_reference, refining the grid until the measured
 * interpolation error is below target (or the grid reaches its size
 * limit; interp_error then says what was reached). A trajectory whose
 * reference fails fails the build, its detail naming it by traj_index[row]
 * (the caller's numbering; NULL: by row). Any dimension. */
int dense_reference_build(struct dense_reference *ref,
			  const picard_model *model, const double *x0,
			  const double *params, const long *traj_index, long ntraj,
			  double t0, double t1, double target);

/* State of trajectory traj at time t (t0 <= t <= t1) into x. */
void dense_reference_eval(const struct dense_reference *ref, long traj,
			  double t, double *x);

void dense_reference_free(struct dense_reference *ref);

#endif
