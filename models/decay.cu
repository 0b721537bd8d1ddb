/* decay.cu - exponential decay dx/dt = -lambda x, exact solution
 * x(t) = x(t0) exp(-lambda (t - t0)). Anchors the tests. */
#include <math.h>

#include "picard_model.cuh"

struct decay {
	static constexpr int dim = 1, nparams = 1;
	static constexpr const char *param_names[] = {"lambda"};
	static constexpr double param_defaults[] = {0.5};
	static constexpr double x0[] = {1};
	static constexpr double t0 = 0, t1 = 10;
	static constexpr const char *summary = "x' = -lambda x";
	static constexpr const char *reference = "exact: x(t) = x0 exp(-lambda (t - t0))";

	template <typename real>
	__host__ __device__ static void rhs(real, const real *x, const real *p,
					    real *dxdt)
	{
		dxdt[0] = -p[0] * x[0];
	}

	/* J[i*dim + k] = d f_i / d x_k */
	template <typename real>
	__host__ __device__ static void jacobian(real, const real *, const real *p, real *J)
	{
		J[0] = -p[0];
	}

	static void exact(double t, double t0, const double *x0,
			  const double *p, double *x)
	{
		x[0] = x0[0] * exp(-p[0] * (t - t0));
	}
};

PICARD_REGISTER_MODEL(decay)
