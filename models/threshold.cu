/* threshold.cu - exponential decay stopped at a threshold: two events on
 * x' = -k x, one recorded as x passes a marker m, one that ends the
 * member when x falls to the level c (docs/models.md, "Events"):
 *
 *	x' = -k x;  x = m falling: record;  x = c falling: terminate
 *
 * x(t) = x0 exp(-k (t - t0)) reaches a value y at t0 + ln(x0 / y) / k:
 * the closed form the event times are tested against. */
#include <math.h>

#include "picard_model.cuh"

struct threshold {
	static constexpr int dim = 1, nparams = 3;
	static constexpr const char *param_names[] = {"k", "m", "c"};
	static constexpr double param_defaults[] = {0.5, 0.5, 0.1};
	static constexpr double x0[] = {1};
	static constexpr double t0 = 0, t1 = 10;
	static constexpr double default_h = 0.05;
	static constexpr const char *summary =
		"x' = -k x; record at x = m, terminate at x = c (falling)";
	static constexpr const char *reference = "closed form: x = y at t0 + ln(x0 / y) / k";

	template <typename real>
	__host__ __device__ static void rhs(real, const real *x, const real *p, real *dxdt)
	{
		dxdt[0] = -p[0] * x[0];
	}

	template <typename real>
	__host__ __device__ static void jacobian(real, const real *, const real *p, real *J)
	{
		J[0] = -p[0];
	}

	static constexpr int nevents = 2;
	static constexpr const char *event_names[] = {"marker", "level"};
	static constexpr picard_event_direction event_directions[] = {PICARD_EVENT_FALLING,
								     PICARD_EVENT_FALLING};
	static constexpr picard_event_action event_actions[] = {PICARD_EVENT_RECORD,
							       PICARD_EVENT_TERMINATE};

	template <typename real>
	__host__ __device__ static void events(real, const real *x, const real *p, real *g)
	{
		g[0] = x[0] - p[1];
		g[1] = x[0] - p[2];
	}
};

PICARD_REGISTER_MODEL(threshold)
