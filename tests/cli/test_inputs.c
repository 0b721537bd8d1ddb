/* test_inputs.c - every way a value enters picard-run reaches the solve:
 * --param for each model whose answer it changes (decay, vanderpol,
 * lotka), --init's parameter columns in their order, binary --init,
 * --spread and --seed, --spread-param, --t0, and --save-every / --save-at
 * for every scheme, each with non-default values and each against a
 * closed form or a computation made here (tests/independent.h), never
 * against picard's own reference or ensemble functions. CPU backend. */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli_files.h"
#include "independent.h"
#include "picard.h"
#include "scheme.h"
#include "support.h"

static void make_inputs_workdir(void)
{
	make_workdir("inputs", NULL);
}

TestSuite(inputs, .init = make_inputs_workdir, .fini = remove_workdir, .timeout = 120);

/* Run picard-run with args and "--out PATH" (PATH in the work directory);
 * the run must succeed. */
static void run_ok(const char *args, const char *out)
{
	char line[1024];
	struct cli_run run;

	snprintf(line, sizeof(line), "%s --out %s", args, out);
	run = run_program_line("picard-run", line);
	cr_assert_eq(run.status, 0, "'%s': exit status %d\n%s%s", line, run.status, run.out,
		     run.err);
	free_run(&run);
}

/* |x - want| <= tol (1 + |want|), said with what was compared. */
static void expect_near(double x, double want, double tol, const char *what)
{
	cr_expect(fabs(x - want) <= tol * (1 + fabs(want)), "%s: %.17g, expected %.17g "
		  "(difference %.3g, allowed %.3g)", what, x, want, fabs(x - want),
		  tol * (1 + fabs(want)));
}

/* ---- --param ---------------------------------------------------------------- */

/* decay's lambda: on the default grid in float, exactly the paper's
 * scheme's answer for lambda = 2 (its K = 2 Picard iteration written out
 * here: 24 windows of m = 8 at h = 10/168); lobatto in double within 1e-12
 * of exp(-20). With lambda ignored (0.5) the first is 1.6e-2
 * away, with it zeroed x stays 1. */
Test(inputs, param_decay_lambda)
{
	const struct path out = in_workdir("decay.csv");
	const double A[1] = {-2};
	double x, want = 1;

	run_ok("decay --backend cpu --traj 1 --spread 0 --param lambda=2", out.s);
	read_final_csv(out.s, 1, 1, &x);
	linear_trapezoid_picard(1, A, 8, 10.0 / 168, 2, 24, &want);
	expect_near(x, want, 1e-6, "x(10), trapezoid K = 2, float");
	run_ok("decay --backend cpu --traj 1 --spread 0 --param lambda=2 --scheme lobatto "
	       "--precision double", out.s);
	read_final_csv(out.s, 1, 1, &x);
	/* the iteration's absolute tolerance, 1e-12, rules at x ~ 2e-9 */
	cr_expect(fabs(x - exp(-20)) < 1e-12, "x(10) = %.17g, exp(-20) = %.17g", x, exp(-20));
}

/* vanderpol's mu = 5 over its span: dp8 at 1e-11 against GSL's rk8pd on
 * the right-hand side, solved here; the answer at mu = 1 (the default) is
 * O(1) away, so a mu that did not arrive fails. */
Test(inputs, param_vanderpol_mu)
{
	const picard_model *vdp = test_model("vanderpol");
	const struct path out = in_workdir("vdp.csv");
	const double mu5 = 5, t1 = 20;
	double x[2], want[2], at_default[2];

	run_ok("vanderpol --backend cpu --traj 1 --spread 0 --param mu=5 --scheme dp8 "
	       "--precision double --iter-rtol 1e-11", out.s);
	read_final_csv(out.s, 1, 2, x);
	gsl_solve(vdp, &mu5, vdp->x0, 0, &t1, 1, want);
	gsl_solve(vdp, NULL, vdp->x0, 0, &t1, 1, at_default);
	cr_log_info("vanderpol x(20): mu 5 (%.9g, %.9g), mu 1 (%.9g, %.9g)", want[0], want[1],
		    at_default[0], at_default[1]);
	cr_assert(fabs(want[0] - at_default[0]) + fabs(want[1] - at_default[1]) > 0.1,
		  "mu does not change the answer: the test could not fail");
	for (int k = 0; k < 2; k++)
		expect_near(x[k], want[k], 1e-7, "vanderpol mu = 5, x(20)");
}

/* lotka's six coefficients, non-default, starting at their equilibrium,
 * which must hold: by --init's parameter columns in the model's order,
 * x* = (40, 20) for a1 .. c2 = 0.5 0.02 0.0025 -0.5 0.015 0.005 (a1 - b1
 * x2 - c1 x1 = 0.5 - 0.4 - 0.1, a2 + b2 x1 - c2 x2 = -0.5 + 0.6 - 0.1;
 * a stable focus: trace -0.2, determinant 0.25); and by --param (which
 * --init refuses), x* = the default start (50, 30) for 0.7 0.02 0.002
 * -0.45 0.012 0.005 (trace -0.25, determinant 0.375). Any one coefficient
 * at its default, or two swapped, moves the state off x*. The trapezoid
 * in float and dp5 in double. */
#define LOTKA_PARAMS "a1=0.7 --param b1=0.02 --param c1=0.002 --param a2=-0.45 " \
		     "--param b2=0.012 --param c2=0.005"
Test(inputs, param_lotka_equilibrium)
{
	const struct path init = in_workdir("lotka-init.csv"), out = in_workdir("lotka.csv");
	const char *rows = "x1,x2,a1,b1,c1,a2,b2,c2\n40,20,0.5,0.02,0.0025,-0.5,0.015,0.005\n"
			   "40 20 0.5 0.02 0.0025 -0.5 0.015 0.005\n";
	const char *schemes[] = {"", "--scheme dp5 --precision double"};
	const double tol[] = {1e-5, 1e-9};
	char line[512];
	double x[2 * 2];

	write_file(init.s, rows, strlen(rows));
	for (int s = 0; s < 2; s++) {
		snprintf(line, sizeof(line), "lotka --backend cpu --init %s %s", init.s, schemes[s]);
		run_ok(line, out.s);
		read_final_csv(out.s, 2, 2, x);
		for (int i = 0; i < 2; i++) {
			expect_near(x[i * 2], 40, tol[s], "--init columns: x1(100)");
			expect_near(x[i * 2 + 1], 20, tol[s], "--init columns: x2(100)");
		}
		snprintf(line, sizeof(line), "lotka --backend cpu --traj 2 --spread 0 --param "
			 LOTKA_PARAMS " %s", schemes[s]);
		run_ok(line, out.s);
		read_final_csv(out.s, 2, 2, x);
		for (int i = 0; i < 2; i++) {
			expect_near(x[i * 2], 50, tol[s], "--param: x1(100)");
			expect_near(x[i * 2 + 1], 30, tol[s], "--param: x2(100)");
		}
	}
	/* zeroed coefficients (the bug of issue 34's item 1) would also hold
	 * x* still: members spread 10% around it must spiral into it
	 * (|x - x*| ~ 5 e^(-0.125 t), 2e-5 at t = 100), where zeros leave
	 * them where they started */
	run_ok("lotka --backend cpu --traj 4 --spread 0.1 --scheme dp5 --precision double "
	       "--param " LOTKA_PARAMS, out.s);
	{
		double spread[4 * 2];

		read_final_csv(out.s, 4, 2, spread);
		for (int i = 0; i < 4; i++) {
			expect_near(spread[i * 2], 50, 1e-5, "--param, spread: x1(100)");
			expect_near(spread[i * 2 + 1], 30, 1e-5, "--param, spread: x2(100)");
		}
	}
}

/* ---- the ensemble: --init, --spread, --seed, --spread-param --------------------- */

/* A binary --init's states, 1, 2 and 3, each reach the solve: x0 exp(-5)
 * at t = 10 (lobatto, double). */
Test(inputs, init_binary_values)
{
	const struct path init = in_workdir("init.bin"), out = in_workdir("bin.csv");
	const double states[3] = {1, 2, 3};
	char line[512];
	double x[3];

	write_file(init.s, states, sizeof(states));
	snprintf(line, sizeof(line), "decay --backend cpu --init %s --scheme lobatto "
		 "--precision double", init.s);
	run_ok(line, out.s);
	read_final_csv(out.s, 3, 1, x);
	for (int i = 0; i < 3; i++)
		cr_expect(fabs(x[i] / (states[i] * exp(-5)) - 1) < 1e-10, "row %d: %.17g, "
			  "expected %.17g", i, x[i], states[i] * exp(-5));
}

/* --spread 0.3 --seed 7: member i starts at 1 + 0.3 (2u_i - 1), u_i from
 * seed 7's Philox sequence drawn here; --spread-param lambda=0.4 gives it
 * lambda_i = 0.5 (1 + 0.4 (2v_i - 1)), v_i from seed 8 (seed + 1 + the
 * parameter's index, as src/ensemble/ensemble.c documents). x(10) = x0_i exp(-10
 * lambda_i), lobatto in double. Another seed moves every member. */
Test(inputs, seed_spread_and_spread_param)
{
	const struct path out = in_workdir("seed.csv");
	const double one = 1, half = 0.5;
	enum { N = 12 };
	double x0[N], lambda[N], x[N];

	documented_ensemble(1, &one, N, 0.3, 7, x0);
	documented_ensemble(1, &half, N, 0.4, 8, lambda);
	run_ok("decay --backend cpu --traj 12 --spread 0.3 --seed 7 --spread-param lambda=0.4 "
	       "--scheme lobatto --precision double", out.s);
	read_final_csv(out.s, N, 1, x);
	for (int i = 0; i < N; i++) {
		const double want = x0[i] * exp(-10 * lambda[i]);

		cr_expect(fabs(x[i] / want - 1) < 1e-10, "member %d: %.17g, x0 %.9g lambda %.9g "
			  "give %.17g", i, x[i], x0[i], lambda[i], want);
	}
	cr_expect(x0[0] != x0[1] && lambda[0] != lambda[1], "nothing was spread");
}

/* ---- --t0 ------------------------------------------------------------------------- */

/* A solve from t0 = 2 to 7: the start state is the state at t0, so the
 * oscillator's rows at --save-every 1 are the rotation by t - 2 of (1, 0)
 * (lobatto, double), and decay's final state with lambda 0.5 is
 * exp(-2.5), not exp(-3.5). */
Test(inputs, t0_not_zero)
{
	const picard_model *osc = test_model("oscillator");
	const struct path out = in_workdir("t0.csv");
	double times[6], x[6 * 2], want[2], d;

	run_ok("oscillator --backend cpu --traj 1 --spread 0 --t0 2 --t1 7 --save-every 1 "
	       "--scheme lobatto --precision double", out.s);
	read_saved_csv(out.s, 6, 1, 2, times, x);
	for (int r = 0; r < 6; r++) {
		cr_expect_eq(times[r], 2 + r, "row %d at t = %.17g", r, times[r]);
		osc->exact(times[r], 2, osc->x0, osc->param_defaults, want);
		for (int k = 0; k < 2; k++)
			expect_near(x[r * 2 + k], want[k], 1e-10, "oscillator from t0 = 2");
	}
	run_ok("decay --backend cpu --traj 1 --spread 0 --t0 2 --t1 7 --scheme dp8 "
	       "--precision double --iter-rtol 1e-12", out.s);
	read_final_csv(out.s, 1, 1, &d);
	cr_expect(fabs(d / exp(-2.5) - 1) < 1e-9, "decay from t0 = 2 to 7: %.17g, exp(-2.5) "
		  "= %.17g", d, exp(-2.5));
}

/* ---- --save-every and --save-at, every scheme ---------------------------------- */

/* Each scheme that runs without a linear operator, in double, on the
 * oscillator from (1, 0) over [0, 6] with --save-every 0.7 (rows inside
 * windows and steps, interpolated by the scheme's dense output) and then
 * --save-at 0.3,2.9,5.95: every row against the rotation, within what the
 * scheme reaches on its grid here. The imex schemes need an operator,
 * which the oscillator lacks: test_imex.c's records_and_dense_output
 * holds their rows at times against the reference. */
Test(inputs, save_rows_every_scheme, .timeout = 300)
{
	const picard_model *osc = test_model("oscillator");
	static const struct {
		const char *args;
		double tol;
	} schemes[] = {
		/* order 2 at h = 0.005, converged: phase error ~ h^2 t / 12 */
		{"--scheme trapezoid --h 0.005 --K-max 40 --iter-rtol 1e-13", 1e-5},
		{"--scheme lobatto", 1e-9},
		{"--scheme newton", 1e-9},
		{"--scheme newton-radau", 1e-8},
		{"--scheme dp5 --iter-rtol 1e-10", 1e-7},
		{"--scheme dp8 --iter-rtol 1e-11", 1e-8},
		{"--scheme vern9 --iter-rtol 1e-11", 1e-8},
		{"--scheme radau5 --iter-rtol 1e-10", 1e-6},
		/* measured at most 3.6e-12, 1.5e-10, 5.5e-7 (ros23: its error
		 * goes as tol^(2/3), tests/support.h) */
		{"--scheme rodas5p --iter-rtol 1e-10", 1e-7},
		{"--scheme rodas4 --iter-rtol 1e-10", 1e-7},
		{"--scheme ros23 --iter-rtol 1e-10", 1e-5},
	};
	static const struct {
		const char *flag;
		long ntimes;
		double times[10];
	} saves[] = {
		{"--save-every 0.7", 10, {0, 0.7, 1.4, 2.1, 2.8, 3.5, 4.2, 4.9, 5.6, 6}},
		{"--save-at 0.3,2.9,5.95", 3, {0.3, 2.9, 5.95}},
	};
	const struct path out = in_workdir("rows.csv");
	double times[10], x[10 * 2], want[2];
	char line[512], what[160];

	for (size_t s = 0; s < sizeof(schemes) / sizeof(schemes[0]); s++)
		for (size_t v = 0; v < 2; v++) {
			snprintf(line, sizeof(line), "oscillator --backend cpu --traj 1 --spread 0 "
				 "--t1 6 --precision double %s %s", schemes[s].args, saves[v].flag);
			run_ok(line, out.s);
			read_saved_csv(out.s, saves[v].ntimes, 1, 2, times, x);
			for (long r = 0; r < saves[v].ntimes; r++) {
				cr_expect(fabs(times[r] - saves[v].times[r]) < 1e-12, "%s: time %.17g",
					  line, times[r]);
				osc->exact(times[r], 0, osc->x0, osc->param_defaults, want);
				snprintf(what, sizeof(what), "%s %s, t = %g", schemes[s].args,
					 saves[v].flag, times[r]);
				for (int k = 0; k < 2; k++)
					expect_near(x[r * 2 + k], want[k], schemes[s].tol, what);
			}
		}
}
