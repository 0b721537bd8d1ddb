/* event_cases.c - the events tests' cases (event_cases.h). */
#include <math.h>

#include "event_cases.h"

int bounce_times(double y0, double v0, double g, double e, double t1, double *t, int max)
{
	const double V = sqrt(v0 * v0 + 2 * g * y0);
	double at = (v0 + V) / g, speed = V;
	int n = 0;

	while (at < t1 && n < max) {
		t[n++] = at;
		speed *= e;
		at += 2 * speed / g;
	}
	return n;
}

const double ball_x0[BALLS][2] = {{1, 0}, {2, 1.5}, {0.5, -1}, {1, 3}};
const double ball_p[BALLS][2] = {{G, 0.9}, {G, 0.8}, {3.7, 0.95}, {G, 0.93}};

const char event_faults_text[] =
	"/* event_faults.cu - a bouncing ball whose param mode breaks it: 1 an\n"
	" * event function never finite, 2 a jump to NaN. */\n"
	"#include <math.h>\n"
	"\n"
	"#include \"picard_model.cuh\"\n"
	"\n"
	"struct event_faults {\n"
	"	static constexpr int dim = 2, nparams = 3;\n"
	"	static constexpr const char *param_names[] = {\"g\", \"e\", \"mode\"};\n"
	"	static constexpr double param_defaults[] = {9.81, 0.9, 0};\n"
	"	static constexpr double x0[] = {1, 0};\n"
	"	static constexpr double t0 = 0, t1 = 3;\n"
	"	static constexpr const char *summary = \"a ball with faults\";\n"
	"	static constexpr const char *reference = \"tests/events/test_events.c\";\n"
	"	template <typename real>\n"
	"	__host__ __device__ static void rhs(real, const real *x, const real *p, real *dxdt)\n"
	"	{\n"
	"		dxdt[0] = x[1];\n"
	"		dxdt[1] = -p[0];\n"
	"	}\n"
	"	static constexpr int nevents = 1;\n"
	"	static constexpr const char *event_names[] = {\"bounce\"};\n"
	"	static constexpr picard_event_direction event_directions[] = {PICARD_EVENT_FALLING};\n"
	"	static constexpr picard_event_action event_actions[] = {PICARD_EVENT_JUMP};\n"
	"	static constexpr int event_limit = 30;\n"
	"	static constexpr double event_min_spacing = 1e-3;\n"
	"	template <typename real>\n"
	"	__host__ __device__ static void events(real, const real *x, const real *p, real *g)\n"
	"	{\n"
	"		g[0] = p[2] == 1 ? x[0] / (p[2] - 1) : x[0];\n"
	"	}\n"
	"	template <typename real>\n"
	"	__host__ __device__ static void jump(int, real, real *x, const real *p)\n"
	"	{\n"
	"		x[1] = -p[1] * x[1];\n"
	"		if (p[2] == 2)\n"
	"			x[1] = sqrt(x[1] - x[1] - 1);\n"
	"	}\n"
	"};\n"
	"\n"
	"PICARD_REGISTER_MODEL(event_faults)\n";
const double event_faults_x0[EVENT_FAULTS_N][2] = {{1, 0}, {1, 0},  {1, 0},   {1, 0},
						    {0, -3}, {1e-3, 0}, {2, 0}};
const double event_faults_p[EVENT_FAULTS_N][3] = {{G, 0.9, 0}, {G, 0.9, 1}, {G, 0.9, 2},
						   {G, 0.5, 0}, {G, 0.9, 0}, {G, 1, 0},
						   {G, 0.8, 0}};

_Static_assert(sizeof(event_faults_text) <= EVENT_FAULTS_MAX, "event_faults_text past its bound");

int thermostat_switches(const double *p, double T0, double t1, double *t, int *event, int max,
			double *T1)
{
	const double k = p[0], Ta = p[1], q = p[2], low = p[3], high = p[4];
	double at = 0, T = T0;
	int on = p[5] != 0, n = 0;

	for (;;) {
		const double Te = Ta + (on ? q / k : 0), to = on ? high : low;
		const double dt = log((Te - T) / (Te - to)) / k;

		if (at + dt >= t1 || n == max) {
			*T1 = Te + (T - Te) * exp(-k * (t1 - at));
			return n;
		}
		at += dt;
		t[n] = at;
		event[n++] = on ? 0 : 1;
		T = to;
		on = !on;
	}
}

const double thermostat_x0[THERMOSTATS] = {20, 18.3, 21.7, 19.1, 20.6};
const double thermostat_p[THERMOSTATS][6] = {
	{0.1, 10, 2, 18, 22, 1},        {0.37, -4.2, 11.9, 18, 21.5, 1},
	{0.05, 12.5, 1.3, 17.2, 22.4, 0}, {1.9, 3.3, 40.1, 18.2, 19.9, 0},
	{0.23, 15.1, 3.3, 19.8, 23.1, 1},
};
