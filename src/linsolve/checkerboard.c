/* checkerboard.c - the checkerboard Thomas method of Zolfaghari &
 * Foadaddini 2016 (section 4, Fig. 5), made a direct solver.
 *
 * The paper splits each system of n unknowns into nop sub-systems of dop
 * unknowns and solves them independently by Thomas, one thread each; the
 * unknowns just outside a sub-system are taken as known, from the last
 * sweep (Fig. 5a) or, in its checkerboard order, from the other colour's
 * sub-systems of the same sweep (Fig. 5b), and the sweeps repeat: a block
 * Gauss-Seidel iteration inside the ADI iteration (section 5, equations
 * (9)-(10)). A solver on its own must return the solution, not an
 * iterate, so here the sub-systems' coupling is solved exactly instead:
 *
 * - the system is cut into nop blocks of n / nop rows (the first n % nop
 *   one longer, so any n works); the last row of each block but the last
 *   is a separator, and the other rows of a block its interior;
 * - each interior is solved by Thomas, independently of the others (the
 *   paper's sub-systems), for its right-hand side y and for the two
 *   columns that couple it to the separators on either side, v (left)
 *   and w (right): interior x = y - v x_left - w x_right;
 * - substituting that into the separator rows leaves a tridiagonal system
 *   of nop - 1 separators (the Schur complement, diagonally dominant when
 *   the matrix is), solved by Thomas; then each interior from its y, v, w.
 *
 * Blocks have at least two rows, so nop is at most n / 2; n < 4 is one
 * block, which is Thomas. */
#include <stdbool.h>

#include "linsolve/tridiag.h"

/* The sub-system count of the listed method. */
#define CHECKERBOARD_SUBSYSTEMS 4

/* Blocks for n unknowns when nop are asked for: each at least 2 rows. */
static int block_count(int n, int nop)
{
	int most = n / 2;

	if (nop > most)
		nop = most;
	return nop < 1 ? 1 : nop;
}

/* First row of block p of nblocks over n rows. */
static int block_start(int n, int nblocks, int p)
{
	int base = n / nblocks, extra = n % nblocks;

	return p * base + (p < extra ? p : extra);
}

size_t picard_checkerboard_work(int n)
{
	/* y, v, w and Thomas's scratch; the reduced system's five arrays */
	return 4 * (size_t)n + 5 * (size_t)n;
}

/* Solve the interior rows [lo, hi) of block p for y, v and w. */
static picard_linsolve_code solve_interior(int lo, int hi, bool left, bool right,
					   const double *lower, const double *diag,
					   const double *upper, const double *rhs, double *y,
					   double *v, double *w, double *work, int *row)
{
	int m = hi - lo;
	picard_linsolve_code code;

	code = picard_thomas_solve(m, lower + lo, diag + lo, upper + lo, rhs + lo, y + lo, work,
				   row);
	for (int i = lo; i < hi; i++)
		v[i] = w[i] = 0;
	if (code == PICARD_LINSOLVE_OK && left) {
		v[lo] = lower[lo];
		code = picard_thomas_solve(m, lower + lo, diag + lo, upper + lo, v + lo, v + lo,
					   work, row);
	}
	if (code == PICARD_LINSOLVE_OK && right) {
		w[hi - 1] = upper[hi - 1];
		code = picard_thomas_solve(m, lower + lo, diag + lo, upper + lo, w + lo, w + lo,
					   work, row);
	}
	if (code != PICARD_LINSOLVE_OK)
		*row += lo;
	return code;
}

picard_linsolve_code picard_checkerboard_solve(int n, int nop, const double *lower,
					       const double *diag, const double *upper,
					       const double *rhs, double *x, double *work, int *row)
{
	int nblocks = block_count(n, nop), nsep = nblocks - 1;
	double *y = work, *v = y + n, *w = v + n, *thomas_work = w + n;
	double *red_lower = thomas_work + n, *red_diag = red_lower + n, *red_upper = red_diag + n;
	double *red_rhs = red_upper + n, *red_x = red_rhs + n;
	picard_linsolve_code code;

	if (nblocks == 1)
		return picard_thomas_solve(n, lower, diag, upper, rhs, x, thomas_work, row);
	for (int p = 0; p < nblocks; p++) {
		int lo = block_start(n, nblocks, p);
		int hi = p < nsep ? block_start(n, nblocks, p + 1) - 1 : n;

		code = solve_interior(lo, hi, p > 0, p < nsep, lower, diag, upper, rhs, y, v, w,
				      thomas_work, row);
		if (code != PICARD_LINSOLVE_OK)
			return code;
	}
	/* separator p is row r: its neighbours are the last interior row of
	 * block p and the first of block p + 1 */
	for (int p = 0; p < nsep; p++) {
		int r = block_start(n, nblocks, p + 1) - 1;

		red_lower[p] = p > 0 ? -lower[r] * v[r - 1] : 0;
		red_diag[p] = diag[r] - lower[r] * w[r - 1] - upper[r] * v[r + 1];
		red_upper[p] = p < nsep - 1 ? -upper[r] * w[r + 1] : 0;
		red_rhs[p] = rhs[r] - lower[r] * y[r - 1] - upper[r] * y[r + 1];
	}
	code = picard_thomas_solve(nsep, red_lower, red_diag, red_upper, red_rhs, red_x,
				   thomas_work, row);
	if (code != PICARD_LINSOLVE_OK) {
		*row = block_start(n, nblocks, *row + 1) - 1;
		return code;
	}
	for (int p = 0; p < nblocks; p++) {
		int lo = block_start(n, nblocks, p);
		int hi = p < nsep ? block_start(n, nblocks, p + 1) - 1 : n;
		double x_left = p > 0 ? red_x[p - 1] : 0, x_right = p < nsep ? red_x[p] : 0;

		for (int i = lo; i < hi; i++)
			x[i] = y[i] - v[i] * x_left - w[i] * x_right;
		if (p < nsep)
			x[hi] = x_right;
	}
	return PICARD_LINSOLVE_OK;
}

static picard_linsolve_code checkerboard_one(int n, const double *lower, const double *diag,
					     const double *upper, const double *rhs, double *x,
					     double *work, int *row)
{
	return picard_checkerboard_solve(n, CHECKERBOARD_SUBSYSTEMS, lower, diag, upper, rhs, x,
					 work, row);
}

const picard_tridiag_type picard_tridiag_checkerboard = {
	.name = "checkerboard",
	.summary = "checkerboard Thomas: 4 sub-systems by Thomas, then their separators' "
		   "reduced system (Zolfaghari & Foadaddini 2016, made direct)",
	.solve = picard_tridiag_each,
	.solve_one = checkerboard_one,
	.work_doubles = picard_checkerboard_work,
};
