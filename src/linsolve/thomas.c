/* thomas.c - Thomas's algorithm (Gaussian elimination without pivoting
 * for a tridiagonal matrix), one system at a time: the forward sweep of
 * Zolfaghari & Foadaddini 2016, section 3-1, equations (2)-(3), and the
 * back substitution (4). Stable without pivoting for a diagonally
 * dominant matrix; elsewhere a pivot may vanish, which is reported. */
#include "linsolve/tridiag.h"

picard_linsolve_code picard_thomas_solve(int n, const double *lower, const double *diag,
					 const double *upper, const double *rhs, double *x,
					 double *work, int *row)
{
	double *upper_scaled = work; /* c'_i of (2) */

	for (int i = 0; i < n; i++) {
		double below = i > 0 ? lower[i] : 0;
		double pivot = diag[i] - (i > 0 ? below * upper_scaled[i - 1] : 0);
		double above = i < n - 1 ? upper[i] : 0;
		picard_linsolve_code code = picard_pivot_check(n, pivot, below, diag[i], above);

		if (code != PICARD_LINSOLVE_OK) {
			*row = i;
			return code;
		}
		upper_scaled[i] = above / pivot;
		/* rhs[i] is read before x[i] is written: x may be rhs */
		x[i] = (rhs[i] - (i > 0 ? below * x[i - 1] : 0)) / pivot;
	}
	for (int i = n - 2; i >= 0; i--)
		x[i] -= upper_scaled[i] * x[i + 1];
	return PICARD_LINSOLVE_OK;
}

static size_t thomas_work(int n)
{
	return (size_t)n;
}

const picard_tridiag_type picard_tridiag_thomas = {
	.name = "thomas",
	.summary = "Thomas's algorithm, one system at a time (Gaussian elimination, no pivoting)",
	.solve = picard_tridiag_each,
	.solve_one = picard_thomas_solve,
	.work_doubles = thomas_work,
};
