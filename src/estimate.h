/* estimate.h - per-trajectory error estimates by a companion solve: the
 * same scheme in double on a finer grid, compared with the solve at its
 * window ends (see estimate.c for why this and not an embedded formula). */
#ifndef PICARD_ESTIMATE_H
#define PICARD_ESTIMATE_H

#include "picard.h"

struct picard_draw; /* backend.h */

/* What an estimate holds between solves: the companion solver, the record
 * of the solve's window ends it compares with, and the estimates. */
struct picard_estimate {
	picard_solver *companion;   /* double, finer grid */
	double factor;              /* estimate = factor * |x - x_companion| */
	picard_tolerance scale;     /* of the scaled errors */
	long batch;                 /* trajectories one solve holds */
	int dim;                    /* components */
	long rows;                  /* window ends compared before t1: none
				       where the only one would be t1's, which
				       the final states are already */
	picard_record coarse;       /* the solve's window ends compared */
	picard_record fine;         /* the companion's, at the same times */
	double *x_final;            /* the solve's final states (ntraj*dim) */
	double *fine_final;         /* the companion's */
	picard_traj_status *fine_status; /* the companion's outcomes */
	double *errors;             /* ntraj estimates of the last solve */
};

/* Make the companion of a solver of model on grid (as fitted) for ntraj
 * trajectories, batch at a time: options are the solver's own, resolved. */
int picard_estimate_create(struct picard_estimate *est, const picard_model *model,
			   const picard_options *options, const picard_grid *grid,
			   long ntraj, long batch);
void picard_estimate_free(struct picard_estimate *est);

/* The record of window ends the solve must also keep (appended to the
 * caller's; NULL: none), and the buffer for its final states when the caller passes
 * none. */
const picard_record *picard_estimate_record(const struct picard_estimate *est);
double *picard_estimate_final(struct picard_estimate *est);

/* After solver's solve of count trajectories (its final states x_final,
 * statuses status): run the companion on the same inputs (x0 and params,
 * or draw's where it is not NULL) and fill est->errors. */
int picard_estimate_compute(struct picard_estimate *est, const picard_solver *solver,
			    long count, const double *x0, const double *params,
			    const struct picard_draw *draw, const double *x_final,
			    const picard_traj_status *status);

#endif
