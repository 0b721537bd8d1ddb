/* rosenzweig_macarthur.cu - the Rosenzweig-MacArthur predator-prey model:
 * logistic prey N with a Holling type II (saturating) functional response of
 * the predator P, M. L. Rosenzweig & R. H. MacArthur, "Graphical
 * representation and stability conditions of predator-prey interactions",
 * Am. Nat. 97 (1963) 209-223:
 *
 *	N' = r N (1 - N / K) - a N P / (1 + a th N)
 *	P' = e a N P / (1 + a th N) - m P
 *
 * as x1 = N (prey), x2 = P (predator). r: prey growth rate, K: carrying
 * capacity, a: attack rate, th: handling time (called h in the literature;
 * renamed so as not to clash with picard's node spacing h), e: conversion
 * efficiency, m: predator mortality. With r = 1, K = 10, a = 1, th = 0.5,
 * e = 0.5, m = 0.3 the interior equilibrium N* = m / (a (e - m th)) = 0.857
 * lies left of the hump of the prey isocline, N = (K - 1/(a th)) / 2 = 4:
 * it is unstable (the paradox of enrichment) and the trajectory from
 * (5, 2) winds onto a stable limit cycle of period about 30.8 (prey
 * maxima near t = 23.7, 53.5, 84.3), on which the prey falls to ~1e-4: the
 * span [0, 100] shows the approach and three cycles. default_h = 0.0025
 * gives a relative error of about 1e-2 against rk8pd at m = 8, K = 2.
 * No exact solution.
 */
#include "picard_model.cuh"

struct rosenzweig_macarthur {
	static constexpr int dim = 2, nparams = 6;
	static constexpr const char *param_names[] = {"r", "K", "a", "th", "e", "m"};
	static constexpr double param_defaults[] = {1, 10, 1, 0.5, 0.5, 0.3};
	static constexpr double x0[] = {5, 2};
	static constexpr double t0 = 0, t1 = 100;
	static constexpr double default_h = 0.0025;
	static constexpr const char *summary =
		"N' = r N (1 - N/K) - a N P / (1 + a th N), P' = e a N P / (1 + a th N) - m P";
	static constexpr const char *reference =
		"Rosenzweig & MacArthur, Am. Nat. 97 (1963) 209-223";

	template <typename real>
	__host__ __device__ static void rhs(real, const real *x, const real *p,
					    real *dxdt)
	{
		real f = p[2] * x[0] * x[1] / (1 + p[2] * p[3] * x[0]);
		dxdt[0] = p[0] * x[0] * (1 - x[0] / p[1]) - f;
		dxdt[1] = p[4] * f - p[5] * x[1];
	}

	/* J[i*dim + k] = d f_i / d x_k */
	template <typename real>
	__host__ __device__ static void jacobian(real, const real *x, const real *p, real *J)
	{
		real d = 1 + p[2] * p[3] * x[0];
		real f0 = p[2] * x[1] / (d * d); /* d f / d x0, f the predation */
		real f1 = p[2] * x[0] / d;       /* d f / d x1 */

		J[0] = p[0] * (1 - 2 * x[0] / p[1]) - f0;
		J[1] = -f1;
		J[2] = p[4] * f0;
		J[3] = p[4] * f1 - p[5];
	}
};

PICARD_REGISTER_MODEL(rosenzweig_macarthur)
