/* test_event_models.c - the models with events beside bouncing_ball and
 * threshold (suite event_models), on the CPU backend in double under
 * dp5, dp8 and vern9, each member's event log against a closed form or
 * an independent reference: impact_oscillator's impacts against the
 * linear oscillator's closed form, its next impact found by root finding
 * from each logged one; izhikevich's spikes and lotka_harvest's harvests
 * against GSL's rk8pd locating them on its own (independent.c), and
 * lotka_harvest's first integral between harvests; kepler_periapsis'
 * passages at t_p + k T from the start's energy, each at a (1 - e). The
 * members (event_cases.c) start off round numbers. And picard-run
 * --events for each model: the rows the reference expects. */
#define _DEFAULT_SOURCE /* M_PI */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <float.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event_cases.h"
#include "independent.h"
#include "picard.h"
#include "scheme.h"
#include "support.h"

static const picard_scheme schemes[] = {PICARD_SCHEME_DP5, PICARD_SCHEME_DP8,
					PICARD_SCHEME_VERN9};
#define NSCHEMES 3
#define LOG 64 /* entries kept per member: more than any member has */

static void setup(void)
{
	make_workdir("event_models", "cache");
}

TestSuite(event_models, .init = setup, .fini = remove_workdir);

/* The largest errors seen: of an event time, of a state (relative to
 * max(1, |x|)). */
struct worst {
	double time, state;
};

static double state_error(int n, const double *x, const double *ref)
{
	double e = 0;

	for (int k = 0; k < n; k++)
		e = fmax(e, fabs(x[k] - ref[k]) / fmax(1, fabs(ref[k])));
	return e;
}

/* Member i's log against the expected events (count n; times t, states
 * before and after, dim each), to time_tol and state_tol; into *w. */
static void expect_log(const picard_event_log *elog, int i, int dim, int n, const double *t,
		       const double *before, const double *after, double time_tol,
		       double state_tol, const char *what, struct worst *w)
{
	cr_assert_eq(elog->count[i], n, "%s member %d: %d events, the reference %d", what, i,
		     elog->count[i], n);
	cr_assert_leq(n, elog->capacity);
	for (int j = 0; j < n; j++) {
		const size_t at = (size_t)i * elog->capacity + j;
		const double dt = fabs(elog->time[at] - t[j]);
		const double db = state_error(dim, elog->before + at * dim, before + j * dim);
		const double da = state_error(dim, elog->after + at * dim, after + j * dim);

		w->time = fmax(w->time, dt);
		w->state = fmax(w->state, fmax(db, da));
		cr_expect_eq(elog->index[at], 0);
		cr_expect_leq(dt, time_tol, "%s member %d event %d: t = %.17g, the reference %.17g "
			      "(error %.3g)", what, i, j, elog->time[at], t[j], dt);
		cr_expect_leq(fmax(db, da), state_tol, "%s member %d event %d: states off by %.3g",
			      what, i, j, fmax(db, da));
	}
}

static picard_options tight(int c, double t1)
{
	return (picard_options){.scheme = schemes[c], .iter_rtol = 1e-12, .iter_atol = 1e-12,
				.event_log = LOG, .t1 = t1};
}

/* ---- impact_oscillator: the linear oscillator's closed form ---------- */

/* The state at t from x at tk (p: w, zeta, A, Omega, d, r), the forced
 * response plus the damped free one (models/impact_oscillator.cu). */
static void impact_state(const double *p, double tk, const double *xk, double t, double *x)
{
	const double w = p[0], z = p[1], A = p[2], om = p[3];
	const double D = (w * w - om * om) * (w * w - om * om) + (2 * z * w * om) * (2 * z * w * om);
	const double X = A * (w * w - om * om) / D, Y = 2 * A * z * w * om / D;
	const double wd = w * sqrt(1 - z * z);
	const double c1 = xk[0] - (X * cos(om * tk) + Y * sin(om * tk));
	const double c2 = (xk[1] - om * (Y * cos(om * tk) - X * sin(om * tk)) + z * w * c1) / wd;
	const double s = t - tk, decay = exp(-z * w * s), c = cos(wd * s), sn = sin(wd * s);

	x[0] = X * cos(om * t) + Y * sin(om * t) + decay * (c1 * c + c2 * sn);
	x[1] = om * (Y * cos(om * t) - X * sin(om * t)) +
	       decay * (-z * w * (c1 * c + c2 * sn) + wd * (c2 * c - c1 * sn));
}

/* The first time after tk that x rises through d, by a scan of steps of
 * 1e-3 (a tenth of a percent of the shortest period here) and bisection
 * to a few ulps; INFINITY when none is before t1. */
static double impact_next(const double *p, double tk, const double *xk, double t1)
{
	const double step = 1e-3;
	double x[2], a = tk, ga = xk[0] - p[4];

	for (long k = 1; a < t1; k++) {
		const double b = tk + k * step;

		impact_state(p, tk, xk, b, x);
		if (ga <= 0 && x[0] - p[4] > 0) {
			double lo = a, hi = b;

			while (hi - lo > 4 * DBL_EPSILON * hi) {
				const double m = 0.5 * (lo + hi);

				impact_state(p, tk, xk, m, x);
				*(x[0] - p[4] > 0 ? &hi : &lo) = m;
			}
			return hi < t1 ? hi : INFINITY;
		}
		a = b;
		ga = x[0] - p[4];
	}
	return INFINITY;
}

/* The impacts before t1 from x0 at 0 by the closed form alone, each
 * from the one before. */
static int impact_count(const double *p, const double *x0, double t1)
{
	double tk = 0, x[2] = {x0[0], x0[1]}, next;
	int n = 0;

	while (n < LOG && (next = impact_next(p, tk, x, t1)) != INFINITY) {
		impact_state(p, tk, x, next, x);
		x[0] = p[4];
		x[1] = -p[5] * x[1];
		tk = next;
		n++;
	}
	return n;
}

Test(event_models, impact_oscillator_impacts_follow_the_closed_form)
{
	const picard_model *model = test_model("impact_oscillator");
	picard_traj_status status[EVENT_MEMBERS];

	for (int c = 0; c < NSCHEMES; c++) {
		picard_solver *s = event_solve_cpu(model, tight(c, IMPACT_T1), EVENT_MEMBERS,
						   &impact_x0[0][0], &impact_p[0][0], NULL, status, 0);
		const picard_event_log *elog = picard_solver_event_log(s);
		const char *what = picard_scheme_of(schemes[c])->name;
		struct worst w = {0};

		for (int i = 0; i < EVENT_MEMBERS; i++) {
			const double *p = impact_p[i];
			double t[LOG], before[2 * LOG], after[2 * LOG];
			double tk = 0;
			const double *xk = impact_x0[i];
			int n = 0;

			cr_expect_eq(status[i], PICARD_TRAJ_OK, "%s member %d: %s", what, i,
				     picard_traj_status_name(status[i]));
			/* each impact from the one logged before it, so that the
			 * errors do not add up along the chain */
			for (; n < LOG; n++) {
				const double next = impact_next(p, tk, xk, IMPACT_T1);

				if (next == INFINITY)
					break;
				t[n] = next;
				impact_state(p, tk, xk, next, before + 2 * n);
				after[2 * n] = p[4];
				after[2 * n + 1] = -p[5] * before[2 * n + 1];
				if (n >= elog->count[i])
					continue; /* the closed form has more: the count fails */
				const size_t at = (size_t)i * elog->capacity + n;

				tk = elog->time[at];
				xk = elog->after + 2 * at;
			}
			cr_expect_geq(n, 10, "member %d: %d impacts, a weak test", i, n);
			/* measured: 3.7e-13 in time, 1.0e-12 in state (dp8) */
			expect_log(elog, i, 2, n, t, before, after, 1e-11, 1e-11, what, &w);
		}
		cr_log_info("impact_oscillator %s: impact times within %.3g of the closed form, "
			    "states %.3g", what, w.time, w.state);
		picard_solver_free(s);
	}
}

/* ---- izhikevich and lotka_harvest: GSL's rk8pd, its own events ------- */

static int izhikevich_rhs(double t, const double *x, double *dxdt, void *params)
{
	const double *p = params;

	(void)t;
	dxdt[0] = 0.04 * x[0] * x[0] + 5 * x[0] + 140 - x[1] + p[4];
	dxdt[1] = p[0] * (p[1] * x[0] - x[1]);
	return GSL_SUCCESS;
}

static double izhikevich_peak(const double *x, const double *p)
{
	(void)p;
	return x[0] - 30;
}

static void izhikevich_reset(double *x, const double *p)
{
	x[0] = p[2];
	x[1] += p[3];
}

static int harvest_rhs(double t, const double *x, double *dxdt, void *params)
{
	const double *p = params;

	(void)t;
	dxdt[0] = x[0] * (p[0] - p[1] * x[1] - p[2] * x[0]);
	dxdt[1] = x[1] * (p[3] + p[4] * x[0] - p[5] * x[1]);
	return GSL_SUCCESS;
}

static double harvest_threshold(const double *x, const double *p)
{
	return x[0] - p[6];
}

static void harvest_take(double *x, const double *p)
{
	x[0] -= p[7] * x[0];
}

/* Each member of model against gsl_solve_events on sys (its params set
 * per member), under each scheme, to time_tol and state_tol. */
static void against_gsl(const char *name, struct gsl_event_system sys, const double *x0,
			const double *p, double t1, double time_tol, double state_tol)
{
	const picard_model *model = test_model(name);
	const int n = model->dim, np = model->nparams;
	double t[EVENT_MEMBERS][LOG], before[EVENT_MEMBERS][4 * LOG], after[EVENT_MEMBERS][4 * LOG];
	int count[EVENT_MEMBERS];
	picard_traj_status status[EVENT_MEMBERS];

	cr_assert_leq(n, 4);
	for (int i = 0; i < EVENT_MEMBERS; i++) {
		sys.params = p + i * np;
		count[i] = gsl_solve_events(&sys, x0 + i * n, 0, t1, 1e-14, LOG, t[i], before[i],
					    after[i]);
		cr_expect_geq(count[i], 3, "%s member %d: %d events, a weak test", name, i,
			      count[i]);
	}
	for (int c = 0; c < NSCHEMES; c++) {
		picard_solver *s = event_solve_cpu(model, tight(c, t1), EVENT_MEMBERS, x0, p, NULL,
						   status, 0);
		const picard_event_log *elog = picard_solver_event_log(s);
		const char *what = picard_scheme_of(schemes[c])->name;
		struct worst w = {0};

		for (int i = 0; i < EVENT_MEMBERS; i++) {
			cr_expect_eq(status[i], PICARD_TRAJ_OK, "%s member %d: %s", what, i,
				     picard_traj_status_name(status[i]));
			expect_log(elog, i, n, count[i], t[i], before[i], after[i], time_tol,
				   state_tol, what, &w);
		}
		cr_log_info("%s %s: %d, %d, %d, %d events within %.3g of GSL's in time, %.3g in "
			    "state", name, what, count[0], count[1], count[2], count[3], w.time,
			    w.state);
		picard_solver_free(s);
	}
}

/* The systems written out, their params set per member; steps of at
 * most 0.5 (ms; time units), far below a spike's or a cycle's length. */
static const struct gsl_event_system izhikevich_sys = {2, izhikevich_rhs, izhikevich_peak,
						       izhikevich_reset, NULL, 0.5};
static const struct gsl_event_system harvest_sys = {2, harvest_rhs, harvest_threshold,
						    harvest_take, NULL, 0.5};

Test(event_models, izhikevich_spikes_match_a_gsl_reference)
{
	/* measured: 1.9e-10 in time (dp5; dp8 2.9e-11), 1.4e-11 in state */
	against_gsl("izhikevich", izhikevich_sys, &izhikevich_x0[0][0], &izhikevich_p[0][0], IZHIKEVICH_T1,
		    1e-9, 1e-10);
}

Test(event_models, lotka_harvests_match_a_gsl_reference)
{
	/* measured: 1.0e-9 in time (dp5; dp8 6.8e-11), 5.2e-12 in state
	 * (dp5): the prey rises slowly through H */
	against_gsl("lotka_harvest", harvest_sys, &harvest_x0[0][0], &harvest_p[0][0], HARVEST_T1, 1e-8,
		    5e-11);
}

/* Lotka-Volterra without self-limitation: V = b2 x1 + a2 ln x1 + b1 x2 -
 * a1 ln x2 the same from the start to the first harvest, between two,
 * and from the last to t1 (p: a1, b1, c1, a2, b2, c2, H, q). */
static double first_integral(const double *x, const double *p)
{
	return p[4] * x[0] + p[3] * log(x[0]) + p[1] * x[1] - p[0] * log(x[1]);
}

Test(event_models, lotka_harvest_keeps_its_first_integral_between_harvests)
{
	const picard_model *model = test_model("lotka_harvest");
	double x_final[2 * EVENT_MEMBERS];
	picard_traj_status status[EVENT_MEMBERS];

	for (int c = 0; c < NSCHEMES; c++) {
		picard_solver *s = event_solve_cpu(model, tight(c, HARVEST_T1), EVENT_MEMBERS,
						   &harvest_x0[0][0], &harvest_p[0][0], x_final,
						   status, 0);
		const picard_event_log *elog = picard_solver_event_log(s);
		double worst = 0;

		for (int i = 2; i < EVENT_MEMBERS; i++) { /* c1 = c2 = 0 */
			const double *p = harvest_p[i];
			const double *from = harvest_x0[i];

			cr_assert(p[2] == 0 && p[5] == 0);
			cr_assert_geq(elog->count[i], 3, "member %d: %d harvests", i, elog->count[i]);
			for (int j = 0; j <= elog->count[i]; j++) {
				const size_t at = (size_t)i * elog->capacity + j;
				const double *to = j < elog->count[i] ? elog->before + 2 * at
								      : x_final + 2 * i;
				const double v = first_integral(from, p);
				const double drift = fabs(first_integral(to, p) - v) / fabs(v);

				worst = fmax(worst, drift);
				/* measured: 2.2e-13 (dp5) */
				cr_expect_leq(drift, 2e-12, "member %d, from harvest %d to the next: V "
					      "%.17g, then %.17g", i, j - 1, v, first_integral(to, p));
				if (j < elog->count[i]) {
					/* the harvest: x1 <- (1 - q) x1 at x1 = H */
					cr_expect_leq(fabs(to[0] - p[6]), 1e-9 * p[6]);
					cr_expect_leq(fabs(elog->after[2 * at] - (1 - p[7]) * to[0]),
						      4 * DBL_EPSILON * to[0]);
					cr_expect_eq(elog->after[2 * at + 1], to[1]);
					from = elog->after + 2 * at;
				}
			}
		}
		cr_log_info("lotka_harvest %s: V within %.3g (relative) between harvests",
			    picard_scheme_of(schemes[c])->name, worst);
		picard_solver_free(s);
	}
}

/* ---- kepler_periapsis: t_p + k T, at a (1 - e) ----------------------- */

/* The orbit of a bound start x (q1, q2, p1, p2) at t0 under mu: period,
 * periapsis distance a (1 - e), and the first periapsis time after t0,
 * from Kepler's equation M = E - e sin E. */
struct orbit {
	double period, periapsis, first;
};

static struct orbit orbit_of(const double *x, double mu, double t0)
{
	const double r = hypot(x[0], x[1]), rv = x[0] * x[2] + x[1] * x[3];
	const double energy = 0.5 * (x[2] * x[2] + x[3] * x[3]) - mu / r;
	const double a = -mu / (2 * energy), h = x[0] * x[3] - x[1] * x[2];
	const double e = sqrt(1 + 2 * energy * h * h / (mu * mu)), n = sqrt(mu / (a * a * a));
	const double e_sin = rv / sqrt(mu * a), e_cos = 1 - r / a;
	double M = atan2(e_sin, e_cos) - e_sin; /* the mean anomaly at t0 */

	cr_assert_lt(energy, 0, "a bound orbit");
	M = fmod(M + 4 * M_PI, 2 * M_PI);
	return (struct orbit){2 * M_PI / n, a * (1 - e), t0 + (2 * M_PI - M) / n};
}

Test(event_models, periapsis_passages_are_period_multiples)
{
	const picard_model *model = test_model("kepler_periapsis");
	double x0[EVENT_MEMBERS][4], p[EVENT_MEMBERS][2];
	picard_traj_status status[EVENT_MEMBERS];

	periapsis_members(x0, p);
	for (int c = 0; c < NSCHEMES; c++) {
		picard_solver *s = event_solve_cpu(model, tight(c, PERIAPSIS_T1), EVENT_MEMBERS,
						   &x0[0][0], &p[0][0], NULL, status, 0);
		const picard_event_log *elog = picard_solver_event_log(s);
		const char *what = picard_scheme_of(schemes[c])->name;
		struct worst w = {0};

		for (int i = 0; i < EVENT_MEMBERS; i++) {
			const struct orbit o = orbit_of(x0[i], p[i][0], 0);
			double t[LOG];
			int n = 0;

			for (; o.first + n * o.period < PERIAPSIS_T1; n++)
				t[n] = o.first + n * o.period;
			cr_assert_gt(fabs(PERIAPSIS_T1 - (o.first + n * o.period)), 1e-3);
			cr_assert_geq(n, 30);
			cr_expect_eq(status[i], PICARD_TRAJ_OK);
			cr_assert_eq(elog->count[i], n, "%s member %d: %d passages, the closed form %d",
				     what, i, elog->count[i], n);
			for (int j = 0; j < n; j++) {
				const size_t at = (size_t)i * elog->capacity + j;
				const double *x = elog->before + 4 * at;
				const double dt = fabs(elog->time[at] - t[j]);
				const double dr = fabs(hypot(x[0], x[1]) - o.periapsis) / o.periapsis;

				w.time = fmax(w.time, dt / (j + 1));
				w.state = fmax(w.state, dr);
				/* the phase drifts by the integration's error, an
				 * orbit's worth each orbit: measured 2.8e-9 (j + 1)
				 * (dp8), r 7.0e-11 (dp5) */
				cr_expect_leq(dt, 1e-8 * (j + 1), "%s member %d passage %d: t = %.17g, the "
					      "closed form %.17g", what, i, j, elog->time[at], t[j]);
				cr_expect_leq(dr, 5e-10, "%s member %d passage %d: r = %.17g, a (1 - e) "
					      "= %.17g", what, i, j, hypot(x[0], x[1]), o.periapsis);
				cr_expect_eq(memcmp(x, elog->after + 4 * at, 4 * sizeof(double)), 0,
					     "a record leaves the state");
			}
		}
		cr_log_info("kepler_periapsis %s: passage k within %.3g (k + 1) of t_p + k T, r "
			    "within %.3g of a (1 - e)", what, w.time, w.state);
		picard_solver_free(s);
	}
}

/* picard-run --events at each model's defaults: a row per event of each
 * member, as many as the closed form or the reference has. */
Test(event_models, picard_run_logs_each_models_events, .timeout = 120)
{
	static const char *const names[] = {"impact_oscillator", "izhikevich", "kepler_periapsis",
					    "lotka_harvest"};

	for (int m = 0; m < 4; m++) {
		const picard_model *model = test_model(names[m]);
		const double *p = model->param_defaults;
		const struct path csv = in_workdir("events.csv");
		double t[LOG], before[2 * LOG], after[2 * LOG];
		struct gsl_event_system sys = m == 1 ? izhikevich_sys : harvest_sys;
		char line[512];
		int n;

		sys.params = p;
		if (m == 0) {
			n = impact_count(p, model->x0, model->t1);
		} else if (m == 2) {
			const struct orbit o = orbit_of(model->x0, p[0], model->t0);

			n = (int)ceil((model->t1 - o.first) / o.period);
		} else {
			n = gsl_solve_events(&sys, model->x0, model->t0, model->t1, 1e-14, LOG, t,
					     before, after);
		}
		cr_assert(n >= 3 && n <= 16, "%s: %d events at the defaults, the log keeps 16",
			  names[m], n);
		snprintf(line, sizeof(line), "%s --traj 4 --scheme dp8 --precision double "
			 "--iter-rtol 1e-10 --spread 0 --events %s", names[m], csv.s);
		struct cli_run r = run_program_line("picard-run", line);

		cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
		free_run(&r);
		char *text = slurp(csv.s, NULL);

		cr_expect_eq(csv_rows(text), 4 * n, "%s: %d rows, 4 members of %d events", names[m],
			     csv_rows(text), n);
		free(text);
	}
}
