/* vanderpol.cu - the Van der Pol oscillator x'' = mu (1 - x^2) x' - x as a
 * first-order system; B. van der Pol, "On relaxation-oscillations", Phil.
 * Mag. 2 (1926) 978-992. Stiff for large mu, where Picard iteration needs
 * very short windows. */
#include "picard_model.cuh"

struct vanderpol {
	static constexpr int dim = 2, nparams = 1;
	static constexpr const char *param_names[] = {"mu"};
	static constexpr double param_defaults[] = {1};
	static constexpr double x0[] = {2, 0};
	static constexpr double t0 = 0, t1 = 20;
	static constexpr double default_h = 0.0025;
	static constexpr const char *summary = "x1' = x2, x2' = mu (1 - x1^2) x2 - x1";
	static constexpr const char *reference =
		"van der Pol, Phil. Mag. 2 (1926) 978-992";

	template <typename real>
	__host__ __device__ static void rhs(real, const real *x, const real *p,
					    real *dxdt)
	{
		dxdt[0] = x[1];
		dxdt[1] = p[0] * (1 - x[0] * x[0]) * x[1] - x[0];
	}

	/* J[i*dim + k] = d f_i / d x_k */
	template <typename real>
	__host__ __device__ static void jacobian(real, const real *x, const real *p, real *J)
	{
		J[0] = 0;
		J[1] = 1;
		J[2] = -2 * p[0] * x[0] * x[1] - 1;
		J[3] = p[0] * (1 - x[0] * x[0]);
	}
};

PICARD_REGISTER_MODEL(vanderpol)
