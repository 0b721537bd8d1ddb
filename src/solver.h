/* solver.h - solves beyond the public API's: of members drawn where they
 * are solved (picard-run's), and what a solver lends the error estimate
 * (src/estimate.c), whose companion solver runs beside it on the same
 * inputs: its CUDA side, and a solve that starts from another solver's
 * inputs where they are on the device already. */
#ifndef PICARD_SOLVER_H
#define PICARD_SOLVER_H

#include "backend.h"
#include "picard.h"

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
