/* spring3.cu - a damped spring driving a slow tank: three components, a
 * model picard has never seen (bench/jit/time-to-answer.sh). */
#include "picard_model.cuh"

struct spring3 {
	static constexpr int dim = 3, nparams = 2;
	static constexpr const char *param_names[] = {"k", "c"};
	static constexpr double param_defaults[] = {4, 0.1};
	static constexpr double x0[] = {1, 0, 0.5};
	static constexpr double t0 = 0, t1 = 10;
	static constexpr const char *summary = "x'' = -k x - c x', y' = -0.2 y + 0.1 x";
	static constexpr const char *reference = "none";

	template <typename real>
	__host__ __device__ static void rhs(real, const real *x, const real *p, real *dxdt)
	{
		dxdt[0] = x[1];
		dxdt[1] = -p[0] * x[0] - p[1] * x[1];
		dxdt[2] = real(-0.2) * x[2] + real(0.1) * x[0];
	}
};

PICARD_REGISTER_MODEL(spring3)
