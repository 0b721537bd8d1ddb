/* test_reference_events.c - the GSL reference of a model with events
 * (suite reference_events, src/reference/reference_events.c) and the
 * check that compares a solve's events with it: bouncing_ball's bounce
 * times against the closed form, threshold's record and terminate
 * against ln(x0 / y) / k, event_faults' statuses as the engine's; the
 * check passes a solve that locates its events and fails, naming the
 * member, one whose fixed steps are too coarse. CPU backend. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event_cases.h"
#include "picard.h"
#include "reference.h"
#include "reference_events.h"
#include "support.h"

#define CAP 64 /* log entries kept */

static void setup(void)
{
	make_workdir("refevents", "cache");
}

TestSuite(reference_events, .init = setup, .fini = remove_workdir);

/* The reference of model from x0 (params) over [t0, t1] at REF_TOL,
 * the states at times into out, its log into ev (CAP entries). */
static void reference_of(const picard_model *model, const double *x0, const double *params,
			 double t1, const double *times, long ntimes, double *out,
			 struct ref_events *ev)
{
	static int index[CAP];
	static double time[CAP], after[CAP * 8];

	*ev = (struct ref_events){.capacity = CAP, .index = index, .time = time, .after = after};
	int err = picard_reference_events(model, params, x0, model->t0, t1, times, ntimes, REF_TOL,
					  0, out, ev);
	cr_assert_eq(err, 0, "%s: %s", picard_strerror(err), picard_error_detail());
}

Test(reference_events, bounce_times_match_the_closed_form)
{
	const picard_model *model = test_model("bouncing_ball");
	const double times[] = {0.5, 1, 2, 3, 4};
	double out[5 * 2], worst = 0;

	for (int i = 0; i < BALLS; i++) {
		struct ref_events ev;
		double t[CAP];
		const int n = bounce_times(ball_x0[i][0], ball_x0[i][1], ball_p[i][0], ball_p[i][1],
					   4, t, CAP);

		reference_of(model, ball_x0[i], ball_p[i], 4, times, 5, out, &ev);
		cr_expect_eq(ev.status, PICARD_TRAJ_OK);
		cr_assert_eq(ev.count, n, "member %d: %d bounces, the closed form %d", i, ev.count, n);
		for (int j = 0; j < n; j++) {
			cr_expect_eq(ev.index[j], 0);
			cr_expect_leq(fabs(ev.time[j] - t[j]), 1e-10, "member %d bounce %d: %.17g, "
				      "closed form %.17g", i, j, ev.time[j], t[j]);
			cr_expect_eq(ev.after[2 * j], 0, "the jump puts it on the floor");
			cr_expect_gt(ev.after[2 * j + 1], 0, "and sends it up");
			worst = fmax(worst, fabs(ev.time[j] - t[j]));
		}
		/* the height at t = 4: a free flight from the last bounce */
		const double tl = t[n - 1], v = ev.after[2 * (n - 1) + 1], dt = 4 - tl;
		cr_expect_leq(fabs(out[4 * 2] - (v * dt - 0.5 * ball_p[i][0] * dt * dt)), 1e-9,
			      "member %d: y(4) = %.15g", i, out[8]);
	}
	cr_log_info("reference bounce times: largest error %.3g against the closed form", worst);
}

Test(reference_events, threshold_records_then_terminates)
{
	const picard_model *model = test_model("threshold");
	const double times[] = {1, 2, 4, 5, 8, 10};
	const double x0s[] = {1, 3, 0.7};
	const double params[][3] = {{0.5, 0.5, 0.1}, {1.3, 0.9, 0.2}, {0.4, 0.6, 0.3}};

	for (int i = 0; i < 3; i++) {
		const double k = params[i][0];
		const double t_mark = log(x0s[i] / params[i][1]) / k;
		const double t_level = log(x0s[i] / params[i][2]) / k;
		struct ref_events ev;
		double out[6];

		reference_of(model, &x0s[i], params[i], 10, times, 6, out, &ev);
		cr_expect_eq(ev.status, PICARD_TRAJ_EVENT, "member %d: %s", i,
			     picard_traj_status_name(ev.status));
		cr_assert_eq(ev.count, 2, "member %d: %d events", i, ev.count);
		cr_expect_eq(ev.index[0], 0);
		cr_expect_eq(ev.index[1], 1);
		cr_expect_leq(fabs(ev.time[0] - t_mark), 1e-10, "marker %.17g, %.17g", ev.time[0],
			      t_mark);
		cr_expect_leq(fabs(ev.time[1] - t_level), 1e-10, "level %.17g, %.17g", ev.time[1],
			      t_level);
		cr_expect_eq(ev.t_stop, ev.time[1], "it stops at the level");
		for (int r = 0; r < 6; r++) {
			if (times[r] > t_level)
				cr_expect(isnan(out[r]), "member %d: t = %g after the stop: %g", i,
					  times[r], out[r]);
			else
				cr_expect_leq(fabs(out[r] - x0s[i] * exp(-k * times[r])), 1e-10);
		}
	}
}

Test(reference_events, faulty_members_end_as_the_engine_ends_them)
{
	const struct path path = in_workdir("event_faults.cu");
	const picard_model *model = NULL;
	const picard_traj_status expect[EVENT_FAULTS_N] = {
		PICARD_TRAJ_OK, PICARD_TRAJ_EVENT_FAILED, PICARD_TRAJ_NONFINITE,
		PICARD_TRAJ_EVENT_LIMIT, PICARD_TRAJ_OK, PICARD_TRAJ_EVENT_LIMIT, PICARD_TRAJ_OK};
	const double t_end = 3;

	write_file(path.s, event_faults_text, strlen(event_faults_text));
	cr_assert_eq(picard_model_load(path.s, &model), 0, "%s", picard_error_detail());
	for (int i = 0; i < EVENT_FAULTS_N; i++) {
		struct ref_events ev;
		double out[2];

		reference_of(model, event_faults_x0[i], event_faults_p[i], t_end, &t_end, 1, out, &ev);
		cr_expect_eq(ev.status, expect[i], "member %d: %s, expected %s", i,
			     picard_traj_status_name(ev.status), picard_traj_status_name(expect[i]));
	}
}

/* ---- the check of a solve's events --------------------------------------- */

/* ntraj members of model (x0, params rows) solved under o (CPU, double,
 * a record at every 1/16 of its span, or, with o.h the span, its window
 * end alone: window_end), then picard_check_each under rtol = atol
 * = tol into res and traj_error. */
static int check_solve_record(const char *name, picard_options o, long ntraj, const double *x0,
			      const double *params, double tol, bool window_end,
			      picard_check_result *res, double *traj_error)
{
	const picard_model *model = test_model(name);
	enum { NREC = 16 };
	double times[NREC], *states = malloc(NREC * ntraj * model->dim * sizeof(double));
	picard_traj_status *status = malloc(ntraj * sizeof(*status));
	picard_record rec = {.traj_stride = 1, .states = states, .times = times, .ntimes = NREC};
	picard_solver *s = NULL;
	int err;

	for (int r = 0; r < NREC; r++)
		times[r] = model->t0 + (model->t1 - model->t0) * (r + 1) / NREC;
	if (window_end)
		rec = (picard_record){.every = 1, .traj_stride = 1, .states = states};
	o.backend = PICARD_BACKEND_CPU;
	o.precision = PICARD_DOUBLE;
	o.event_log = CAP;
	cr_assert_eq(picard_solver_create(&s, model, &o, ntraj), 0, "%s", picard_error_detail());
	err = picard_solve(s, x0, params, NULL, status, NULL, &rec, 1, NULL);
	cr_assert(err == 0 || err == PICARD_EFAILED, "%s", picard_error_detail());
	picard_check_options copts = {
		.tol = {.atol = tol, .rtol = tol}, .traj_error = traj_error,
		.events = picard_solver_event_log(s), .status = status,
		.fail_times = picard_solver_fail_times(s),
	};
	err = picard_check_each(model, picard_solver_grid(s), ntraj, x0, params, &rec, &copts,
				res);
	picard_solver_free(s);
	free(states);
	free(status);
	return err;
}

static int check_solve(const char *name, picard_options o, long ntraj, const double *x0,
		       const double *params, double tol, picard_check_result *res,
		       double *traj_error)
{
	return check_solve_record(name, o, ntraj, x0, params, tol, false, res, traj_error);
}

Test(reference_events, the_check_passes_a_solve_that_locates_its_events)
{
	picard_check_result res;
	double err[BALLS];
	picard_options o = {.scheme = PICARD_SCHEME_DP8, .iter_rtol = 1e-10, .iter_atol = 1e-10};

	cr_assert_eq(check_solve("bouncing_ball", o, BALLS, &ball_x0[0][0], &ball_p[0][0], 1e-6,
				 &res, err), 0, "%s", picard_error_detail());
	cr_expect_eq(res.event_mismatch, 0, "%s", res.event_detail);
	cr_expect_gt(res.events, 10, "the bounces were compared: %ld", res.events);
	cr_expect_lt(res.event_error, 1e-8, "bounce times within %.3g", res.event_error);
	cr_expect_leq(res.event_scaled_error, 1);
	cr_expect_leq(res.scaled_error, 1, "scaled error %.3g", res.scaled_error);
	for (int i = 0; i < BALLS; i++)
		cr_expect_leq(err[i], 1, "member %d: %.3g x tol", i, err[i]);
	cr_log_info("check of dp8 at 1e-10: %ld events, time error %.3g, state error %.3g",
		    res.events, res.event_error, res.error);
}

/* threshold's members: each terminates before t1 = 10 */
static const double thr_x0[] = {1, 2, 3};

Test(reference_events, the_check_passes_members_a_terminal_event_stopped)
{
	picard_check_result res;
	double err[3];
	picard_options o = {.scheme = PICARD_SCHEME_VERN9, .iter_rtol = 1e-11, .iter_atol = 1e-11};

	cr_assert_eq(check_solve("threshold", o, 3, thr_x0, NULL, 1e-7, &res, err), 0, "%s",
		     picard_error_detail());
	cr_expect_eq(res.event_mismatch, 0, "%s", res.event_detail);
	cr_expect_eq(res.events, 6, "marker and level of each: %ld", res.events);
	cr_expect_eq(res.nonfinite, 0, "the rows past the stop are not compared");
	cr_expect_leq(res.scaled_error, 1, "scaled error %.3g", res.scaled_error);
	cr_expect_lt(res.event_error, 1e-8, "event times within %.3g", res.event_error);
}

/* Members a terminal event stopped before their only recorded time (the
 * span's end, as picard-run's check records it): E is a state after an
 * event, with its relative error, and no window (-1). */
Test(reference_events, e_after_a_terminal_event_has_its_relative_error)
{
	picard_check_result res;
	double err[3];
	picard_options o = {.scheme = PICARD_SCHEME_DP5, .iter_rtol = 1e-5, .iter_atol = 1e-5,
			    .h = 10};

	cr_assert_eq(check_solve_record("threshold", o, 3, thr_x0, NULL, 1e-5, true, &res, err),
		     0, "%s", picard_error_detail());
	cr_expect_eq(res.event_mismatch, 0, "%s", res.event_detail);
	cr_expect_gt(res.error, 0, "dp5 at 1e-5 is not exact");
	cr_expect_eq(res.worst_window, -1, "E in window %ld", res.worst_window);
	cr_expect_gt(res.rel_error, 0, "E = %.3g, rel %.3g", res.error, res.rel_error);
	cr_expect_leq(res.rel_error, 10 * res.error, "rel %.3g for E %.3g (|x| ~ 0.1 to 1)",
		      res.rel_error, res.error);
}

Test(reference_events, the_check_fails_a_solve_too_coarse)
{
	picard_check_result res;
	double err[3];
	/* dp5 in four fixed steps of 2.5 (h k = 1.25): the decay lags */
	picard_options o = {.scheme = PICARD_SCHEME_DP5, .K = 1, .h = 2.5};

	cr_assert_eq(check_solve("threshold", o, 3, thr_x0, NULL, 1e-6, &res, err), 0, "%s",
		     picard_error_detail());
	cr_expect_gt(res.event_scaled_error, 1, "event times off by %.3g x tol",
		     res.event_scaled_error);
	cr_expect_gt(res.event_error, 1e-3, "time error %.3g", res.event_error);
	cr_expect_geq(res.worst_event_traj, 0);
	for (int i = 0; i < 3; i++)
		cr_expect_gt(err[i], 1, "member %d: %.3g x tol", i, err[i]);
	cr_log_info("check of dp5 at h = 2.5: time error %.3g (%.3g x tol)", res.event_error,
		    res.event_scaled_error);
}

Test(reference_events, a_missed_event_is_a_mismatch_naming_the_member)
{
	picard_check_result res;
	double err[2];
	/* member 1 reaches the level c = 0.1 at t = 9.99, just before t1;
	 * the coarse solve (its decay lags) not before t1 */
	const double x0[2] = {1, 0.1 * exp(0.5 * 9.99)};
	picard_options o = {.scheme = PICARD_SCHEME_DP5, .K = 1, .h = 2.5};

	cr_assert_eq(check_solve("threshold", o, 2, x0, NULL, 1e-6, &res, err), 0, "%s",
		     picard_error_detail());
	cr_assert_eq(res.event_mismatch, 1, "%ld members mismatched", res.event_mismatch);
	cr_expect_eq(res.first_event_mismatch, 1);
	cr_expect_str_eq(res.event_detail, "member 1: 1 event, the reference 2");
	cr_expect(isinf(err[1]));
	cr_expect(isfinite(err[0]));
}
Test(reference_events, the_check_needs_the_event_log)
{
	const picard_model *model = test_model("bouncing_ball");
	picard_grid grid = {.m = 2, .K = 1, .h = 0.5, .window = 0.5, .t0 = 0, .t1 = 4,
			    .windows = 8};
	double states[8 * 2], x0[2] = {1, 0};
	picard_record rec = {.every = 1, .traj_stride = 1, .states = states};
	picard_check_options copts = {.tol = {1e-6, 1e-6}};
	picard_check_result res;

	cr_expect_eq(picard_check_each(model, &grid, 1, x0, NULL, &rec, &copts, &res),
		     PICARD_EINVAL);
	cr_expect(strstr(picard_error_detail(), "event log"), "%s", picard_error_detail());
}
