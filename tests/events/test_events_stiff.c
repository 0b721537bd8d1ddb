/* test_events_stiff.c - events (suite events_stiff) in the stiff
 * per-thread schemes, rodas5p, rodas4, ros23 and radau5, on the CPU
 * backend (which runs the kernels' code as host C++): located on each
 * scheme's dense output by the same code as the explicit pairs'
 * (src/schemes/events_step.cuh). bouncing_ball's bounce times against
 * their closed form, adaptive and fixed steps; threshold's record and
 * terminate events against ln(x0 / y) / k, the records after a terminal
 * event NaN; Robertson's stiff kinetics with a record and a terminal
 * event against GSL's msbdf with its own bisection on the crossing; the
 * faulty members of event_faults beside good ones; the warp layout's
 * refusal. test_events_gpu.c compares the GPU's kernels with these. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_odeiv2.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "event_cases.h"
#include "picard.h"
#include "scheme.h"
#include "support.h"

static const picard_scheme stiff_schemes[] = {PICARD_SCHEME_RODAS5P, PICARD_SCHEME_RODAS4,
					      PICARD_SCHEME_ROS23, PICARD_SCHEME_RADAU5};
#define NSTIFF 4

static void setup(void)
{
	make_workdir("events_stiff", "cache");
}

TestSuite(events_stiff, .init = setup, .fini = remove_workdir);

static const char *name_of(picard_scheme id)
{
	return picard_scheme_of(id)->name;
}

/* bouncing_ball is y'' = -g, a quadratic, which these schemes and their
 * dense outputs follow up to rounding, so the bounce times are the
 * location's: measured worst 1.3e-12 (ros23 and radau5 adaptive at
 * 1e-10), 5.2e-14 fixed; held to 1e-10, as the explicit pairs. */
Test(events_stiff, bounce_times_match_the_closed_form)
{
	for (int c = 0; c < NSTIFF; c++)
		expect_ball_bounces(stiff_schemes[c], name_of(stiff_schemes[c]), 1e-10);
}

/* threshold: x' = -k x, marker m (record), level c (terminate), as in
 * test_events.c; an event's time error is the state's relative error
 * over k. At rtol 1e-10 and steps of 0.01, measured worst 2.2e-10
 * (rodas4; rodas5p 6.4e-12, radau5 5.1e-13): held to 1e-9. ros23, order
 * 2 with an order-2 interpolant, at rtol 1e-8 and steps of 0.001:
 * measured 1.7e-5 adaptive, 1.9e-7 fixed; held to 1e-4. */
#define THRESHOLD_TOL 1e-9
#define THRESHOLD_TOL_ROS23 1e-4
Test(events_stiff, terminate_and_record_at_their_closed_form_times)
{
	const picard_model *model = test_model("threshold");
	const double p[4][3] = {{0.5, 0.5, 0.1}, {2, 0.7, 0.3}, {0.5, 0.5, 0.25}, {1, 0.9, 0.2}};
	const double x0[4] = {1, 3, 0.25, 0.5};
	double x_final[4];
	picard_traj_status status[4];

	for (int c = 0; c < NSTIFF; c++)
		for (int fixed = 0; fixed < 2; fixed++) {
			const bool ros23 = stiff_schemes[c] == PICARD_SCHEME_ROS23;
			picard_options o = {.scheme = stiff_schemes[c]};
			double worst = 0;

			if (fixed) { /* steps of 0.01 (ros23: 0.001), the grid kept after a cut */
				o.h = 0.5;
				o.K = ros23 ? 500 : 50;
			} else {
				o.iter_rtol = o.iter_atol = ros23 ? 1e-8 : 1e-10;
			}
			picard_solver *s = event_solve_cpu(model, o, 4, x0, &p[0][0], x_final, status,
							   0);
			const picard_event_log *elog = picard_solver_event_log(s);
			const double *stop = picard_solver_fail_times(s);

			for (int i = 0; i < 4; i++) {
				const double t_m = log(x0[i] / p[i][1]) / p[i][0];
				const double t_c = log(x0[i] / p[i][2]) / p[i][0];
				const int expect = x0[i] > p[i][1] ? 2 : 1;
				const size_t at = (size_t)i * elog->capacity, last = at + expect - 1;

				cr_expect_eq(status[i], PICARD_TRAJ_EVENT, "%s member %d: %s",
					     name_of(o.scheme), i, picard_traj_status_name(status[i]));
				cr_assert_eq(elog->count[i], expect, "%s member %d: %d events",
					     name_of(o.scheme), i, elog->count[i]);
				if (expect == 2) {
					cr_expect_eq(elog->index[at], 0);
					worst = fmax(worst, fabs(elog->time[at] - t_m));
				}
				cr_expect_eq(elog->index[last], 1);
				worst = fmax(worst, fabs(elog->time[last] - t_c));
				cr_expect_eq(stop[2 * i], elog->time[last]);
				cr_expect_eq(x_final[i], elog->before[last]);
				cr_expect_leq(fabs(x_final[i] - p[i][2]), 1e-9 * p[i][2],
					      "%s member %d stopped at x = %.17g, its level %g",
					      name_of(o.scheme), i, x_final[i], p[i][2]);
			}
			cr_expect_eq(elog->time[2 * elog->capacity], 0, "the member on its level stops "
				     "at t0");
			cr_expect_leq(worst, ros23 ? THRESHOLD_TOL_ROS23 : THRESHOLD_TOL,
				      "%s %s: event time error %.3g",
				      name_of(o.scheme), fixed ? "fixed" : "adaptive", worst);
			cr_log_info("threshold %s %s: largest event time error %.3g", name_of(o.scheme),
				    fixed ? "fixed" : "adaptive", worst);
			picard_solver_free(s);
		}
}

/* Dense output stops at a terminal event: the rows after it are NaN. */
Test(events_stiff, records_after_a_terminal_event_are_not_extrapolated)
{
	const picard_model *model = test_model("threshold");
	const double times[3] = {1, 4, 8}; /* the default member stops at ln 10 / 0.5 = 4.6 */

	for (int c = 0; c < NSTIFF; c++) {
		double states[3], x_final[1], x0[1] = {1};
		picard_traj_status status[1];
		picard_record rec = {.traj_stride = 1, .states = states, .times = times, .ntimes = 3};
		picard_options o = {.scheme = stiff_schemes[c], .iter_rtol = 1e-9,
				    .iter_atol = 1e-9, .backend = PICARD_BACKEND_CPU,
				    .precision = PICARD_DOUBLE};
		picard_solver *s = NULL;

		cr_assert_eq(picard_solver_create(&s, model, &o, 1), 0, "%s",
			     picard_error_detail());
		cr_assert_eq(picard_solve(s, x0, NULL, x_final, status, NULL, &rec, 1, NULL), 0,
			     "%s", picard_error_detail());
		cr_expect_eq(status[0], PICARD_TRAJ_EVENT);
		cr_expect_leq(fabs(states[0] - exp(-0.5)), 1e-6, "%s: %.17g", name_of(o.scheme),
			      states[0]);
		cr_expect_leq(fabs(states[1] - exp(-2)), 1e-6, "%s: %.17g", name_of(o.scheme),
			      states[1]);
		cr_expect(isnan(states[2]), "%s: the row after the event: %g, not NaN",
			  name_of(o.scheme), states[2]);
		picard_solver_free(s);
	}
}

/* ---- Robertson's kinetics with events, against GSL's msbdf ----------- */

/* The reference, written here from the equations: k = (k1, k2, k3). */
static int rob_rhs(double t, const double *y, double *f, void *params)
{
	const double *k = params;

	(void)t;
	f[0] = -k[0] * y[0] + k[1] * y[1] * y[2];
	f[1] = k[0] * y[0] - k[1] * y[1] * y[2] - k[2] * y[1] * y[1];
	f[2] = k[2] * y[1] * y[1];
	return GSL_SUCCESS;
}

static int rob_jac(double t, const double *y, double *J, double *dfdt, void *params)
{
	const double *k = params;
	const double m[9] = {-k[0], k[1] * y[2], k[1] * y[1],
			     k[0], -k[1] * y[2] - 2 * k[2] * y[1], -k[1] * y[1],
			     0, 2 * k[2] * y[1], 0};

	(void)t;
	memcpy(J, m, sizeof(m));
	dfdt[0] = dfdt[1] = dfdt[2] = 0;
	return GSL_SUCCESS;
}

/* y at t from (t_a, y_a) by msbdf at rtol 1e-12, atol 1e-16 (a fresh
 * start each time, so the bisection's states are independent). */
static void rob_at(double *k, double t_a, const double *y_a, double t, double *y)
{
	gsl_odeiv2_system sys = {rob_rhs, rob_jac, 3, k};
	gsl_odeiv2_driver *d = gsl_odeiv2_driver_alloc_y_new(&sys, gsl_odeiv2_step_msbdf,
							     1e-10, 1e-16, 1e-12);
	double at = t_a;

	memcpy(y, y_a, 3 * sizeof(double));
	gsl_odeiv2_driver_set_nmax(d, 0);
	if (t > t_a)
		cr_assert_eq(gsl_odeiv2_driver_apply(d, &at, t, y), GSL_SUCCESS, "GSL msbdf to %g", t);
	gsl_odeiv2_driver_free(d);
}

/* g_j = y[2] - mark (j = 0) or y[0] - level (j = 1). */
static double rob_g(int j, const double *y, const double *p)
{
	return j == 0 ? y[2] - p[4] : y[0] - p[3];
}

/* Where g_j first changes sign on a geometric grid from 1e-6 to t1, the
 * root bisected to 1e-13 relative on msbdf's solution: its time (t1 past
 * the span: none) and the state there into y. */
static double rob_crossing(const double *p, int j, double t1, double *y)
{
	double k[3] = {p[0], p[1], p[2]}, ya[3] = {1, 0, 0}, yb[3], ta = 0;

	for (double tb = 1e-6; ta < t1; tb = fmin(tb * 1.2, t1)) {
		rob_at(k, ta, ya, tb, yb);
		if (rob_g(j, yb, p) * rob_g(j, ya, p) <= 0) {
			double lo = ta, hi = tb;

			while (hi - lo > 1e-13 * hi) {
				const double mid = 0.5 * (lo + hi);

				rob_at(k, ta, ya, mid, y);
				if (rob_g(j, y, p) * rob_g(j, ya, p) > 0)
					lo = mid;
				else
					hi = mid;
			}
			rob_at(k, ta, ya, hi, y);
			return hi;
		}
		memcpy(ya, yb, sizeof(ya));
		ta = tb;
	}
	return 2 * t1;
}

/* Four members: level (y1 falling to it, terminal) and mark (y3 rising
 * to it, recorded); the last's mark lies past its level. Times relative
 * to the reference's at rtol 1e-10: measured worst 1.3e-10 (radau5;
 * rodas4 8.7e-11, rodas5p 6.0e-11), held to 1e-9; ros23 at rtol 1e-8
 * 1.1e-9, held to 1e-7. */
#define ROB_TOL 1e-9
Test(events_stiff, robertson_events_match_msbdf, .timeout = 300)
{
	const struct path path = in_workdir("robertson_events.cu");
	const picard_model *model = NULL;
	enum { N = 4 };
	const double p[N][5] = {{0.04, 1e4, 3e7, 0.98, 0.01},
				{0.04, 1e4, 3e7, 0.9, 0.05},
				{0.04, 1e4, 3e7, 0.8, 0.1},
				{0.04, 1e4, 3e7, 0.6, 0.5}};
	const double x0[N][3] = {{1, 0, 0}, {1, 0, 0}, {1, 0, 0}, {1, 0, 0}};
	double ref_t[N][2], ref_y[N][2][3], x_final[3 * N];
	picard_traj_status status[N];

	write_file(path.s, robertson_events_text, strlen(robertson_events_text));
	cr_assert_eq(picard_model_load(path.s, &model), 0, "%s", picard_error_detail());
	for (int i = 0; i < N; i++)
		for (int j = 0; j < 2; j++)
			ref_t[i][j] = rob_crossing(p[i], j, 1e3, ref_y[i][j]);
	cr_assert_lt(ref_t[N - 1][1], ref_t[N - 1][0], "the last member's level comes first");
	for (int c = 0; c < NSTIFF; c++) {
		const bool ros23 = stiff_schemes[c] == PICARD_SCHEME_ROS23;
		const double tol = ros23 ? 100 * ROB_TOL : ROB_TOL;
		picard_options o = {.scheme = stiff_schemes[c], .iter_rtol = ros23 ? 1e-8 : 1e-10,
				    .iter_atol = 1e-14};
		picard_solver *s = event_solve_cpu(model, o, N, &x0[0][0], &p[0][0], x_final,
						   status, 0);
		const picard_event_log *elog = picard_solver_event_log(s);
		double worst = 0;

		for (int i = 0; i < N; i++) {
			const bool marked = ref_t[i][0] < ref_t[i][1];
			const size_t at = (size_t)i * elog->capacity, last = at + marked;

			cr_expect_eq(status[i], PICARD_TRAJ_EVENT, "%s member %d: %s",
				     name_of(o.scheme), i, picard_traj_status_name(status[i]));
			cr_assert_eq(elog->count[i], 1 + marked, "%s member %d: %d events",
				     name_of(o.scheme), i, elog->count[i]);
			for (int e = 0; e <= (int)marked; e++) {
				const int j = marked && e == 0 ? 0 : 1;
				const double err = fabs(elog->time[at + e] - ref_t[i][j]) / ref_t[i][j];

				worst = fmax(worst, err);
				cr_expect_eq(elog->index[at + e], j);
				cr_expect_leq(err, tol, "%s member %d event %d at %.17g, msbdf %.17g",
					      name_of(o.scheme), i, j, elog->time[at + e], ref_t[i][j]);
				for (int q = 0; q < 3; q++)
					cr_expect_leq(fabs(elog->before[3 * (at + e) + q] -
							   ref_y[i][j][q]), 1e4 * tol * fmax(ref_y[i][j][q], 1e-4),
						      "%s member %d event %d y%d", name_of(o.scheme), i, j,
						      q + 1);
			}
			cr_expect_eq(x_final[3 * i], elog->before[3 * last]);
			cr_expect_leq(fabs(x_final[3 * i] - p[i][3]), 1e-9, "%s member %d: y1 = %.17g at "
				      "its level %g", name_of(o.scheme), i, x_final[3 * i], p[i][3]);
		}
		cr_log_info("robertson_events %s: largest relative event time error %.3g",
			    name_of(o.scheme), worst);
		picard_solver_free(s);
	}
}

/* event_faults' members (test_events.c says what each does): the same
 * statuses under the stiff schemes, the good members' bounces exact. */
Test(events_stiff, faulty_members_stop_with_their_status_and_the_others_go_on)
{
	const struct path path = in_workdir("event_faults.cu");
	const picard_model *model = NULL;
	enum { N = EVENT_FAULTS_N };
	const double (*x0)[2] = event_faults_x0, (*p)[3] = event_faults_p;
	const picard_traj_status expect[N] = {
		PICARD_TRAJ_OK, PICARD_TRAJ_EVENT_FAILED, PICARD_TRAJ_NONFINITE,
		PICARD_TRAJ_EVENT_LIMIT, PICARD_TRAJ_OK, PICARD_TRAJ_EVENT_LIMIT, PICARD_TRAJ_OK};
	double x_final[2 * N], t[64];
	picard_traj_status status[N];

	write_file(path.s, event_faults_text, strlen(event_faults_text));
	cr_assert_eq(picard_model_load(path.s, &model), 0, "%s", picard_error_detail());
	for (int c = 0; c < NSTIFF; c++) {
		picard_options o = {.scheme = stiff_schemes[c], .iter_rtol = 1e-10,
				    .iter_atol = 1e-10, .event_log = 30};
		picard_solver *s = event_solve_cpu(model, o, N, &x0[0][0], &p[0][0], x_final,
						   status, PICARD_EFAILED);
		const picard_event_log *elog = picard_solver_event_log(s);
		const double *stop = picard_solver_fail_times(s);

		for (int i = 0; i < N; i++)
			cr_expect_eq(status[i], expect[i], "%s member %d: %s", name_of(o.scheme), i,
				     picard_traj_status_name(status[i]));
		for (int i = 0; i < N; i += 6) {
			const int n = bounce_times(x0[i][0], x0[i][1], p[i][0], p[i][1], 3, t, 64);

			cr_expect_eq(elog->count[i], n, "%s member %d: %d bounces of %d",
				     name_of(o.scheme), i, elog->count[i], n);
			for (int j = 0; j < n && j < elog->count[i]; j++)
				cr_expect_leq(fabs(elog->time[(size_t)i * elog->capacity + j] - t[j]),
					      1e-10);
		}
		cr_expect_eq(elog->count[1], 0);
		cr_expect_eq(stop[2], 0, "g is not finite at t0 already");
		bounce_times(1, 0, G, 0.9, 3, t, 1);
		cr_expect_eq(elog->count[2], 1, "the jump that made NaN is logged");
		cr_expect_leq(fabs(stop[4] - t[0]), 1e-10, "%s: stopped at the bounce: %.17g, %.17g",
			      name_of(o.scheme), stop[4], t[0]);
		cr_expect_lt(elog->count[3], 30, "chattering stops it before the limit");
		cr_expect_eq(elog->time[(size_t)4 * elog->capacity], 0, "its first bounce is at t0");
		cr_expect_eq(elog->count[5], 30, "member 5: %d events, the limit 30", elog->count[5]);
		picard_solver_free(s);
	}
}

/* The warp layout does not locate events yet: refused, by name. */
Test(events_stiff, the_warp_layout_refuses_events)
{
	const picard_model *ball = test_model("bouncing_ball");

	for (int c = 0; c < NSTIFF; c++) {
		picard_options o = {.scheme = stiff_schemes[c], .layout = PICARD_LAYOUT_WARP,
				    .backend = PICARD_BACKEND_CPU};
		picard_solver *s = NULL;

		cr_expect_eq(picard_solver_create(&s, ball, &o, 4), PICARD_EINVAL);
		cr_expect(strstr(picard_error_detail(), "layout warp") &&
			  strstr(picard_error_detail(), "events"), "%s", picard_error_detail());
	}
}
