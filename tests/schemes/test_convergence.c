/* test_convergence.c - the per-window convergence test, adaptive K and the
 * per-trajectory status, on the CPU backend (the GPU runs the same decision,
 * src/schemes/convergence.h, and tests/backend/test_gpu.c compares the two). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "convergence.h"
#include "model_grid.h"
#include "picard.h"

#define NTRAJ 64

/* One solve's results. */
struct outcome {
	double *x_final;            /* NTRAJ*dim */
	picard_traj_status *status; /* NTRAJ */
	long *fail_window;          /* NTRAJ */
	picard_stats stats;         /* sweeps, evaluations */
	int err;                    /* what picard_solve returned */
};

static void solve_with(const picard_model *model, picard_options opt,
		       const double *x0, const double *params, struct outcome *out)
{
	picard_solver *s = NULL;
	int err;

	opt.backend = PICARD_BACKEND_CPU;
	err = picard_solver_create(&s, model, &opt, NTRAJ);
	cr_assert_eq(err, 0, "create: %s: %s", picard_strerror(err), picard_error_detail());
	out->x_final = malloc(NTRAJ * model->dim * sizeof(double));
	out->status = malloc(NTRAJ * sizeof(*out->status));
	out->fail_window = malloc(NTRAJ * sizeof(long));
	out->err = picard_solve(s, x0, params, out->x_final, out->status, out->fail_window,
				NULL, 0, &out->stats);
	picard_solver_free(s);
}

static void solve(const picard_model *model, picard_options opt,
		  const double *x0, struct outcome *out)
{
	solve_with(model, opt, x0, NULL, out);
}

static void outcome_free(struct outcome *out)
{
	free(out->x_final);
	free(out->status);
	free(out->fail_window);
}

static double *ensemble(const picard_model *model, double spread)
{
	double *x0 = malloc(NTRAJ * model->dim * sizeof(double));
	int err = picard_ensemble_spread(model->dim, model->x0, NTRAJ, spread, 7,
					 PICARD_BACKEND_CPU, x0);

	cr_assert_eq(err, 0, "ensemble: %s", picard_error_detail());
	return x0;
}

/* Adaptive K converges to what many fixed sweeps give, with fewer sweeps
 * on average, for every model at a grid inside its convergence region. */
Test(convergence, adaptive_matches_many_sweeps)
{
	for (int i = 0; i < picard_model_count(); i++) {
		const picard_model *model = picard_model_at(i);
		const double h = model_h(model, 0.25), t1 = model_t1(model, 8, h, 400);
		picard_options many = { .m = 8, .K = 40, .h = h, .t0 = model->t0, .t1 = t1,
					.precision = PICARD_DOUBLE };
		picard_options adaptive = { .m = 8, .K_max = 40, .h = h, .t0 = model->t0, .t1 = t1,
					    .precision = PICARD_DOUBLE, .iter_rtol = 1e-10 };
		double *x0 = ensemble(model, 0.1), worst = 0;
		struct outcome a, b;

		if (stiff_or_events_left_out(model, "convergence/adaptive_matches_many_sweeps")) {
			free(x0);
			continue;
		}
		solve(model, many, x0, &a);
		solve(model, adaptive, x0, &b);
		cr_assert_eq(a.err, 0, "%s: fixed K=40 failed at h = %g (the model's default_h "
			     "scaled by 4.2): is default_h too large for it?", model->name, h);
		cr_assert_eq(b.err, 0, "%s: adaptive failed", model->name);
		/* norm-wise per trajectory: kepler's components pass through 0 */
		for (int t = 0; t < NTRAJ; t++) {
			double diff = 0, scale = 1e-10;

			for (int k = 0; k < model->dim; k++) {
				diff = fmax(diff, fabs(a.x_final[t * model->dim + k] -
						       b.x_final[t * model->dim + k]));
				scale = fmax(scale, fabs(a.x_final[t * model->dim + k]));
			}
			worst = fmax(worst, diff / scale);
		}
		cr_log_info("%s: adaptive %.2f sweeps/window (max %d), rel. diff %.1e",
			    model->name, b.stats.sweeps_mean, b.stats.sweeps_max, worst);
		cr_expect_lt(worst, 1e-7, "%s: adaptive and K=40 differ by %.1e", model->name, worst);
		cr_expect_lt(b.stats.sweeps_mean, 20, "%s: %.1f sweeps per window", model->name,
			     b.stats.sweeps_mean);
		cr_expect_eq(a.stats.sweeps_mean, 40, "fixed K must sweep K times");
		cr_expect_float_eq(b.stats.rhs_evals,
				   b.stats.sweeps_mean * 8 * NTRAJ * b.stats.windows,
				   1e-12 * b.stats.rhs_evals, "%s: evaluations = sweeps * m",
				   model->name);
		outcome_free(&a);
		outcome_free(&b);
		free(x0);
	}
}

/* lotka far past the convergence boundary of K = 2 (m = 16, h = 0.5) is
 * flagged; adaptive K converges there with more sweeps, and what it reports
 * as converged is accurate. */
Test(convergence, past_the_boundary)
{
	const picard_model *lotka = picard_model_find("lotka");
	picard_options fixed = { .m = 16, .K = 2, .h = 0.5 };
	picard_options adaptive = { .m = 16, .K_max = 30, .h = 0.5 };
	double *x0 = ensemble(lotka, 0.1);
	struct outcome a, b;
	double xr[2], E = 0;

	solve(lotka, fixed, x0, &a);
	cr_expect_eq(a.err, PICARD_EFAILED, "K=2 past h* must be flagged");
	for (int i = 0; i < NTRAJ; i++)
		cr_expect_neq(a.status[i], PICARD_TRAJ_OK, "trajectory %d reported fine", i);
	solve(lotka, adaptive, x0, &b);
	cr_assert_eq(b.err, 0, "adaptive: %s", picard_error_detail());
	cr_expect_gt(b.stats.sweeps_mean, 2, "adaptive needs more sweeps here");
	for (int i = 0; i < NTRAJ; i++) {
		double t1 = lotka->t1;
		cr_assert_eq(picard_reference(lotka, NULL, x0 + 2 * i, lotka->t0, &t1, 1, xr), 0);
		E = fmax(E, fmax(fabs(xr[0] - b.x_final[2 * i]), fabs(xr[1] - b.x_final[2 * i + 1])));
	}
	cr_log_info("adaptive past h*: %.2f sweeps/window, E(t1) = %.2e", b.stats.sweeps_mean, E);
	/* the trapezoid converged on this grid is within its order-2 error of
	 * the reference: E measured 1.3e-2 on states of 30 to 50 (relative
	 * 3e-4); a window called converged that is not shows far more (0.5
	 * was allowed here) */
	cr_expect_lt(E, 0.05, "converged windows must be accurate: E(t1) = %.3g", E);
	outcome_free(&a);
	outcome_free(&b);
	free(x0);
}

/* An adaptive window that cannot converge within K_max is flagged with the
 * first such window, and the trajectory goes on. */
Test(convergence, not_converged_within_k_max)
{
	const picard_model *decay = picard_model_find("decay");
	picard_options opt = { .m = 8, .K_max = 2, .h = 0.01, .precision = PICARD_DOUBLE,
			       .iter_rtol = 1e-14 };
	double *x0 = ensemble(decay, 0.1);
	struct outcome a;

	solve(decay, opt, x0, &a);
	cr_expect_eq(a.err, PICARD_EFAILED);
	for (int i = 0; i < NTRAJ; i++) {
		cr_expect_eq(a.status[i], PICARD_TRAJ_NOT_CONVERGED, "trajectory %d", i);
		cr_expect_eq(a.fail_window[i], 0, "first window that did not converge");
		cr_expect(isfinite(a.x_final[i]), "the trajectory went on to the end");
	}
	cr_expect_eq(a.stats.sweeps_max, 2);
	outcome_free(&a);
	free(x0);
}

/* dx/dt = x^2 blows up at t = 1/x0: trajectories from x0 = 1 on [0, 2] are
 * reported as failed (non-finite or diverged), those from small x0 in the
 * same ensemble succeed and match the exact solution. */
Test(convergence, blow_up_reported)
{
	const picard_model *ric = picard_model_find("riccati");
	picard_options opt = { .m = 8, .K_max = 30, .h = 0.001, .t0 = 0, .t1 = 2,
			       .precision = PICARD_DOUBLE, .bound = 1e8 };
	double x0[NTRAJ], exact;
	struct outcome a;

	for (int i = 0; i < NTRAJ; i++)
		x0[i] = i % 4 == 0 ? 1 : 0.05 + 0.002 * i;
	solve(ric, opt, x0, &a);
	cr_expect_eq(a.err, PICARD_EFAILED);
	for (int i = 0; i < NTRAJ; i++) {
		if (i % 4 == 0) {
			cr_expect(a.status[i] == PICARD_TRAJ_NONFINITE ||
				  a.status[i] == PICARD_TRAJ_DIVERGED ||
				  a.status[i] == PICARD_TRAJ_NOT_CONVERGED,
				  "trajectory %d from x0 = 1 reported as %d", i, a.status[i]);
			continue;
		}
		ric->exact(2, 0, &x0[i], ric->param_defaults, &exact);
		cr_expect_eq(a.status[i], PICARD_TRAJ_OK, "trajectory %d (x0 = %g)", i, x0[i]);
		cr_expect_lt(fabs(a.x_final[i] - exact), 1e-5 * fabs(exact),
			     "trajectory %d: %g vs exact %g", i, a.x_final[i], exact);
	}
	outcome_free(&a);
}

/* vanderpol made stiff (mu = 1000) at its default grid: the Picard
 * iteration cannot converge there (the window is far longer than 1/mu), and
 * every such trajectory must be flagged, with fixed K as with adaptive K;
 * the trajectories with mu = 1 in the same ensemble stay OK. */
Test(convergence, stiff_vanderpol_flagged)
{
	const picard_model *vdp = picard_model_find("vanderpol");
	const picard_options fixed = { .m = 8, .K = 2, .h = vdp->default_h };
	const picard_options adaptive = { .m = 8, .K_max = 30, .h = vdp->default_h };
	const picard_options *opts[] = { &fixed, &adaptive };
	double *x0 = ensemble(vdp, 0.1), mu[NTRAJ];

	cr_assert_not_null(vdp);
	for (int i = 0; i < NTRAJ; i++)
		mu[i] = i % 2 ? 1000 : 1;
	for (int o = 0; o < 2; o++) {
		struct outcome out;

		solve_with(vdp, *opts[o], x0, mu, &out);
		cr_expect_eq(out.err, PICARD_EFAILED, "stiff trajectories must be flagged");
		for (int i = 0; i < NTRAJ; i++)
			if (i % 2)
				cr_expect_neq(out.status[i], PICARD_TRAJ_OK,
					      "%s: mu = 1000, trajectory %d reported fine",
					      o ? "adaptive" : "fixed K", i);
			else
				cr_expect_eq(out.status[i], PICARD_TRAJ_OK,
					     "%s: mu = 1, trajectory %d status %d",
					     o ? "adaptive" : "fixed K", i, (int)out.status[i]);
		outcome_free(&out);
	}
	free(x0);
}

/* Windows in flight: an adaptive front counts as within only when its
 * window's sweep before was within too; a fixed K, or K = 1, judges the
 * sweep alone (src/schemes/convergence.h, picard_front_within). */
Test(convergence, front_within_needs_two_in_a_row)
{
	for (int within = 0; within < 2; within++)
		for (int before = 0; before < 2; before++) {
			cr_expect_eq(picard_front_within(60, true, within, before), within && before,
				     "adaptive, within %d, before %d", within, before);
			cr_expect_eq(picard_front_within(6, false, within, before), within,
				     "fixed K, within %d, before %d", within, before);
			cr_expect_eq(picard_front_within(1, true, within, before), within,
				     "K_max 1, within %d, before %d", within, before);
		}
}
