/* test_fail_time.c - where the per-thread schemes (every one with a
 * tableau: tests/support.h) say a trajectory failed, on the CPU backend:
 * riccati, x' = a x^2, x(t) = x0 / (1 - a x0 t), blows up at t* = 1/(a
 * x0), and passes the bound B at 1/(a x0) - 1/(a B).
 * - picard_solver_fail_times: the failing step brackets the blow-up (to
 *   1e-9 relative adaptive at 1e-10, ros23 to its accuracy there; within
 *   a step fixed), lies in the failing window, is a step long (fixed) or
 *   short (adaptive), and is NaN for a trajectory that did not fail; not
 *   the output interval's end (a Rosenbrock scheme's fixed steps may
 *   cross the pole: may_cross);
 * - the record's times before the fault hold the exact solution to the
 *   scheme's accuracy, t0 included, and those after it are NaN;
 * - picard-run names that step, and its --save-every rows before the fault
 *   keep their values (they read NaN before). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheme.h"
#include "support.h"


/* A blow-up case: trajectory 0 from x0 blows up at pole inside [0, t1];
 * trajectory 1 from x0_calm blows up past t1. Output intervals of window;
 * fixed runs take steps of step; saved times every dt (off the pole). */
struct blowup {
	double x0, x0_calm, a, t1, window, step, dt;
};

static const struct blowup cases[] = {
	{.x0 = 1, .x0_calm = 0.1, .a = 1, .t1 = 2, .window = 2, .step = 1e-3, .dt = 0.06},
	/* the second: a pole at 25 was reported at t = 40 */
	{.x0 = 0.04, .x0_calm = 0.02, .a = 1, .t1 = 40, .window = 4, .step = 1e-3, .dt = 0.7},
};
#define NCASES ((int)(sizeof(cases) / sizeof(cases[0])))
#define BOUND 1e12
#define MAX_TIMES 128
/* adaptive at this local tolerance: the blow-up's time to about it */
#define RTOL 1e-10
#define POLE_SLACK 1e-9
/* fixed steps: the step that holds the pole, or the next (a polynomial
 * step across the pole may stay finite) */
#define FIXED_STEPS_PAST 1

/* One solve of case c by scheme id: statuses, failing windows, times,
 * and the states at the saved times. */
struct fail_run {
	picard_traj_status status[2];
	long fail_window[2];
	double fail_time[4];
	double times[MAX_TIMES];
	long ntimes;
	double saved[MAX_TIMES * 2];
	bool fixed; /* fixed steps (else adaptive) */
	picard_scheme id; /* the scheme */
};

static void solve_case(const struct blowup *c, picard_scheme id, bool fixed, struct fail_run *out)
{
	const picard_model *riccati = test_model("riccati");
	const double x0[2] = {c->x0, c->x0_calm}, params[2] = {c->a, c->a};
	picard_options opt = {
		.scheme = id, .precision = PICARD_DOUBLE, .backend = PICARD_BACKEND_CPU,
		.t0 = 0, .t1 = c->t1, .h = c->window, .bound = BOUND,
		.K = fixed ? (int)lround(c->window / c->step) : 0, .iter_rtol = RTOL,
	};
	picard_record rec = {.traj_stride = 1, .times = out->times, .states = out->saved};
	picard_solver *s;
	int err;

	out->ntimes = 0;
	for (double t = 0; t <= c->t1 && out->ntimes < MAX_TIMES; t = ++out->ntimes * c->dt)
		out->times[out->ntimes] = t;
	rec.ntimes = out->ntimes;
	s = test_solver(riccati, &opt, 2);
	err = picard_solve(s, x0, params, NULL, out->status, out->fail_window, &rec, 1, NULL);
	/* 0: a run that stepped across the pole (may_cross, below) */
	cr_assert(err == PICARD_EFAILED || (!err && fixed && per_thread_rosenbrock(id)), "%s: %s",
		  picard_scheme_of(id)->name, picard_error_detail());
	memcpy(out->fail_time, picard_solver_fail_times(s), sizeof(out->fail_time));
	picard_solver_free(s);
}

/* riccati's exact solution from x0 at t. */
static double exact(const struct blowup *c, double x0, double t)
{
	return x0 / (1 - c->a * x0 * t);
}

/* Every case by every scheme, adaptive and fixed: check(c, what, r). */
static void each_run(void (*check)(const struct blowup *c, const char *what,
				   const struct fail_run *r))
{
	picard_scheme rk_schemes[PER_THREAD_MAX];
	const int nrk = per_thread_schemes(PER_THREAD_ALL, rk_schemes);

	for (int k = 0; k < NCASES; k++)
		for (int s = 0; s < nrk; s++)
			for (int fixed = 0; fixed < 2; fixed++) {
				struct fail_run r;
				char what[96];

				snprintf(what, sizeof(what), "%s %s, x0 = %g (blow-up at %g)",
					 picard_scheme_of(rk_schemes[s])->name,
					 fixed ? "fixed" : "adaptive", cases[k].x0,
					 1 / (cases[k].a * cases[k].x0));
				solve_case(&cases[k], rk_schemes[s], fixed, &r);
				r.fixed = fixed;
				r.id = rk_schemes[s];
				check(&cases[k], what, &r);
			}
}

/* Whether run r may step across the pole and go on: fixed steps of a
 * Rosenbrock scheme, whose L-stable linearisation can carry the state
 * over to the solution's other branch, x0 / (1 - a x0 t) < 0, finite,
 * with no iteration to fail there (radau5's Newton iteration stops
 * converging, an explicit step goes past the bound): measured, riccati
 * from x0 = 1 in steps of 1e-3, rodas5p diverged in the step holding the
 * pole, rodas4 ten steps past it, ros23 ended ok at t = 2. Where such a
 * run fails, it fails in the pole's window, after the pole. */
static bool may_cross(const struct fail_run *r)
{
	return r->fixed && per_thread_rosenbrock(r->id);
}

/* The failing step: where the blow-up is, in the window that holds it. */
static void check_step(const struct blowup *c, const char *what, const struct fail_run *r)
{
	const double pole = 1 / (c->a * c->x0), crossing = pole - 1 / (c->a * BOUND);
	const long pole_window = (long)floor(pole / c->window);
	const double from = r->fail_time[0], to = r->fail_time[1];
	/* the blow-up's time to the scheme's accuracy at RTOL */
	const double slack = POLE_SLACK * per_thread_error_scale(r->id, RTOL) / RTOL;

	cr_log_info("%s: %s in window %ld, t in [%.15g, %.15g]", what,
		    picard_traj_status_name(r->status[0]), r->fail_window[0], from, to);
	if (may_cross(r) && r->status[0] == PICARD_TRAJ_OK) {
		cr_expect(isnan(from) && isnan(to), "%s: ok, but failed at [%g, %g]", what, from, to);
		return;
	}
	cr_expect_neq(r->status[0], PICARD_TRAJ_OK, "%s", what);
	cr_expect_eq(r->status[1], PICARD_TRAJ_OK, "%s: the calm one %s", what,
		     picard_traj_status_name(r->status[1]));
	cr_expect(isnan(r->fail_time[2]) && isnan(r->fail_time[3]),
		  "%s: the calm one failed at [%g, %g]", what, r->fail_time[2], r->fail_time[3]);
	cr_expect_eq(r->fail_window[0], pole_window, "%s: window %ld", what, r->fail_window[0]);
	cr_expect(from >= pole_window * c->window && to <= (pole_window + 1) * c->window &&
		  from < to, "%s: [%.15g, %.15g] is not a step of window %ld", what, from, to,
		  pole_window);
	if (r->fixed) {
		cr_expect(fabs(to - from - c->step) <= 1e-9, "%s: a step of %.15g, not %g", what,
			  to - from, c->step);
		cr_expect(from >= pole - c->step &&
			  (from <= pole + FIXED_STEPS_PAST * c->step || may_cross(r)),
			  "%s: the step from %.15g is not at the blow-up", what, from);
	} else {
		cr_expect(from <= pole + slack * pole && to >= crossing - slack * pole,
			  "%s: [%.15g, %.15g] does not hold the blow-up", what, from, to);
		cr_expect(to - from <= 1e-3 * pole, "%s: a step of %.3g", what, to - from);
	}
}

Test(fail_time, brackets_the_blowup, .timeout = 120)
{
	each_run(check_step);
}

/* How far a saved state may be from the solution, relative, where x is at
 * most 25 x0: 1e-6, or for a low order the scheme's own accuracy there,
 * amplified 625 times by t = 0.96 pole: adaptive 1e4 times its error
 * scale at RTOL (tests/support.h; ros23: 2.2e-3, measured 2.4e-6), fixed
 * 1e3 step^p (ros23: 1e-3, measured 4.6e-5 at t = 0.96 in steps of
 * 1e-3). */
static double saved_bar(const struct blowup *c, const struct fail_run *r)
{
	const double p = picard_scheme_of(r->id)->order(NULL);

	return fmax(1e-6, r->fixed ? 1e3 * pow(c->step, p) :
				     1e4 * per_thread_error_scale(r->id, RTOL));
}

/* The saved states up to the start of the failing step are the
 * solution's (the first time t = 0 among them); after it, NaN. A run
 * that may cross the pole and went on (may_cross) keeps them all. */
static void check_saved(const struct blowup *c, const char *what, const struct fail_run *r)
{
	const double pole = 1 / (c->a * c->x0), bar = saved_bar(c, r);
	long kept = 0, dropped = 0;

	for (long i = 0; i < r->ntimes; i++) {
		const double t = r->times[i];
		const double x = r->saved[2 * i], calm = r->saved[2 * i + 1];
		const double want = exact(c, c->x0, t), want_calm = exact(c, c->x0_calm, t);

		cr_expect(fabs(calm - want_calm) <= bar * fabs(want_calm),
			  "%s: calm one at t = %g: %.17g, exact %.17g", what, t, calm, want_calm);
		if (t > r->fail_time[0]) {
			dropped++;
			cr_expect(isnan(x), "%s: t = %g after the fault at %.15g holds %.17g", what,
				  t, r->fail_time[0], x);
			continue;
		}
		kept++;
		/* riccati's error grows as x^2 towards the pole: judged
		 * where x is at most 25 x0 */
		if (t <= 0.96 * pole)
			cr_expect(fabs(x - want) <= bar * fabs(want), "%s: t = %g: %.17g, exact "
				  "%.17g", what, t, x, want);
		else
			cr_expect(isfinite(x), "%s: t = %g: %g", what, t, x);
	}
	cr_expect(kept > 1 && (dropped > 1 || (may_cross(r) && r->status[0] == PICARD_TRAJ_OK)),
		  "%s: %ld times kept, %ld dropped", what, kept, dropped);
	cr_expect(r->saved[0] == c->x0, "%s: x(0) saved as %.17g", what, r->saved[0]);
}

Test(fail_time, saved_states_before_the_fault_kept, .timeout = 120)
{
	each_run(check_saved);
}

/* Line i (0-based) of text into row, without its '\n'; false past the
 * last. */
static bool nth_line(const char *text, long i, char *row, size_t size)
{
	const char *end;

	for (; i > 0 && text; i--)
		text = (text = strchr(text, '\n')) ? text + 1 : NULL;
	if (!text || !*text)
		return false;
	end = strchr(text, '\n');
	snprintf(row, size, "%.*s", (int)(end ? end - text : (long)strlen(text)), text);
	return true;
}

/* picard-run riccati from x0 = 1 (blow-up at t = 1): stderr names the
 * step, "between t=A and B" or "at t=A"; the rows before it are the
 * solution's, those after it NaN with the status. */
Test(fail_time, cli_names_the_step, .timeout = 120)
{
	const char *fixed_steps[] = {"", "--steps 2000"};
	picard_scheme rk_schemes[PER_THREAD_MAX];
	const int nrk = per_thread_schemes(PER_THREAD_ALL, rk_schemes);

	make_workdir("fail-time", NULL);
	const struct path init = in_workdir("x0.csv"), out = in_workdir("out.csv");

	write_file(init.s, "1\n", 2);
	for (int s = 0; s < nrk; s++)
		for (int f = 0; f < 2; f++) {
			const char *name = picard_scheme_of(rk_schemes[s])->name;
			char line[512], row[256], *csv, *at, status[32];
			double from = NAN, to = NAN, t, x;
			struct cli_run run;
			int rows = 0;

			snprintf(line, sizeof(line),
				 "riccati --backend cpu --scheme %s %s --iter-rtol 1e-10 "
				 "--precision double --init %s --save-every 0.06 --out %s", name,
				 fixed_steps[f], init.s, out.s);
			/* the scheme's run as solve_case's (may_cross, saved_bar) */
			const struct fail_run as = {.fixed = f, .id = rk_schemes[s]};
			const double bar = saved_bar(&cases[0], &as);

			run = run_program_line("picard-run", line);
			at = strstr(run.err, "between t=");
			if (at)
				sscanf(at, "between t=%lf and %lf", &from, &to);
			else if ((at = strstr(run.err, "at t=")))
				sscanf(at, "at t=%lf", &from), to = from;
			if (!may_cross(&as) || run.status != 0) {
				cr_expect_eq(run.status, 1, "%s: exit %d: %s", line, run.status, run.err);
				cr_expect(from <= 1 + (may_cross(&as) ? 1 : 3e-3) && to >= 1 - 1e-6 &&
					  to - from <= 1.1e-3, "%s: %s", line, run.err);
			}
			free_run(&run);
			csv = slurp(out.s, NULL);
			for (long i = 1; nth_line(csv, i, row, sizeof(row)); i++) {
				cr_assert_eq(sscanf(row, "%lf,0,%31[^,],%lf", &t, status, &x), 3,
					     "%s: row '%s'", line, row);
				rows++;
				if (t <= 0.96) {
					cr_expect_str_eq(status, "ok", "%s: row '%s'", line, row);
					cr_expect(fabs(x - 1 / (1 - t)) <= bar / (1 - t),
						  "%s: row '%s', exact %.17g", line, row, 1 / (1 - t));
				} else if (t > from) {
					cr_expect_str_neq(status, "ok", "%s: row '%s'", line, row);
					cr_expect(isnan(x), "%s: row '%s'", line, row);
				}
			}
			cr_expect_eq(rows, 35, "%s: %d rows:\n%s", line, rows, csv);
			free(csv);
		}
	remove_workdir();
}
