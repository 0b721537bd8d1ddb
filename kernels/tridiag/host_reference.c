/* host_reference.c - the host reference of the GPU tridiagonal solvers
 * (host_reference.h). Each loop walks the arrays in memory order in
 * either layout (all systems a row at a time where they are interleaved),
 * so that batches of 4096 systems of 4096 rows take a second, not a
 * cache miss a row. */
#include <math.h>
#include <stdlib.h>

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

/* Thomas's forward elimination of the element at `at` (row i of system s),
 * the modified upper diagonal into upper_mod[at] and the modified
 * right-hand side into x[at]; x_prev[s] is row i-1's. */
static void forward_row(const struct tridiag_batch *batch, long at, long s, int i,
			long prev, double *upper_mod)
{
	double lower = i > 0 ? batch->lower[at] : 0.0;
	double up_prev = i > 0 ? upper_mod[prev] : 0.0, x_prev = i > 0 ? batch->x[prev] : 0.0;
	double pivot = batch->diag[at] - lower * up_prev;

	if (batch->status[s] != TRIDIAG_OK)
		return;
	if (!isfinite(pivot) || pivot == 0.0) {
		batch->status[s] = isfinite(pivot) ? TRIDIAG_ZERO_PIVOT : TRIDIAG_NONFINITE_PIVOT;
		return;
	}
	upper_mod[at] = (i < batch->n - 1 ? batch->upper[at] : 0.0) / pivot;
	batch->x[at] = (batch->rhs[at] - lower * x_prev) / pivot;
}

int tridiag_host_thomas(const struct tridiag_batch *batch)
{
	long rows = batch->batch * batch->n;
	long row_step = batch->layout == TRIDIAG_INTERLEAVED ? batch->batch : 1;
	double *upper_mod = malloc(rows * sizeof(double));

	if (!upper_mod)
		return -1;
	for (long s = 0; s < batch->batch; s++)
		batch->status[s] = TRIDIAG_OK;
	for (long at = 0; at < rows; at++) {
		long s;
		int i;

		system_row_of(batch, at, &s, &i);
		forward_row(batch, at, s, i, at - row_step, upper_mod);
	}
	for (long at = rows - 1; at >= 0; at--) {
		long s;
		int i;

		system_row_of(batch, at, &s, &i);
		if (i < batch->n - 1 && batch->status[s] == TRIDIAG_OK)
			batch->x[at] -= upper_mod[at] * batch->x[at + row_step];
	}
	free(upper_mod);
	return 0;
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
