/* test_small_lu.c - small_lu.cuh, the per-thread LU with partial pivoting
 * that radau5 (E1, E2) and the Rosenbrock schemes (W) factor every step
 * with (suite small_lu), through small_lu_check.cpp:
 * - a 3 x 3 system whose second pivot row is the one the first swap moved:
 *   the case that a factorisation swapping whole rows (its multipliers
 *   too) and a solve swapping b step by step got wrong;
 * - random systems of 2, 3, 4 and 11 unknowns, real and complex, with
 *   rows scaled over 14 decades as a reactor's Jacobian (T's row ~1e10
 *   against the mass fractions' ~1e2) and the diagonal shift of radau5's
 *   E1 = u1/h I - J: each row's residual within ROW_TOL of the row's
 *   terms, |r_i| <= ROW_TOL (sum_k |a_ik x_k| + |b_i|). */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdint.h>

#include "small_lu_check.h"

/* Partial pivoting is backward stable row by row only up to the rows'
 * scaling: measured at most 1.2e-12 (n = 11, real), 6.8e-14 at n <= 4;
 * the whole-row swaps gave 0.6 to 1. */
#define ROW_TOL 1e-10
#define SYSTEMS 400   /* random systems a size */

/* Uniform in [0, 1): splitmix64, fixed seed. */
static double uniform(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

/* Worst row of (ar + i ai) x - b against the row's terms; ai, xi, bi NULL
 * for a real system. */
static double row_residual(int n, const double *ar, const double *ai, const double *xr,
			   const double *xi, const double *br, const double *bi)
{
	double worst = 0;

	for (int i = 0; i < n; i++) {
		double rr = -br[i], ri = bi ? -bi[i] : 0, size = hypot(br[i], bi ? bi[i] : 0);

		for (int k = 0; k < n; k++) {
			const double a = ar[i * n + k], b = ai ? ai[i * n + k] : 0;
			const double x = xr[k], y = xi ? xi[k] : 0;

			rr += a * x - b * y;
			ri += a * y + b * x;
			size += hypot(a, b) * hypot(x, y);
		}
		worst = fmax(worst, hypot(rr, ri) / size);
	}
	return worst;
}

/* The second step pivots on row 2, where the first step's swap put row 0:
 * a solve must pair each multiplier with the row it was made for. */
Test(small_lu, second_pivot_on_a_swapped_row)
{
	const double a[9] = { 1, 2, 3, 2, 1, 1, 4, 1, 5 }, zero[9] = { 0 };
	double x[3] = { 14, 7, 21 }, xr[3] = { 14, 7, 21 }, xi[3] = { 0, 0, 0 };

	cr_assert_eq(small_lu_check_solve(3, a, x), 0);
	cr_assert_eq(small_lu_check_solve_complex(3, a, zero, xr, xi), 0);
	for (int k = 0; k < 3; k++) {
		cr_expect_float_eq(x[k], k + 1.0, 1e-14, "x[%d] = %.17g, not %d", k, x[k], k + 1);
		cr_expect_float_eq(xr[k], k + 1.0, 1e-14, "complex: x[%d] = %.17g", k, xr[k]);
		cr_expect_float_eq(xi[k], 0, 1e-14, "complex: x[%d] has %.3g i", k, xi[k]);
	}
}

/* Random systems, rows scaled over 14 decades, diagonal shifted. */
Test(small_lu, random_scaled_systems_solved_to_rounding)
{
	static const int sizes[4] = { 2, 3, 4, 11 };
	enum { N = SMALL_LU_CHECK_MAX };
	uint64_t state = 20261128;

	for (int s = 0; s < 4; s++) {
		const int n = sizes[s];
		double worst = 0, worst_complex = 0;

		for (int trial = 0; trial < SYSTEMS; trial++) {
			double ar[N * N], ai[N * N], br[N], bi[N], xr[N], xi[N], x[N];
			const double shift = pow(10, 8 * uniform(&state));

			for (int i = 0; i < n; i++) {
				const double row = pow(10, 14 * uniform(&state) - 4);

				for (int k = 0; k < n; k++) {
					ar[i * n + k] = row * (2 * uniform(&state) - 1);
					ai[i * n + k] = 0;
				}
				ar[i * n + i] += shift;
				ai[i * n + i] = 1.2 * shift;
				br[i] = x[i] = xr[i] = 2 * uniform(&state) - 1;
				bi[i] = xi[i] = 2 * uniform(&state) - 1;
			}
			cr_assert_eq(small_lu_check_solve(n, ar, x), 0);
			cr_assert_eq(small_lu_check_solve_complex(n, ar, ai, xr, xi), 0);
			worst = fmax(worst, row_residual(n, ar, NULL, x, NULL, br, NULL));
			worst_complex = fmax(worst_complex, row_residual(n, ar, ai, xr, xi, br, bi));
		}
		cr_log_info("small_lu, n = %d: worst row residual %.1e real, %.1e complex, over %d "
			    "systems", n, worst, worst_complex, SYSTEMS);
		cr_expect_leq(worst, ROW_TOL, "n = %d: a row's residual %.2e of its terms", n, worst);
		cr_expect_leq(worst_complex, ROW_TOL, "n = %d, complex: a row's residual %.2e", n,
			      worst_complex);
	}
}
