/* solvers.c - the list of GPU tridiagonal solvers that the bench and the
 * test run, in the order they are reported. */
#include "tridiag/tridiag.h"

const struct tridiag_solver *const tridiag_solvers[] = {
	&tridiag_thomas,
	&tridiag_checkerboard_global,
	&tridiag_checkerboard_shared,
	&tridiag_pcr_shared,
	&tridiag_cusparse,
	NULL,
};

int tridiag_any_layout(enum tridiag_layout layout)
{
	(void)layout;
	return 1;
}

int tridiag_solver_takes(const struct tridiag_solver *solver, const struct tridiag_batch *batch)
{
	return solver->takes_layout(batch->layout) && batch->n >= solver->min_n &&
	       (solver->max_n == 0 || batch->n <= solver->max_n);
}
