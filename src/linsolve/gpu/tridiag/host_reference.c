/* host_reference.c - the host reference of the GPU tridiagonal solvers
 * (host_reference.h): the library's host Thomas (src/linsolve/thomas.c)
 * over the batch's systems in either layout, and the batches and errors
 * they are checked on. The fill and the error walk the arrays in memory
 * order (all systems a row at a time where they are interleaved), so
 * that batches of 4096 systems of 4096 rows take a second, not a cache
 * miss a row. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "linsolve/tridiag.h"
#include "tridiag/host_reference.h"

/* System and row of the element at index `at` of shape's arrays. */
static void system_row_of(const struct tridiag_batch *shape, long at, long *s, int *i)
{
	if (shape->layout == TRIDIAG_INTERLEAVED) {
		*s = at % shape->batch;
		*i = (int)(at / shape->batch);
	} else {
		*s = at / shape->n;
		*i = (int)(at % shape->n);
	}
}

/* A uniform double in [0, 1) from splitmix64 of key: the same numbers for
 * a row whichever order the rows are drawn in. */
static double uniform(unsigned long long key)
{
	unsigned long long z = key * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

void tridiag_fill_dominant(const struct tridiag_batch *shape, struct tridiag_host_arrays arrays,
			   unsigned long long seed)
{
	long rows = shape->batch * shape->n;

	for (long at = 0; at < rows; at++) {
		long s;
		int i;

		system_row_of(shape, at, &s, &i);
		unsigned long long key = (seed << 40) ^ (4 * ((unsigned long long)s * shape->n + i));
		double lower = i > 0 ? -(0.5 + 1.5 * uniform(key)) : 0.0;
		double upper = i < shape->n - 1 ? -(0.5 + 1.5 * uniform(key + 1)) : 0.0;

		arrays.lower[at] = lower;
		arrays.upper[at] = upper;
		arrays.diag[at] = 1.0 - lower - upper;
		arrays.rhs[at] = 2.0 * uniform(key + 2) - 1.0;
	}
}

/* A system's outcome from the host Thomas's code. */
static int status_of(picard_linsolve_code code)
{
	return code == PICARD_LINSOLVE_OK ? TRIDIAG_OK :
	       code == PICARD_LINSOLVE_ZERO_PIVOT ? TRIDIAG_ZERO_PIVOT : TRIDIAG_NONFINITE_PIVOT;
}

int tridiag_host_thomas(const struct tridiag_batch *batch)
{
	const bool interleaved = batch->layout == TRIDIAG_INTERLEAVED;
	const picard_tridiag_batch systems = {
		.lower = batch->lower, .diag = batch->diag, .upper = batch->upper,
		.rhs = batch->rhs, .x = batch->x, .n = batch->n, .count = batch->batch,
		.row_stride = interleaved ? batch->batch : 1,
		.system_stride = interleaved ? 1 : batch->n,
	};
	picard_tridiag_status *status = malloc((size_t)batch->batch * sizeof(*status));
	picard_linsolve_code code;

	if (!status)
		return -1;
	code = picard_tridiag_thomas.solve(&picard_tridiag_thomas, &systems, status);
	for (long s = 0; s < batch->batch && code != PICARD_LINSOLVE_NO_MEMORY &&
			 code != PICARD_LINSOLVE_BAD_INPUT; s++)
		batch->status[s] = status_of(status[s].code);
	free(status);
	return code == PICARD_LINSOLVE_NO_MEMORY || code == PICARD_LINSOLVE_BAD_INPUT ? -1 : 0;
}

double tridiag_max_relative_error(const struct tridiag_batch *shape, const double *x,
				  const double *ref)
{
	long rows = shape->batch * shape->n;
	double *diff = calloc(shape->batch, sizeof(double));
	double *size = calloc(shape->batch, sizeof(double));
	double worst = 0.0;

	if (!diff || !size) {
		worst = NAN;
		goto out_free;
	}
	for (long at = 0; at < rows; at++) {
		long s;
		int i;

		if (!isfinite(x[at])) {
			worst = INFINITY;
			goto out_free;
		}
		system_row_of(shape, at, &s, &i);
		diff[s] = fmax(diff[s], fabs(x[at] - ref[at]));
		size[s] = fmax(size[s], fabs(ref[at]));
	}
	for (long s = 0; s < shape->batch; s++)
		worst = fmax(worst, size[s] > 0.0 ? diff[s] / size[s] : diff[s]);
out_free:
	free(diff);
	free(size);
	return worst;
}
