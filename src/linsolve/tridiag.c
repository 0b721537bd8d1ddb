/* tridiag.c - the list of tridiagonal methods (tridiag.h), their lookup,
 * the pivot test and the batch loop the host methods share. */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "linsolve/tridiag.h"

const picard_tridiag_type *const picard_tridiag_list[] = {
	&picard_tridiag_thomas,
	&picard_tridiag_checkerboard,
	&picard_tridiag_pcr,
	NULL,
};

const picard_tridiag_type *picard_tridiag_named(const char *name)
{
	for (int i = 0; name && picard_tridiag_list[i]; i++)
		if (strcmp(picard_tridiag_list[i]->name, name) == 0)
			return picard_tridiag_list[i];
	return NULL;
}

picard_linsolve_code picard_pivot_check(int n, double pivot, double lower, double diag,
					double upper)
{
	if (!isfinite(pivot))
		return PICARD_LINSOLVE_NONFINITE;
	if (fabs(pivot) <= n * DBL_EPSILON * (fabs(lower) + fabs(diag) + fabs(upper)))
		return PICARD_LINSOLVE_ZERO_PIVOT;
	return PICARD_LINSOLVE_OK;
}

/* Solve system s of batch in the scratch (5n + work_doubles(n) doubles)
 * and write its x: the solution, or NaN where it failed. A solution with
 * a non-finite entry (NaN or Inf in the input) fails too. */
static picard_tridiag_status solve_system(const picard_tridiag_batch *batch, long s,
					  double *scratch, picard_tridiag_solve_one solve_one)
{
	int n = batch->n;
	long base = s * batch->system_stride, step = batch->row_stride;
	double *lower = scratch, *diag = lower + n, *upper = diag + n, *rhs = upper + n;
	double *x = rhs + n, *work = x + n;
	picard_tridiag_status st = { PICARD_LINSOLVE_OK, -1 };

	for (int i = 0; i < n; i++) {
		long at = base + i * step;

		lower[i] = i > 0 ? batch->lower[at] : 0;
		diag[i] = batch->diag[at];
		upper[i] = i < n - 1 ? batch->upper[at] : 0;
		rhs[i] = batch->rhs[at];
	}
	st.code = solve_one(n, lower, diag, upper, rhs, x, work, &st.row);
	for (int i = 0; st.code == PICARD_LINSOLVE_OK && i < n; i++)
		if (!isfinite(x[i]))
			st = (picard_tridiag_status){ PICARD_LINSOLVE_NONFINITE, i };
	if (st.code != PICARD_LINSOLVE_OK)
		for (int i = 0; i < n; i++)
			x[i] = NAN;
	else
		st.row = -1;
	for (int i = 0; i < n; i++)
		batch->x[base + i * step] = x[i];
	return st;
}

picard_linsolve_code picard_tridiag_each(const picard_tridiag_type *self,
					 const picard_tridiag_batch *batch,
					 picard_tridiag_status *status)
{
	bool no_memory = false;

	if (!batch || !status || batch->n < 1 || batch->count < 0 || !batch->lower ||
	    !batch->diag || !batch->upper || !batch->rhs || !batch->x)
		return PICARD_LINSOLVE_BAD_INPUT;
#pragma omp parallel if (batch->count > 1)
	{
		double *scratch = malloc(sizeof(double) * (5 * (size_t)batch->n +
							    self->work_doubles(batch->n)));

		if (!scratch) {
#pragma omp atomic write
			no_memory = true;
		}
#pragma omp for schedule(static)
		for (long s = 0; s < batch->count; s++)
			if (scratch)
				status[s] = solve_system(batch, s, scratch, self->solve_one);
		free(scratch);
	}
	if (no_memory)
		return PICARD_LINSOLVE_NO_MEMORY;
	for (long s = 0; s < batch->count; s++)
		if (status[s].code != PICARD_LINSOLVE_OK)
			return status[s].code;
	return PICARD_LINSOLVE_OK;
}
