/* event_cases.c - the events tests' cases (event_cases.h). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "event_cases.h"
#include "support.h"

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

/* The log of every member against the closed form: each bounce's time,
 * the state before (y = 0, v falling) and after (v <- -e v); the largest
 * time error into *worst. */
void expect_bounces(const picard_solver *s, const picard_traj_status *status, double tol,
		    const char *what, double *worst)
{
	const picard_event_log *elog = picard_solver_event_log(s);

	cr_assert_not_null(elog);
	cr_assert_eq(elog->ntraj, BALLS);
	for (int i = 0; i < BALLS; i++) {
		double t[64];
		const int n = bounce_times(ball_x0[i][0], ball_x0[i][1], ball_p[i][0], ball_p[i][1],
					   4, t, 64);

		cr_expect_eq(status[i], PICARD_TRAJ_OK, "%s member %d: %s", what, i,
			     picard_traj_status_name(status[i]));
		cr_assert_eq(elog->count[i], n, "%s member %d: %d bounces, the closed form has %d",
			     what, i, elog->count[i], n);
		cr_assert_leq(n, elog->capacity);
		for (int j = 0; j < n; j++) {
			const size_t at = (size_t)i * elog->capacity + j;
			const double *before = elog->before + 2 * at, *after = elog->after + 2 * at;
			const double err = fabs(elog->time[at] - t[j]);

			*worst = fmax(*worst, err);
			cr_expect_eq(elog->index[at], 0);
			cr_expect_leq(err, tol, "%s member %d bounce %d: t = %.17g, closed form %.17g "
				      "(error %.3g)", what, i, j, elog->time[at], t[j], err);
			cr_expect_leq(fabs(before[0]), 1e-9, "%s member %d bounce %d: y = %g", what, i,
				      j, before[0]);
			cr_expect_lt(before[1], 0);
			cr_expect_eq(after[0], 0, "the bounce puts the ball on the floor");
			cr_expect_eq(after[1], -ball_p[i][1] * before[1]);
		}
	}
}

void expect_ball_bounces(picard_scheme scheme, const char *name, double rtol)
{
	const picard_model *model = test_model("bouncing_ball");
	double x_final[2 * BALLS];
	picard_traj_status status[BALLS];

	for (int fixed = 0; fixed < 2; fixed++) {
		picard_options o = {.scheme = scheme, .event_log = 64};
		double worst = 0;
		char what[64];

		if (fixed) {
			o.K = 50;
			o.h = 0.5;
		} else {
			o.iter_rtol = rtol;
			o.iter_atol = rtol;
		}
		picard_solver *s = event_solve_cpu(model, o, BALLS, &ball_x0[0][0], &ball_p[0][0],
						   x_final, status, 0);
		snprintf(what, sizeof(what), "%s %s", name, fixed ? "fixed" : "adaptive");
		expect_bounces(s, status, 1e-10, what, &worst);
		cr_log_info("bouncing_ball %s: largest bounce time error %.3g", what, worst);
		picard_solver_free(s);
	}
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

const char robertson_events_text[] =
	"/* robertson_events.cu - Robertson's kinetics (models/robertson.cu) with\n"
	" * two events: mark, y3 rising to p[4], recorded; level, y1 falling to\n"
	" * p[3], which ends the member. */\n"
	"#include \"picard_model.cuh\"\n"
	"\n"
	"struct robertson_events {\n"
	"	static constexpr int dim = 3, nparams = 5;\n"
	"	static constexpr const char *param_names[] = {\"k1\", \"k2\", \"k3\", \"level\", \"mark\"};\n"
	"	static constexpr double param_defaults[] = {0.04, 1e4, 3e7, 0.8, 0.05};\n"
	"	static constexpr double x0[] = {1, 0, 0};\n"
	"	static constexpr double t0 = 0, t1 = 1e3;\n"
	"	static constexpr bool stiff = true;\n"
	"	static constexpr const char *summary = \"Robertson's kinetics with events\";\n"
	"	static constexpr const char *reference = \"tests/events/test_events_stiff.c\";\n"
	"	template <typename real>\n"
	"	__host__ __device__ static void rhs(real, const real *y, const real *p, real *dydt)\n"
	"	{\n"
	"		const real slow = p[0] * y[0], back = p[1] * y[1] * y[2], fast = p[2] * y[1] * y[1];\n"
	"		dydt[0] = -slow + back;\n"
	"		dydt[1] = slow - back - fast;\n"
	"		dydt[2] = fast;\n"
	"	}\n"
	"	static constexpr int nevents = 2;\n"
	"	static constexpr const char *event_names[] = {\"mark\", \"level\"};\n"
	"	static constexpr picard_event_direction event_directions[] = {PICARD_EVENT_RISING,\n"
	"								     PICARD_EVENT_FALLING};\n"
	"	static constexpr picard_event_action event_actions[] = {PICARD_EVENT_RECORD,\n"
	"							       PICARD_EVENT_TERMINATE};\n"
	"	template <typename real>\n"
	"	__host__ __device__ static void events(real, const real *y, const real *p, real *g)\n"
	"	{\n"
	"		g[0] = y[2] - p[4];\n"
	"		g[1] = y[0] - p[3];\n"
	"	}\n"
	"};\n"
	"\n"
	"PICARD_REGISTER_MODEL(robertson_events)\n";

_Static_assert(sizeof(robertson_events_text) <= EVENT_FAULTS_MAX, "robertson_events_text past its bound");
_Static_assert(sizeof(event_faults_text) <= EVENT_FAULTS_MAX, "event_faults_text past its bound");

const double impact_x0[EVENT_MEMBERS][2] = {{0.13, -0.21}, {-0.42, 0.35}, {0.27, 0.58},
					    {-0.11, 0.93}};
const double impact_p[EVENT_MEMBERS][6] = {{1, 0.05, 1, 0.8, 1.3, 0.8},
					   {1.37, 0.031, 1.9, 1.13, 0.71, 0.67},
					   {0.83, 0.12, 0.74, 0.61, 0.93, 0.91},
					   {2.2, 0.07, 3.1, 1.7, 0.45, 0.55}};

const double izhikevich_x0[EVENT_MEMBERS][2] = {{-64.2, -12.6}, {-61.7, -13.3}, {-66.4, -13.8},
						{-58.3, -11.1}};
const double izhikevich_p[EVENT_MEMBERS][5] = {{0.02, 0.2, -65, 8, 10.3}, {0.1, 0.2, -65, 2, 7.7},
					       {0.02, 0.2, -50, 2, 12.9}, {0.02, 0.2, -55, 4, 9.1}};

const double harvest_x0[EVENT_MEMBERS][2] = {{50.7, 29.3}, {44.1, 21.6}, {51.3, 27.2},
					     {29.7, 18.4}};
const double harvest_p[EVENT_MEMBERS][8] = {{0.25, 0.01, 0.001, -0.3, 0.01, 0.002, 36.2, 0.1},
					    {0.31, 0.012, 0.0007, -0.27, 0.009, 0.0013, 36.3, 0.17},
					    {0.25, 0.01, 0, -0.3, 0.01, 0, 38.6, 0.07},
					    {0.37, 0.013, 0, -0.41, 0.011, 0, 45.2, 0.11}};

/* Each orbit from (mu, a, e) at true anomaly nu0, its periapsis turned
 * by omega: r = a (1 - e^2) / (1 + e cos nu), speed sqrt(mu / (a (1 -
 * e^2))) (-sin nu, e + cos nu) in the periapsis' frame. */
void periapsis_members(double x0[EVENT_MEMBERS][4], double p[EVENT_MEMBERS][2])
{
	static const double orbit[EVENT_MEMBERS][5] = {{1, 1.9, 0.1, 2.0, 0.3},
						       {1.7, 2.3, 0.5, -1.1, 2.1},
						       {0.6, 2.1, 0.9, 2.9, -0.7},
						       {0.9, 1.7, 0.7, 0.4, 1.0}};

	for (int i = 0; i < EVENT_MEMBERS; i++) {
		const double mu = orbit[i][0], a = orbit[i][1], e = orbit[i][2], nu = orbit[i][3];
		const double c = cos(orbit[i][4]), s = sin(orbit[i][4]);
		const double r = a * (1 - e * e) / (1 + e * cos(nu)), w = sqrt(mu / (a * (1 - e * e)));
		const double q[2] = {r * cos(nu), r * sin(nu)}, v[2] = {-w * sin(nu), w * (e + cos(nu))};

		x0[i][0] = c * q[0] - s * q[1];
		x0[i][1] = s * q[0] + c * q[1];
		x0[i][2] = c * v[0] - s * v[1];
		x0[i][3] = s * v[0] + c * v[1];
		p[i][0] = mu;
		p[i][1] = e;
	}
}

picard_solver *event_solve_cpu(const picard_model *model, picard_options o, long ntraj,
			       const double *x0, const double *params, double *x_final,
			       picard_traj_status *status, int expect)
{
	picard_solver *s = NULL;
	int err;

	o.backend = PICARD_BACKEND_CPU;
	o.precision = PICARD_DOUBLE;
	err = picard_solver_create(&s, model, &o, ntraj);
	cr_assert_eq(err, 0, "%s: %s", picard_strerror(err), picard_error_detail());
	err = picard_solve(s, x0, params, x_final, status, NULL, NULL, 0, NULL);
	cr_assert_eq(err, expect, "solve gave %s (%s), expected %s", picard_strerror(err),
		     picard_error_detail(), picard_strerror(expect));
	return s;
}

int csv_rows(const char *text)
{
	int rows = 0;

	for (const char *c = strchr(text, '\n'); c && c[1]; c = strchr(c + 1, '\n'))
		rows++;
	return rows;
}

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

double expect_switches(const picard_solver *s, const picard_traj_status *status,
		       const double *x_final, double tol, const char *what)
{
	const picard_event_log *log = picard_solver_event_log(s);
	double worst = 0;

	for (int i = 0; i < THERMOSTATS; i++) {
		double t[256], T1;
		int event[256];
		const int n = thermostat_switches(thermostat_p[i], thermostat_x0[i], 10, t, event, 256,
						  &T1);

		cr_expect_eq(status[i], PICARD_TRAJ_OK, "%s member %d: %s", what, i,
			     picard_traj_status_name(status[i]));
		cr_assert_eq(log->count[i], n, "%s member %d: %d switches, the closed form %d", what, i,
			     log->count[i], n);
		for (int j = 0; j < n; j++) {
			const size_t at = (size_t)i * log->capacity + j;

			cr_expect_eq(log->index[at], event[j], "%s member %d switch %d", what, i, j);
			cr_expect(fabs(log->time[at] - t[j]) < tol, "%s member %d switch %d: t = %.17g, "
				  "the closed form %.17g", what, i, j, log->time[at], t[j]);
			worst = fmax(worst, fabs(log->time[at] - t[j]));
		}
		cr_expect(fabs(x_final[i] - T1) < tol, "%s member %d: T(10) = %.17g, the closed form "
			  "%.17g", what, i, x_final[i], T1);
	}
	return worst;
}
