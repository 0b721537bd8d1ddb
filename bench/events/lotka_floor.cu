/* lotka_floor.cu - models/lotka.cu with one event that never fires: the
 * prey falling through a harvest floor f (record), f far below the
 * populations the default members reach. bench/events/never_fires.sh
 * times it against lotka itself: what watching for an event costs when
 * nothing happens (issue 39's target: at most 1.2x). */
#include "picard_model.cuh"

struct lotka_floor {
	static constexpr int dim = 2, nparams = 7;
	static constexpr const char *param_names[] = {"a1", "b1", "c1", "a2", "b2", "c2", "f"};
	static constexpr double param_defaults[] = {0.25, 0.01, 0.001, -0.3, 0.01, 0.002, 1e-3};
	static constexpr double x0[] = {50, 30};
	static constexpr double t0 = 0, t1 = 100;
	static constexpr const char *summary = "lotka, and the prey falling through f: record";
	static constexpr const char *reference = "models/lotka.cu";

	template <typename real>
	__host__ __device__ static void rhs(real, const real *x, const real *p, real *dxdt)
	{
		dxdt[0] = p[0] * x[0] - p[1] * x[0] * x[1] - p[2] * x[0] * x[0];
		dxdt[1] = p[3] * x[1] + p[4] * x[0] * x[1] - p[5] * x[1] * x[1];
	}

	template <typename real>
	__host__ __device__ static void jacobian(real, const real *x, const real *p, real *J)
	{
		J[0] = p[0] - p[1] * x[1] - 2 * p[2] * x[0];
		J[1] = -p[1] * x[0];
		J[2] = p[4] * x[1];
		J[3] = p[3] + p[4] * x[0] - 2 * p[5] * x[1];
	}

	static constexpr int nevents = 1;
	static constexpr const char *event_names[] = {"floor"};
	static constexpr picard_event_direction event_directions[] = {PICARD_EVENT_FALLING};
	static constexpr picard_event_action event_actions[] = {PICARD_EVENT_RECORD};

	template <typename real>
	__host__ __device__ static void events(real, const real *x, const real *p, real *g)
	{
		g[0] = x[0] - p[6];
	}
};

PICARD_REGISTER_MODEL(lotka_floor)
