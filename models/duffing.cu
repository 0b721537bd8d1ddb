/* duffing.cu - the forced Duffing oscillator, G. Duffing, Erzwungene
 * Schwingungen bei veranderlicher Eigenfrequenz (Vieweg, 1918); in the
 * form of J. Guckenheimer & P. Holmes, Nonlinear Oscillations, Dynamical
 * Systems, and Bifurcations of Vector Fields (Springer 1983), section 2.2:
 *
 *	x'' + delta x' + alpha x + beta x^3 = gamma cos(omega t)
 *
 * as x1 = x, x2 = x'. A double-well potential (alpha = -1, beta = 1) with
 * damping 0.3 and a weak forcing gamma = 0.2 at omega = 1.2: the
 * trajectory settles into a forced oscillation in one well. The only
 * shipped model whose right-hand side depends on t.
 */
#include <math.h>

#include "picard_model.cuh"

struct duffing {
	static constexpr int dim = 2, nparams = 5;
	static constexpr const char *param_names[] = {"delta", "alpha", "beta", "gamma", "omega"};
	static constexpr double param_defaults[] = {0.3, -1, 1, 0.2, 1.2};
	static constexpr double x0[] = {1, 0};
	static constexpr double t0 = 0, t1 = 50;
	static constexpr double default_h = 0.0075;
	static constexpr const char *summary =
		"x1' = x2, x2' = -delta x2 - alpha x1 - beta x1^3 + gamma cos(omega t)";
	static constexpr const char *reference =
		"Guckenheimer & Holmes, Nonlinear Oscillations (1983) 2.2";

	template <typename real>
	__host__ __device__ static void rhs(real t, const real *x, const real *p,
					    real *dxdt)
	{
		dxdt[0] = x[1];
		dxdt[1] = -p[0] * x[1] - p[1] * x[0] - p[2] * x[0] * x[0] * x[0] +
			  p[3] * cos(p[4] * t);
	}

	/* J[i*dim + k] = d f_i / d x_k */
	template <typename real>
	__host__ __device__ static void jacobian(real, const real *x, const real *p, real *J)
	{
		J[0] = 0;
		J[1] = 1;
		J[2] = -p[1] - 3 * p[2] * x[0] * x[0];
		J[3] = -p[0];
	}
};

PICARD_REGISTER_MODEL(duffing)
