/* test_value_range.c - what a run is given is what it solves: --param's value
 * reaches every member and the reference (against decay's closed form),
 * picard_ensemble_model fills a parameter buffer it is given, and a float
 * run refuses before any work a state or parameter past binary32's range,
 * naming where it came from (issue 34, items 1 and 7). CPU backend only. */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "picard.h"
#include "support.h"

static void make_range_workdir(void)
{
	make_workdir("range", NULL);
}

TestSuite(value_range, .init = make_range_workdir, .fini = remove_workdir, .timeout = 120);

/* Field 2 (0-based: traj, status, x1, ...) of row `row` (0-based,
 * after the header) of picard-run's CSV: the first state component. */
static double csv_x1(const char *text, int row)
{
	const char *line = strchr(text, '\n');

	for (int r = 0; r < row && line; r++)
		line = strchr(line + 1, '\n');
	cr_assert(line && line[1], "no row %d in:\n%s", row, text);
	const char *field = strchr(line + 1, ',');
	field = field ? strchr(field + 1, ',') : NULL;
	cr_assert(field, "row %d has no third field:\n%s", row, text);
	return strtod(field + 1, NULL);
}

/* decay x' = -lambda x, x(0) = 1 over [0, 10]: x(10) = exp(-10 lambda)
 * for the lambda --param sets, on every member, with and without a
 * spread of the start; --check compares against a reference of the same
 * lambda (its E is tiny only if both solved lambda = 2). */
Test(value_range, param_reaches_every_member_and_the_reference)
{
	const struct path out = in_workdir("x.csv");
	const char *spreads[] = { "--spread 0", "--spread 0.1" };

	for (int s = 0; s < 2; s++) {
		char line[512];
		struct cli_run run;

		snprintf(line, sizeof(line),
			 "decay --backend cpu --scheme dp5 --steps 1000 --precision double --traj 3 %s "
			 "--param lambda=2 --check --out %s", spreads[s], out.s);
		run = run_program_line("picard-run", line);
		cr_assert_eq(run.status, 0, "%s\n%s%s", line, run.out, run.err);
		char *csv = slurp(out.s, NULL);
		for (int i = 0; i < 3; i++) {
			const double x = csv_x1(csv, i);

			/* spread 0.1: x0 in [0.9, 1.1], so x(10) within 10% of exp(-20);
			 * lambda = 0 (the bug) gives x(10) = x0 ~ 1 */
			cr_assert(fabs(x / exp(-20) - 1) < (s ? 0.11 : 1e-6),
				  "member %d: x(10) = %.17g, exp(-20) = %.17g (%s)", i, x, exp(-20), line);
		}
		cr_assert(strstr(run.out, "check"), "%s", run.out);
		free(csv);
		free_run(&run);
	}
}

/* A parameter buffer given to picard_ensemble_model is filled, each row
 * the model's defaults, also when nothing is spread. */
Test(value_range, ensemble_fills_a_given_parameter_buffer)
{
	const picard_model *lotka = test_model("lotka");
	const long ntraj = 5;
	const int np = lotka->nparams;
	double x0[5 * 2], params[5 * 8];

	cr_assert_leq(np, 8);
	for (int i = 0; i < 5 * 8; i++)
		params[i] = -12345;
	cr_assert_eq(picard_ensemble_model(lotka, ntraj, 0.1, NULL, 3, PICARD_BACKEND_CPU, x0, params),
		     0);
	for (long i = 0; i < ntraj; i++)
		for (int q = 0; q < np; q++)
			cr_assert_eq(params[i * np + q], lotka->param_defaults[q], "row %ld, %s", i,
				     lotka->param_names[q]);
}

/* ---- float range -------------------------------------------------------------- */

static void expect_refusal(const char *line, const char *needle)
{
	struct cli_run run = run_program_line("picard-run", line);

	cr_assert_eq(run.status, 2, "%s: exit %d\n%s%s", line, run.status, run.out, run.err);
	cr_assert(strstr(run.err, needle), "%s: stderr lacks \"%s\":\n%s", line, needle, run.err);
	cr_assert(strstr(run.err, "float"), "%s: stderr does not name the precision:\n%s", line,
		  run.err);
	cr_assert(!strstr(run.out, "solve "), "%s: it solved before refusing:\n%s", line, run.out);
	free_run(&run);
}

Test(value_range, float_refuses_param_past_its_range)
{
	expect_refusal("lotka --backend cpu --traj 4 --param a1=1e39", "--param a1");
	/* in double the same value is a number like any other */
	struct cli_run run = run_program_line("picard-run",
					      "decay --backend cpu --traj 1 --spread 0 --precision double "
					      "--scheme dp5 --param lambda=1e-39");
	cr_assert_eq(run.status, 0, "%s%s", run.out, run.err);
	free_run(&run);
}

Test(value_range, float_refuses_init_value_past_its_range)
{
	const struct path states = in_workdir("states.csv"), with_params = in_workdir("params.csv");
	const char *text = "50 30\n1e39 30\n";
	const char *ptext = "50 30 0.25 0.01 0.001 -0.3 0.01 0.002\n50 30 0.25 0.01 0.001 -0.3 0.01 -4e38\n";
	char line[512];

	write_file(states.s, text, strlen(text));
	snprintf(line, sizeof(line), "lotka --backend cpu --init %s", states.s);
	expect_refusal(line, "trajectory 1 (data row 2), column 1");
	write_file(with_params.s, ptext, strlen(ptext));
	snprintf(line, sizeof(line), "lotka --backend cpu --init %s", with_params.s);
	expect_refusal(line, "column 8 (c2)");
}

/* The C API: a float solver refuses x0 or a parameter past FLT_MAX with
 * EINVAL before any work (was EFAILED after a nonfinite solve); a double
 * solver takes the same states. */
Test(value_range, float_solver_refuses_values_past_its_range)
{
	const picard_model *decay = test_model("decay");
	picard_options opt = {.scheme = PICARD_SCHEME_DP5, .precision = PICARD_FLOAT,
			      .backend = PICARD_BACKEND_CPU, .t0 = 0, .t1 = 1};
	picard_traj_status status[2];
	double x0[2] = { 1, 1e39 }, params[2] = { 1, 1 }, x[2];

	picard_solver *s = test_solver(decay, &opt, 2);
	cr_assert_eq(picard_solve(s, x0, NULL, x, status, NULL, NULL, 0, NULL), PICARD_EINVAL);
	cr_assert(strstr(picard_error_detail(), "float"), "%s", picard_error_detail());
	x0[1] = 1;
	params[1] = -1e39;
	cr_assert_eq(picard_solve(s, x0, params, x, status, NULL, NULL, 0, NULL), PICARD_EINVAL);
	cr_assert(strstr(picard_error_detail(), "lambda"), "%s", picard_error_detail());
	params[1] = 1;
	cr_assert_eq(picard_solve(s, x0, params, x, status, NULL, NULL, 0, NULL), PICARD_OK);
	picard_solver_free(s);

	opt.precision = PICARD_DOUBLE;
	opt.bound = 1e40; /* past the default 1e12, which would call it diverged */
	s = test_solver(decay, &opt, 2);
	x0[1] = 1e39;
	cr_assert_eq(picard_solve(s, x0, NULL, x, status, NULL, NULL, 0, NULL), PICARD_OK,
		     "%s", picard_error_detail());
	cr_assert(fabs(x[1] / (1e39 * exp(-decay->param_defaults[0])) - 1) < 1e-3, "x = %g", x[1]);
	picard_solver_free(s);
}
