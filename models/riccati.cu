/* riccati.cu - dx/dt = a x^2, the simplest finite-time blow-up: exact
 * solution x(t) = x0 / (1 - a x0 (t - t0)), infinite at t0 + 1/(a x0).
 * The defaults (x0 = 0.1, t in [0, 2]) stay finite; x0 = 1 on the same
 * span does not, which the tests use to check divergence is reported. */
#include "picard_model.cuh"

struct riccati {
	static constexpr int dim = 1, nparams = 1;
	static constexpr const char *param_names[] = {"a"};
	static constexpr double param_defaults[] = {1};
	static constexpr double x0[] = {0.1};
	static constexpr double t0 = 0, t1 = 2;
	static constexpr const char *summary = "x' = a x^2";
	static constexpr const char *reference =
		"exact: x(t) = x0 / (1 - a x0 (t - t0)), blow-up at t0 + 1/(a x0)";

	template <typename real>
	__host__ __device__ static void rhs(real, const real *x, const real *p,
					    real *dxdt)
	{
		dxdt[0] = p[0] * x[0] * x[0];
	}

	/* J[i*dim + k] = d f_i / d x_k */
	template <typename real>
	__host__ __device__ static void jacobian(real, const real *x, const real *p, real *J)
	{
		J[0] = 2 * p[0] * x[0];
	}

	static void exact(double t, double t0, const double *x0,
			  const double *p, double *x)
	{
		x[0] = x0[0] / (1 - p[0] * x0[0] * (t - t0));
	}
};

PICARD_REGISTER_MODEL(riccati)
