/* lotka_harvest.cu - lotka.cu's predator-prey model harvested at a
 * threshold: when the prey rises to H a fraction q of it is taken at
 * once (a threshold harvesting policy, as in fisheries' "harvest when
 * abundant"):
 *
 *	x1' = a1 x1 - b1 x1 x2 - c1 x1^2,  x2' = a2 x2 + b2 x1 x2 - c2 x2^2;
 *	when x1 rises to H: x1 <- (1 - q) x1
 *
 * The defaults are lotka's with H = 40, q = 0.3: the prey, drawn towards
 * lotka's equilibrium (34, 22), rises past H a few times before its
 * oscillation dies down. Without self-limitation (c1 = c2 = 0, a2 < 0)
 * V = b2 x1 + a2 ln x1 + b1 x2 - a1 ln x2 is a first integral between
 * harvests, and a harvest changes it by b2 (x1+ - x1-) + a2 ln(x1+ / x1-).
 * No closed form otherwise: the tests hold the harvests against a GSL
 * rk8pd reference that locates them on its own. */
#include <math.h>

#include "picard_model.cuh"

struct lotka_harvest {
	static constexpr int dim = 2, nparams = 8;
	static constexpr const char *param_names[] = {"a1", "b1", "c1", "a2", "b2", "c2", "H", "q"};
	static constexpr double param_defaults[] = {0.25, 0.01, 0.001, -0.3, 0.01, 0.002, 40, 0.3};
	static constexpr double x0[] = {50, 30};
	static constexpr double t0 = 0, t1 = 100;
	static constexpr const char *summary =
		"lotka (x1 prey, x2 predator); at x1 = H rising: x1 <- (1 - q) x1";
	static constexpr const char *reference =
		"Korobitsyn & Frolova, Omsk Univ. Bulletin 2011 No. 4 (lotka.cu), with a threshold harvest";

	template <typename real>
	__host__ __device__ static void rhs(real, const real *x, const real *p, real *dxdt)
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

	/* one event: the prey reaching the threshold, harvested */
	static constexpr int nevents = 1;
	static constexpr const char *event_names[] = {"harvest"};
	static constexpr picard_event_direction event_directions[] = {PICARD_EVENT_RISING};
	static constexpr picard_event_action event_actions[] = {PICARD_EVENT_JUMP};

	template <typename real>
	__host__ __device__ static void events(real, const real *x, const real *p, real *g)
	{
		g[0] = x[0] - p[6];
	}

	template <typename real>
	__host__ __device__ static void jump(int, real, real *x, const real *p)
	{
		x[0] *= 1 - p[7];
	}
};

PICARD_REGISTER_MODEL(lotka_harvest)
