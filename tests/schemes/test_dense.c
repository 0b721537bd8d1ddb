/* test_dense.c - dense output (picard_record.times, src/schemes/dense_output.h) on
 * the CPU backend (suite dense).
 *
 * What theory predicts, and what is checked:
 * - lobatto: between the nodes the collocation polynomial of a window is
 *   off by O(H^(m+1)) locally (Hairer, Norsett & Wanner I, 2nd ed.,
 *   Theorem II.7.10), on top of the window start's error O(H^(2m-2)): the
 *   observed order at times inside windows is m+1 for m >= 3.
 * - trapezoid: linear between nodes, order 2 like the scheme.
 * - At a window end the dense state is the window-end record's to
 *   rounding, under both schemes and precisions.
 * - Against GSL rk8pd (picard_check on a record of times) the dense error
 *   is on the order of the error at the window ends.
 * - Bad records are refused with a message; the window rule of
 *   picard_grid_window; a failed trajectory leaves NaN after its failure.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "picard.h"
#include "support.h"

#define K_MAX_TIGHT 80

/* What one CPU solve with a record of times and one of every window end
 * returned. */
struct dense_run {
	picard_grid grid;           /* the fitted grid */
	double *dense;              /* [time][traj][k] */
	double *ends;               /* [window][traj][k] */
	picard_traj_status *status; /* ntraj */
	long *fail_window;          /* ntraj */
	int err;                    /* picard_solve's return */
};

/* Solve ntraj trajectories from x0 (NULL: the model's default for all)
 * with opt on the CPU, keeping the states at times and every window end. */
static void run_dense(struct dense_run *run, const picard_model *model,
		      picard_options opt, long ntraj, const double *x0,
		      const double *times, long ntimes)
{
	picard_record rec[2] = {
		{ .traj_stride = 1, .times = times, .ntimes = ntimes },
		{ .every = 1, .traj_stride = 1 },
	};
	picard_solver *solver;
	double *own_x0 = NULL;

	opt.backend = PICARD_BACKEND_CPU;
	if (!x0)
		x0 = own_x0 = default_states(model, ntraj);
	memset(run, 0, sizeof(*run));
	solver = test_solver(model, &opt, ntraj);
	run->grid = *picard_solver_grid(solver);
	cr_assert_eq(picard_record_size(solver, &rec[0]), (size_t)ntimes * ntraj * model->dim);
	rec[0].states = run->dense = malloc(picard_record_size(solver, &rec[0]) * sizeof(double));
	rec[1].states = run->ends = malloc(picard_record_size(solver, &rec[1]) * sizeof(double));
	run->status = malloc(ntraj * sizeof(*run->status));
	run->fail_window = malloc(ntraj * sizeof(long));
	cr_assert(run->dense && run->ends && run->status && run->fail_window);
	run->err = picard_solve(solver, x0, NULL, NULL, run->status, run->fail_window, rec, 2,
				NULL);
	picard_solver_free(solver);
	free(own_x0);
}

static void dense_free(struct dense_run *run)
{
	free(run->dense);
	free(run->ends);
	free(run->status);
	free(run->fail_window);
}

/* ntimes times over the model's span that fall inside windows, not on
 * nodes: t0 + span (i + 0.37) / ntimes. */
static double *interior_times(const picard_model *model, long ntimes)
{
	double *times = malloc(ntimes * sizeof(double));

	cr_assert_not_null(times);
	for (long i = 0; i < ntimes; i++)
		times[i] = model->t0 + (model->t1 - model->t0) * (i + 0.37) / ntimes;
	return times;
}

/* Max |dense - exact| of the default trajectory, converged to rounding
 * (double), at the same places of every window, THETAS of the way
 * through it (off the nodes: the order compares like with like). lobatto:
 * windows windows of m nodes; trapezoid: m nodes, windows windows. */
static const double THETAS[] = { 0.13, 0.41, 0.77 };
#define NTHETAS (long)(sizeof(THETAS) / sizeof(THETAS[0]))
static double dense_exact_error(const char *name, picard_scheme scheme, int m, long windows)
{
	const picard_model *model = test_model(name);
	const double span = model->t1 - model->t0;
	const long ntimes = windows * NTHETAS;
	picard_options opt = {
		.scheme = scheme, .m = m, .K_max = K_MAX_TIGHT, .precision = PICARD_DOUBLE,
		.iter_rtol = 1e-14,
	};
	double *times = malloc(ntimes * sizeof(double)), exact[8], error = 0;
	struct dense_run run;

	cr_assert_not_null(times);
	for (long r = 0; r < ntimes; r++)
		times[r] = model->t0 + span * (r / NTHETAS + THETAS[r % NTHETAS]) / windows;
	if (scheme == PICARD_SCHEME_LOBATTO)
		opt.window = span / windows;
	else
		opt.h = span / (windows * (m - 1));
	run_dense(&run, model, opt, 1, NULL, times, ntimes);
	cr_assert_eq(run.err, 0, "%s m=%d: %s (%s)", name, m, picard_strerror(run.err),
		     picard_error_detail());
	cr_assert_eq(run.grid.windows, windows);
	for (long r = 0; r < ntimes; r++) {
		model->exact(times[r], model->t0, model->x0, model->param_defaults, exact);
		for (int k = 0; k < model->dim; k++)
			error = fmax(error, fabs(run.dense[r * model->dim + k] - exact[k]));
	}
	dense_free(&run);
	free(times);
	return error;
}

/* Observed order of the dense error over three halvings of H from
 * `coarse` windows, within 0.4 of expect. */
static void check_dense_order(const char *name, picard_scheme scheme, int m, long coarse,
			      double expect)
{
	double error[4];

	for (int i = 0; i < 4; i++)
		error[i] = dense_exact_error(name, scheme, m, coarse << i);
	for (int i = 0; i < 3; i++) {
		const double order = log2(error[i] / error[i + 1]);

		cr_log_info("dense %s %s m=%d windows %ld -> %ld: E %.3e -> %.3e, order %.2f",
			    scheme == PICARD_SCHEME_LOBATTO ? "lobatto" : "trapezoid", name, m,
			    coarse << i, coarse << (i + 1), error[i], error[i + 1], order);
		cr_assert(fabs(order - expect) <= 0.4,
			  "%s m=%d: dense order %.2f between %ld and %ld windows (E %.3e, %.3e), "
			  "expected %.0f", name, m, order, coarse << i, coarse << (i + 1),
			  error[i], error[i + 1], expect);
	}
}

/* measured: oscillator m = 3 orders 3.99, 4.00, 4.00; m = 5 6.06, 6.01,
 * 6.00; decay m = 5 5.85, 5.93, 5.96 */
Test(dense, lobatto_interior_order_m_plus_1)
{
	check_dense_order("oscillator", PICARD_SCHEME_LOBATTO, 3, 80, 4);
	check_dense_order("oscillator", PICARD_SCHEME_LOBATTO, 5, 20, 6);
	check_dense_order("decay", PICARD_SCHEME_LOBATTO, 5, 10, 6);
}

Test(dense, trapezoid_order_2)
{
	check_dense_order("oscillator", PICARD_SCHEME_TRAPEZOID, 8, 40, 2);
	check_dense_order("decay", PICARD_SCHEME_TRAPEZOID, 4, 40, 2);
}

/* At the window ends the dense state is the window-end state, to a few
 * roundings of the interpolation (the weights sum to 1 only to rounding). */
static void check_window_ends(picard_scheme scheme, picard_precision precision)
{
	const picard_model *model = test_model("lotka");
	const double eps = precision == PICARD_DOUBLE ? DBL_EPSILON : FLT_EPSILON;
	const long ntraj = 5;
	picard_options opt = { .scheme = scheme, .m = 6, .precision = precision };
	struct dense_run probe, run;
	double *times, x0[10];
	long windows;

	picard_ensemble_spread(model->dim, model->x0, ntraj, 0.1, 7, PICARD_BACKEND_CPU, x0);
	/* the grid first, then its window ends as the times */
	run_dense(&probe, model, opt, ntraj, x0, &model->t0, 1);
	windows = probe.grid.windows;
	times = malloc(windows * sizeof(double));
	cr_assert_not_null(times);
	for (long w = 0; w < windows; w++)
		times[w] = w + 1 < windows ? probe.grid.t0 + (w + 1) * probe.grid.window :
					     probe.grid.t1;
	run_dense(&run, model, opt, ntraj, x0, times, windows);
	cr_assert_eq(run.err, 0, "%s", picard_error_detail());
	for (long i = 0; i < windows * ntraj * model->dim; i++)
		cr_assert(fabs(run.dense[i] - run.ends[i]) <= 8 * eps * fabs(run.ends[i]),
			  "%s %s: window %ld: dense %.17g, window end %.17g",
			  scheme == PICARD_SCHEME_LOBATTO ? "lobatto" : "trapezoid",
			  precision == PICARD_DOUBLE ? "double" : "float",
			  i / (ntraj * model->dim), run.dense[i], run.ends[i]);
	/* t0 itself: the start state */
	for (long i = 0; i < ntraj * model->dim; i++)
		cr_assert_eq(probe.dense[i], (double)(precision == PICARD_DOUBLE ? x0[i] :
						     (float)x0[i]));
	dense_free(&probe);
	dense_free(&run);
	free(times);
}

Test(dense, window_ends_agree)
{
	check_window_ends(PICARD_SCHEME_LOBATTO, PICARD_DOUBLE);
	check_window_ends(PICARD_SCHEME_LOBATTO, PICARD_FLOAT);
	check_window_ends(PICARD_SCHEME_TRAPEZOID, PICARD_DOUBLE);
	check_window_ends(PICARD_SCHEME_TRAPEZOID, PICARD_FLOAT);
}

/* An ensemble against GSL at times that are not on the grid: the dense E
 * is within DENSE_OVER_ENDS of E at every window end (lobatto in both
 * precisions, m = 8 on the default windows; trapezoid at the paper's
 * grid, whose linear interpolation adds h^2/8 |x''|). */
#define DENSE_OVER_ENDS 3.0
static void check_against_gsl(picard_scheme scheme, picard_precision precision,
			      double window_or_h, double bound)
{
	const picard_model *model = test_model("lotka");
	const long ntraj = 12, ntimes = 97;
	picard_options opt = { .scheme = scheme, .m = 8, .precision = precision };
	double *times = interior_times(model, ntimes), x0[24];
	picard_check_result dense_check, ends_check;
	picard_record dense_rec = { .traj_stride = 1, .times = times, .ntimes = ntimes };
	picard_record ends_rec = { .every = 1, .traj_stride = 1 };
	struct dense_run run;
	int err;

	if (scheme == PICARD_SCHEME_LOBATTO)
		opt.window = window_or_h;
	else
		opt.h = window_or_h;
	picard_ensemble_spread(model->dim, model->x0, ntraj, 0.1, 11, PICARD_BACKEND_CPU, x0);
	run_dense(&run, model, opt, ntraj, x0, times, ntimes);
	cr_assert_eq(run.err, 0, "%s", picard_error_detail());
	dense_rec.states = run.dense;
	ends_rec.states = run.ends;
	err = picard_check(model, &run.grid, ntraj, x0, NULL, &dense_rec, &dense_check);
	cr_assert_eq(err, 0, "%s", picard_error_detail());
	err = picard_check(model, &run.grid, ntraj, x0, NULL, &ends_rec, &ends_check);
	cr_assert_eq(err, 0, "%s", picard_error_detail());
	cr_assert_eq(dense_check.points, ntraj * ntimes);
	cr_log_info("dense %s %s: E at %ld times %.3e (time %ld), at window ends %.3e",
		    scheme == PICARD_SCHEME_LOBATTO ? "lobatto" : "trapezoid",
		    precision == PICARD_DOUBLE ? "double" : "float", ntimes, dense_check.error,
		    dense_check.worst_window, ends_check.error);
	cr_assert(dense_check.error <= DENSE_OVER_ENDS * ends_check.error,
		  "dense E %.3e, window-end E %.3e", dense_check.error, ends_check.error);
	cr_assert_lt(dense_check.error, bound);
	dense_free(&run);
	free(times);
}

Test(dense, against_gsl)
{
	check_against_gsl(PICARD_SCHEME_LOBATTO, PICARD_DOUBLE, 0.5, 1e-8);
	check_against_gsl(PICARD_SCHEME_LOBATTO, PICARD_FLOAT, 0.5, 1e-3);
	check_against_gsl(PICARD_SCHEME_TRAPEZOID, PICARD_FLOAT, 0.008, 1e-2);
}

/* ---- rules and refusals ------------------------------------------------- */

Test(dense, grid_window_rule)
{
	const picard_grid grid = {
		.scheme = PICARD_SCHEME_LOBATTO, .m = 5, .h = 0.25, .window = 1.0,
		.t0 = 2, .t1 = 6, .windows = 4,
	};
	const picard_grid trap = {
		.scheme = PICARD_SCHEME_TRAPEZOID, .m = 3, .h = 0.5, .window = 1.0,
		.t0 = 0, .t1 = 3, .windows = 3,
	};

	cr_assert_eq(picard_grid_window(&grid, 2), 0);
	cr_assert_eq(picard_grid_window(&grid, 1), 0);      /* before t0 */
	cr_assert_eq(picard_grid_window(&grid, 3), 0);      /* ends window 0 */
	cr_assert_eq(picard_grid_window(&grid, nextafter(3, 4)), 1);
	cr_assert_eq(picard_grid_window(&grid, 4.5), 2);
	cr_assert_eq(picard_grid_window(&grid, 6), 3);
	cr_assert_eq(picard_grid_window(&grid, 7), 3);      /* past t1 */
	cr_assert_eq(picard_grid_window(&trap, 1), 0);
	cr_assert_eq(picard_grid_window(&trap, 1.5), 1);
	cr_assert_eq(picard_grid_window(&trap, 2.0000001), 2);
}

/* One solve with one record; its return and the error detail. */
static int solve_with(const picard_record *rec)
{
	const picard_model *model = test_model("decay");
	picard_options opt = { .backend = PICARD_BACKEND_CPU };
	picard_solver *solver;
	int err;

	cr_assert_eq(picard_solver_create(&solver, model, &opt, 2), 0);
	err = picard_solve(solver, (double[]){ 1, 2 }, NULL, NULL, NULL, NULL, rec, 1, NULL);
	picard_solver_free(solver);
	return err;
}

Test(dense, bad_records_refused)
{
	const picard_model *model = test_model("decay");
	const double t1 = model->t1;
	double buf[64];
	const struct {
		picard_record rec;
		const char *detail; /* in the message */
	} bad[] = {
		{ { .traj_stride = 1, .states = buf, .times = (double[]){ 0.5, 0.25 }, .ntimes = 2 },
		  "non-decreasing" },
		{ { .traj_stride = 1, .states = buf, .times = (double[]){ t1 + 1 }, .ntimes = 1 },
		  "outside" },
		{ { .traj_stride = 1, .states = buf, .times = (double[]){ -1 }, .ntimes = 1 },
		  "outside" },
		{ { .traj_stride = 1, .states = buf, .times = (double[]){ NAN }, .ntimes = 1 },
		  "outside" },
		{ { .traj_stride = 1, .states = buf, .times = (double[]){ 0.5 }, .ntimes = 0 },
		  "times" },
		{ { .every = 2, .traj_stride = 1, .states = buf, .times = (double[]){ 0.5 },
		    .ntimes = 1 }, "every" },
		{ { .traj_stride = 1, .states = buf }, "every" },
	};

	for (size_t c = 0; c < sizeof(bad) / sizeof(bad[0]); c++) {
		cr_assert_eq(solve_with(&bad[c].rec), PICARD_EINVAL, "case %zu accepted", c);
		cr_assert_not_null(strstr(picard_error_detail(), bad[c].detail),
				   "case %zu: \"%s\" lacks \"%s\"", c, picard_error_detail(),
				   bad[c].detail);
	}
	/* the ends of the span and repeated times are fine */
	cr_assert_eq(solve_with(&(picard_record){ .traj_stride = 1, .states = buf,
						  .times = (double[]){ 0, 0, t1 }, .ntimes = 3 }),
		     0, "%s", picard_error_detail());
}

/* Riccati x' = x^2 from x0 = 1 blows up at t = 1: the dense rows after
 * the failing window stay NaN, the ones before are finite and close to
 * the exact 1 / (1 - t). */
Test(dense, failed_trajectory_leaves_nan)
{
	const picard_model *model = test_model("riccati");
	const long ntimes = 40;
	picard_options opt = { .scheme = PICARD_SCHEME_LOBATTO, .m = 6, .window = 0.05,
			       .precision = PICARD_DOUBLE };
	double *times = interior_times(model, ntimes);
	struct dense_run run;
	long last_window;

	run_dense(&run, model, opt, 1, (double[]){ 1 }, times, ntimes);
	cr_assert_eq(run.err, PICARD_EFAILED);
	cr_assert(run.status[0] == PICARD_TRAJ_NONFINITE || run.status[0] == PICARD_TRAJ_DIVERGED,
		  "status %d", run.status[0]);
	last_window = run.fail_window[0];
	for (long r = 0; r < ntimes; r++) {
		const long w = picard_grid_window(&run.grid, times[r]);

		if (w > last_window)
			cr_assert(isnan(run.dense[r]), "t = %g (window %ld, failed at %ld): %g",
				  times[r], w, last_window, run.dense[r]);
		else if (times[r] < 0.9)
			cr_assert(fabs(run.dense[r] - 1 / (1 - times[r])) < 1e-6 / (1 - times[r]),
				  "t = %g: %.17g, exact %.17g", times[r], run.dense[r],
				  1 / (1 - times[r]));
	}
	dense_free(&run);
	free(times);
}
