/* dense_reference.h - a reference solution that can be evaluated at any
 * time, so one GSL integration serves every grid the tolerance search
 * tries (their window ends all differ). */
#ifndef PICARD_DENSE_REFERENCE_H
#define PICARD_DENSE_REFERENCE_H

#include "picard.h"

/* One trajectory's grid: states and slopes at its points, interpolated by
 * cubic Hermite polynomials between them. */
struct dense_traj {
	long npoints;        /* grid points, t0 .. t1 inclusive */
	double *t;           /* [point] times, increasing */
	double *x;           /* [point][k] states */
	double *f;           /* [point][k] slopes f(t, x) */
	double hermite_error; /* largest |Hermite - rk8pd| at its midpoints */
	double rk8pd_error;  /* rk8pd's own error at its points: the change
				when rk8pd is run 10 times tighter (the
				tighter run is the one kept) */
	double interp_error; /* the sum: a bound on the dense reference's
				error at any time */
	double ref_tol;      /* rk8pd's rtol = atol it settled on */
	/* where rk8pd's measured error stayed above the target: gauss16 in
	 * binary128 (gauss_reference.h), which then serves the states and
	 * whose own error interp_error is; else NULL */
	struct gauss_traj *gauss;
};

/* The dense references of ntraj trajectories, each on its own grid. */
struct dense_reference {
	const picard_model *model; /* whose solutions these are */
	long ntraj;                /* trajectories */
	double t0, t1;             /* the span */
	struct dense_traj *traj;   /* ntraj grids */
	long npoints;              /* grid points of all trajectories */
	double interp_error;       /* largest error of a trajectory's dense
				      reference (Hermite at the midpoints
				      plus rk8pd's own, as measured): the
				      floor of any E measured against it */
	double ref_tol;            /* the tightest rk8pd rtol = atol taken */
	long gauss_traj;           /* trajectories gauss16 serves */
};

/* Integrate ntraj trajectories (x0, params: rows; params may be NULL) over
 * [t0, t1] with GSL rk8pd (or, where its error stays above the target,
 * gauss16 in binary128 when the model has its rhs in it), refining each trajectory's grid where the
 * measured interpolation error is above half the target and tightening
 * rk8pd, down to REF_TOL_FLOOR, while its own measured error is above the
 * other half (or until the grid reaches its size limit, or rk8pd the
 * floor; interp_error then says what was reached). traj_index, or NULL
 * for the identity, maps a row to the caller's trajectory number, which a
 * failure's detail names. */
int dense_reference_build(struct dense_reference *ref,
			  const picard_model *model, const double *x0,
			  const double *params, long ntraj,
			  const long *traj_index, double t0, double t1,
			  double target);

/* State of trajectory traj at time t (t0 <= t <= t1) into x. */
void dense_reference_eval(const struct dense_reference *ref, long traj,
			  double t, double *x);

/* Keep the trajectories i with drop[i] == 0, in order; the totals are
 * those of the kept. */
void dense_reference_keep(struct dense_reference *ref, const char *drop);

void dense_reference_free(struct dense_reference *ref);

#endif
