/* bouncing_ball.cu - a ball under gravity bouncing on the floor y = 0
 * with restitution e: the worked example of events (docs/models.md,
 * "Events"):
 *
 *	y' = v,  v' = -g;  when y falls to 0: v <- -e v
 *
 * From height y0 at speed v0 (up) it first lands at t_1 = (v0 + V) / g,
 * V = sqrt(v0^2 + 2 g y0), at speed V; bounce n leaves at e^n V and lands
 * again 2 e^n V / g later, so t_{n+1} = t_n + 2 e^n V / g. The bounces
 * shorten geometrically and accumulate at t_1 + 2 V e / (g (1 - e)) (8.6
 * at the defaults): past it a member has more bounces than any limit, and
 * stops with status event-limit. */
#include <math.h>

#include "picard_model.cuh"

struct bouncing_ball {
	static constexpr int dim = 2, nparams = 2;
	static constexpr const char *param_names[] = {"g", "e"};
	static constexpr double param_defaults[] = {9.81, 0.9};
	static constexpr double x0[] = {1, 0};
	static constexpr double t0 = 0, t1 = 4;
	static constexpr double default_h = 0.01;
	static constexpr const char *summary = "y' = v, v' = -g; at y = 0 falling: v <- -e v";
	static constexpr const char *reference =
		"closed form: t_1 = (v0 + V)/g, t_{n+1} = t_n + 2 e^n V/g, V = sqrt(v0^2 + 2 g y0)";

	template <typename real>
	__host__ __device__ static void rhs(real, const real *x, const real *p, real *dxdt)
	{
		dxdt[0] = x[1];
		dxdt[1] = -p[0];
	}

	template <typename real>
	__host__ __device__ static void jacobian(real, const real *, const real *, real *J)
	{
		J[0] = 0;
		J[1] = 1;
		J[2] = 0;
		J[3] = 0;
	}

	/* one event: the floor, met falling; the bounce reverses v */
	static constexpr int nevents = 1;
	static constexpr const char *event_names[] = {"bounce"};
	static constexpr picard_event_direction event_directions[] = {PICARD_EVENT_FALLING};
	static constexpr picard_event_action event_actions[] = {PICARD_EVENT_JUMP};
	static constexpr int event_limit = 200;

	template <typename real>
	__host__ __device__ static void events(real, const real *x, const real *, real *g)
	{
		g[0] = x[0];
	}

	/* On the floor: the event's time is past the root by up to the
	 * location's tolerance, and a ball left below the floor at a speed
	 * too small to climb back would never meet it again. */
	template <typename real>
	__host__ __device__ static void jump(int, real, real *x, const real *p)
	{
		x[0] = 0;
		x[1] = -p[1] * x[1];
	}
};

PICARD_REGISTER_MODEL(bouncing_ball)
