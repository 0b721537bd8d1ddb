/* test_lobatto.c - the lobatto scheme (Gauss-Lobatto-Legendre collocation
 * windows, src/schemes/lobatto/lobatto.h) on the CPU backend (suite lobatto).
 *
 * What theory predicts, and what is checked:
 * - S integrates every polynomial of degree < m exactly from -1 to each
 *   node; its last row is the Lobatto quadrature weights.
 * - Converged, a window is the Lobatto IIIA collocation step, of order
 *   2m-2 (Hairer & Wanner II, IV.5): the error at a fixed window length
 *   falls spectrally with m, and at fixed m the observed order as H halves
 *   is 2m-2.
 * - Against GSL rk8pd, lotka and kepler in double reach 1e-8 with m = 8;
 *   float reaches what its rounding allows.
 * - Statuses: blow-up is NONFINITE/DIVERGED, too few sweeps NOT_CONVERGED.
 * Criterion forks per test; these use the CPU backend only (no CUDA).
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lobatto.h"
#include "model_grid.h"
#include "picard.h"
#include "support.h"

#define ITER_RTOL_TIGHT 1e-14  /* converge to rounding (double) */
#define K_MAX_TIGHT 80
#define PI 3.14159265358979323846

/* ---- nodes, weights, S and E --------------------------------------------- */

Test(lobatto, nodes_and_weights)
{
	struct picard_lobatto lob;

	for (int m = 2; m <= PICARD_LOBATTO_MAX_M; m++) {
		double sum = 0;

		cr_assert_eq(picard_lobatto_build(m, &lob), 0, "m = %d", m);
		cr_assert_eq(lob.tau[0], -1);
		cr_assert_eq(lob.tau[m - 1], 1);
		for (int j = 0; j < m; j++) {
			cr_assert_eq(lob.tau[j], -lob.tau[m - 1 - j], "m=%d: not symmetric", m);
			if (j)
				cr_assert_gt(lob.tau[j], lob.tau[j - 1], "m=%d: not ascending", m);
			cr_assert_gt(lob.weight[j], 0, "m=%d: weight %d = %g", m, j, lob.weight[j]);
			sum += lob.weight[j];
			/* the last row of S is the quadrature */
			cr_assert(fabs(lob.S[(m - 1) * m + j] - lob.weight[j]) < 1e-14,
				  "m=%d: S[m-1][%d] = %.17g, weight %.17g", m, j,
				  lob.S[(m - 1) * m + j], lob.weight[j]);
			cr_assert_eq(lob.S[j], 0, "m=%d: S[0][%d] = %g", m, j, lob.S[j]);
		}
		cr_assert(fabs(sum - 2) < 1e-14, "m=%d: weights sum to %.17g", m, sum);
	}
	/* known cases: Simpson's rule, and +-1/sqrt(5) with weights 1/6, 5/6 */
	picard_lobatto_build(3, &lob);
	cr_assert_eq(lob.tau[1], 0);
	cr_assert(fabs(lob.weight[0] - 1.0 / 3) < 1e-15 && fabs(lob.weight[1] - 4.0 / 3) < 1e-15);
	picard_lobatto_build(4, &lob);
	cr_assert(fabs(lob.tau[2] - 1 / sqrt(5)) < 1e-15, "tau = %.17g", lob.tau[2]);
	cr_assert(fabs(lob.weight[0] - 1.0 / 6) < 1e-15 && fabs(lob.weight[1] - 5.0 / 6) < 1e-15);
	cr_assert_eq(picard_lobatto_build(1, &lob), PICARD_EINVAL);
	cr_assert_eq(picard_lobatto_build(33, &lob), PICARD_EINVAL);
}

/* sum_l S_jl tau_l^p = (tau_j^{p+1} - (-1)^{p+1}) / (p+1) for p < m, every
 * m up to 32 (measured: at most 1.1e-15). */
Test(lobatto, integration_matrix_exact_on_polynomials)
{
	struct picard_lobatto lob;
	double worst = 0;

	for (int m = 2; m <= PICARD_LOBATTO_MAX_M; m++) {
		picard_lobatto_build(m, &lob);
		for (int p = 0; p < m; p++)
			for (int j = 0; j < m; j++) {
				double sum = 0, exact;

				for (int l = 0; l < m; l++)
					sum += lob.S[j * m + l] * pow(lob.tau[l], p);
				exact = (pow(lob.tau[j], p + 1) - pow(-1, p + 1)) / (p + 1);
				worst = fmax(worst, fabs(sum - exact));
				cr_assert(fabs(sum - exact) < 1e-14, "m=%d p=%d node %d: S gives %.17g, "
					  "exact %.17g", m, p, j, sum, exact);
			}
	}
	cr_log_info("S on tau^p, p < m <= 32: worst error %.2e", worst);
}

/* E extrapolates polynomials of degree < min(m, cap) to the next window's
 * nodes (cap 12 for double solves, 6 for float: E_float); relative to 3^p,
 * exact to rounding times E's growth (5.8^(min(m, cap)-1)), which stays
 * below AMP_DOUBLE / AMP_FLOAT for every m. */
#define AMP_DOUBLE 1e9
#define AMP_FLOAT 1e4
/* Row 0 and the amplification of one extrapolation matrix. */
static void check_extrapolation(const double *E, int m, int cap, double amp_bound)
{
	double amplification = 0;

	for (int l = 0; l < m; l++)
		cr_assert_eq(E[l], l == m - 1 ? 1.0 : 0.0, "m=%d cap=%d: E row 0", m, cap);
	for (int j = 0; j < m; j++) {
		double row = 0;

		for (int l = 0; l < m; l++)
			row += fabs(E[j * m + l]);
		amplification = fmax(amplification, row);
	}
	cr_assert_lt(amplification, amp_bound, "m=%d cap=%d: max_j sum_l |E_jl| = %.3g", m,
		     cap, amplification);
}

Test(lobatto, extrapolation_exact_on_polynomials)
{
	struct picard_lobatto lob;

	for (int m = 2; m <= PICARD_LOBATTO_MAX_M; m++) {
		picard_lobatto_build(m, &lob);
		check_extrapolation(lob.E, m, 12, AMP_DOUBLE);
		check_extrapolation(lob.E_float, m, 6, AMP_FLOAT);
		for (int c = 0; c < 2; c++) {
			const double *E = c ? lob.E_float : lob.E;
			const int cap = c ? 6 : 12, degree = m < cap ? m : cap;

			for (int p = 0; p < degree; p++)
				for (int j = 0; j < m; j++) {
					double sum = 0, exact = pow(lob.tau[j] + 2, p);

					for (int l = 0; l < m; l++)
						sum += E[j * m + l] * pow(lob.tau[l], p);
					cr_assert(fabs(sum - exact) <= 1e-16 * pow(6, degree) * pow(3, p),
						  "m=%d cap=%d p=%d node %d: %.17g vs %.17g", m, cap, p,
						  j, sum, exact);
				}
		}
	}
}

/* ---- solves --------------------------------------------------------------- */

/* What one lobatto solve on the CPU returned. */
struct run {
	const picard_model *model; /* what was integrated */
	picard_grid grid;          /* the fitted grid */
	long ntraj;                /* trajectories */
	double *x_final;           /* ntraj*dim */
	double *ends;              /* every window end [w][traj][k] */
	picard_traj_status *status; /* ntraj */
	long *fail_window;         /* ntraj */
	picard_stats stats;        /* sweeps */
	int err;                   /* picard_solve's return */
};

/* Solve ntraj trajectories (x0 NULL: the model's default for all) with
 * opt (scheme and backend set here). */
static void run_lobatto(struct run *run, const picard_model *model,
			picard_options opt, long ntraj, const double *x0,
			const double *params)
{
	picard_record rec = { .every = 1, .traj_stride = 1 };
	picard_solver *solver;
	double *own_x0 = NULL;

	opt.scheme = PICARD_SCHEME_LOBATTO;
	opt.backend = PICARD_BACKEND_CPU;
	if (!x0)
		x0 = own_x0 = default_states(model, ntraj);
	memset(run, 0, sizeof(*run));
	solver = test_solver(model, &opt, ntraj);
	run->model = model;
	run->grid = *picard_solver_grid(solver);
	run->ntraj = ntraj;
	rec.states = run->ends = malloc(picard_record_size(solver, &rec) * sizeof(double));
	run->x_final = malloc(ntraj * model->dim * sizeof(double));
	run->status = malloc(ntraj * sizeof(*run->status));
	run->fail_window = malloc(ntraj * sizeof(long));
	cr_assert(run->ends && run->x_final && run->status && run->fail_window);
	run->err = picard_solve(solver, x0, params, run->x_final, run->status,
				run->fail_window, &rec, 1, &run->stats);
	picard_solver_free(solver);
	free(own_x0);
}

static void run_free(struct run *run)
{
	free(run->ends);
	free(run->x_final);
	free(run->status);
	free(run->fail_window);
}

/* Max over window ends and components of |x - exact| of the model's
 * default trajectory, m nodes, `windows` windows over its span, converged. */
static double exact_error(const char *name, int m, long windows,
			  picard_precision precision)
{
	const picard_model *model = test_model(name);
	picard_options opt = {
		.m = m, .K_max = K_MAX_TIGHT, .precision = precision,
		.iter_rtol = precision == PICARD_DOUBLE ? ITER_RTOL_TIGHT : 0,
		.window = (model->t1 - model->t0) / windows,
	};
	struct run run;
	double exact[8], error = 0;

	run_lobatto(&run, model, opt, 1, NULL, NULL);
	cr_assert_eq(run.err, 0, "%s m=%d: %s (%s)", name, m, picard_strerror(run.err),
		     picard_error_detail());
	cr_assert_eq(run.grid.windows, windows);
	for (long w = 0; w < windows; w++) {
		model->exact(run.grid.t0 + (w + 1) * run.grid.window, run.grid.t0, model->x0,
			     model->param_defaults, exact);
		for (int k = 0; k < model->dim; k++)
			error = fmax(error, fabs(run.ends[w * model->dim + k] - exact[k]));
	}
	run_free(&run);
	return error;
}

/* The error at a fixed window length falls spectrally as m grows: each
 * added node divides it by more than SPECTRAL_GAIN until rounding
 * (~1e-13) is reached. Windows of length 2 (decay: lambda H = 1;
 * oscillator: omega H = 2). */
#define SPECTRAL_GAIN 4
#define ROUNDING_FLOOR 1e-12
static void check_spectral(const char *name, long windows)
{
	double previous = INFINITY;

	for (int m = 2; m <= 16; m++) {
		double error = exact_error(name, m, windows, PICARD_DOUBLE);

		cr_log_info("%s %ld windows m=%d: E = %.3e", name, windows, m, error);
		if (previous > ROUNDING_FLOOR)
			cr_assert(error < previous / SPECTRAL_GAIN || error < ROUNDING_FLOOR,
				  "%s m=%d: E = %.3e, with m-1 nodes %.3e", name, m, error, previous);
		else
			cr_assert_lt(error, ROUNDING_FLOOR, "%s m=%d: E = %.3e", name, m, error);
		previous = error;
	}
	cr_assert_lt(previous, ROUNDING_FLOOR);
}

/* ---- Radau IIA's window (picard_radau_build: the newton-radau scheme) ----- */

/* Three stages are RADAU5's (Hairer & Wanner II, Table IV.5.6): its nodes
 * and coefficients, on [0, 1]. */
Test(lobatto, radau_three_stages_are_radau5s)
{
	const double r6 = sqrt(6.0);
	const double c[3] = {(4 - r6) / 10, (4 + r6) / 10, 1};
	const double a[3][3] = {
		{(88 - 7 * r6) / 360, (296 - 169 * r6) / 1800, (-2 + 3 * r6) / 225},
		{(296 + 169 * r6) / 1800, (88 + 7 * r6) / 360, (-2 - 3 * r6) / 225},
		{(16 - r6) / 36, (16 + r6) / 36, 1.0 / 9},
	};
	struct picard_lobatto lob;

	cr_assert_eq(picard_radau_build(4, &lob), 0);
	cr_expect_eq(lob.tau[0], -1);
	for (int j = 1; j < 4; j++) {
		cr_expect(fabs((lob.tau[j] + 1) / 2 - c[j - 1]) < 1e-15, "c_%d = %.17g", j,
			  (lob.tau[j] + 1) / 2);
		cr_expect_eq(lob.S[j * 4], 0, "the start is no stage");
		for (int l = 1; l < 4; l++)
			cr_expect(fabs(lob.S[j * 4 + l] / 2 - a[j - 1][l - 1]) < 1e-15,
				  "a_%d%d = %.17g, published %.17g", j, l, lob.S[j * 4 + l] / 2,
				  a[j - 1][l - 1]);
	}
	cr_expect_neq(picard_radau_build(1, &lob), 0);
	cr_expect_neq(picard_radau_build(PICARD_LOBATTO_MAX_M + 1, &lob), 0);
}

/* Every m: the s = m-1 stages end at 1; the weights integrate every
 * polynomial of degree <= 2s-2 (Radau's quadrature) and are S's last row;
 * S integrates every polynomial of degree < s from -1 to each node from
 * its values at the stages (collocation: C(s)); the start's column is
 * zero. */
Test(lobatto, radau_quadrature_and_collocation_exact)
{
	struct picard_lobatto lob;
	double worst = 0;

	for (int m = 2; m <= PICARD_LOBATTO_MAX_M; m++) {
		const int s = m - 1;

		cr_assert_eq(picard_radau_build(m, &lob), 0, "m = %d", m);
		cr_expect_eq(lob.tau[0], -1);
		cr_expect_eq(lob.tau[s], 1);
		for (int l = 1; l < m; l++)
			cr_expect(lob.tau[l] > lob.tau[l - 1], "m=%d: nodes ascending", m);
		for (int p = 0; p <= 2 * s - 2; p++) {
			double sum = 0;

			for (int l = 1; l < m; l++)
				sum += lob.weight[l] * pow(lob.tau[l], p);
			const double exact = (1 - pow(-1, p + 1)) / (p + 1);

			worst = fmax(worst, fabs(sum - exact));
			cr_expect(fabs(sum - exact) < 1e-13, "m=%d: quadrature of x^%d: %.17g, exact "
				  "%.17g", m, p, sum, exact);
		}
		for (int j = 0; j < m; j++) {
			cr_expect_eq(lob.S[j * m], 0, "m=%d: column 0", m);
			for (int p = 0; p < s; p++) {
				double sum = 0;

				for (int l = 1; l < m; l++)
					sum += lob.S[j * m + l] * pow(lob.tau[l], p);
				const double exact = (pow(lob.tau[j], p + 1) - pow(-1, p + 1)) / (p + 1);

				worst = fmax(worst, fabs(sum - exact));
				cr_expect(fabs(sum - exact) < 1e-13, "m=%d p=%d node %d: %.17g, exact "
					  "%.17g", m, p, j, sum, exact);
			}
		}
		for (int l = 1; l < m; l++)
			cr_expect(fabs(lob.S[s * m + l] - lob.weight[l]) < 1e-14, "m=%d: last row", m);
	}
	cr_log_info("radau: worst quadrature and collocation error %.2e, m = 2..32", worst);
}


Test(lobatto, spectral_in_m_decay)
{
	check_spectral("decay", 5);
}

Test(lobatto, spectral_in_m_oscillator)
{
	check_spectral("oscillator", 20); /* omega H = 1: m = 2 converges too */
}

/* Observed order log2(E(H)/E(H/2)) over three halvings from `coarse`
 * windows, in [2m-2 - 0.3, 2m-2 + 0.3]. */
static void check_order(const char *name, int m, long coarse)
{
	const int expect = 2 * m - 2;
	double error[4];

	for (int i = 0; i < 4; i++)
		error[i] = exact_error(name, m, coarse << i, PICARD_DOUBLE);
	for (int i = 0; i < 3; i++) {
		double order = log2(error[i] / error[i + 1]);

		cr_log_info("%s m=%d windows %ld -> %ld: E %.3e -> %.3e, order %.3f (2m-2 = %d)",
			    name, m, coarse << i, coarse << (i + 1), error[i], error[i + 1],
			    order, expect);
		cr_assert(fabs(order - expect) <= 0.3, "%s m=%d: observed order %.3f between "
			  "%ld and %ld windows (E %.3e, %.3e), expected %d", name, m, order,
			  coarse << i, coarse << (i + 1), error[i], error[i + 1], expect);
	}
}

Test(lobatto, order_2m_minus_2)
{
	check_order("decay", 2, 40);
	check_order("decay", 3, 10);
	check_order("decay", 4, 5);
	check_order("oscillator", 3, 20);
	check_order("oscillator", 4, 10);
	check_order("oscillator", 5, 10);
}

/* Against GSL rk8pd (picard_check, every window end) on an ensemble. Over
 * kepler's 100 periods the reference itself (rtol 1e-12) drifts by ~1e-7:
 * kepler is compared over 10 periods here, and its 100 periods by the
 * exact return of the default orbit (kepler_periodic_return). */
static picard_check_result check_against_gsl_params(const char *name,
						    picard_options opt, long ntraj,
						    struct run *run)
{
	const picard_model *model = test_model(name);
	picard_check_result result = { 0 };
	picard_record rec = { .every = 1, .traj_stride = 1 };
	double *x0 = malloc(ntraj * model->dim * sizeof(double));
	int err;

	cr_assert_not_null(x0);
	err = picard_ensemble_spread(model->dim, model->x0, ntraj, 0.1, 3,
				     PICARD_BACKEND_CPU, x0);
	cr_assert_eq(err, 0, "%s", picard_error_detail());
	run_lobatto(run, model, opt, ntraj, x0, NULL);
	if (run->err == 0) {
		rec.states = run->ends;
		err = picard_check(model, &run->grid, ntraj, x0, NULL, &rec, &result);
		cr_assert_eq(err, 0, "%s: check: %s", name, picard_error_detail());
		cr_assert_eq(result.points, ntraj * run->grid.windows);
	}
	free(x0);
	return result;
}

/* The same, and the solve must succeed. */
static picard_check_result check_against_gsl(const char *name, picard_options opt,
					     long ntraj, struct run *run)
{
	picard_check_result result = check_against_gsl_params(name, opt, ntraj, run);

	cr_assert_eq(run->err, 0, "%s: %s (%s)", name, picard_strerror(run->err),
		     picard_error_detail());
	return result;
}

Test(lobatto, matches_gsl_double, .timeout = 120)
{
	const struct {
		const char *name;
		int m;
		double window;
		double t1;  /* 0: the model's */
		double tol;
	} cases[] = {
		/* measured E: 1.0e-11, 1.7e-9, 2.6e-9 */
		{ "lotka", 8, 1.0, 0, 1e-8 },
		{ "kepler", 8, 0.1, 20 * PI, 1e-8 },
		{ "kepler", 16, 0.25, 20 * PI, 1e-8 },
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		picard_options opt = { .m = cases[c].m, .window = cases[c].window,
				       .precision = PICARD_DOUBLE };

		if (cases[c].t1 > 0)
			opt.t1 = cases[c].t1;
		struct run run;
		picard_check_result res = check_against_gsl(cases[c].name, opt, 8, &run);

		cr_log_info("%s m=%d H=%g double: E = %.3e (rel %.3e), %.2f sweeps per window "
			    "(max %d), %ld windows", cases[c].name, cases[c].m, cases[c].window,
			    res.error, res.rel_error, run.stats.sweeps_mean, run.stats.sweeps_max,
			    run.grid.windows);
		cr_assert_leq(res.error, cases[c].tol, "%s m=%d H=%g: E = %.3e > %g", cases[c].name,
			      cases[c].m, cases[c].window, res.error, cases[c].tol);
		run_free(&run);
	}
}

/* The default kepler orbit (period 2 pi) is back at its periapsis after
 * the 100 periods of the span: with the iteration converged to rounding
 * (iter_rtol 1e-15) the error there is ~1e-10 (measured 7.6e-11, m = 8,
 * H = 0.1; the default iter_rtol 1e-12 leaves 5e-8, a phase drift from
 * the iteration error that grows with the periods). */
Test(lobatto, kepler_periodic_return)
{
	const picard_model *kepler = test_model("kepler");
	struct run run;
	double error = 0;

	run_lobatto(&run, kepler, (picard_options){ .m = 8, .window = 0.1, .iter_rtol = 1e-15,
						    .precision = PICARD_DOUBLE }, 1, NULL, NULL);
	cr_assert_eq(run.err, 0, "%s", picard_strerror(run.err));
	for (int k = 0; k < kepler->dim; k++)
		error = fmax(error, fabs(run.x_final[k] - kepler->x0[k]));
	cr_log_info("kepler 100 periods, m=8 H=0.1: |x(t1) - x0| = %.3e, %.2f sweeps per window",
		    error, run.stats.sweeps_mean);
	cr_assert_lt(error, 1e-9, "kepler after 100 periods: %.3e from x0", error);
	run_free(&run);
}

/* Float: the state is x_w plus one window's integral, so float reaches its
 * rounding (lotka, x ~ 50: measured E ~ 2.5e-5, relative 7e-7). */
Test(lobatto, float_accuracy_lotka, .timeout = 60)
{
	/* cold and warm (measured 5.5 and 3.0 sweeps per window, m = 8 and
	 * m = 32 alike: the float warm start extrapolates a degree-5 cut) */
	for (int c = 0; c < 3; c++) {
		picard_options opt = { .m = c == 2 ? 32 : 8, .window = 1.0, .warm_start = c > 0,
				       .precision = PICARD_FLOAT };
		struct run run;
		picard_check_result res = check_against_gsl("lotka", opt, 16, &run);

		cr_log_info("lotka m=%d H=1 float%s: E = %.3e (rel %.3e), %.2f sweeps per window",
			    opt.m, c ? " warm" : "", res.error, res.rel_error, run.stats.sweeps_mean);
		cr_assert_leq(res.error, 1e-4, "float E = %.3e", res.error);
		cr_assert_gt(res.error, 1e-8, "float E = %.3e: was float used?", res.error);
		if (c)
			cr_assert_lt(run.stats.sweeps_mean, 4, "float warm start: %.2f sweeps",
				     run.stats.sweeps_mean);
		run_free(&run);
	}
}

/* ---- iteration control and statuses ------------------------------------- */

/* Riccati x' = x^2 from x0 = 1 blows up at t = 1: NONFINITE or DIVERGED,
 * in the window around t = 1, on both precisions; x0 = 0.1 (finite on the
 * span) in the same ensemble stays OK. */
Test(lobatto, blow_up_flagged)
{
	const picard_model *riccati = test_model("riccati");
	double x0[2] = { 1, 0.1 };

	for (int p = PICARD_FLOAT; p <= PICARD_DOUBLE; p++) {
		picard_options opt = { .m = 6, .window = 0.05, .precision = p };
		struct run run;

		run_lobatto(&run, riccati, opt, 2, x0, NULL);
		cr_assert_eq(run.err, PICARD_EFAILED, "got %s", picard_strerror(run.err));
		cr_assert(run.status[0] == PICARD_TRAJ_NONFINITE ||
			  run.status[0] == PICARD_TRAJ_DIVERGED ||
			  run.status[0] == PICARD_TRAJ_NOT_CONVERGED,
			  "status %d", run.status[0]);
		cr_assert_eq(run.status[1], PICARD_TRAJ_OK);
		cr_assert_eq(run.fail_window[1], -1);
		cr_log_info("riccati x0=1 (%s): status %d in window %ld (t in [%g, %g])",
			    p ? "double" : "float", run.status[0], run.fail_window[0],
			    run.fail_window[0] * run.grid.window,
			    (run.fail_window[0] + 1) * run.grid.window);
		cr_assert(run.status[0] != PICARD_TRAJ_NOT_CONVERGED);
		/* measured: NONFINITE at the end of window 19, t = 1 */
		cr_assert(run.fail_window[0] >= 18 && run.fail_window[0] <= 19,
			  "failed in window %ld", run.fail_window[0]);
		run_free(&run);
	}
	/* with a bound below the blow-up and K large enough: DIVERGED */
	{
		picard_options opt = { .m = 6, .window = 0.02, .precision = PICARD_DOUBLE,
				       .bound = 20, .K_max = 200 };
		struct run run;

		run_lobatto(&run, riccati, opt, 2, x0, NULL);
		cr_assert_eq(run.status[0], PICARD_TRAJ_DIVERGED, "status %d", run.status[0]);
		cr_assert_eq(run.status[1], PICARD_TRAJ_OK);
		/* x = 1/(1-t) > 20 past t = 0.95 */
		cr_assert_eq(run.fail_window[0], (long)(0.95 / 0.02), "window %ld",
			     run.fail_window[0]);
		run_free(&run);
	}
}

/* K_max too small: NOT_CONVERGED from the first window, the trajectory
 * goes on to the end; fixed K past the convergence boundary (changes
 * growing) is NOT_CONVERGED too, and inside it is OK. */
Test(lobatto, not_converged)
{
	const picard_model *lotka = test_model("lotka");
	struct run run;

	run_lobatto(&run, lotka, (picard_options){ .m = 8, .window = 1, .K_max = 3,
						   .precision = PICARD_DOUBLE }, 4, NULL, NULL);
	cr_assert_eq(run.err, PICARD_EFAILED);
	for (int i = 0; i < 4; i++) {
		cr_assert_eq(run.status[i], PICARD_TRAJ_NOT_CONVERGED, "status %d", run.status[i]);
		cr_assert_eq(run.fail_window[i], 0, "fail_window %ld", run.fail_window[i]);
	}
	cr_assert_eq(run.stats.sweeps_max, 3);
	cr_assert(isfinite(run.x_final[0]));
	run_free(&run);

	/* decay, lambda H = 20: the sweeps' changes grow (like 20^i / i!) */
	run_lobatto(&run, test_model("decay"), (picard_options){ .m = 8, .window = 40, .K = 6,
						   .t0 = 0, .t1 = 40, .precision = PICARD_DOUBLE },
		    1, NULL, NULL);
	cr_assert_eq(run.status[0], PICARD_TRAJ_NOT_CONVERGED, "status %d", run.status[0]);
	cr_assert_eq(run.fail_window[0], 0);
	run_free(&run);

	run_lobatto(&run, lotka, (picard_options){ .m = 8, .window = 1, .K = 6,
						   .precision = PICARD_DOUBLE }, 1, NULL, NULL);
	cr_assert_eq(run.err, 0, "%s", picard_strerror(run.err));
	cr_assert_eq(run.stats.sweeps_mean, 6);
	cr_assert_eq(run.stats.rhs_evals, 6.0 * 8 * run.grid.windows);
	run_free(&run);
}

/* A fixed K sweeps give order min(K, 2m-2): sweep i adds one order, as a
 * Taylor step (decay, m = 8, K = 3 -> order 3). */
Test(lobatto, fixed_sweeps_raise_order)
{
	const picard_model *decay = test_model("decay");
	double error[3];

	for (int i = 0; i < 3; i++) {
		picard_options opt = { .m = 8, .K = 3, .precision = PICARD_DOUBLE,
				       .window = 10.0 / (20 << i) };
		double exact;
		struct run run;

		run_lobatto(&run, decay, opt, 1, NULL, NULL);
		cr_assert_eq(run.err, 0);
		error[i] = 0;
		for (long w = 0; w < run.grid.windows; w++) {
			decay->exact((w + 1) * run.grid.window, 0, decay->x0, decay->param_defaults,
				     &exact);
			error[i] = fmax(error[i], fabs(run.ends[w] - exact));
		}
		run_free(&run);
	}
	for (int i = 0; i < 2; i++) {
		double order = log2(error[i] / error[i + 1]);

		cr_log_info("decay m=8 K=3: E %.3e -> %.3e, order %.3f", error[i], error[i + 1], order);
		cr_assert(fabs(order - 3) < 0.2, "order %.3f, expected 3", order);
	}
}

/* Warm start: the same solution (to the iteration tolerance) in fewer
 * sweeps, for small and large m (measured on lotka, double, H = 1: m = 4
 * 10.2 -> 7.8 per window, m = 8 9.6 -> 4.3, m = 16 -> 4.0, m = 32 -> 3.9;
 * m = 32's full extrapolation went non-finite before its polynomial was
 * cut to degree 11). Float: float_accuracy_lotka. */
Test(lobatto, warm_start_saves_sweeps)
{
	const picard_model *lotka = test_model("lotka");
	const int ms[] = { 4, 8, 16, 32 };

	for (int c = 0; c < 4; c++) {
		struct run cold, warm;
		double diff = 0;

		run_lobatto(&cold, lotka, (picard_options){ .m = ms[c], .window = 1,
							    .precision = PICARD_DOUBLE }, 8, NULL, NULL);
		run_lobatto(&warm, lotka, (picard_options){ .m = ms[c], .window = 1,
							    .warm_start = true,
							    .precision = PICARD_DOUBLE }, 8, NULL, NULL);
		cr_assert_eq(cold.err, 0);
		cr_assert_eq(warm.err, 0, "m=%d warm: %s", ms[c], picard_strerror(warm.err));
		cr_assert(warm.grid.warm_start);
		for (long i = 0; i < 8 * 2; i++)
			diff = fmax(diff, fabs(cold.x_final[i] - warm.x_final[i]));
		cr_log_info("lotka m=%d H=1: sweeps per window cold %.2f, warm %.2f; final "
			    "states differ by %.2e", ms[c], cold.stats.sweeps_mean,
			    warm.stats.sweeps_mean, diff);
		cr_assert_lt(warm.stats.sweeps_mean, 0.8 * cold.stats.sweeps_mean, "m=%d", ms[c]);
		cr_assert_lt(diff, 1e-9, "m=%d", ms[c]);
		run_free(&cold);
		run_free(&warm);
	}
}

/* ---- options and grid ----------------------------------------------------- */

Test(lobatto, options_and_grid)
{
	const picard_model *lotka = test_model("lotka");
	picard_solver *solver = NULL;
	const picard_grid *grid;
	picard_options opt = { .scheme = PICARD_SCHEME_LOBATTO, .backend = PICARD_BACKEND_CPU };
	int err;

	/* defaults: m = 8, adaptive K_max 40, 200 windows over the span */
	err = picard_solver_create(&solver, lotka, &opt, 4);
	cr_assert_eq(err, 0, "%s", picard_error_detail());
	grid = picard_solver_grid(solver);
	cr_assert_eq(grid->scheme, PICARD_SCHEME_LOBATTO);
	cr_assert_eq(grid->m, 8);
	cr_assert(grid->adaptive);
	cr_assert_eq(grid->K, 40);
	cr_assert_eq(grid->windows, 200);
	cr_assert_float_eq(grid->window, 0.5, 1e-15);
	cr_assert_float_eq(grid->h, 0.5 / 7, 1e-15);
	cr_assert_float_eq(grid->iter_rtol, 1e-6, 1e-20);
	picard_solver_free(solver);

	/* the window is fitted to whole windows */
	opt.window = 0.3;
	opt.m = 32;
	err = picard_solver_create(&solver, lotka, &opt, 4);
	cr_assert_eq(err, 0, "%s", picard_error_detail());
	grid = picard_solver_grid(solver);
	cr_assert_eq(grid->windows, 334);
	cr_assert_float_eq(grid->window * grid->windows, 100, 1e-12);
	picard_solver_free(solver);

	opt.m = 33;
	cr_assert_eq(picard_solver_create(&solver, lotka, &opt, 4), PICARD_EINVAL);
	cr_assert_null(solver);
	opt.m = 8;
	opt.h = 0.1;
	cr_assert_eq(picard_solver_create(&solver, lotka, &opt, 4), PICARD_EINVAL);
	opt.h = 0;
	opt.window = -1;
	cr_assert_eq(picard_solver_create(&solver, lotka, &opt, 4), PICARD_EINVAL);
	opt.window = NAN;
	cr_assert_eq(picard_solver_create(&solver, lotka, &opt, 4), PICARD_EINVAL);
	opt.window = 1;
	opt.scheme = PICARD_SCHEME_TRAPEZOID;
	cr_assert_eq(picard_solver_create(&solver, lotka, &opt, 4), PICARD_EINVAL);
	opt.scheme = (picard_scheme)7;
	cr_assert_eq(picard_solver_create(&solver, lotka, &opt, 4), PICARD_EINVAL);
	cr_assert_null(solver);
}

/* Records: every slot written; the last one is x_final; m = 2 (the
 * trapezoidal rule as collocation) and m = 32 run. */
Test(lobatto, records_and_extreme_m)
{
	const picard_model *osc = test_model("oscillator");
	const int ms[] = { 2, 5, 32 };

	for (int c = 0; c < 3; c++) {
		struct run run;
		const long n = osc->dim;

		run_lobatto(&run, osc, (picard_options){ .m = ms[c], .window = 0.25,
							 .precision = PICARD_DOUBLE }, 3, NULL, NULL);
		cr_assert_eq(run.err, 0, "m=%d: %s", ms[c], picard_strerror(run.err));
		for (long i = 0; i < run.grid.windows * 3 * n; i++)
			cr_assert(isfinite(run.ends[i]), "m=%d: record %ld = %g", ms[c], i, run.ends[i]);
		cr_assert(memcmp(run.x_final, run.ends + (run.grid.windows - 1) * 3 * n,
				 3 * n * sizeof(double)) == 0, "m=%d: x_final", ms[c]);
		run_free(&run);
	}
}

/* Every registered model (a new model file is tested with no edit): the
 * lobatto scheme, m = 8, adaptive, double, over at most 256 windows,
 * agrees with GSL rk8pd at every window end to EVERY_MODEL_REL_TOL, and
 * every trajectory is OK. One window per model, from its own time scale:
 * lotka's 1 carried over by its default_h (model_grid.h), so kepler's is
 * 0.0167 and decay's (no default_h) span/100; one run, one verdict (this
 * halved the window up to 11 times until some run passed). */
#define EVERY_MODEL_REL_TOL 1e-8
#define LOTKA_WINDOW 1.0
Test(lobatto, every_model_matches_gsl, .timeout = 120)
{
	int ran = 0;

	for (int i = 0; i < picard_model_count(); i++) {
		const picard_model *model = picard_model_at(i);
		const double window = model_h(model, LOTKA_WINDOW / 7) * 7;
		picard_options opt = { .m = 8, .window = window, .precision = PICARD_DOUBLE,
				       .t0 = model->t0,
				       .t1 = model->t0 + fmin(model->t1 - model->t0, 256 * window) };
		picard_check_result res;
		struct run run;

		if (stiff_or_events_left_out(model, "lobatto/every_model_matches_gsl"))
			continue;
		ran++;
		res = check_against_gsl_params(model->name, opt, 8, &run);
		cr_expect_eq(run.err, 0, "%s: %s", model->name, picard_strerror(run.err));
		cr_log_info("%s m=8 H=%g, %ld windows: E = %.3e, relative %.3e, %.2f sweeps per "
			    "window", model->name, run.grid.window, run.grid.windows, res.error,
			    res.rel_error, run.stats.sweeps_mean);
		cr_expect_leq(res.rel_error, EVERY_MODEL_REL_TOL, "%s: relative E = %.3e at H = %g",
			      model->name, res.rel_error, window);
		run_free(&run);
	}
	cr_assert_gt(ran, 0, "no model ran");
}

/* ---- windows in flight (options.block > 1, lobatto_time_kernel.cuh) ------ */

/* P windows swept at once converge to the same collocation solution as one
 * window after the other: every window end of kepler's 100 periods (e =
 * 0.5, m = 8, H = 0.1, iterations to 1e-15) within 3e-9 of the sequential
 * solve's, the orbit back at x0 within 3e-9 (measured 9.9e-12, 3.2e-11
 * and 1.3e-10 for 2, 5 and 16 in flight, 7.6e-11 one after the other),
 * and the chain of steps
 * shorter: the sweeps counted are every window's, so the work grows with P
 * while the steps (sweeps over P) fall. */
Test(lobatto, windows_in_flight_match_one_after_the_other, .timeout = 120)
{
	const picard_model *kepler = test_model("kepler");
	const picard_options opt = { .m = 8, .window = 0.1, .iter_rtol = 1e-15,
				     .precision = PICARD_DOUBLE };
	const int blocks[] = { 2, 5, 16 };
	struct run one;

	run_lobatto(&one, kepler, opt, 2, NULL, NULL);
	cr_assert_eq(one.err, 0, "%s", picard_strerror(one.err));
	for (size_t b = 0; b < sizeof(blocks) / sizeof(blocks[0]); b++) {
		picard_options in_flight = opt;
		struct run run;
		double apart = 0, error = 0;

		in_flight.block = blocks[b];
		run_lobatto(&run, kepler, in_flight, 2, NULL, NULL);
		cr_assert_eq(run.err, 0, "block %d: %s", blocks[b], picard_strerror(run.err));
		cr_assert_eq(run.grid.block, blocks[b]);
		for (long i = 0; i < run.grid.windows * 2 * kepler->dim; i++)
			apart = fmax(apart, fabs(run.ends[i] - one.ends[i]));
		for (int k = 0; k < kepler->dim; k++)
			error = fmax(error, fabs(run.x_final[k] - kepler->x0[k]));
		cr_log_info("kepler, %d windows in flight: window ends %.2e from one after the "
			    "other, %.2e from x0; %.2f sweeps a window (one after the other %.2f)",
			    blocks[b], apart, error, run.stats.sweeps_mean, one.stats.sweeps_mean);
		cr_assert_lt(apart, 3e-9, "block %d: %.3e apart", blocks[b], apart);
		cr_assert_lt(error, 3e-9, "block %d: %.3e from x0", blocks[b], error);
		/* steps = sweeps / P (all but the last P-1 windows' steps are
		 * full): fewer than one after the other's sweeps */
		cr_assert_lt(run.stats.sweeps_mean / blocks[b], one.stats.sweeps_mean,
			     "block %d: %.2f sweeps a window", blocks[b], run.stats.sweeps_mean);
		run_free(&run);
	}
	run_free(&one);
}

/* Over a long span windows in flight are as accurate as one window after
 * the other: kepler's default orbit (e = 0.5, period 2 pi) over 1000
 * periods, m = 16, H = 0.70757, iterations to 1e-15, ends back at its
 * start (the closed form) within twice the error of the sequential solve
 * (warm starts) for 8 and 16 in flight. The error is rounding and the
 * iterations' remainder, accumulated as the phase drifts (~9000 windows),
 * so a bias of an ulp per accepted window shows: with a front accepted
 * on one sweep within the tolerance (picard_front_within asks for two in
 * a row) it was 5 and 6.5 times the sequential's. */
Test(lobatto, windows_in_flight_as_accurate_over_a_long_span, .timeout = 120)
{
	const picard_model *kepler = test_model("kepler");
	const picard_options opt = { .m = 16, .window = 0.70757, .K_max = 60,
				     .iter_rtol = 1e-15, .t0 = 0, .t1 = 2000 * PI,
				     .precision = PICARD_DOUBLE };
	const int blocks[] = { 8, 16 };
	picard_options sequential = opt;
	double one_error = 0;
	struct run one;

	sequential.warm_start = true;
	run_lobatto(&one, kepler, sequential, 1, NULL, NULL);
	cr_assert_eq(one.err, 0, "%s", picard_strerror(one.err));
	for (int k = 0; k < kepler->dim; k++)
		one_error = fmax(one_error, fabs(one.x_final[k] - kepler->x0[k]));
	for (size_t b = 0; b < sizeof(blocks) / sizeof(blocks[0]); b++) {
		picard_options in_flight = opt;
		struct run run;
		double error = 0;

		in_flight.block = blocks[b];
		run_lobatto(&run, kepler, in_flight, 1, NULL, NULL);
		cr_assert_eq(run.err, 0, "block %d: %s", blocks[b], picard_strerror(run.err));
		for (int k = 0; k < kepler->dim; k++)
			error = fmax(error, fabs(run.x_final[k] - kepler->x0[k]));
		cr_log_info("kepler, 1000 periods, %ld windows, %d in flight: %.2e from x0, %.2f "
			    "sweeps a window; one after the other %.2e, %.2f sweeps",
			    run.grid.windows, blocks[b], error, run.stats.sweeps_mean, one_error,
			    one.stats.sweeps_mean);
		cr_expect_leq(error, 2 * one_error, "block %d: %.3e from x0, one after the other "
			      "%.3e", blocks[b], error, one_error);
		run_free(&run);
	}
	run_free(&one);
}

/* Float and dense output: lotka's window ends and its states at times
 * inside windows (the front's collocation polynomial) as one after the
 * other gives them, to what float's iteration tolerance leaves. */
Test(lobatto, windows_in_flight_float_and_dense_output)
{
	const picard_model *lotka = test_model("lotka");
	const double times[] = { 0.3, 2.5, 7.75, 14.0 };
	double got[2][4 * 2];

	for (int b = 0; b < 2; b++) {
		picard_options opt = { .scheme = PICARD_SCHEME_LOBATTO, .backend = PICARD_BACKEND_CPU,
				       .m = 6, .window = 0.5, .t0 = 0, .t1 = 15,
				       .precision = PICARD_FLOAT, .block = b ? 6 : 0 };
		picard_solver *solver = test_solver(lotka, &opt, 1);
		picard_record rec = { .times = times, .ntimes = 4, .traj_stride = 1,
				      .states = got[b] };
		double x_final[2];
		picard_traj_status status;
		long fail_window;

		cr_assert_eq(picard_solve(solver, lotka->x0, NULL, x_final, &status, &fail_window,
					  &rec, 1, NULL), 0, "%s", picard_error_detail());
		cr_assert_eq(status, PICARD_TRAJ_OK);
		picard_solver_free(solver);
	}
	for (int e = 0; e < 4 * 2; e++)
		cr_assert(fabs(got[1][e] - got[0][e]) <= 1e-4 * fabs(got[0][e]),
			  "state %d: %.9g in flight, %.9g one after the other", e, got[1][e],
			  got[0][e]);
}

/* Failures as one after the other reports them: riccati's blow-up in the
 * window around t = 1 (x0 = 1) beside a member that stays OK, and K_max too
 * small: NOT_CONVERGED from window 0. */
Test(lobatto, windows_in_flight_statuses)
{
	const picard_model *riccati = test_model("riccati");
	const double x0[2] = { 1, 0.1 };
	struct run run;

	run_lobatto(&run, riccati, (picard_options){ .m = 6, .window = 0.05, .block = 4,
						     .precision = PICARD_DOUBLE }, 2, x0, NULL);
	cr_assert_eq(run.err, PICARD_EFAILED, "got %s", picard_strerror(run.err));
	cr_assert(run.status[0] == PICARD_TRAJ_NONFINITE || run.status[0] == PICARD_TRAJ_DIVERGED,
		  "status %d", run.status[0]);
	cr_assert(run.fail_window[0] >= 18 && run.fail_window[0] <= 19, "failed in window %ld",
		  run.fail_window[0]);
	cr_assert_eq(run.status[1], PICARD_TRAJ_OK);
	run_free(&run);

	run_lobatto(&run, test_model("lotka"), (picard_options){ .m = 8, .window = 1, .K_max = 3,
						 .block = 3, .precision = PICARD_DOUBLE },
		    1, NULL, NULL);
	cr_assert_eq(run.status[0], PICARD_TRAJ_NOT_CONVERGED, "status %d", run.status[0]);
	cr_assert_eq(run.fail_window[0], 0);
	cr_assert_eq(run.stats.sweeps_max, 3);
	run_free(&run);
}

/* What windows in flight refuse, each naming why. */
Test(lobatto, windows_in_flight_refused)
{
	const picard_model *lotka = test_model("lotka");
	const picard_options bad[] = {
		{ .scheme = PICARD_SCHEME_LOBATTO, .block = 17 },
		{ .scheme = PICARD_SCHEME_LOBATTO, .block = 4, .layout = PICARD_LAYOUT_THREAD },
		{ .scheme = PICARD_SCHEME_LOBATTO, .block = -1 },
	};

	for (size_t c = 0; c < sizeof(bad) / sizeof(bad[0]); c++) {
		picard_options opt = bad[c];
		picard_solver *solver = NULL;

		opt.backend = PICARD_BACKEND_CPU;
		cr_assert_eq(picard_solver_create(&solver, lotka, &opt, 1), PICARD_EINVAL,
			     "case %zu", c);
		cr_assert(strstr(picard_error_detail(), "block"), "case %zu: %s", c,
			  picard_error_detail());
	}
	{
		picard_options opt = { .scheme = PICARD_SCHEME_LOBATTO, .block = 4,
				       .backend = PICARD_BACKEND_CPU };
		picard_solver *solver = NULL;

		cr_assert_eq(picard_solver_create(&solver, test_model("bouncing_ball"), &opt, 1),
			     PICARD_EINVAL);
		cr_assert(strstr(picard_error_detail(), "events"), "%s", picard_error_detail());
	}
	{ /* the paper layout only with windows in flight; the CPU runs it as
	     any other (the same steps) */
		picard_options opt = { .scheme = PICARD_SCHEME_LOBATTO, .block = 1,
				       .layout = PICARD_LAYOUT_PAPER, .backend = PICARD_BACKEND_CPU };
		picard_solver *solver = NULL;

		cr_assert_eq(picard_solver_create(&solver, lotka, &opt, 1), PICARD_EINVAL);
		cr_assert(strstr(picard_error_detail(), "layout paper with block 1"), "%s",
			  picard_error_detail());
		opt.block = 4;
		cr_assert_eq(picard_solver_create(&solver, lotka, &opt, 1), PICARD_OK, "%s",
			     picard_error_detail());
		picard_solver_free(solver);
	}
}
