/* test_check_events.c - picard-run --check and --tol on models with
 * events (suite check_events): the check compares each member's events
 * with a reference that locates them, its line names the event-time error
 * apart from the states', a run that locates its events passes, one too
 * coarse fails naming the member, and --tol picks a scheme that locates
 * events and keeps its promise. CPU backend; the tuning cache is the
 * test's own directory. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static void setup(void)
{
	make_workdir("checkev", "cache");
}

TestSuite(check_events, .init = setup, .fini = remove_workdir, .timeout = 300);

/* The check line's event part: events compared, the largest time error,
 * and with --tol its multiple of the tolerance (NaN without). */
struct check_events_line {
	long events;
	double time_error, time_scaled, scaled;
};

static struct check_events_line read_check_line(const char *out)
{
	struct check_events_line l = {.events = -1, .time_scaled = NAN, .scaled = NAN};
	const char *check = strstr(out, "check ");
	const char *ev = check ? strstr(check, "; events: ") : NULL;
	const char *most = check ? strstr(check, "at most ") : NULL;

	cr_assert_not_null(ev, "no events in the check line: %s", out);
	cr_assert_geq(sscanf(ev, "; events: %ld compared, max |t - t_ref| = %lf (%lf x the "
			     "tolerance)", &l.events, &l.time_error, &l.time_scaled), 2,
		      "%s", ev);
	if (most)
		sscanf(most, "at most %lf", &l.scaled);
	return l;
}

Test(check_events, check_compares_the_bounce_times)
{
	struct cli_run r = run_program_line("picard-run", "bouncing_ball --traj 4 --check "
					    "--backend cpu");
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	const struct check_events_line l = read_check_line(r.out);

	cr_expect_gt(l.events, 4 * 5, "every member bounces 6 times before t = 4: %ld", l.events);
	cr_expect_lt(l.time_error, 1e-5, "bounce times off by %g", l.time_error);
	cr_expect(strstr(r.out, "[PASS]"), "%s", r.out);
	free_run(&r);
}

Test(check_events, check_of_members_a_terminal_event_stopped)
{
	struct cli_run r = run_program_line("picard-run", "threshold --traj 8 --check "
					    "--backend cpu");
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	const struct check_events_line l = read_check_line(r.out);

	cr_expect_eq(l.events, 16, "marker and level of 8 members: %ld", l.events);
	cr_expect_lt(l.time_error, 1e-5, "event times off by %g", l.time_error);
	cr_expect_null(strstr(r.out, "nonfinite"), "%s", r.out);
	free_run(&r);
}

Test(check_events, tol_meets_its_promise_on_states_and_event_times)
{
	struct cli_run r = run_program_line("picard-run", "bouncing_ball --traj 64 --tol 1e-6 "
					    "--check --backend cpu");
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	const struct check_events_line l = read_check_line(r.out);

	cr_expect(strstr(r.out, "met by 64 of 64"), "%s", r.out);
	cr_expect_gt(l.events, 64 * 5, "%ld events", l.events);
	cr_expect_leq(l.time_scaled, 1, "event times at %g x the tolerance", l.time_scaled);
	cr_expect_leq(l.scaled, 1, "states and events at %g x the tolerance", l.scaled);
	cr_expect_lt(l.time_error, 1e-6, "bounce times off by %g", l.time_error);
	cr_expect(strstr(r.out, "dp5") || strstr(r.out, "dp8") || strstr(r.out, "vern9"),
		  "a scheme that locates events: %s", r.out);
	free_run(&r);
}

Test(check_events, a_given_grid_too_coarse_fails_the_tolerance)
{
	/* dp5 in four steps of 2.5 over threshold's span: the decay lags */
	struct cli_run r = run_program_line("picard-run", "threshold --traj 4 --scheme dp5 "
					    "--steps 1 --h 2.5 --tol 1e-6 --check --backend cpu");
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	const struct check_events_line l = read_check_line(r.out);

	cr_expect_gt(l.time_scaled, 1, "event times at %g x the tolerance", l.time_scaled);
	cr_expect(strstr(r.err, "exceed the tolerance"), "%s", r.err);
	free_run(&r);
}

Test(check_events, a_missed_event_names_the_member)
{
	/* the level c reached at t = 9.99, just before t1 = 10: the coarse
	 * solve's lagging decay does not reach it */
	struct cli_run r = run_program_line("picard-run", "threshold --traj 2 --spread 0 "
					    "--param c=0.0067729 --scheme dp5 --steps 1 --h 2.5 "
					    "--tol 1e-6 --check --backend cpu");
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "events differ from the reference's (member 0: 1 event, the "
			 "reference 2)"), "%s", r.out);
	cr_expect(strstr(r.err, "0 (error inf x tol"), "%s", r.err);
	free_run(&r);
}

Test(check_events, picard_tune_searches_the_schemes_that_locate_events)
{
	struct cli_run r = run_program_line("picard-tune", "bouncing_ball --tol 1e-6 --traj 64 "
					    "--backend cpu --budget 60");
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect_null(strstr(r.out, "lobatto"), "%s", r.out);
	cr_expect_null(strstr(r.out, "trapezoid"), "%s", r.out);
	free_run(&r);
}
