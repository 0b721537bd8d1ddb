/* lorenz.cu - the Lorenz system, E. N. Lorenz, "Deterministic nonperiodic
 * flow", J. Atmos. Sci. 20 (1963) 130-141, with his sigma = 10, rho = 28,
 * beta = 8/3. Chaotic: nearby trajectories separate like exp(0.9 t), so the
 * default span is short enough for a reference comparison to mean
 * something. */
#include "picard_model.cuh"

struct lorenz {
	static constexpr int dim = 3, nparams = 3;
	static constexpr const char *param_names[] = {"sigma", "rho", "beta"};
	static constexpr double param_defaults[] = {10, 28, 8.0 / 3};
	static constexpr double x0[] = {1, 1, 1};
	static constexpr double t0 = 0, t1 = 2;
	static constexpr double default_h = 0.00125;
	static constexpr const char *summary =
		"x' = sigma (y - x), y' = x (rho - z) - y, z' = x y - beta z";
	static constexpr const char *reference =
		"Lorenz, J. Atmos. Sci. 20 (1963) 130-141";

	template <typename real>
	__host__ __device__ static void rhs(real, const real *x, const real *p,
					    real *dxdt)
	{
		dxdt[0] = p[0] * (x[1] - x[0]);
		dxdt[1] = x[0] * (p[1] - x[2]) - x[1];
		dxdt[2] = x[0] * x[1] - p[2] * x[2];
	}

	/* J[i*dim + k] = d f_i / d x_k */
	template <typename real>
	__host__ __device__ static void jacobian(real, const real *x, const real *p, real *J)
	{
		J[0] = -p[0];
		J[1] = p[0];
		J[2] = 0;
		J[3] = p[1] - x[2];
		J[4] = -1;
		J[5] = -x[0];
		J[6] = x[1];
		J[7] = x[0];
		J[8] = -p[2];
	}
};

PICARD_REGISTER_MODEL(lorenz)
