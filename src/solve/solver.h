/* solver.h - the solver beyond the public API: solves of members drawn
 * where they are solved (picard-run's); a companion that runs beside each
 * solve, and what the solver lends it (the error estimate, src/solve/estimate.c,
 * whose companion solver runs on the same inputs): its CUDA side, and a
 * solve that starts from another solver's inputs where they are on the
 * device already. */
#ifndef PICARD_SOLVER_H
#define PICARD_SOLVER_H

#include "backend.h"
#include "picard.h"

/* What runs beside each solve of a solver: the error estimate
 * (src/solve/estimate.c), attached once the solver is made (src/solve/solver_create.c).
 * The solver knows it by these hooks alone. */
struct picard_solve_companion {
	void *state;
	/* The window ends the solve must also keep (after the caller's), or
	 * NULL. */
	const picard_record *(*record)(const void *state);
	/* Where the solve's final states go when the caller passes none. */
	double *(*final_states)(void *state);
	/* After a solve of count members (its inputs, final states and
	 * outcomes): the companion's own work. */
	int (*after)(void *state, const picard_solver *s, long count, const double *x0,
		     const double *params, const struct picard_draw *draw, const double *x_final,
		     const picard_traj_status *status);
	/* Its per-member results of the last solve
	 * (picard_solver_error_estimates). */
	const double *(*results)(const void *state);
	void (*free)(void *state);
};

/* picard_solver_create without a companion (options->estimate_error is
 * not acted on), the options as resolved into *resolved. */
int picard_solver_create_plain(picard_solver **out, const picard_model *model,
			       const picard_options *options, long ntraj,
			       picard_options *resolved);
/* Attach companion to s, which frees it with itself. */
void picard_solver_attach(picard_solver *s, const struct picard_solve_companion *companion);
/* The members one solve of s holds. */
long picard_solver_batch(const picard_solver *s);

/* The solver's CUDA side; NULL on the CPU backend. */
struct picard_cuda_solver *picard_solver_cuda(const picard_solver *s);

/* picard_solve_batch of count members drawn where they are solved (draw,
 * backend.h): on the device for the CUDA backend, so that no state
 * crosses the bus, into the solver's own arrays on the CPU backend. The
 * draw is refused where a member could pass what the precision holds. */
int picard_solve_drawn(picard_solver *s, long count, const struct picard_draw *draw,
		       double *x_final, picard_traj_status *status, long *fail_window,
		       const picard_record *records, int nrecords, picard_stats *stats);

/* picard_solve_batch of count members whose inputs are those of
 * inputs_of's last solve, on the device already
 * (picard_cuda_shares_inputs), or, where inputs_of is NULL, draw's (as
 * picard_solve_drawn) or x0 and params (checked as picard_solve_batch
 * checks them). status NULL (a CUDA solver): the members' outcomes stay
 * on the device, for picard_cuda_final_errors; only their totals come
 * back. */
int picard_solve_from(picard_solver *s, const picard_solver *inputs_of,
		      const struct picard_draw *draw, long count, const double *x0,
		      const double *params, double *x_final, picard_traj_status *status,
		      const picard_record *records, int nrecords);

#endif
