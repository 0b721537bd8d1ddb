/* pendulum.cu - the mathematical pendulum without small-angle
 * approximation (E. Hairer, C. Lubich, G. Wanner, Geometric Numerical
 * Integration, 2nd ed., Springer 2006, section I.1.4):
 *
 *	theta' = omega,  omega' = -(g / L) sin theta
 *
 * Released at rest from theta = 2.5 rad (143 degrees), far from the
 * linear regime: the period is about 1.7 times the small-angle one. The
 * energy omega^2 / 2 - (g / L) cos theta (per unit m L^2) is conserved.
 */
#include <math.h>

#include "picard_model.cuh"

struct pendulum {
	static constexpr int dim = 2, nparams = 2;
	static constexpr const char *param_names[] = {"g", "L"};
	static constexpr double param_defaults[] = {9.81, 1};
	static constexpr double x0[] = {2.5, 0};
	static constexpr double t0 = 0, t1 = 20;
	static constexpr double default_h = 0.001;
	static constexpr const char *summary =
		"theta' = omega, omega' = -(g/L) sin(theta)";
	static constexpr const char *reference =
		"Hairer, Lubich & Wanner, Geometric Numerical Integration (2006) I.1.4";
	static constexpr int ninvariants = 1;
	static constexpr const char *invariant_names[] = {"energy"};

	template <typename real>
	__host__ __device__ static void rhs(real, const real *x, const real *p,
					    real *dxdt)
	{
		dxdt[0] = x[1];
		dxdt[1] = -(p[0] / p[1]) * sin(x[0]);
	}

	/* J[i*dim + k] = d f_i / d x_k */
	template <typename real>
	__host__ __device__ static void jacobian(real, const real *x, const real *p, real *J)
	{
		J[0] = 0;
		J[1] = 1;
		J[2] = -(p[0] / p[1]) * cos(x[0]);
		J[3] = 0;
	}

	static void invariants(const double *x, const double *p, double *out)
	{
		out[0] = 0.5 * x[1] * x[1] - p[0] / p[1] * cos(x[0]);
	}
};

PICARD_REGISTER_MODEL(pendulum)
