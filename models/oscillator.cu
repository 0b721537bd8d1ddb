/* oscillator.cu - harmonic oscillator x'' = -omega^2 x as a first-order
 * system (x1 = position, x2 = velocity); exact solution a rotation of the
 * phase plane. Anchors the tests. */
#include <math.h>

#include "picard_model.cuh"

struct oscillator {
	static constexpr int dim = 2, nparams = 1;
	static constexpr const char *param_names[] = {"omega"};
	static constexpr double param_defaults[] = {1};
	static constexpr double x0[] = {1, 0};
	static constexpr double t0 = 0, t1 = 20;
	static constexpr const char *summary = "x1' = x2, x2' = -omega^2 x1";
	static constexpr const char *reference =
		"exact: x1 = x1(t0) cos(w s) + x2(t0)/w sin(w s), s = t - t0";
	static constexpr int ninvariants = 1;
	static constexpr const char *invariant_names[] = {"energy"};

	template <typename real>
	__host__ __device__ static void rhs(real, const real *x, const real *p,
					    real *dxdt)
	{
		dxdt[0] = x[1];
		dxdt[1] = -p[0] * p[0] * x[0];
	}

	/* J[i*dim + k] = d f_i / d x_k */
	template <typename real>
	__host__ __device__ static void jacobian(real, const real *, const real *p, real *J)
	{
		J[0] = 0;
		J[1] = 1;
		J[2] = -p[0] * p[0];
		J[3] = 0;
	}

	static void exact(double t, double t0, const double *x0,
			  const double *p, double *x)
	{
		double w = p[0], s = t - t0;

		x[0] = x0[0] * cos(w * s) + x0[1] / w * sin(w * s);
		x[1] = -x0[0] * w * sin(w * s) + x0[1] * cos(w * s);
	}

	/* the amplitude's square, times omega^2 / 2 */
	static void invariants(const double *x, const double *p, double *out)
	{
		out[0] = 0.5 * (x[1] * x[1] + p[0] * p[0] * x[0] * x[0]);
	}
};

PICARD_REGISTER_MODEL(oscillator)
