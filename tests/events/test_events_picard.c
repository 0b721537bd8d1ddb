/* test_events_picard.c - events in the Picard schemes (suite
 * events_picard): lobatto on the CPU backend locates a crossing on a
 * converged window's collocation polynomial and restarts the window at
 * the event (src/schemes/lobatto/cpu_lobatto.inc, src/schemes/
 * host_events.c). bouncing_ball's bounce times against their closed form
 * over several m and windows, bounces on window ends and inside the first
 * window; threshold's record and terminate events against ln(x0 / y) / k,
 * two in one window in time order; records across bounces against the
 * closed-form height, NaN after a terminal event; the faults of
 * event_faults in one ensemble with good members; float. The trapezoid
 * (src/schemes/trapezoid/cpu_sweep.inc) the same way on its dense output,
 * linear between nodes: bounce times converging at order 2, threshold,
 * the faults. The CUDA backend's refusal (the kernels do not locate
 * events yet) and backend auto's fallback to the CPU. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "event_cases.h"
#include "picard.h"
#include "support.h"

static void setup(void)
{
	make_workdir("events_picard", "cache");
}

TestSuite(events_picard, .init = setup, .fini = remove_workdir);

/* lobatto with m nodes and windows of length window, every event kept. */
static picard_options lobatto(int m, double window)
{
	return (picard_options){.scheme = PICARD_SCHEME_LOBATTO, .m = m, .window = window,
				.event_log = 64};
}

/* The trapezoid with nodes h apart (its defaults: m = 8, K = 2 sweeps),
 * every event kept. */
static picard_options trapezoid(double h)
{
	return (picard_options){.scheme = PICARD_SCHEME_TRAPEZOID, .h = h, .event_log = 64};
}

/* The ball's height at t from (y0, v0) under g with restitution e: the
 * closed form between bounces (event_cases.h's times). */
static double ball_height(double y0, double v0, double g, double e, double t)
{
	double tb[64];
	const int n = bounce_times(y0, v0, g, e, t, tb, 64);
	const double V = sqrt(v0 * v0 + 2 * g * y0);

	if (n == 0)
		return y0 + v0 * t - 0.5 * g * t * t;
	const double dt = t - tb[n - 1];
	return V * pow(e, n) * dt - 0.5 * g * dt * dt;
}

/* The ball is a quadratic between bounces, which the collocation
 * polynomial (degree m >= 2) holds exactly: the bounce times are off by
 * rounding and the location's tolerance alone. Measured worst over these
 * cases 1.3e-13 (m = 3 .. 16; windows 1, holding the first bounce, to
 * 0.0137, 292 windows); checked to 1e-10, the bound. */
Test(events_picard, bounce_times_match_the_closed_form)
{
	const picard_model *model = test_model("bouncing_ball");
	const int ms[] = {3, 8, 16};
	const double windows[] = {1, 0.1, 0.0137};
	double x_final[2 * BALLS], worst = 0;
	picard_traj_status status[BALLS];

	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++) {
			char what[64];
			picard_solver *s = event_solve_cpu(model, lobatto(ms[a], windows[b]), BALLS,
						     &ball_x0[0][0], &ball_p[0][0], x_final, status,
						     0);

			snprintf(what, sizeof(what), "lobatto m = %d window %g", ms[a], windows[b]);
			expect_bounces(s, status, 1e-10, what, &worst);
			picard_solver_free(s);
		}
	cr_log_info("bouncing_ball lobatto: largest bounce time error %.3g", worst);
}

/* g = 8, e = 1, windows of 0.25: from y0 = 1 every bounce (0.5, 1.5,
 * 2.5, 3.5) is on a window's end, its last node; from y0 = 0.5625 every
 * one (0.375, 1.125, ...) in a window's middle. Both end at t1 = 4 on
 * their closed-form state, each bounce found once. */
Test(events_picard, bounces_on_window_ends_and_inside_windows)
{
	const picard_model *model = test_model("bouncing_ball");
	const double x0[2][2] = {{1, 0}, {0.5625, 0}}, p[2][2] = {{8, 1}, {8, 1}};
	const double end[2][2] = {{1, 0}, {0.3125, -2}}; /* (y, v) at t = 4 */
	double x_final[4], t[64];
	picard_traj_status status[2];
	picard_solver *s = event_solve_cpu(model, lobatto(8, 0.25), 2, &x0[0][0], &p[0][0], x_final,
				     status, 0);
	const picard_event_log *elog = picard_solver_event_log(s);

	cr_assert_eq(picard_solver_grid(s)->windows, 16);
	for (int i = 0; i < 2; i++) {
		const int n = bounce_times(x0[i][0], x0[i][1], 8, 1, 4, t, 64);

		cr_expect_eq(status[i], PICARD_TRAJ_OK, "member %d: %s", i,
			     picard_traj_status_name(status[i]));
		cr_assert_eq(elog->count[i], n, "member %d: %d bounces, closed form %d", i,
			     elog->count[i], n);
		for (int j = 0; j < n; j++)
			cr_expect_leq(fabs(elog->time[(size_t)i * elog->capacity + j] - t[j]), 1e-12,
				      "member %d bounce %d at %.17g, closed form %.17g", i, j,
				      elog->time[(size_t)i * elog->capacity + j], t[j]);
		for (int k = 0; k < 2; k++)
			cr_expect_leq(fabs(x_final[2 * i + k] - end[i][k]), 1e-12,
				      "member %d x%d = %.17g at t1, closed form %g", i, k,
				      x_final[2 * i + k], end[i][k]);
	}
	picard_solver_free(s);
}

/* threshold: x' = -k x from x0, marker m (record), level c (terminate);
 * the third member starts on its level (an event at t0, in the first
 * window), the fourth between marker and level. Solved under o, each
 * event time to within tol of ln(x0 / y) / k; the largest error. */
static double expect_threshold(picard_options o, double tol, const char *what)
{
	const picard_model *model = test_model("threshold");
	const double p[4][3] = {{0.5, 0.5, 0.1}, {2, 0.7, 0.3}, {0.5, 0.5, 0.25}, {1, 0.9, 0.2}};
	const double x0[4] = {1, 3, 0.25, 0.5};
	double x_final[4], worst = 0;
	picard_traj_status status[4];
	picard_solver *s = event_solve_cpu(model, o, 4, x0, &p[0][0], x_final, status, 0);
	const picard_event_log *elog = picard_solver_event_log(s);
	const double *stop = picard_solver_fail_times(s);

	for (int i = 0; i < 4; i++) {
		const double t_m = log(x0[i] / p[i][1]) / p[i][0];
		const double t_c = log(x0[i] / p[i][2]) / p[i][0];
		const int expect = x0[i] > p[i][1] ? 2 : 1;
		const size_t at = (size_t)i * elog->capacity, last = at + expect - 1;

		cr_expect_eq(status[i], PICARD_TRAJ_EVENT, "%s member %d: %s", what, i,
			     picard_traj_status_name(status[i]));
		cr_assert_eq(elog->count[i], expect, "%s member %d: %d events", what, i,
			     elog->count[i]);
		if (expect == 2) {
			cr_expect_eq(elog->index[at], 0);
			cr_expect_leq(fabs(elog->time[at] - t_m), tol, "%s member %d marker at %.17g, "
				      "closed form %.17g", what, i, elog->time[at], t_m);
			worst = fmax(worst, fabs(elog->time[at] - t_m));
		}
		cr_expect_eq(elog->index[last], 1);
		cr_expect_leq(fabs(elog->time[last] - t_c), tol, "%s member %d level at %.17g, "
			      "closed form %.17g", what, i, elog->time[last], t_c);
		worst = fmax(worst, fabs(elog->time[last] - t_c));
		cr_expect_eq(stop[2 * i], elog->time[last]);
		cr_expect_eq(x_final[i], elog->before[last]);
		cr_expect_leq(fabs(x_final[i] - p[i][2]), tol * p[i][0] * p[i][2]);
	}
	cr_expect_eq(elog->time[2 * elog->capacity], 0, "the member on its level stops at t0");
	picard_solver_free(s);
	cr_log_info("threshold %s: largest event time error %.3g", what, worst);
	return worst;
}

/* Measured worst 6.2e-13 (m = 8, windows of 0.05; m = 12, windows of
 * 0.7); checked to 1e-10. */
Test(events_picard, terminate_and_record_at_their_closed_form_times)
{
	expect_threshold(lobatto(8, 0.05), 1e-10, "lobatto m = 8");
	expect_threshold(lobatto(12, 0.7), 1e-10, "lobatto m = 12");
}

/* One window from 0 to 5 (of two) holds both of threshold's crossings:
 * the earlier acts first and the window restarts there; at m = c both
 * cross at once and act in index order, the record before the
 * terminate. Measured errors 2e-16 to 5.2e-14 (m = 16 over a window of
 * 5); checked to 1e-10. */
Test(events_picard, crossings_in_one_window_in_time_order)
{
	const picard_model *model = test_model("threshold");
	const double p[2][3] = {{0.5, 0.5, 0.1}, {0.5, 0.3, 0.3}};
	const double x0[2] = {1, 1};
	double x_final[2];
	picard_traj_status status[2];
	picard_solver *s = event_solve_cpu(model, lobatto(16, 5), 2, x0, &p[0][0], x_final, status, 0);
	const picard_event_log *elog = picard_solver_event_log(s);
	const size_t second = elog->capacity;

	cr_assert_eq(picard_solver_grid(s)->windows, 2);
	for (int i = 0; i < 2; i++) {
		cr_expect_eq(status[i], PICARD_TRAJ_EVENT);
		cr_assert_eq(elog->count[i], 2, "member %d: %d events", i, elog->count[i]);
		cr_expect_eq(elog->index[i * second], 0);
		cr_expect_eq(elog->index[i * second + 1], 1);
	}
	cr_expect_leq(fabs(elog->time[0] - log(2) / 0.5), 1e-10, "%.17g", elog->time[0]);
	cr_expect_leq(fabs(elog->time[1] - log(10) / 0.5), 1e-10, "%.17g", elog->time[1]);
	cr_expect_leq(fabs(elog->time[second] - log(1 / 0.3) / 0.5), 1e-10, "%.17g",
		      elog->time[second]);
	cr_expect_eq(elog->time[second], elog->time[second + 1], "both at once");
	cr_log_info("threshold lobatto, one window: event time errors %.3g, %.3g, %.3g",
		    fabs(elog->time[0] - log(2) / 0.5), fabs(elog->time[1] - log(10) / 0.5),
		    fabs(elog->time[second] - log(1 / 0.3) / 0.5));
	picard_solver_free(s);
}

/* Records of times across bounces: before a bounce from the cut window's
 * polynomial, after it from the restarted one, each against the
 * closed-form height (the times inside windows that hold a bounce, and
 * one on a bounce's own window). Measured worst 6.8e-14; checked to
 * 1e-10. */
Test(events_picard, records_across_bounces_match_the_closed_form)
{
	const picard_model *model = test_model("bouncing_ball");
	const double times[] = {0.3, 0.45, 0.46, 0.9, 1.26, 1.27, 2.0, 3.9};
	enum { T = sizeof(times) / sizeof(times[0]) };
	double states[T * BALLS * 2], x_final[2 * BALLS];
	picard_traj_status status[BALLS];
	picard_record rec = {.traj_stride = 1, .states = states, .times = times, .ntimes = T};
	picard_options o = lobatto(8, 0.1);
	picard_solver *s = NULL;

	o.backend = PICARD_BACKEND_CPU;
	o.precision = PICARD_DOUBLE;
	cr_assert_eq(picard_solver_create(&s, model, &o, BALLS), 0, "%s", picard_error_detail());
	cr_assert_eq(picard_solve(s, &ball_x0[0][0], &ball_p[0][0], x_final, status, NULL, &rec, 1,
				  NULL), 0, "%s", picard_error_detail());
	double worst = 0;

	for (int r = 0; r < T; r++)
		for (int i = 0; i < BALLS; i++) {
			const double y = ball_height(ball_x0[i][0], ball_x0[i][1], ball_p[i][0],
						     ball_p[i][1], times[r]);
			const double got = states[(r * BALLS + i) * 2];

			cr_expect_leq(fabs(got - y), 1e-10, "member %d at t = %g: y = %.17g, closed form "
				      "%.17g", i, times[r], got, y);
			worst = fmax(worst, fabs(got - y));
		}
	cr_log_info("bouncing_ball lobatto records: largest height error %.3g", worst);
	picard_solver_free(s);
}

/* Dense output stops at a terminal event: the rows after it are NaN. */
Test(events_picard, records_after_a_terminal_event_are_nan)
{
	const picard_model *model = test_model("threshold");
	const double times[3] = {1, 4, 8}; /* the default member stops at ln 10 / 0.5 = 4.6 */
	double states[3], ends[200], x_final[1], x0[1] = {1};
	picard_traj_status status[1];
	picard_record recs[2] = {{.traj_stride = 1, .states = states, .times = times, .ntimes = 3},
				 {.traj_stride = 1, .every = 1, .states = ends}};
	picard_options o = lobatto(8, 0);
	picard_solver *s = NULL;

	o.backend = PICARD_BACKEND_CPU;
	o.precision = PICARD_DOUBLE;
	cr_assert_eq(picard_solver_create(&s, model, &o, 1), 0, "%s", picard_error_detail());
	const long windows = picard_solver_grid(s)->windows; /* 200, of 0.05 */
	cr_assert_eq(windows, 200);
	cr_assert_eq(picard_solve(s, x0, NULL, x_final, status, NULL, recs, 2, NULL), 0, "%s",
		     picard_error_detail());
	cr_expect_eq(status[0], PICARD_TRAJ_EVENT);
	cr_expect_leq(fabs(states[0] - exp(-0.5)), 1e-10);
	cr_expect_leq(fabs(states[1] - exp(-2)), 1e-10);
	cr_expect(isnan(states[2]), "the row after the event: %g, not NaN", states[2]);
	/* window ends: those before ln 10 / 0.5 on the curve, none after */
	for (long w = 0; w < windows; w++) {
		const double t = 0.05 * (w + 1);

		if (t < log(10) / 0.5)
			cr_expect_leq(fabs(ends[w] - exp(-0.5 * t)), 1e-10, "window %ld", w);
		else
			cr_expect(isnan(ends[w]), "window %ld ends at %g after the event: %g", w, t,
				  ends[w]);
	}
	picard_solver_free(s);
}

/* event_faults' members (event_cases.h) under o: each fault with its
 * status, the good members with all their bounces, the times to within
 * tol of their closed form, the chattering member's stop within
 * chatter_tol (its bounces are slow: a height error is a larger time
 * error there). */
static void expect_faults(picard_options o, double tol, double chatter_tol)
{
	const struct path path = in_workdir("event_faults.cu");
	const picard_model *model = NULL;
	enum { N = EVENT_FAULTS_N };
	const double (*x0)[2] = event_faults_x0, (*p)[3] = event_faults_p;
	double x_final[2 * N], t[64];
	picard_traj_status status[N];

	write_file(path.s, event_faults_text, strlen(event_faults_text));
	cr_assert_eq(picard_model_load(path.s, &model), 0, "%s", picard_error_detail());
	o.event_log = 30;
	picard_solver *s = event_solve_cpu(model, o, N, &x0[0][0], &p[0][0], x_final, status,
				     PICARD_EFAILED);
	const picard_event_log *elog = picard_solver_event_log(s);
	const double *stop = picard_solver_fail_times(s);

	for (int i = 0; i < N; i += 6) {
		const int n = bounce_times(x0[i][0], x0[i][1], p[i][0], p[i][1], 3, t, 64);

		cr_expect_eq(status[i], PICARD_TRAJ_OK, "member %d: %s", i,
			     picard_traj_status_name(status[i]));
		cr_expect_eq(elog->count[i], n, "member %d: %d bounces of %d", i, elog->count[i], n);
		for (int j = 0; j < n && j < elog->count[i]; j++)
			cr_expect_leq(fabs(elog->time[(size_t)i * elog->capacity + j] - t[j]), tol);
	}
	cr_expect_eq(status[1], PICARD_TRAJ_EVENT_FAILED, "member 1: %s",
		     picard_traj_status_name(status[1]));
	cr_expect_eq(elog->count[1], 0);
	cr_expect_eq(stop[2], 0, "g is not finite at t0 already");

	bounce_times(1, 0, G, 0.9, 3, t, 1);
	cr_expect_eq(status[2], PICARD_TRAJ_NONFINITE, "member 2: %s",
		     picard_traj_status_name(status[2]));
	cr_expect_eq(elog->count[2], 1, "the jump that made NaN is logged");
	cr_expect(isnan(elog->after[2 * (size_t)2 * elog->capacity + 1]));
	cr_expect_leq(fabs(stop[4] - t[0]), tol, "it stopped at the bounce: %.17g, %.17g",
		      stop[4], t[0]);

	cr_expect_eq(status[3], PICARD_TRAJ_EVENT_LIMIT, "member 3: %s",
		     picard_traj_status_name(status[3]));
	const int n3 = bounce_times(1, 0, G, 0.5, 3, t, 64);
	int closer = 1;
	while (closer < n3 && t[closer] - t[closer - 1] >= 1e-3)
		closer++;
	cr_expect_eq(elog->count[3], closer, "member 3: %d bounces before chattering, closed form %d",
		     elog->count[3], closer);
	cr_expect_leq(fabs(stop[6] - t[closer]), chatter_tol, "it stopped at the chattering bounce: "
		      "%.17g, closed form %.17g", stop[6], t[closer]);

	cr_expect_eq(status[4], PICARD_TRAJ_OK, "member 4: %s", picard_traj_status_name(status[4]));
	cr_expect_geq(elog->count[4], 1);
	cr_expect_eq(elog->time[(size_t)4 * elog->capacity], 0, "its first bounce is at t0");
	cr_expect_eq(elog->after[2 * (size_t)4 * elog->capacity + 1], -p[4][1] * x0[4][1],
		     "v <- -e v at t0");

	cr_expect_eq(status[5], PICARD_TRAJ_EVENT_LIMIT, "member 5: %s",
		     picard_traj_status_name(status[5]));
	cr_expect_eq(elog->count[5], 30, "member 5: %d events, the limit 30", elog->count[5]);
	picard_solver_free(s);
}

Test(events_picard, faulty_members_stop_with_their_status_and_the_others_go_on)
{
	expect_faults(lobatto(8, 0), 1e-10, 1e-9);
}

/* Float: the same bounces to float's resolution. Measured worst 6.0e-6;
 * checked to 2e-5 as dp8's float test. */
Test(events_picard, bounce_times_in_float)
{
	const picard_model *model = test_model("bouncing_ball");
	picard_options o = lobatto(8, 0.1);
	picard_traj_status status[BALLS];
	picard_solver *s = NULL;
	double worst = 0;

	o.backend = PICARD_BACKEND_CPU;
	o.precision = PICARD_FLOAT;
	cr_assert_eq(picard_solver_create(&s, model, &o, BALLS), 0, "%s", picard_error_detail());
	cr_assert_eq(picard_solve(s, &ball_x0[0][0], &ball_p[0][0], NULL, status, NULL, NULL, 0,
				  NULL), 0, "%s", picard_error_detail());
	const picard_event_log *elog = picard_solver_event_log(s);
	for (int i = 0; i < BALLS; i++) {
		double t[64];
		const int n = bounce_times(ball_x0[i][0], ball_x0[i][1], ball_p[i][0], ball_p[i][1],
					   4, t, 64);

		cr_expect_eq(status[i], PICARD_TRAJ_OK);
		cr_assert_eq(elog->count[i], n, "member %d: %d bounces of %d", i, elog->count[i], n);
		for (int j = 0; j < n; j++)
			worst = fmax(worst, fabs(elog->time[(size_t)i * elog->capacity + j] - t[j]));
	}
	cr_expect_leq(worst, 2e-5, "largest bounce time error %.3g", worst);
	cr_log_info("bouncing_ball lobatto float: largest bounce time error %.3g", worst);
	picard_solver_free(s);
}

/* The trapezoid's dense output is linear between its nodes: the height
 * there is off by up to h^2 g / 8, the bounce times by that over the
 * speed, and later bounces inherit the shift; order 2 in h. Measured
 * worst 6.6e-6 at h = 1e-3 and 4.3e-7 at h = 2.5e-4 (ratio 15.6 of 16);
 * checked to 2e-5, 1.5e-6 and a ratio of at least 12. */
Test(events_picard, trapezoid_bounce_times_converge_at_order_2)
{
	const picard_model *model = test_model("bouncing_ball");
	const double hs[2] = {1e-3, 2.5e-4};
	double x_final[2 * BALLS], worst[2] = {0, 0};
	picard_traj_status status[BALLS];

	for (int c = 0; c < 2; c++) {
		char what[64];
		picard_solver *s = event_solve_cpu(model, trapezoid(hs[c]), BALLS, &ball_x0[0][0],
					     &ball_p[0][0], x_final, status, 0);

		snprintf(what, sizeof(what), "trapezoid h = %g", hs[c]);
		expect_bounces(s, status, c ? 1.5e-6 : 2e-5, what, &worst[c]);
		cr_log_info("bouncing_ball %s: largest bounce time error %.3g", what, worst[c]);
		picard_solver_free(s);
	}
	cr_expect_geq(worst[0] / worst[1], 12, "order 2: %.3g, then %.3g", worst[0], worst[1]);
}

/* threshold and event_faults under the trapezoid, to its order (its 2
 * sweeps a window from a cold start leave the decay's own error, 2.4e-6
 * measured in the event times; the ball's bounces as above, the
 * chattering member's last, at 5 mm/s, 4.2e-5 off). */
Test(events_picard, trapezoid_threshold_and_faults)
{
	expect_threshold(trapezoid(2.5e-4), 1e-5, "trapezoid h = 2.5e-4");
	expect_faults(trapezoid(2.5e-4), 1.5e-6, 1e-4);
}

/* thermostat: a jump of the parameters (the heater), each member's own
 * copy, the solve going on with it: the switching times and T at t1
 * against the closed form. T is an exponential between switches: lobatto
 * (m = 8, windows of 0.1) measured 8.5e-13, checked to 1e-9 as the
 * per-thread schemes; the trapezoid at h = 1e-3 (2 sweeps a window)
 * measured 3.0e-4 in the times and 3.2e-3 in T(10) (member 3, k = 1.9),
 * checked to 5e-3. The caller's parameters are left as they were. */
Test(events_picard, parameter_jumps_switch_at_their_closed_form_times)
{
	const picard_model *model = test_model("thermostat");
	const picard_options schemes[2] = {lobatto(8, 0.1), trapezoid(1e-3)};
	const double tol[2] = {1e-9, 5e-3};
	double x_final[THERMOSTATS], p[THERMOSTATS][6];
	picard_traj_status status[THERMOSTATS];

	memcpy(p, thermostat_p, sizeof(p));
	for (int c = 0; c < 2; c++) {
		picard_options o = schemes[c];

		o.t0 = 0;
		o.t1 = 10;
		o.event_log = 256;
		picard_solver *s = event_solve_cpu(model, o, THERMOSTATS, thermostat_x0, &p[0][0], x_final,
					     status, 0);
		const double worst = expect_switches(s, status, x_final, tol[c],
						     c ? "trapezoid" : "lobatto");

		cr_log_info("thermostat %s: largest switching time error %.3g",
			    c ? "trapezoid" : "lobatto", worst);
		picard_solver_free(s);
	}
	cr_expect_eq(memcmp(p, thermostat_p, sizeof(p)), 0, "the caller's parameters changed");
}

/* The Picard schemes' kernels do not locate events yet: backend cuda
 * refuses a model with events, backend auto solves it on the CPU (with a
 * GPU too: never its events left out). */
Test(events_picard, cuda_refuses_picard_events_and_auto_runs_them_on_the_cpu)
{
	const picard_model *model = test_model("bouncing_ball");
	const picard_options schemes[2] = {lobatto(8, 0.1), trapezoid(2.5e-4)};
	const double tol[2] = {1e-10, 1.5e-6};

	for (int c = 0; c < 2; c++) {
		picard_options o = schemes[c];
		double x_final[2 * BALLS], worst = 0;
		picard_traj_status status[BALLS];
		picard_stats stats;
		picard_solver *s = NULL;

		o.backend = PICARD_BACKEND_CUDA;
		cr_expect_eq(picard_solver_create(&s, model, &o, BALLS), PICARD_EINVAL);
		cr_expect(strstr(picard_error_detail(), "CPU backend alone"), "%s",
			  picard_error_detail());
		o.backend = PICARD_BACKEND_AUTO;
		o.precision = PICARD_DOUBLE;
		cr_assert_eq(picard_solver_create(&s, model, &o, BALLS), 0, "%s",
			     picard_error_detail());
		cr_assert_eq(picard_solve(s, &ball_x0[0][0], &ball_p[0][0], x_final, status, NULL,
					  NULL, 0, &stats), 0, "%s", picard_error_detail());
		cr_expect_eq(stats.backend, PICARD_BACKEND_CPU);
		expect_bounces(s, status, tol[c], c ? "trapezoid auto" : "lobatto auto", &worst);
		picard_solver_free(s);
	}
}
