/* test_rk.c - the per-thread schemes (every one with a tableau: dp5, dp8,
 * vern9, radau5, rodas5p, rodas4, ros23; tests/support.h) on the CPU
 * backend:
 * - order: fixed steps on the oscillator and kepler against their exact
 *   solutions; the observed order within 0.2 of the nominal one;
 * - dense output at times between steps, of the same order;
 * - adaptive steps: the error falls with the tolerance and stays near it;
 * - statuses: a blow-up is flagged (fixed: non-finite or diverged;
 *   adaptive: those, or step underflow), too few --max-steps is max-steps;
 * - float agrees with double to float's precision. */
#define _DEFAULT_SOURCE /* M_PI */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "scheme.h"
#include "support.h"

#define ORDER_SLACK 0.2

/* One trajectory of model from its default start: the state at t1 into
 * x, and at each of ntimes times into at (if any); returns the status. */
static picard_traj_status solve_one(const picard_model *model, picard_options opt, double *x,
				    const double *times, long ntimes, double *at)
{
	picard_record rec = {.traj_stride = 1, .times = times, .ntimes = ntimes, .states = at};
	picard_traj_status status;
	picard_solver *s = test_solver(model, &opt, 1);
	double *x0 = default_states(model, 1);
	int err = picard_solve(s, x0, NULL, x, &status, NULL, &rec, times ? 1 : 0, NULL);

	cr_assert(err == 0 || err == PICARD_EFAILED, "%s: %s", model->name, picard_error_detail());
	free(x0);
	picard_solver_free(s);
	return status;
}

/* max_k |x_k - x_k(t)| from the model's start at its t0: against its
 * exact solution, else against GSL's rk8pd at 1e-12 (kepler: about 1e-11
 * over an orbit, so errors are measured down to 1e-9 there). */
static double exact_error(const picard_model *model, double t, const double *x)
{
	double ref[8], x0[8], e = 0;

	cr_assert(model->dim <= 8);
	picard_model_start(model, NULL, x0);
	if (model->exact)
		model->exact(t, model->t0, x0, model->param_defaults, ref);
	else
		cr_assert_eq(picard_reference(model, NULL, x0, model->t0, &t, 1, ref), 0, "%s",
			     picard_error_detail());
	for (int k = 0; k < model->dim; k++)
		e = fmax(e, fabs(x[k] - ref[k]));
	return e;
}

/* Observed order of scheme id on model over [t0, t1] with n fixed steps,
 * n doubled from n0 while the error stays above ORDER_FLOOR times the
 * states' scale (ten times the rounding of a thousand steps). The error is the
 * largest over every step end (at one point its terms may cancel), or
 * with dense at three times inside steps. Each doubling gives an order
 * log2(e(h)/e(h/2)) = p + O(h); the estimate is the last two of them
 * extrapolated, 2 p(h/2) - p(h), which removes the O(h) term that high
 * orders still show at errors double can resolve. */
#define ORDER_FLOOR 1e-13
static double observed_order(picard_scheme id, const char *name, double t1, long n0, double scale,
			     bool dense, double *last)
{
	const picard_model *model = test_model(name);
	double times[3], at[3 * 8];
	double prev = NAN, order = NAN, order_prev = NAN, estimate = NAN;

	cr_assert(model->exact, "%s: the order tests need an exact solution", name);
	/* not dyadic fractions of the span: off every step end */
	for (int i = 0; i < 3; i++)
		times[i] = model->t0 + (t1 - model->t0) * (0.31 + 0.23 * i);
	for (long n = n0; n < 1L << 20; n *= 2) {
		/* iter_rtol: radau5's iteration converged to rounding (the
		 * explicit pairs' fixed steps take no tolerance) */
		picard_options opt = {.scheme = id, .K = 1, .h = (t1 - model->t0) / (double)n,
				      .precision = PICARD_DOUBLE, .t0 = model->t0, .t1 = t1,
				      .iter_rtol = 1e-14, .backend = PICARD_BACKEND_CPU};
		picard_solver *solver = test_solver(model, &opt, 1);
		picard_record recs[2] = {
			{.every = 1, .traj_stride = 1},
			{.traj_stride = 1, .times = times, .ntimes = 3, .states = at},
		};
		double *x0 = default_states(model, 1), e = 0;
		int err;

		recs[0].states = malloc(n * model->dim * sizeof(double));
		err = picard_solve(solver, x0, NULL, NULL, NULL, NULL, recs, 2, NULL);
		cr_assert_eq(err, 0, "%s: %s", name, picard_error_detail());
		for (int i = 0; dense && i < 3; i++)
			e = fmax(e, exact_error(model, times[i], at + i * model->dim));
		for (long w = 0; !dense && w < n; w++)
			e = fmax(e, exact_error(model, model->t0 + (double)(w + 1) * opt.h,
						recs[0].states + w * model->dim));
		free(recs[0].states);
		free(x0);
		picard_solver_free(solver);
		if (e < ORDER_FLOOR * scale)
			break;
		order_prev = order;
		if (prev == prev)
			order = log2(prev / e);
		if (order_prev == order_prev)
			estimate = 2 * order - order_prev;
		cr_log_info("%s %s %s: %ld steps, error %.3e, order %.2f, extrapolated %.2f",
			    picard_scheme_of(id)->name, name, dense ? "dense" : "steps", n, e, order,
			    estimate);
		prev = e;
	}
	*last = order;
	return estimate;
}

/* The orders a fixed-step order test accepts of type, whose nominal
 * order is p: within slack of p; a Rosenbrock method's p .. p + 1
 * (within the slack), as its error on a linear model is its stability
 * function's, which may match exp to a higher order than p (rodas5p on
 * the oscillator: 5.9-6.0 over 256 .. 2048 steps, its dense output
 * likewise, and 6.0-6.7 on duffing in bench's own test, tests/reference/
 * test_rodas.c). */
static bool order_accepted(const picard_scheme_type *type, double order, double p, double slack)
{
	return order >= p - slack && order <= p + (per_thread_rosenbrock(type->id) ? 1 : 0) + slack;
}

Test(rk, order_of_each_pair, .timeout = 120)
{
	picard_scheme rk_schemes[PER_THREAD_MAX];
	const int nrk = per_thread_schemes(PER_THREAD_ALL, rk_schemes);

	for (int s = 0; s < nrk; s++) {
		const picard_scheme_type *type = picard_scheme_of(rk_schemes[s]);
		const double p = type->order(NULL);
		double last_linear, last;
		const bool iterated = rk_schemes[s] == PICARD_SCHEME_RADAU5;
		/* the oscillator over 16 periods, linear, exact: the order
		 * extrapolated within the slack (radau5's iteration adds its
		 * rounding, a Rosenbrock step the rounding of its C_ij/h
		 * terms, about eps max|C_ij| gamma a unit of time, 5e-13 over
		 * the span for rodas5p: read above 1e-12) */
		const double o = observed_order(rk_schemes[s], "oscillator", 100, 64,
						type->solves_stiff ? 10 : 1, false, &last_linear);
		/* the logistic curve (states up to 100), nonlinear, exact:
		 * the high orders still approach theirs from above at the
		 * errors double resolves (vern9: 12.0, 10.0), so here the
		 * last doubling's order must not fall short of p (a wrong
		 * coefficient drops it by one or more). The implicit schemes
		 * start at 16 steps: at 4 (steps 5 long, across the whole
		 * rise) radau5's simplified Newton iteration, J frozen at the
		 * step's start, does not converge (not-converged, as it should
		 * say), and rodas5p's linearisation leaves the curve (past
		 * the bound: diverged); and radau5's iteration stops at
		 * RADAU5's floor, 10 eps/rtol of the weights, so its error
		 * levels off near 1e-10 over hundreds of steps: the order is
		 * read above 1e-9 */
		observed_order(rk_schemes[s], "logistic", 20, type->solves_stiff ? 16 : 4,
			       iterated ? 1e4 : 100, false, &last);

		cr_expect(order_accepted(type, o, p, ORDER_SLACK), "%s: oscillator order %.2f (last "
			  "doubling %.2f), nominal %g", type->name, o, last_linear, p);
		cr_expect(last >= p - ORDER_SLACK, "%s: logistic order %.2f, nominal %g", type->name,
			  last, p);
	}
}

/* Dense output is a step of the scheme from the step holding the time
 * (ros23: its own continuous extension, of its order 2): the scheme's
 * own order between steps, by the last doubling (vern9's still shows 9.2
 * at the errors double resolves: DENSE_SLACK; a Rosenbrock method's read
 * above 1e-12, as its steps' order above). */
#define DENSE_SLACK 0.25
Test(rk, dense_output_order, .timeout = 120)
{
	picard_scheme rk_schemes[PER_THREAD_MAX];
	const int nrk = per_thread_schemes(PER_THREAD_ALL, rk_schemes);

	for (int s = 0; s < nrk; s++) {
		const picard_scheme_type *type = picard_scheme_of(rk_schemes[s]);
		const double p = type->order(NULL);
		double last;

		observed_order(rk_schemes[s], "oscillator", 100, 64, per_thread_rosenbrock(type->id) ? 10 : 1,
			       true, &last);
		cr_expect(order_accepted(type, last, p, DENSE_SLACK),
			  "%s: dense output order %.2f, nominal %g", type->name, last, p);
	}
}

/* What adaptive_error_follows_tolerance holds the error at t1 to: 100
 * times the scheme's error scale (tests/support.h: tol, a global error
 * over an orbit of a few hundred steps), but
 * - rodas5p: 200 tol, measured 108, 118, 117, 115 tol at 1e-5 .. 1e-11
 *   (its embedded solution's error is nearly the step's own: 84 steps
 *   at 1e-7, where rodas4 takes 187 to 1.9e-7; bench's own Rodas5P is
 *   held to 100 scaled on lotka, tests/reference/test_rodas.c);
 * - ros23: 1000 tol^(2/3), measured 170 .. 190 tol^(2/3). */
static double tolerance_bar(const picard_scheme_type *type, double tol)
{
	return (type->id == PICARD_SCHEME_RODAS5P ? 200 :
		type->id == PICARD_SCHEME_ROS23 ? 1000 : 100) * per_thread_error_scale(type->id, tol);
}

/* Adaptive: over tolerances 1e-5 .. 1e-11 the error on kepler (one orbit,
 * e = 0.5 at the defaults' spread) falls with the tolerance and stays
 * within tolerance_bar of it. */
Test(rk, adaptive_error_follows_tolerance, .timeout = 120)
{
	const picard_model *model = test_model("kepler");
	picard_scheme rk_schemes[PER_THREAD_MAX];
	const int nrk = per_thread_schemes(PER_THREAD_ALL, rk_schemes);

	for (int s = 0; s < nrk; s++) {
		const picard_scheme_type *type = picard_scheme_of(rk_schemes[s]);
		double prev = INFINITY;

		for (double tol = 1e-5; tol >= 1e-11; tol *= 1e-2) {
			picard_options opt = {.scheme = rk_schemes[s], .iter_rtol = tol,
					      .precision = PICARD_DOUBLE, .t0 = 0, .t1 = 2 * M_PI,
					      .backend = PICARD_BACKEND_CPU};
			double x[8], e;

			cr_assert_eq(solve_one(model, opt, x, NULL, 0, NULL), PICARD_TRAJ_OK);
			e = exact_error(model, 2 * M_PI, x);
			cr_log_info("%s adaptive tol %.0e: error %.3e (%.2f of the bar)", type->name,
				    tol, e, e / tolerance_bar(type, tol));
			cr_expect_lt(e, tolerance_bar(type, tol), "%s: tol %g, error %.3e",
				     type->name, tol, e);
			cr_expect(e < prev || e < 1e-9, "%s: tol %g: error %.3e did not fall (%.3e)",
				  type->name, tol, e, prev);
			prev = e;
		}
	}
}

/* riccati blows up at t = 1/(a x0) = 10 inside the span: flagged, never ok. */
Test(rk, blowup_flagged)
{
	const picard_model *model = test_model("riccati");

	picard_scheme rk_schemes[PER_THREAD_MAX];
	const int nrk = per_thread_schemes(PER_THREAD_ALL, rk_schemes);

	for (int s = 0; s < nrk; s++) {
		/* the pole at t = 10; fixed steps of 0.005 reach |x| = 200
		 * before it, past the bound, where they could step over it */
		picard_options fixed = {.scheme = rk_schemes[s], .K = 4000, .bound = 100,
					.precision = PICARD_DOUBLE, .backend = PICARD_BACKEND_CPU,
					.t0 = 0, .t1 = 20};
		picard_options adaptive = fixed;
		picard_traj_status st;
		double x[1];

		adaptive.K = 0;
		adaptive.bound = 0;
		/* an implicit scheme's iteration may stop converging
		 * first, near the pole */
		st = solve_one(model, fixed, x, NULL, 0, NULL);
		cr_expect(st == PICARD_TRAJ_NONFINITE || st == PICARD_TRAJ_DIVERGED ||
			  (rk_schemes[s] == PICARD_SCHEME_RADAU5 && st == PICARD_TRAJ_NOT_CONVERGED),
			  "%s fixed: %s", picard_scheme_of(rk_schemes[s])->name,
			  picard_traj_status_name(st));
		st = solve_one(model, adaptive, x, NULL, 0, NULL);
		cr_expect(st == PICARD_TRAJ_NONFINITE || st == PICARD_TRAJ_DIVERGED ||
			  st == PICARD_TRAJ_STEP_UNDERFLOW, "%s adaptive: %s",
			  picard_scheme_of(rk_schemes[s])->name, picard_traj_status_name(st));
	}
}

/* Too few steps allowed: max-steps, at the window where it stopped, and
 * the records past it NaN. */
Test(rk, max_steps_flagged)
{
	const picard_model *model = test_model("lotka");

	picard_scheme rk_schemes[PER_THREAD_MAX];
	const int nrk = per_thread_schemes(PER_THREAD_ALL, rk_schemes);

	for (int s = 0; s < nrk; s++) {
		picard_options opt = {.scheme = rk_schemes[s], .K_max = 20, .iter_rtol = 1e-12,
				      .h = 10, .precision = PICARD_DOUBLE,
				      .backend = PICARD_BACKEND_CPU};
		picard_solver *solver = test_solver(model, &opt, 1);
		picard_record rec = {.every = 1, .traj_stride = 1};
		double *x0 = default_states(model, 1);
		picard_traj_status st;
		long fail = -2;
		int err;

		rec.states = malloc(picard_record_size(solver, &rec) * sizeof(double));
		err = picard_solve(solver, x0, NULL, NULL, &st, &fail, &rec, 1, NULL);
		cr_expect_eq(err, PICARD_EFAILED);
		cr_expect_eq(st, PICARD_TRAJ_MAX_STEPS, "%s: %s", picard_scheme_of(rk_schemes[s])->name,
			     picard_traj_status_name(st));
		cr_expect(fail >= 0 && fail < 10, "fail window %ld", fail);
		cr_expect(isnan(rec.states[9 * model->dim]), "the last window end is %g",
			  rec.states[9 * model->dim]);
		free(rec.states);
		free(x0);
		picard_solver_free(solver);
	}
}

/* Float and double on the same steps agree to float's precision. */
Test(rk, float_agrees_with_double)
{
	const picard_model *model = test_model("lotka");

	picard_scheme rk_schemes[PER_THREAD_MAX];
	const int nrk = per_thread_schemes(PER_THREAD_ALL, rk_schemes);

	for (int s = 0; s < nrk; s++) {
		picard_options opt = {.scheme = rk_schemes[s], .K = 200, .t0 = 0, .t1 = 50,
				      .backend = PICARD_BACKEND_CPU};
		double xf[2], xd[2];

		opt.precision = PICARD_FLOAT;
		cr_assert_eq(solve_one(model, opt, xf, NULL, 0, NULL), PICARD_TRAJ_OK);
		opt.precision = PICARD_DOUBLE;
		cr_assert_eq(solve_one(model, opt, xd, NULL, 0, NULL), PICARD_TRAJ_OK);
		for (int k = 0; k < 2; k++)
			cr_expect_lt(fabs(xf[k] - xd[k]), 1e-4 * fabs(xd[k]), "%s: x%d float %.9g double %.9g",
				     picard_scheme_of(rk_schemes[s])->name, k, xf[k], xd[k]);
	}
}

/* Options a per-thread scheme cannot take are refused with the reason. */
Test(rk, refuses_what_it_cannot_take)
{
	const picard_model *model = test_model("lotka");
	picard_solver *s = NULL;
	const picard_options bad[] = {
		{.scheme = PICARD_SCHEME_DP8, .m = 8},
		{.scheme = PICARD_SCHEME_DP8, .window = 1},
		{.scheme = PICARD_SCHEME_DP8, .layout = PICARD_LAYOUT_WARP},
		{.scheme = PICARD_SCHEME_DP8, .warm_start = true},
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_expect_eq(picard_solver_create(&s, model, &bad[i], 4), PICARD_EINVAL, "case %zu", i);
		cr_expect_neq(picard_error_detail()[0], 0);
	}
}
