/* thermostat.cu - a room heated by a thermostat: a jump of the
 * parameters (docs/models.md, "Events"). The heater's state `on` is a
 * parameter, switched by two events:
 *
 *	T' = -k (T - Ta) + q on;  T = high rising: on <- 0;  T = low falling: on <- 1
 *
 * Between switches T relaxes to Te = Ta + q on / k: T(t) = Te + (T_s - Te)
 * exp(-k (t - t_s)), so from low to high heating takes ln((Te1 - low) /
 * (Te1 - high)) / k (Te1 = Ta + q / k) and from high to low cooling takes
 * ln((high - Ta) / (low - Ta)) / k: the closed form the switching times
 * are tested against. Each member switches its own copy of on. */
#include <math.h>

#include "picard_model.cuh"

struct thermostat {
	static constexpr int dim = 1, nparams = 6;
	static constexpr const char *param_names[] = {"k", "Ta", "q", "low", "high", "on"};
	static constexpr double param_defaults[] = {0.1, 10, 2, 18, 22, 1};
	static constexpr double x0[] = {20};
	static constexpr double t0 = 0, t1 = 40;
	static constexpr double default_h = 0.05;
	static constexpr const char *summary =
		"T' = -k (T - Ta) + q on; on <- 0 at T = high rising, on <- 1 at T = low falling";
	static constexpr const char *reference =
		"closed form: heating ln((Ta + q/k - low)/(Ta + q/k - high))/k, cooling "
		"ln((high - Ta)/(low - Ta))/k";

	template <typename real>
	__host__ __device__ static void rhs(real, const real *x, const real *p, real *dxdt)
	{
		dxdt[0] = -p[0] * (x[0] - p[1]) + p[2] * p[5];
	}

	template <typename real>
	__host__ __device__ static void jacobian(real, const real *, const real *p, real *J)
	{
		J[0] = -p[0];
	}

	static constexpr int nevents = 2;
	static constexpr const char *event_names[] = {"off", "on"};
	static constexpr picard_event_direction event_directions[] = {PICARD_EVENT_RISING,
								     PICARD_EVENT_FALLING};
	static constexpr picard_event_action event_actions[] = {PICARD_EVENT_JUMP,
							       PICARD_EVENT_JUMP};

	template <typename real>
	__host__ __device__ static void events(real, const real *x, const real *p, real *g)
	{
		g[0] = x[0] - p[4];
		g[1] = x[0] - p[3];
	}

	/* the heater, the member's own parameter: off at high, on at low */
	template <typename real>
	__host__ __device__ static void jump(int k, real, real *, real *p)
	{
		p[5] = k == 0 ? 0 : 1;
	}
};

PICARD_REGISTER_MODEL(thermostat)
