/* pcr.c - parallel cyclic reduction (Zolfaghari & Foadaddini 2016,
 * section 3-3, with the reduction (5) of section 3-2). Each level
 * eliminates from every row i its neighbours i - s and i + s, leaving a
 * row that couples i - 2s and i + 2s; after ceil(log2 n) levels every row
 * stands alone and x_i = d_i / b_i. All rows of a level are independent
 * (one GPU thread each); a neighbour past either end is a zero row, so
 * any n works, not only powers of two. */
#include "linsolve/tridiag.h"

static size_t pcr_work(int n)
{
	return 8 * (size_t)n; /* two levels of a, b, c, d */
}

/* The coefficient of array v at row j, zero outside 0..n-1. */
static double at(const double *v, int n, int j)
{
	return j >= 0 && j < n ? v[j] : 0;
}

static picard_linsolve_code pcr_one(int n, const double *lower, const double *diag,
				    const double *upper, const double *rhs, double *x,
				    double *work, int *row)
{
	double *a = work, *b = a + n, *c = b + n, *d = c + n;
	double *a_next = d + n, *b_next = a_next + n, *c_next = b_next + n, *d_next = c_next + n;

	for (int i = 0; i < n; i++) {
		a[i] = lower[i];
		b[i] = diag[i];
		c[i] = upper[i];
		d[i] = rhs[i];
	}
	for (int s = 1;; s *= 2) {
		/* b is each row's pivot at this level, the rows of the matrix
		 * given (lower, diag, upper) its scale */
		for (int i = 0; i < n; i++) {
			picard_linsolve_code code =
				picard_pivot_check(n, b[i], lower[i], diag[i], upper[i]);
			if (code != PICARD_LINSOLVE_OK) {
				*row = i;
				return code;
			}
		}
		if (s >= n)
			break;
		for (int i = 0; i < n; i++) {
			double k1 = i - s >= 0 ? a[i] / b[i - s] : 0;
			double k2 = i + s < n ? c[i] / b[i + s] : 0;

			a_next[i] = -at(a, n, i - s) * k1;
			b_next[i] = b[i] - at(c, n, i - s) * k1 - at(a, n, i + s) * k2;
			c_next[i] = -at(c, n, i + s) * k2;
			d_next[i] = d[i] - at(d, n, i - s) * k1 - at(d, n, i + s) * k2;
		}
		double *swap;
		swap = a, a = a_next, a_next = swap;
		swap = b, b = b_next, b_next = swap;
		swap = c, c = c_next, c_next = swap;
		swap = d, d = d_next, d_next = swap;
	}
	for (int i = 0; i < n; i++)
		x[i] = d[i] / b[i];
	return PICARD_LINSOLVE_OK;
}

const picard_tridiag_type picard_tridiag_pcr = {
	.name = "pcr",
	.summary = "parallel cyclic reduction: log2 n levels, every row of a level independent",
	.solve = picard_tridiag_each,
	.solve_one = pcr_one,
	.work_doubles = pcr_work,
};
