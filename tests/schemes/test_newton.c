/* test_newton.c - collocation solved by Newton's method across windows
 * (src/schemes/newton/newton.c, suite newton), on the host: converged, it is the lobatto
 * scheme's solution (the same equations, solved by Picard sweeps), to
 * rounding times the problem's conditioning, at window lengths where the
 * sweeps converge; the iterations per window stay few on a well-behaved
 * model and past Picard's window limit; a blow-up is reported, not
 * returned. */
#define _GNU_SOURCE /* M_PI */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lobatto.h"
#include "newton.h"
#include "picard.h"
#include "scheme.h"
#include "support.h"

/* Window ends of the lobatto scheme on the CPU, converged to rtol 1e-14. */
static double *lobatto_ends(const picard_model *model, const double *x0, const double *p,
			    int m, double window, double t1)
{
	picard_options opt = {
		.scheme = PICARD_SCHEME_LOBATTO, .precision = PICARD_DOUBLE, .m = m,
		.window = window, .t0 = model->t0, .t1 = t1, .K_max = 200, .iter_rtol = 1e-14,
		.iter_atol = 1e-14, .backend = PICARD_BACKEND_CPU,
	};
	picard_solver *solver = test_solver(model, &opt, 1);
	picard_record rec = {.every = 1, .traj_stride = 1};
	double *ends = calloc(picard_record_size(solver, &rec), sizeof(double));
	picard_traj_status status;

	rec.states = ends;
	cr_assert_eq(picard_solve(solver, x0, p, NULL, &status, NULL, &rec, 1, NULL), 0, "%s",
		     picard_error_detail());
	cr_assert_eq(status, PICARD_TRAJ_OK);
	picard_solver_free(solver);
	return ends;
}

/* Largest |a - b| / max(1, |b|) over count values. */
static double worst_relative(const double *a, const double *b, long count)
{
	double worst = 0;

	for (long i = 0; i < count; i++)
		worst = fmax(worst, fabs(a[i] - b[i]) / fmax(1, fabs(b[i])));
	return worst;
}

/* Newton on model's default start over [t0, t1] in windows of H, against
 * the lobatto scheme's converged solution. */
static struct picard_newton_result against_lobatto(const char *name, int m, double H, double t1,
						   int block, double bound)
{
	const picard_model *model = test_model(name);
	const long W = (long)llround((t1 - model->t0) / H);

	t1 = model->t0 + W * H; /* the grid the lobatto scheme fits is this one */
	double *x0 = default_states(model, 1), *ends = calloc(W * model->dim, sizeof(double));
	struct picard_newton_problem pb = {
		.collocation = picard_lobatto_build, .model = model, .params = model->param_defaults, .t0 = model->t0, .window = H,
		.windows = W, .m = m, .block = block, .max_iterations = 30, .atol = 1e-12,
		.rtol = 1e-12, .bound = 1e12,
	};
	struct picard_newton_result res;
	double *ref, worst;

	picard_model_start(model, NULL, x0);
	cr_assert_eq(picard_newton_trajectory(&pb, x0, ends, &res), 0, "%s", picard_error_detail());
	cr_assert_eq(res.status, PICARD_TRAJ_OK, "%s: status %s in window %ld", name,
		     picard_traj_status_name(res.status), res.fail_window);
	ref = lobatto_ends(model, x0, NULL, m, H, t1);
	worst = worst_relative(ends, ref, W * model->dim);
	cr_log_info("%s m=%d H=%g W=%ld block=%d: %ld iterations (%.2f per window, at most %d "
		    "for one), against lobatto %.2e", name, m, H, W, block, res.iterations,
		    (double)res.iterations * block / W, res.iterations_max, worst);
	cr_expect_leq(worst, bound, "%s: Newton and lobatto differ by %.2e", name, worst);
	free(x0), free(ends), free(ref);
	return res;
}

Test(newton, lotka_is_the_lobatto_solution)
{
	struct picard_newton_result r = against_lobatto("lotka", 8, 0.5, 100, 32, 1e-10);

	cr_expect_leq(r.iterations_max, 12, "lotka: a window took %d iterations", r.iterations_max);
}

/* kepler, e = 0.5 (its default), 5 orbits in windows of ~1/60 orbit. */
Test(newton, kepler_is_the_lobatto_solution)
{
	struct picard_newton_result r = against_lobatto("kepler", 8, 0.1, 10 * M_PI, 64, 1e-8);

	cr_expect_leq(r.iterations_max, 12, "kepler: a window took %d iterations", r.iterations_max);
}

/* One window per block is the serial method: Newton on each window. */
Test(newton, block_of_one_is_the_same_solution)
{
	against_lobatto("lotka", 6, 1.0, 40, 1, 1e-10);
}

/* Windows far past Picard's limit (lotka: H L ~ 1 near H = 2): Newton
 * still converges, the solution is lobatto's at that window (solved by
 * lobatto with more sweeps than Picard needs). */
Test(newton, long_windows_converge)
{
	const picard_model *model = test_model("lotka");
	double x0[2] = {50, 30}, ends[10 * 2];
	struct picard_newton_problem pb = {
		.collocation = picard_lobatto_build, .model = model, .params = model->param_defaults, .t0 = 0, .window = 10,
		.windows = 10, .m = 16, .block = 10, .max_iterations = 40, .atol = 1e-10,
		.rtol = 1e-12, .bound = 1e12,
	};
	struct picard_newton_result res;
	double ref[2];

	cr_assert_eq(picard_newton_trajectory(&pb, x0, ends, &res), 0);
	cr_assert_eq(res.status, PICARD_TRAJ_OK, "%s in window %ld",
		     picard_traj_status_name(res.status), res.fail_window);
	cr_assert_eq(picard_reference(model, NULL, x0, 0, (double[]){100}, 1, ref), 0);
	cr_log_info("lotka H=10 m=16: %ld iterations, at most %d per window; E = %.2e",
		    res.iterations, res.iterations_max,
		    fmax(fabs(ends[18] - ref[0]), fabs(ends[19] - ref[1])));
	cr_expect_leq(fabs(ends[18] - ref[0]) / fabs(ref[0]), 1e-6);
	cr_expect_leq(fabs(ends[19] - ref[1]) / fabs(ref[1]), 1e-6);
}

/* riccati x' = x^2 from x0 = 2 blows up at t = 0.5: the window that holds
 * it does not converge, and says so (the trajectory goes on, as under the
 * Picard schemes, its later windows meaningless). */
Test(newton, blow_up_is_reported)
{
	const picard_model *model = test_model("riccati");
	double x0 = 2, ends[20];
	struct picard_newton_problem pb = {
		.collocation = picard_lobatto_build, .model = model, .params = (double[]){1}, .t0 = 0, .window = 0.05, .windows = 20,
		.m = 6, .block = 20, .max_iterations = 30, .atol = 1e-12, .rtol = 1e-12,
		.bound = 1e12,
	};
	struct picard_newton_result res;

	cr_assert_eq(picard_newton_trajectory(&pb, &x0, ends, &res), 0);
	cr_expect_neq(res.status, PICARD_TRAJ_OK, "a blow-up returned as ok");
	cr_log_info("riccati: %s in window %ld", picard_traj_status_name(res.status),
		    res.fail_window);
	cr_expect(res.fail_window >= 8 && res.fail_window <= 10, "failed in window %ld (t = %g)",
		  res.fail_window, res.fail_window * 0.05);
}

Test(newton, bad_problem_is_refused)
{
	const picard_model *model = test_model("decay");
	double x0 = 1, ends[4];
	struct picard_newton_problem pb = {
		.collocation = picard_lobatto_build, .model = model, .params = model->param_defaults, .window = 0.1, .windows = 4,
		.m = 1, .block = 4, .max_iterations = 10, .atol = 1e-9, .rtol = 1e-9, .bound = 1e12,
	};
	struct picard_newton_result res;

	cr_expect_eq(picard_newton_trajectory(&pb, &x0, ends, &res), PICARD_EINVAL);
	pb.m = 4;
	pb.block = 0;
	cr_expect_eq(picard_newton_trajectory(&pb, &x0, ends, &res), PICARD_EINVAL);
}

/* ---- the newton scheme through picard_solve (src/schemes/newton/scheme_newton.c) ------ */

/* One solve on the CPU backend: x_final, statuses, window ends and the
 * states at times (none when ntimes is 0). */
struct scheme_run {
	picard_grid grid;
	double *x_final, *ends, *dense;
	picard_traj_status *status;
	long *fail_window;
	picard_stats stats;
};

static void scheme_run(struct scheme_run *r, const picard_model *model, picard_options opt,
		       long ntraj, const double *x0, const double *params, const double *times,
		       long ntimes)
{
	picard_solver *solver;
	picard_record rec[2] = {
		{.every = 1, .traj_stride = 1},
		{.traj_stride = 1, .times = times, .ntimes = ntimes},
	};

	opt.precision = PICARD_DOUBLE;
	opt.backend = PICARD_BACKEND_CPU;
	solver = test_solver(model, &opt, ntraj);
	r->grid = *picard_solver_grid(solver);
	r->x_final = calloc(ntraj * model->dim, sizeof(double));
	r->status = calloc(ntraj, sizeof(*r->status));
	r->fail_window = calloc(ntraj, sizeof(long));
	r->ends = rec[0].states = calloc(picard_record_size(solver, &rec[0]), sizeof(double));
	r->dense = ntimes ? calloc(picard_record_size(solver, &rec[1]), sizeof(double)) : NULL;
	rec[1].states = r->dense;
	const int err = picard_solve(solver, x0, params, r->x_final, r->status, r->fail_window,
				     rec, ntimes ? 2 : 1, &r->stats);

	/* a failed trajectory is the caller's to judge, by its status */
	cr_assert(err == 0 || err == PICARD_EFAILED, "%s: %s", model->name, picard_error_detail());
	picard_solver_free(solver);
}

static void scheme_run_free(struct scheme_run *r)
{
	free(r->x_final), free(r->status), free(r->fail_window), free(r->ends), free(r->dense);
}

/* An ensemble with spread parameters, smaller and larger than the threads
 * (one trajectory at a time, its windows in parallel; or trajectories in
 * parallel): window ends, x_final and the states at times between nodes
 * are the lobatto scheme's, to rounding. */
Test(newton, scheme_is_lobattos_solution_at_ends_and_times)
{
	const picard_model *model = test_model("lotka");
	const double times[] = {0, 0.3, 17.77, 50, 99.9, 100};
	const long ntimes = 6;

	for (long ntraj = 1; ntraj <= 64; ntraj *= 64) {
		double *x0 = malloc(ntraj * 2 * sizeof(double));
		double *p = malloc(ntraj * model->nparams * sizeof(double));
		picard_options opt = {.m = 8, .window = 0.5, .iter_rtol = 1e-13};
		struct scheme_run nw, lb;

		picard_ensemble_spread(2, model->x0, ntraj, 0.2, 5, PICARD_BACKEND_CPU, x0);
		picard_ensemble_spread(model->nparams, model->param_defaults, ntraj, 0.1, 6,
				       PICARD_BACKEND_CPU, p);
		opt.scheme = PICARD_SCHEME_NEWTON;
		scheme_run(&nw, model, opt, ntraj, x0, p, times, ntimes);
		opt.scheme = PICARD_SCHEME_LOBATTO;
		opt.K_max = 60;
		scheme_run(&lb, model, opt, ntraj, x0, p, times, ntimes);
		for (long i = 0; i < ntraj; i++) {
			cr_expect_eq(nw.status[i], PICARD_TRAJ_OK, "trajectory %ld: %s", i,
				     picard_traj_status_name(nw.status[i]));
			cr_expect_eq(nw.fail_window[i], -1);
		}
		const double ends = worst_relative(nw.ends, lb.ends, nw.grid.windows * ntraj * 2);
		const double dense = worst_relative(nw.dense, lb.dense, ntimes * ntraj * 2);
		const double fin = worst_relative(nw.x_final, lb.x_final, ntraj * 2);

		cr_log_info("scheme newton, %ld trajectories: against lobatto %.2e at window ends, "
			    "%.2e at times, %.2e at t1; %.3g linearisations per window",
			    ntraj, ends, dense, fin, nw.stats.sweeps_mean);
		cr_expect_leq(ends, 1e-10);
		cr_expect_leq(dense, 1e-10);
		cr_expect_leq(fin, 1e-10);
		/* x_final is the last window's end */
		cr_expect_eq(worst_relative(nw.x_final, nw.ends + (nw.grid.windows - 1) * ntraj * 2,
					    ntraj * 2), 0);
		cr_expect_gt(nw.stats.sweeps_mean, 1);
		scheme_run_free(&nw);
		scheme_run_free(&lb);
		free(x0), free(p);
	}
}

/* A trajectory that blows up fails with its window, beside one that does
 * not. (Its window does not converge: the trajectory goes on, flagged, as
 * under the Picard schemes.) */
Test(newton, scheme_reports_a_blow_up_per_trajectory)
{
	const picard_model *model = test_model("riccati");
	const double x0[2] = {1, 0.1};
	static const picard_scheme schemes[] = {PICARD_SCHEME_NEWTON, PICARD_SCHEME_NEWTON_RADAU};

	for (int i = 0; i < 2; i++) {
		picard_options opt = {.scheme = schemes[i], .m = 6, .window = 0.05, .t0 = 0,
				      .t1 = 2};
		struct scheme_run r;

		scheme_run(&r, model, opt, 2, x0, NULL, (double[]){1.5}, 1);
		cr_log_info("%s, riccati x0=1: %s in window %ld", picard_scheme_of(schemes[i])->name,
			    picard_traj_status_name(r.status[0]), r.fail_window[0]);
		cr_expect_neq(r.status[0], PICARD_TRAJ_OK, "a blow-up returned as ok");
		/* x = 1/(1-t): the window of t = 1 (19) or the one before */
		cr_expect(r.fail_window[0] >= 18 && r.fail_window[0] <= 19, "window %ld",
			  r.fail_window[0]);
		cr_expect_eq(r.status[1], PICARD_TRAJ_OK);
		cr_expect(isfinite(r.dense[1]));
		scheme_run_free(&r);
	}
}

/* What the scheme does not take, refused with the reason. */
Test(newton, scheme_refusals_name_the_option)
{
	const picard_model *model = test_model("lotka");
	static const struct {
		picard_options opt;
		const char *says;
	} cases[] = {
		{{.scheme = PICARD_SCHEME_NEWTON, .precision = PICARD_FLOAT}, "runs in double"},
		{{.scheme = PICARD_SCHEME_NEWTON, .precision = PICARD_DOUBLE, .h = 0.1}, "window length"},
		{{.scheme = PICARD_SCHEME_NEWTON, .precision = PICARD_DOUBLE, .m = 40}, "2..32"},
		{{.scheme = PICARD_SCHEME_NEWTON, .precision = PICARD_DOUBLE,
		  .layout = PICARD_LAYOUT_WARP}, "lays out its own"},
		{{.scheme = PICARD_SCHEME_NEWTON, .precision = PICARD_DOUBLE, .block = -1},
		 "at least one window"},
		{{.scheme = PICARD_SCHEME_TRAPEZOID, .block = 8},
		 "block is the newton schemes' and lobatto's"},
		{{.scheme = PICARD_SCHEME_NEWTON_RADAU, .precision = PICARD_FLOAT}, "runs in double"},
		{{.scheme = PICARD_SCHEME_NEWTON_RADAU, .precision = PICARD_DOUBLE, .h = 0.1},
		 "window length"},
		{{.scheme = PICARD_SCHEME_NEWTON_RADAU, .precision = PICARD_DOUBLE,
		  .layout = PICARD_LAYOUT_WARP}, "newton-radau scheme lays out its own"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		picard_solver *solver = NULL;
		picard_options o = cases[i].opt;

		o.backend = PICARD_BACKEND_CPU;
		cr_expect_eq(picard_solver_create(&solver, model, &o, 1), PICARD_EINVAL, "case %zu", i);
		cr_expect(strstr(picard_error_detail(), cases[i].says), "case %zu: %s", i,
			  picard_error_detail());
		cr_expect_null(solver);
	}
}

/* ---- newton-radau: Radau IIA's collocation, the same machinery ------------ */

/* Window ends of model under opt (CPU, double) for ntraj members spread
 * +-10% around the defaults (params: the defaults, or those given), the
 * statuses all ok, and their error against the reference. */
static picard_check_result radau_run(struct scheme_run *r, const picard_model *model,
				     picard_options opt, long ntraj, const double *param)
{
	double *x0 = malloc(ntraj * model->dim * sizeof(double));
	double *p = malloc((ntraj * model->nparams + 1) * sizeof(double));
	picard_record rec = {.every = 1, .traj_stride = 1};
	picard_check_result c;

	picard_ensemble_spread(model->dim, model->x0, ntraj, 0.1, 11, PICARD_BACKEND_CPU, x0);
	picard_ensemble_spread(model->nparams, param ? param : model->param_defaults, ntraj, 0.1,
			       12, PICARD_BACKEND_CPU, p);
	scheme_run(r, model, opt, ntraj, x0, p, NULL, 0);
	for (long i = 0; i < ntraj; i++)
		cr_expect_eq(r->status[i], PICARD_TRAJ_OK, "%s %s trajectory %ld: %s", model->name,
			     picard_scheme_of(opt.scheme)->name, i,
			     picard_traj_status_name(r->status[i]));
	rec.states = r->ends;
	cr_assert_eq(picard_check(model, &r->grid, ntraj, x0, p, &rec, &c), 0, "%s",
		     picard_error_detail());
	free(x0), free(p);
	return c;
}

/* With three stages (m = 4) a window is a step of RADAU5's method: on a
 * stiff and a non-stiff model the window ends are radau5's fixed steps of
 * the same length (a different solver of the same equations: simplified
 * Newton on the eigen-decomposed system, one trajectory per thread). */
Test(newton, radau_solves_radau5s_equations, .timeout = 120)
{
	static const struct {
		const char *model;
		double window, t1;
	} cases[] = {{"hires", 0.05, 20}, {"lotka", 0.1, 20}};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const picard_model *model = test_model(cases[i].model);
		const picard_options base = {.t0 = model->t0, .t1 = cases[i].t1,
					     .iter_rtol = 1e-13, .iter_atol = 1e-13};
		picard_options nr = base, r5 = base;
		struct scheme_run a, b;

		nr.scheme = PICARD_SCHEME_NEWTON_RADAU;
		nr.m = 4;
		nr.window = cases[i].window;
		r5.scheme = PICARD_SCHEME_RADAU5;
		r5.K = 1;
		r5.h = cases[i].window;
		radau_run(&a, model, nr, 8, NULL);
		radau_run(&b, model, r5, 8, NULL);
		cr_assert_eq(a.grid.windows, b.grid.windows);
		const double apart = worst_relative(a.ends, b.ends, a.grid.windows * 8 * model->dim);

		cr_log_info("%s: newton-radau m = 4 against radau5's fixed steps, %ld windows of %g: "
			    "%.2e", model->name, a.grid.windows, cases[i].window, apart);
		/* rounding times conditioning: radau5 iterates in the Radau
		 * matrix's eigenbasis; hires over 400 windows 8.7e-11 */
		cr_expect_leq(apart, 1e-9, "%s: %.2e apart", model->name, apart);
		scheme_run_free(&a), scheme_run_free(&b);
	}
}

/* Order 2m-3 at the window ends: the oscillator's error as the window
 * halves (exact reference), for m = 3, 4, 5. */
Test(newton, radau_order_is_2m_minus_3)
{
	const picard_model *model = test_model("oscillator");
	static const struct {
		int m;
		double window;
	} cases[] = {{3, 0.5}, {4, 0.5}, {5, 1}};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		picard_options opt = {.scheme = PICARD_SCHEME_NEWTON_RADAU, .m = cases[i].m,
				      .t0 = 0, .t1 = 8, .iter_rtol = 1e-14, .iter_atol = 1e-14};
		struct scheme_run r;
		double e[2];

		for (int k = 0; k < 2; k++) {
			opt.window = cases[i].window / (1 << k);
			e[k] = radau_run(&r, model, opt, 2, NULL).error;
			scheme_run_free(&r);
		}
		const double order = log2(e[0] / e[1]), expect = 2 * cases[i].m - 3;

		cr_log_info("newton-radau m = %d: E %.3e -> %.3e, order %.2f (2m-3 = %g)",
			    cases[i].m, e[0], e[1], order, expect);
		cr_expect(fabs(order - expect) < 0.4, "m = %d: order %.2f, expected %g", cases[i].m,
			  order, expect);
	}
}

/* L-stability: x' = -lambda x with lambda H = 1e5. Radau IIA damps it
 * (R(-inf) = 0): every window end within 1e-4 of x0 = 1 at zero; Lobatto
 * IIIA (the newton scheme) does not (|R(-inf)| = 1), so its windows are
 * not the solution (the truth is exp(-1e6 t), 0 to rounding after the
 * first window): held to the truth, it must either come within 1e-4 of
 * it or say it failed, never return |x| ~ 1 as ok. (This asserted |x| >
 * 0.1. It fails until the newton scheme checks a converged window for
 * plausibility, issue 34's item 2, which another branch builds.) */
Test(newton, radau_is_l_stable)
{
	const picard_model *model = test_model("decay");
	const double lambda = 1e6, x0 = 1;
	picard_options opt = {.m = 4, .window = 0.1, .t0 = 0, .t1 = 1};
	struct scheme_run r;
	double radau = 0, lobatto = 0;
	picard_traj_status lobatto_status;

	opt.scheme = PICARD_SCHEME_NEWTON_RADAU;
	scheme_run(&r, model, opt, 1, &x0, &lambda, NULL, 0);
	cr_expect_eq(r.status[0], PICARD_TRAJ_OK);
	for (long w = 0; w < r.grid.windows; w++)
		radau = fmax(radau, fabs(r.ends[w]));
	scheme_run_free(&r);
	opt.scheme = PICARD_SCHEME_NEWTON;
	scheme_run(&r, model, opt, 1, &x0, &lambda, NULL, 0);
	for (long w = 0; w < r.grid.windows; w++)
		lobatto = fmax(lobatto, fabs(r.ends[w]));
	lobatto_status = r.status[0];
	scheme_run_free(&r);
	cr_log_info("x' = -1e6 x, windows of 0.1: largest |x| at a window end: radau %.2e, "
		    "lobatto %.2e (status %s)", radau, lobatto,
		    picard_traj_status_name(lobatto_status));
	cr_expect_leq(radau, 1e-4);
	cr_expect(lobatto_status != PICARD_TRAJ_OK || lobatto <= 1e-4,
		  "newton (Lobatto IIIA) returned |x| = %.3g as ok where the solution is 0",
		  lobatto);
}

/* The stiff models across time, members spread +-10%: every member ok and
 * within what the window allows of the reference (GSL msbdf). hires at
 * windows of 0.1 is where a block's windows, iterated from their
 * neighbours' guesses, converged to a spurious root (x8 = -0.7) before the
 * predictor check; robertson's error is its first window's (the initial
 * layer inside one window), and falls with the window. */
Test(newton, radau_solves_the_stiff_models, .timeout = 240)
{
	const picard_model *robertson = test_model("robertson"), *hires = test_model("hires");
	picard_options opt = {.scheme = PICARD_SCHEME_NEWTON_RADAU, .m = 4};
	struct scheme_run r;
	picard_check_result c, coarse;

	opt.t0 = hires->t0, opt.t1 = hires->t1, opt.window = 0.1;
	c = radau_run(&r, hires, opt, 4, NULL);
	scheme_run_free(&r);
	cr_log_info("hires, windows of 0.1: E %.2e (rel %.2e)", c.error, c.rel_error);
	cr_expect_lt(c.rel_error, 3e-5);

	opt.t0 = robertson->t0, opt.t1 = robertson->t1;
	opt.window = (opt.t1 - opt.t0) / 200;
	coarse = radau_run(&r, robertson, opt, 4, NULL);
	scheme_run_free(&r);
	opt.window = (opt.t1 - opt.t0) / 2000;
	c = radau_run(&r, robertson, opt, 4, NULL);
	scheme_run_free(&r);
	cr_log_info("robertson, 200 and 2000 windows: E %.2e and %.2e (rel %.2e)", coarse.error,
		    c.error, c.rel_error);
	cr_expect_lt(c.rel_error, 1e-2);
	cr_expect_lt(c.error, coarse.error / 3);
}

/* Issue 34 (2): a converged window that is no solution is not ok.
 * Robertson under the newton scheme's default windows (H = 500, Lobatto
 * IIIA, not L-stable) converged window after window while y2's transient
 * never damped, and returned x1 = -34 as ok (the truth at t = 1e5 is
 * 0.018). Now the member is implausible from window 1 (its slopes ~600
 * times its motion), its final state is the window that failed, and
 * radau's L-stable windows of the same length stay ok within 0.05 of
 * rk8pd. A blow-up's dense rows past its pole are NaN, not values of a
 * polynomial through it. */
Test(newton, a_window_that_is_no_solution_is_implausible)
{
	const picard_model *rob = test_model("robertson"), *ric = test_model("riccati");
	const picard_options newton = {.scheme = PICARD_SCHEME_NEWTON};
	const picard_options radau = {.scheme = PICARD_SCHEME_NEWTON_RADAU};
	const double times[] = {0.5, 0.9, 1.2, 1.5, 1.8};
	double ref[3];
	struct scheme_run r;

	scheme_run(&r, rob, newton, 1, rob->x0, NULL, NULL, 0);
	cr_log_info("robertson, newton: %s in window %ld, x1 = %g", picard_traj_status_name(r.status[0]),
		    r.fail_window[0], r.x_final[0]);
	cr_expect_eq(r.status[0], PICARD_TRAJ_IMPLAUSIBLE, "%s with x1 = %g",
		     picard_traj_status_name(r.status[0]), r.x_final[0]);
	cr_expect(r.fail_window[0] >= 0 && r.fail_window[0] < 10, "window %ld", r.fail_window[0]);
	scheme_run_free(&r);

	scheme_run(&r, rob, radau, 1, rob->x0, NULL, NULL, 0);
	cr_assert_eq(picard_reference(rob, NULL, rob->x0, rob->t0, &rob->t1, 1, ref), 0);
	cr_expect_eq(r.status[0], PICARD_TRAJ_OK, "%s", picard_traj_status_name(r.status[0]));
	for (int k = 0; k < 3; k++)
		cr_expect_leq(fabs(r.x_final[k] - ref[k]), 0.05, "x%d %g, rk8pd %g", k + 1,
			      r.x_final[k], ref[k]);
	scheme_run_free(&r);

	/* riccati from 1: x = 1/(1 - t), a pole at t = 1 */
	scheme_run(&r, ric, newton, 1, (double[]){1}, NULL, times, 5);
	cr_expect_neq(r.status[0], PICARD_TRAJ_OK);
	cr_expect_leq(fabs(r.dense[0] - 2) + fabs(r.dense[1] - 10), 1e-8, "%g %g", r.dense[0],
		      r.dense[1]);
	for (int j = 2; j < 5; j++)
		cr_expect(isnan(r.dense[j]), "x(%g) = %g past the pole, %s in window %ld", times[j],
			  r.dense[j], picard_traj_status_name(r.status[0]), r.fail_window[0]);
	scheme_run_free(&r);
}

/* Per-member statuses where fixed windows fall short: van der Pol members
 * with mu spread +-10% around 1000, windows of 0.1. A window that holds a
 * relaxation jump (x2 ~ mu within 1/mu) can defeat Newton's method from
 * its start (a fixed window has no shorter step to fall back on): such a
 * member is not-converged, with its window (and goes on, flagged, as
 * under every iterated scheme). A window that converges across a jump
 * to a root that is not the solution's (slopes far beyond its motion,
 * src/schemes/window_plausible.h; one member was ok at 1.4 relative before) is
 * implausible and stops the member.
 * A member that converged is logged with its error at t1, which --check
 * and --tol judge, as for every scheme. */
Test(newton, radau_reports_what_it_cannot_solve, .timeout = 240)
{
	const picard_model *vdp = test_model("vanderpol");
	const double mu = 1000;
	const long ntraj = 8;
	picard_options opt = {.scheme = PICARD_SCHEME_NEWTON_RADAU, .m = 4, .t0 = 0, .t1 = 3000,
			      .window = 0.1};
	double *x0 = malloc(ntraj * 2 * sizeof(double)), *p = malloc(ntraj * sizeof(double));
	struct scheme_run r;
	int ok = 0;

	picard_ensemble_spread(2, vdp->x0, ntraj, 0.1, 11, PICARD_BACKEND_CPU, x0);
	picard_ensemble_spread(1, &mu, ntraj, 0.1, 12, PICARD_BACKEND_CPU, p);
	scheme_run(&r, vdp, opt, ntraj, x0, p, NULL, 0);
	for (long i = 0; i < ntraj; i++) {
		picard_record at_t1 = {.times = &opt.t1, .ntimes = 1, .traj_stride = 1,
				       .states = r.x_final + i * 2};
		picard_check_result c;

		cr_log_info("van der Pol mu = %.1f: %s (window %ld)", p[i],
			    picard_traj_status_name(r.status[i]), r.fail_window[i]);
		if (r.status[i] != PICARD_TRAJ_OK) {
			cr_expect(r.status[i] == PICARD_TRAJ_NOT_CONVERGED ||
				  r.status[i] == PICARD_TRAJ_IMPLAUSIBLE, "member %ld: %s", i,
				  picard_traj_status_name(r.status[i]));
			cr_expect_geq(r.fail_window[i], 0);
			continue;
		}
		ok++;
		cr_expect_eq(r.fail_window[i], -1);
		cr_assert_eq(picard_check(vdp, &r.grid, 1, x0 + i * 2, p + i, &at_t1, &c), 0, "%s",
			     picard_error_detail());
		cr_log_info("member %ld ok: rel error %.2e at t1", i, c.rel_error);
	}
	cr_log_info("van der Pol: %d of %ld members ok", ok, ntraj);
	scheme_run_free(&r);
	free(x0), free(p);
}
