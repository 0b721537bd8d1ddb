/* test_events.c - events (suite events): zero crossings located on the
 * per-thread Runge-Kutta schemes' dense output, on the CPU backend.
 * bouncing_ball's bounce times against their closed form under dp5, dp8
 * and vern9, adaptive and fixed steps; threshold's record and terminate
 * events against ln(x0 / y) / k, one at t0; a model file with faults
 * (an event function never finite, a jump to NaN, chattering within the
 * minimum spacing, more events than the limit) in one ensemble beside
 * good members that go on; the refusals (schemes, estimate);
 * picard-run --events; NVRTC compiles the event integration for the
 * device, with no device needed (test_events_gpu.c runs it). */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glob.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jit.h"
#include "event_cases.h"
#include "picard.h"
#include "scheme.h"
#include "support.h"

static const picard_scheme explicit_schemes[] = {PICARD_SCHEME_DP5, PICARD_SCHEME_DP8,
						 PICARD_SCHEME_VERN9};
#define NSCHEMES 3

static void setup(void)
{
	make_workdir("events", "cache");
}

TestSuite(events, .init = setup, .fini = remove_workdir);

Test(events, bounce_times_match_the_closed_form)
{
	const char *names[NSCHEMES] = {"dp5", "dp8", "vern9"};

	/* adaptive, and fixed steps over output intervals of 0.5 */
	for (int c = 0; c < NSCHEMES; c++)
		expect_ball_bounces(explicit_schemes[c], names[c], 1e-12);
}

/* thermostat: a jump of the parameters (the heater's on), each member
 * switching its own copy: the switching times and T at t1 against the
 * closed form, under dp5, dp8 and vern9; the caller's parameters are
 * left as they were. */
Test(events, parameter_jumps_switch_at_their_closed_form_times)
{
	const picard_model *model = test_model("thermostat");
	double x_final[THERMOSTATS], p[THERMOSTATS][6];
	picard_traj_status status[THERMOSTATS];

	memcpy(p, thermostat_p, sizeof(p));
	for (int c = 0; c < NSCHEMES; c++) {
		picard_options o = {.scheme = explicit_schemes[c], .event_log = 256, .t0 = 0,
				    .t1 = 10, .iter_rtol = 1e-12, .iter_atol = 1e-12};
		picard_solver *s = event_solve_cpu(model, o, THERMOSTATS, thermostat_x0, &p[0][0], x_final,
					     status, 0);
		const double worst = expect_switches(s, status, x_final, 1e-9,
						     picard_scheme_of(explicit_schemes[c])->name);

		cr_log_info("thermostat %s: largest switching time error %.3g",
			    picard_scheme_of(explicit_schemes[c])->name, worst);
		picard_solver_free(s);
	}
	cr_expect_eq(memcmp(p, thermostat_p, sizeof(p)), 0, "the caller's parameters changed");
}

/* threshold: x' = -k x from x0, marker m (record), level c (terminate). */
Test(events, terminate_and_record_at_their_closed_form_times)
{
	const picard_model *model = test_model("threshold");
	/* k, m, c per member; x0; the third starts on its level (event at
	 * t0), the fourth between marker and level (one event) */
	const double p[4][3] = {{0.5, 0.5, 0.1}, {2, 0.7, 0.3}, {0.5, 0.5, 0.25}, {1, 0.9, 0.2}};
	const double x0[4] = {1, 3, 0.25, 0.5};
	double x_final[4];
	picard_traj_status status[4];

	for (int c = 0; c < NSCHEMES; c++) {
		picard_options o = {.scheme = explicit_schemes[c], .iter_rtol = 1e-13,
				    .iter_atol = 1e-13};
		picard_solver *s = event_solve_cpu(model, o, 4, x0, &p[0][0], x_final, status, 0);
		const picard_event_log *elog = picard_solver_event_log(s);
		const double *stop = picard_solver_fail_times(s);
		double worst = 0;

		for (int i = 0; i < 4; i++) {
			const double t_m = log(x0[i] / p[i][1]) / p[i][0];
			const double t_c = log(x0[i] / p[i][2]) / p[i][0];
			const int expect = x0[i] > p[i][1] ? 2 : 1;
			const size_t at = (size_t)i * elog->capacity;

			cr_expect_eq(status[i], PICARD_TRAJ_EVENT, "member %d: %s", i,
				     picard_traj_status_name(status[i]));
			cr_assert_eq(elog->count[i], expect, "member %d: %d events", i, elog->count[i]);
			if (expect == 2) {
				cr_expect_eq(elog->index[at], 0);
				cr_expect_leq(fabs(elog->time[at] - t_m), 1e-10, "member %d marker at "
					      "%.17g, closed form %.17g", i, elog->time[at], t_m);
				worst = fmax(worst, fabs(elog->time[at] - t_m));
			}
			const size_t last = at + expect - 1;

			cr_expect_eq(elog->index[last], 1);
			cr_expect_leq(fabs(elog->time[last] - t_c), 1e-10, "member %d level at %.17g, "
				      "closed form %.17g", i, elog->time[last], t_c);
			worst = fmax(worst, fabs(elog->time[last] - t_c));
			cr_expect_eq(stop[2 * i], elog->time[last]);
			cr_expect_eq(x_final[i], elog->before[last]);
			cr_expect_leq(fabs(x_final[i] - p[i][2]), 1e-10 * p[i][2]);
		}
		cr_expect_eq(elog->time[2 * elog->capacity], 0, "the member on its level stops at t0");
		cr_log_info("threshold %s: largest event time error %.3g",
			    c == 0 ? "dp5" : c == 1 ? "dp8" : "vern9", worst);
		picard_solver_free(s);
	}
}

/* One fixed step from 0 to 5 holds both of threshold's crossings:
 * the earlier is found first; at m = c both cross at once and act in
 * index order, the record before the terminate. */
Test(events, crossings_in_one_step_in_time_order)
{
	const picard_model *model = test_model("threshold");
	const double p[2][3] = {{0.5, 0.5, 0.1}, {0.5, 0.3, 0.3}};
	const double x0[2] = {1, 1};
	double x_final[2];
	picard_traj_status status[2];
	picard_options o = {.scheme = PICARD_SCHEME_VERN9, .K = 1, .h = 5};
	picard_solver *s = event_solve_cpu(model, o, 2, x0, &p[0][0], x_final, status, 0);
	const picard_event_log *elog = picard_solver_event_log(s);
	const size_t second = elog->capacity;

	for (int i = 0; i < 2; i++) {
		cr_expect_eq(status[i], PICARD_TRAJ_EVENT);
		cr_assert_eq(elog->count[i], 2, "member %d: %d events", i, elog->count[i]);
		cr_expect_eq(elog->index[i * second], 0);
		cr_expect_eq(elog->index[i * second + 1], 1);
	}
	cr_expect_lt(elog->time[0], elog->time[1], "the marker first: %.17g, %.17g", elog->time[0],
		     elog->time[1]);
	/* a single step of 5 (no error control): its dense output is rough */
	cr_expect_leq(fabs(elog->time[0] - log(2) / 0.5), 0.05, "%.17g", elog->time[0]);
	cr_expect_leq(fabs(elog->time[1] - log(10) / 0.5), 0.05, "%.17g", elog->time[1]);
	cr_expect_eq(elog->time[second], elog->time[second + 1], "both at once");
	picard_solver_free(s);
}

/* Dense output stops at a terminal event: the rows after it are NaN. */
Test(events, records_after_a_terminal_event_are_not_extrapolated)
{
	const picard_model *model = test_model("threshold");
	const double times[3] = {1, 4, 8}; /* the default member stops at ln 10 / 0.5 = 4.6 */
	double states[3], x_final[1], x0[1] = {1};
	picard_traj_status status[1];
	picard_record rec = {.traj_stride = 1, .states = states, .times = times, .ntimes = 3};
	picard_options o = {.scheme = PICARD_SCHEME_DP8, .iter_rtol = 1e-12, .iter_atol = 1e-12,
			    .backend = PICARD_BACKEND_CPU, .precision = PICARD_DOUBLE};
	picard_solver *s = NULL;

	cr_assert_eq(picard_solver_create(&s, model, &o, 1), 0, "%s", picard_error_detail());
	cr_assert_eq(picard_solve(s, x0, NULL, x_final, status, NULL, &rec, 1, NULL), 0, "%s",
		     picard_error_detail());
	cr_expect_eq(status[0], PICARD_TRAJ_EVENT);
	cr_expect_leq(fabs(states[0] - exp(-0.5)), 1e-10);
	cr_expect_leq(fabs(states[1] - exp(-2)), 1e-10);
	cr_expect(isnan(states[2]), "the row after the event: %g, not NaN", states[2]);
	picard_solver_free(s);
}

Test(events, faulty_members_stop_with_their_status_and_the_others_go_on)
{
	const struct path path = in_workdir("event_faults.cu");
	const picard_model *model = NULL;
	enum { N = EVENT_FAULTS_N };
	const double (*x0)[2] = event_faults_x0, (*p)[3] = event_faults_p;
	double x_final[2 * N], t[64];
	picard_traj_status status[N];

	write_file(path.s, event_faults_text, strlen(event_faults_text));
	cr_assert_eq(picard_model_load(path.s, &model), 0, "%s", picard_error_detail());
	cr_assert_not_null(model->events);
	cr_expect_eq(model->events->limit, 30);
	picard_options o = {.scheme = PICARD_SCHEME_DP8, .iter_rtol = 1e-12, .iter_atol = 1e-12,
			    .event_log = 30};
	picard_solver *s = event_solve_cpu(model, o, N, &x0[0][0], &p[0][0], x_final, status,
					   PICARD_EFAILED);
	const picard_event_log *elog = picard_solver_event_log(s);
	const double *stop = picard_solver_fail_times(s);

	for (int i = 0; i < N; i += 6) { /* the good ones, all their bounces */
		const int n = bounce_times(x0[i][0], x0[i][1], p[i][0], p[i][1], 3, t, 64);

		cr_expect_eq(status[i], PICARD_TRAJ_OK, "member %d: %s", i,
			     picard_traj_status_name(status[i]));
		cr_expect_eq(elog->count[i], n, "member %d: %d bounces of %d", i, elog->count[i], n);
		for (int j = 0; j < n && j < elog->count[i]; j++)
			cr_expect_leq(fabs(elog->time[(size_t)i * elog->capacity + j] - t[j]), 1e-10);
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
	cr_expect_leq(fabs(stop[4] - t[0]), 1e-10, "it stopped at the bounce: %.17g, %.17g",
		      stop[4], t[0]);

	cr_expect_eq(status[3], PICARD_TRAJ_EVENT_LIMIT, "member 3: %s",
		     picard_traj_status_name(status[3]));
	cr_expect_lt(elog->count[3], 30, "chattering stops it before the limit");
	/* bounces closer than 1e-3 start where 2 e^n V / g < 1e-3 */
	const int n3 = bounce_times(1, 0, G, 0.5, 3, t, 64);
	int closer = 1;
	while (closer < n3 && t[closer] - t[closer - 1] >= 1e-3)
		closer++;
	cr_expect_eq(elog->count[3], closer, "member 3: %d bounces before chattering, closed form %d",
		     elog->count[3], closer);
	cr_expect_leq(fabs(stop[6] - t[closer]), 1e-9, "it stopped at the chattering bounce");

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

/* event_faults_text with old replaced by new, loaded from its own folder:
 * the load's error code. */
static int load_variant(const char *folder, const char *old, const char *new_text)
{
	char text[EVENT_FAULTS_MAX + 256], name[64];
	const char *at = strstr(event_faults_text, old);
	const picard_model *model = NULL;

	cr_assert_not_null(at, "%s not in the model's text", old);
	snprintf(text, sizeof(text), "%.*s%s%s", (int)(at - event_faults_text), event_faults_text,
		 new_text, at + strlen(old));
	cr_assert_eq(mkdir(in_workdir(folder).s, 0700), 0);
	snprintf(name, sizeof(name), "%s/event_faults.cu", folder);
	write_file(in_workdir(name).s, text, strlen(text));
	return picard_model_load(in_workdir(name).s, &model);
}

/* A broken declaration of events stops the build of the file, its rule
 * named. */
Test(events, broken_declarations_name_their_rule, .timeout = 120)
{
	static const struct {
		const char *old, *new_text, *rule;
	} cases[] = {
		{"	static constexpr picard_event_action event_actions[] = {PICARD_EVENT_JUMP};\n", "",
		 "event_actions[] with nevents entries"},
		{"static void jump(", "static void hop(", "an action PICARD_EVENT_JUMP needs"},
		{"nevents = 1", "nevents = 2", "event_names[] with nevents entries"},
		{"event_limit = 30", "event_limit = 0", "event_limit must be at least 1"},
		{"static void events(", "static void evts(", "nevents needs template"},
		/* a constant subscript past g, read from the text */
		{"		g[0] = p[2] == 1", "		g[1] = 0;\n		g[0] = p[2] == 1",
		 "writes g[1] out of bounds"},
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char folder[16];

		snprintf(folder, sizeof(folder), "case%zu", c);
		cr_expect_eq(load_variant(folder, cases[c].old, cases[c].new_text), PICARD_ECOMPILE,
			     "case %zu loaded", c);
		cr_expect(strstr(picard_error_detail(), cases[c].rule), "case %zu: %s", c,
			  picard_error_detail());
	}
}

/* A bounce counted both ways: the crossing back up right after it (the
 * state leaving the floor, from just below it) is within the minimum
 * spacing and does not count; only the bounces do. */
Test(events, leaving_the_surface_within_the_spacing_does_not_count, .timeout = 120)
{
	const picard_model *model = NULL;
	const struct path path = in_workdir("both/event_faults.cu");
	const double x0[2] = {1, 0}, p[3] = {G, 0.9, 0};
	double t[64], x_final[2];
	picard_traj_status status[1];

	cr_assert_eq(load_variant("both", "{PICARD_EVENT_FALLING}", "{PICARD_EVENT_BOTH}"), 0,
		     "%s", picard_error_detail());
	cr_assert_eq(picard_model_load(path.s, &model), 0);
	picard_options o = {.scheme = PICARD_SCHEME_DP8, .iter_rtol = 1e-12, .iter_atol = 1e-12,
			    .event_log = 30};
	picard_solver *s = event_solve_cpu(model, o, 1, x0, p, x_final, status, 0);
	const picard_event_log *elog = picard_solver_event_log(s);
	const int n = bounce_times(1, 0, G, 0.9, 3, t, 64);

	cr_expect_eq(status[0], PICARD_TRAJ_OK);
	cr_expect_eq(elog->count[0], n, "%d events, %d bounces", elog->count[0], n);
	for (int j = 0; j < n && j < elog->count[0]; j++)
		cr_expect_leq(fabs(elog->time[j] - t[j]), 1e-10);
	picard_solver_free(s);
}

/* Subscripts computed at run time: the guarded first evaluation of events
 * and jump at the defaults (a write past g, a write past x). */
Test(events, guarded_evaluation_stops_events_out_of_bounds, .timeout = 120)
{
	cr_expect_eq(load_variant("past_g", "		g[0] = p[2] == 1",
				  "		for (int k = 0; k <= 1; k++)\n			g[k] = 0;\n"
				  "		g[0] = p[2] == 1"), PICARD_EINVAL);
	cr_expect(strstr(picard_error_detail(), "events") &&
		  strstr(picard_error_detail(), "writes g[1] out of bounds"), "%s",
		  picard_error_detail());
	cr_expect_eq(load_variant("past_x", "		x[1] = -p[1] * x[1];\n",
				  "		for (int k = 0; k <= 2; k++)\n			x[k] = -p[1] * x[1];\n"),
		     PICARD_EINVAL);
	cr_expect(strstr(picard_error_detail(), "jump") &&
		  strstr(picard_error_detail(), "x[2] out of bounds"), "%s", picard_error_detail());
}

/* Float: the same bounces to float's resolution. */
Test(events, bounce_times_in_float)
{
	const picard_model *model = test_model("bouncing_ball");
	picard_options o = {.scheme = PICARD_SCHEME_DP8, .iter_rtol = 1e-6, .iter_atol = 1e-6,
			    .event_log = 64, .backend = PICARD_BACKEND_CPU,
			    .precision = PICARD_FLOAT};
	picard_traj_status status[BALLS];
	picard_solver *s = NULL;
	double worst = 0;

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
	cr_log_info("bouncing_ball dp8 float: largest bounce time error %.3g", worst);
	picard_solver_free(s);
}

Test(events, what_does_not_locate_events_refuses_them)
{
	const picard_model *ball = test_model("bouncing_ball");
	const picard_model *lotka = test_model("lotka");
	const picard_scheme others[] = {PICARD_SCHEME_NEWTON, PICARD_SCHEME_NEWTON_RADAU,
					PICARD_SCHEME_IMEX_EULER};
	picard_solver *s = NULL;

	for (int i = 0; i < 3; i++) {
		picard_options o = {.scheme = others[i], .backend = PICARD_BACKEND_CPU};

		cr_expect_eq(picard_solver_create(&s, ball, &o, 4), PICARD_EINVAL);
		cr_expect(strstr(picard_error_detail(), "events") &&
			  strstr(picard_error_detail(), "(dp5, dp8, vern9, rodas5p, radau5, rodas4, "
							"ros23, lobatto, trapezoid do)"),
			  "%s", picard_error_detail());
	}
	picard_options estimate = {.scheme = PICARD_SCHEME_DP8, .estimate_error = true};
	cr_expect_eq(picard_solver_create(&s, ball, &estimate, 4), PICARD_EINVAL);
	/* a model without events: no log, and no log to ask for */
	picard_options plain = {.scheme = PICARD_SCHEME_DP8, .backend = PICARD_BACKEND_CPU};
	cr_assert_eq(picard_solver_create(&s, lotka, &plain, 2), 0);
	cr_expect_null(picard_solver_event_log(s));
	picard_solver_free(s);
	plain.event_log = 4;
	cr_expect_eq(picard_solver_create(&s, lotka, &plain, 2), PICARD_EINVAL);
}

Test(events, picard_run_writes_the_log_and_names_overflow)
{
	const struct path csv = in_workdir("bounces.csv");
	char line[512];
	struct cli_run r;

	snprintf(line, sizeof(line), "bouncing_ball --traj 3 --spread 0 --iter-rtol 1e-10 "
		 "--events %s", csv.s);
	r = run_program_line("picard-run", line);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "events"), "%s", r.out);
	free_run(&r);
	char *text = slurp(csv.s, NULL);
	double t[64];
	const int n = bounce_times(1, 0, G, 0.9, 4, t, 64);
	const int rows = csv_rows(text);

	cr_expect(!strncmp(text, "member,event,name,time,before_x1,before_x2,after_x1,after_x2\n",
			   60), "%.80s", text);
	cr_expect_eq(rows, 3 * n, "%d rows, 3 members of %d bounces", rows, n);
	cr_expect(strstr(text, "\n2,0,bounce,"), "%s", text);
	free(text);

	snprintf(line, sizeof(line), "bouncing_ball --traj 2 --spread 0 --event-log 2 --events %s",
		 csv.s);
	r = run_program_line("picard-run", line);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	char named[64];

	snprintf(named, sizeof(named), "0 (%d events), 1 (%d events)", n, n);
	cr_expect(strstr(r.err, "2 members had more events than the log keeps (2"), "%s", r.err);
	cr_expect(strstr(r.err, named), "%s", r.err);
	free_run(&r);

	/* a run that fails after the log is opened (its solver refused:
	 * too much work) leaves neither the file nor its temporary */
	const struct path failed = in_workdir("failed.csv");
	char pattern[PATH_MAX + 8];
	glob_t left;

	snprintf(line, sizeof(line), "bouncing_ball --traj 2 --steps 100000 --max-work 10 "
		 "--events %s", failed.s);
	r = run_program_line("picard-run", line);
	cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "--max-work"), "%s", r.err);
	free_run(&r);
	cr_expect_neq(access(failed.s, F_OK), 0, "a failed run left %s", failed.s);
	snprintf(pattern, sizeof(pattern), "%s.*", failed.s);
	cr_expect_eq(glob(pattern, 0, NULL, &left), GLOB_NOMATCH, "a failed run left %s",
		     left.gl_pathc ? left.gl_pathv[0] : "");
	globfree(&left);

	r = run_program_line("picard-run", "lotka --events x.csv");
	cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "declares no events"), "%s", r.err);
	free_run(&r);
}

/* The .npy log beside --out FILE.npy (FILE.events.npy): a structured
 * array of member, event (int64), time, before and after (n float64
 * each), its shape the rows; the same rows, to the bit, as the CSV that
 * --events writes of the same run. An unknown extension is refused. */
Test(events, the_npy_log_beside_out_holds_the_csv_rows)
{
	const struct path out = in_workdir("balls.npy"), beside = in_workdir("balls.events.npy"),
			  csv = in_workdir("balls_log.csv");
	const char *run = "bouncing_ball --traj 3 --spread 0.1 --seed 2 --iter-rtol 1e-10";
	const char *descr = "{'descr': [('member', '<i8'), ('event', '<i8'), ('time', '<f8'), "
			    "('before', '<f8', (2,)), ('after', '<f8', (2,))], "
			    "'fortran_order': False, 'shape': (";
	char line[PATH_MAX + 200];
	struct cli_run r;
	size_t size;

	snprintf(line, sizeof(line), "%s --out %s", run, out.s);
	r = run_program_line("picard-run", line);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "balls.events.npy (the event log)"), "%s", r.out);
	free_run(&r);
	snprintf(line, sizeof(line), "%s --events %s", run, csv.s);
	r = run_program_line("picard-run", line);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	free_run(&r);

	unsigned char *npy = (unsigned char *)slurp(beside.s, &size);
	char *text = slurp(csv.s, NULL);
	const size_t header = 10 + (size_t)(npy[8] | npy[9] << 8), row = 24 + 16 * 2;
	long rows = -1;

	cr_assert(size > 10 && !memcmp(npy, "\x93NUMPY\x01\x00", 8), "not a .npy");
	cr_expect_eq(header % 64, 0, "a header of %zu bytes", header);
	cr_assert(!strncmp((char *)npy + 10, descr, strlen(descr)), "%.200s", npy + 10);
	sscanf((char *)npy + 10 + strlen(descr), "%ld", &rows);
	cr_assert_gt(rows, 3, "%ld rows", rows);
	cr_assert_eq(size, header + (size_t)rows * row, "%zu bytes for %ld rows", size, rows);
	const char *at = strchr(text, '\n') + 1;

	for (long k = 0; k < rows; k++, at = strchr(at, '\n') + 1) {
		const unsigned char *rec = npy + header + (size_t)k * row;
		double csv_v[6], npy_v[7];
		long member, event;
		int name_end;

		cr_assert_eq(sscanf(at, "%ld,%ld,bounce,%n", &member, &event, &name_end), 2, "%.80s", at);
		cr_assert_eq(sscanf(at + name_end, "%lf,%lf,%lf,%lf,%lf", &csv_v[0], &csv_v[1],
				    &csv_v[2], &csv_v[3], &csv_v[4]), 5, "%.80s", at);
		for (int q = 0; q < 7; q++) { /* little-endian fields, read byte by byte */
			unsigned long long bits = 0;

			for (int b = 7; b >= 0; b--)
				bits = bits << 8 | rec[8 * q + b];
			if (q < 2)
				npy_v[q] = (double)(long long)bits;
			else
				memcpy(&npy_v[q], &bits, 8);
		}
		cr_expect_eq(npy_v[0], member, "row %ld", k);
		cr_expect_eq(npy_v[1], event, "row %ld", k);
		for (int q = 0; q < 5; q++)
			cr_expect_eq(npy_v[2 + q], csv_v[q], "row %ld field %d: %.17g against %.17g", k,
				     q, npy_v[2 + q], csv_v[q]);
	}
	cr_expect_eq(*at, '\0', "the CSV has more rows than the .npy's %ld", rows);
	free(npy);
	free(text);

	snprintf(line, sizeof(line), "%s --events %s.txt", run, csv.s);
	r = run_program_line("picard-run", line);
	cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "unknown extension, expected .csv or .npy"), "%s", r.err);
	free_run(&r);
}

/* picard-run --out: a member a terminal event stopped has that status
 * and its state at the event as its final state (threshold: x = c), and
 * its --save-at rows after the event are NaN, marked by the status. */
Test(events, out_keeps_a_terminated_members_state_there)
{
	const struct path out = in_workdir("stopped.csv"), saved = in_workdir("saved.csv");
	char line[512], *text;
	double x;
	struct cli_run r;

	snprintf(line, sizeof(line), "threshold --traj 2 --spread 0 --iter-rtol 1e-12 "
		 "--iter-atol 1e-12 --out %s", out.s);
	r = run_program_line("picard-run", line);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	free_run(&r);
	text = slurp(out.s, NULL);
	cr_assert(sscanf(text, "traj,status,x1\n0,event,%lf", &x) == 1, "%s", text);
	cr_expect_leq(fabs(x - 0.1), 1e-10, "member 0 ends at %.17g, its level 0.1", x);
	free(text);
	/* the default member stops at ln(1 / 0.1) / 0.5 = 4.6 */
	snprintf(line, sizeof(line), "threshold --traj 1 --spread 0 --iter-rtol 1e-12 "
		 "--iter-atol 1e-12 --save-at 1,4,8 --out %s", saved.s);
	r = run_program_line("picard-run", line);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	free_run(&r);
	text = slurp(saved.s, NULL);
	cr_expect(strstr(text, "\n4,0,ok,"), "%s", text);
	cr_expect(strstr(text, "\n8,0,event,nan\n"), "%s", text);
	free(text);
}

/* The device side of the event integration, every scheme and precision,
 * compiled by NVRTC for each model with events. */
Test(events, event_integration_compiles_for_the_device, .timeout = 600)
{
	int with_events = 0;

	for (int i = 0; i < picard_model_count(); i++) {
		const picard_model *model = picard_model_at(i);

		if (!model->events)
			continue;
		with_events++;
		const int err = picard_jit_check_kernel(model, "picard::events_check");

		cr_expect_eq(err, 0, "%s: %s", model->name, picard_error_detail());
	}
	cr_expect_geq(with_events, 2, "bouncing_ball and threshold at least");
}
