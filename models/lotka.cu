/* lotka.cu - the modified Lotka-Volterra model of the paper (Korobitsyn &
 * Frolova 2011, its test problem): prey x1, predator x2 with self-limitation.
 *
 *	dx1/dt = a1 x1 - b1 x1 x2 - c1 x1^2
 *	dx2/dt = a2 x2 + b2 x1 x2 - c2 x2^2
 *
 * One coefficient is illegible in the paper's text; b2 = 0.01 gives the
 * spiral to the interior equilibrium that its phase portrait shows.
 */
#include "picard_model.cuh"

struct lotka {
	static constexpr int dim = 2, nparams = 6;
	static constexpr const char *param_names[] = {
		"a1", "b1", "c1", "a2", "b2", "c2"};
	static constexpr double param_defaults[] = {
		0.25, 0.01, 0.001, -0.3, 0.01, 0.002};
	static constexpr double x0[] = {50, 30};
	static constexpr double t0 = 0, t1 = 100;
	static constexpr const char *summary =
		"x1' = a1 x1 - b1 x1 x2 - c1 x1^2, x2' = a2 x2 + b2 x1 x2 - c2 x2^2";
	static constexpr const char *reference =
		"Korobitsyn & Frolova, Omsk Univ. Bulletin 2011 No. 4 (b2 illegible there, 0.01 here)";

	template <typename real>
	__host__ __device__ static void rhs(real, const real *x, const real *p,
					    real *dxdt)
	{
		dxdt[0] = p[0] * x[0] - p[1] * x[0] * x[1] - p[2] * x[0] * x[0];
		dxdt[1] = p[3] * x[1] + p[4] * x[0] * x[1] - p[5] * x[1] * x[1];
	}

	/* J[i*dim + k] = d f_i / d x_k */
	template <typename real>
	__host__ __device__ static void jacobian(real, const real *x, const real *p, real *J)
	{
		J[0] = p[0] - p[1] * x[1] - 2 * p[2] * x[0];
		J[1] = -p[1] * x[0];
		J[2] = p[4] * x[1];
		J[3] = p[3] + p[4] * x[0] - 2 * p[5] * x[1];
	}
};

PICARD_REGISTER_MODEL(lotka)
