/* test_imex.c - the imex schemes (suite imex) and the linear solvers of
 * their stages (suite implicit) on the CPU backend, on the semi-linear
 * test models of imex_models.h:
 * - implicit: every solver of picard_implicit_list with a host side, on
 *   the 1D and 2D stencils (2D tridiagonal: Peaceman-Rachford ADI) and the
 *   CSR operators, against GSL's LU solve of the dense I - gamma h A;
 *   the refusals (cg on a non-symmetric operator, a tridiagonal solver on
 *   CSR, a preconditioner for a direct solver);
 * - imex: against the reference of the whole system (msbdf at 1e-14) at
 *   the schemes' orders (observed order in h ~1 and ~2), every linear
 *   solver to the same answer, steps far past the explicit stability
 *   limit, records (window ends, times) and the error estimate, and the
 *   failures: linsolve-failed with its window and message (a zero pivot,
 *   a matrix not SPD for cg, ADI not converged within linsolve_maxit),
 *   not-converged for a Lipschitz-large g in too long windows, the
 *   refusals (a model without an operator, float, backend cuda).
 * Host only (no CUDA). */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "imex_models.h"
#include "linsolve/implicit.h"
#include "picard.h"
#include "scheme.h"
#include "support.h"

#define MAX_DIM 64

static const picard_model *const stencil_and_csr[] = {
	&imex_heat1d, &imex_heat2d, &imex_ring, &imex_convection,
};
#define NMODELS (sizeof(stencil_and_csr) / sizeof(stencil_and_csr[0]))

/* ---- implicit: the stage solvers against a dense LU solve -------------- */

/* The dense M = I - gamma_h A of model at its defaults, through the
 * Jacobian with g = 0 is not available: from the rhs of unit vectors minus
 * g at zero (g(0) = 0 for the reaction models). */
static void dense_m(const picard_model *model, double gamma_h, double *m)
{
	const int n = model->dim;
	double e[MAX_DIM] = { 0 }, f[MAX_DIM];

	for (int c = 0; c < n; c++) {
		e[c] = 1;
		picard_model_rhs(model, 0, e, model->param_defaults, f);
		/* rhs(e_c) = A e_c + g(e_c), g = r u (1 - u) = 0 at u = 1 and 0 */
		for (int r = 0; r < n; r++)
			m[r * n + c] = (r == c) - gamma_h * f[r];
		e[c] = 0;
	}
}

/* max |x - ref| / scale */
static double scaled_gap(int n, const double *x, const double *ref, double scale)
{
	double gap = 0;

	for (int i = 0; i < n; i++)
		gap = fmax(gap, fabs(x[i] - ref[i]));
	return gap / scale;
}

/* max |x - ref| / max |ref| */
static double max_gap(int n, const double *x, const double *ref)
{
	double gap = 0, scale = 0;

	for (int i = 0; i < n; i++) {
		gap = fmax(gap, fabs(x[i] - ref[i]));
		scale = fmax(scale, fabs(ref[i]));
	}
	return gap / scale;
}

/* A host solver that takes a model's operator, and its preconditioner. */
struct solver_case {
	const picard_implicit_type *type;
	picard_preconditioner precond; /* each of a Krylov solver's, else AUTO */
};
#define MAX_CASES 16

/* Every host solver that takes model's operator, with each preconditioner
 * of a Krylov one, into cases; their count. */
static int solver_cases(const picard_model *model, struct solver_case *cases)
{
	int count = 0;

	for (int ti = 0; picard_implicit_list[ti]; ti++) {
		const picard_implicit_type *type = picard_implicit_list[ti];

		if (!type->setup || !(type->kinds & PICARD_OP_BIT(model->op->kind)) ||
		    (type->needs_symmetric && !model->op->symmetric))
			continue;
		for (int pc = type->krylov ? PICARD_PRECOND_NONE : PICARD_PRECOND_AUTO;
		     pc <= (type->krylov ? PICARD_PRECOND_NEUMANN : PICARD_PRECOND_AUTO); pc++)
			cases[count++] = (struct solver_case){ type, (picard_preconditioner)pc };
	}
	return count;
}

/* Every host solver that takes the model's operator, with each
 * preconditioner where it takes one, at two gamma h (mild, and 100 times
 * past the explicit limit), against LU: direct to rounding, iterative to
 * their rtol times the condition. */
Test(implicit, every_solver_matches_lu)
{
	static const double gamma_hs[] = { 1e-4, 0.05 };
	int solved = 0;

	for (size_t mi = 0; mi < NMODELS; mi++) {
		const picard_model *model = stencil_and_csr[mi];
		const int n = model->dim;
		struct solver_case cases[MAX_CASES];
		const int ncases = solver_cases(model, cases);

		for (size_t gi = 0; gi < 2; gi++) {
			double dense[MAX_DIM * MAX_DIM], r[MAX_DIM], ref[MAX_DIM], y[MAX_DIM];

			for (int i = 0; i < n; i++)
				r[i] = sin(1.0 + 3.7 * i) + 0.25;
			dense_m(model, gamma_hs[gi], dense);
			test_lu_solve(n, dense, r, ref);
			for (int ci = 0; ci < ncases; ci++) {
				const picard_implicit_type *type = cases[ci].type;
				const picard_implicit_config cfg = picard_implicit_settle(
					type, model->op, cases[ci].precond, 1e-12, 0);
				picard_implicit *s = NULL;
				picard_linsolve_code code;
				double gap;

				code = type->setup(type, model->op, model->param_defaults, gamma_hs[gi],
						   &cfg, &s);
				cr_assert_eq(code, PICARD_LINSOLVE_OK, "%s %s: setup: %s", model->name,
					     type->name, s ? s->message : "");
				memset(y, 0, sizeof(y));
				code = type->solve(s, r, y);
				cr_assert_eq(code, PICARD_LINSOLVE_OK, "%s %s: %s", model->name,
					     type->name, s->message);
				gap = max_gap(n, y, ref);
				cr_log_info("%s gamma h %g: %s/%d: gap %.2e, %d iterations", model->name,
					    gamma_hs[gi], type->name, cases[ci].precond, gap, s->iters);
				cr_expect_lt(gap, type->krylov || s->adi ? 1e-9 : 1e-13,
					     "%s gamma h %g: %s (precond %d): gap %.3e", model->name,
					     gamma_hs[gi], type->name, cases[ci].precond, gap);
				type->release(s);
				solved++;
			}
		}
	}
	/* 1D: 3 tridiagonal + cg x 3 + bicgstab x 3; 2D the same; ring: cg,
	 * bicgstab x 3 each; convection: bicgstab x 3 */
	cr_assert_eq(solved, 2 * (9 + 9 + 6 + 3));
}

/* ADI's iterations depend on the parameter cycle, not on gamma h: far
 * past the explicit limit it still converges in tens. */
Test(implicit, adi_converges_in_few_iterations_when_stiff)
{
	const picard_implicit_type *type = picard_implicit_of(PICARD_LINSOLVER_THOMAS);
	const picard_implicit_config cfg = picard_implicit_settle(type, imex_heat2d.op,
								  PICARD_PRECOND_AUTO, 1e-10, 0);
	double r[MAX_DIM], y[MAX_DIM] = { 0 };
	picard_implicit *s = NULL;

	for (int i = 0; i < imex_heat2d.dim; i++)
		r[i] = cos(0.3 * i);
	cr_assert_eq(type->setup(type, imex_heat2d.op, imex_heat2d.param_defaults, 10.0, &cfg,
				 &s), PICARD_LINSOLVE_OK);
	cr_assert_eq(type->solve(s, r, y), PICARD_LINSOLVE_OK, "%s", s->message);
	cr_log_info("adi: %d iterations, residual %.2e", s->iters, s->residual);
	cr_expect_lt(s->iters, 60, "%d iterations", s->iters);
	cr_expect_leq(s->residual, 1e-10);
	type->release(s);
}

/* What the choice refuses, and the messages that name the option. */
Test(implicit, choice_refuses_what_does_not_apply)
{
	char why[256];

	cr_assert_null(picard_implicit_choose(imex_convection.op, PICARD_LINSOLVER_CG,
					      PICARD_PRECOND_AUTO, true, why, sizeof(why)));
	cr_expect(strstr(why, "--linsolve cg") && strstr(why, "not symmetric"), "%s", why);
	cr_assert_null(picard_implicit_choose(imex_ring.op, PICARD_LINSOLVER_THOMAS,
					      PICARD_PRECOND_AUTO, true, why, sizeof(why)));
	cr_expect(strstr(why, "--linsolve thomas") && strstr(why, "CSR"), "%s", why);
	cr_assert_null(picard_implicit_choose(imex_heat1d.op, PICARD_LINSOLVER_PCR,
					      PICARD_PRECOND_JACOBI, false, why, sizeof(why)));
	cr_expect(strstr(why, "precond = jacobi") && strstr(why, "no preconditioner"), "%s", why);
	cr_assert_null(picard_implicit_choose(imex_heat1d.op, (picard_linsolver)42,
					      PICARD_PRECOND_AUTO, false, why, sizeof(why)));
	cr_expect(strstr(why, "unknown"), "%s", why);
	/* the defaults by kind */
	cr_expect_eq(picard_implicit_choose(imex_heat1d.op, 0, 0, false, why, 256)->id,
		     PICARD_LINSOLVER_THOMAS);
	cr_expect_eq(picard_implicit_choose(imex_heat2d.op, 0, 0, false, why, 256)->id,
		     PICARD_LINSOLVER_THOMAS);
	cr_expect_eq(picard_implicit_choose(imex_ring.op, 0, 0, false, why, 256)->id,
		     PICARD_LINSOLVER_CG);
	cr_expect_eq(picard_implicit_choose(imex_convection.op, 0, 0, false, why, 256)->id,
		     PICARD_LINSOLVER_BICGSTAB);
	for (int i = 0; i <= PICARD_LINSOLVER_BICGSTAB; i++)
		cr_expect_eq(picard_linsolver_parse(picard_linsolver_name(i)), i);
	cr_expect_eq(picard_linsolver_parse("gmres"), -1);
	cr_expect_eq(picard_preconditioner_parse("neumann"), PICARD_PRECOND_NEUMANN);
}

/* ---- imex: the schemes ------------------------------------------------- */

/* Solve ntraj trajectories of model from its start (params NULL: the
 * defaults) under opt on the CPU; x_final, status, fail_window out. The
 * return code of picard_solve. */
static int imex_solve(const picard_model *model, picard_options opt, long ntraj,
		      const double *params, double *x_final, picard_traj_status *status,
		      long *fail_window)
{
	picard_solver *solver;
	double *x0 = default_states(model, ntraj);
	int err;

	opt.backend = PICARD_BACKEND_CPU;
	opt.precision = PICARD_DOUBLE;
	solver = test_solver(model, &opt, ntraj);
	err = picard_solve(solver, x0, params, x_final, status, fail_window, NULL, 0, NULL);
	picard_solver_free(solver);
	free(x0);
	return err;
}

/* The reference's state of model at t1 from its start (default params). */
static void reference_end(const picard_model *model, double t1, double *out)
{
	int err = picard_reference(model, NULL, model->x0, 0, &t1, 1, out);

	cr_assert_eq(err, 0, "reference: %s", picard_error_detail());
}

/* Error at t1 of scheme with steps h (converged iteration) against the
 * reference, in the largest component. */
static double error_at(const picard_model *model, picard_scheme scheme, double h,
		       const double *ref)
{
	picard_options opt = {
		.scheme = scheme, .m = 5, .h = h, .K_max = 80, .iter_rtol = 1e-13,
		.iter_atol = 1e-13, .linsolve_rtol = 1e-13,
	};
	double x[MAX_DIM];
	picard_traj_status st;
	long fw;
	int err = imex_solve(model, opt, 1, NULL, x, &st, &fw);

	cr_assert_eq(err, 0, "%s h %g: %s", model->name, h, picard_error_detail());
	double e = 0;
	for (int k = 0; k < model->dim; k++)
		e = fmax(e, fabs(x[k] - ref[k]));
	return e;
}

/* Halving h divides the error by 2^order: observed orders 1 and 2, on
 * the 1D and 2D stencils and a CSR operator, every step past the explicit
 * limit (h 4k/dx^2 from 13 to 200). */
Test(imex, observed_order_against_reference)
{
	static const picard_model *const models[] = { &imex_heat1d, &imex_heat2d, &imex_ring };
	static const picard_scheme schemes[] = {
		PICARD_SCHEME_IMEX_EULER, PICARD_SCHEME_IMEX_SDIRK2,
	};

	for (size_t mi = 0; mi < 3; mi++) {
		const picard_model *model = models[mi];
		double ref[MAX_DIM];

		reference_end(model, model->t1, ref);
		for (int si = 0; si < 2; si++) {
			const double e1 = error_at(model, schemes[si], 0.02, ref);
			const double e2 = error_at(model, schemes[si], 0.01, ref);
			const double e3 = error_at(model, schemes[si], 0.005, ref);
			const double p1 = log2(e1 / e2), p2 = log2(e2 / e3);

			cr_log_info("%s %s: errors %.3e %.3e %.3e, orders %.3f %.3f", model->name,
				    picard_scheme_of(schemes[si])->name, e1, e2, e3, p1, p2);
			cr_expect(fabs(p2 - (si + 1)) < 0.2, "%s %s: observed order %.3f, want %d",
				  model->name, picard_scheme_of(schemes[si])->name, p2, si + 1);
			cr_expect_lt(e3, si ? 1e-4 : 1e-2, "%s: error %g", model->name, e3);
		}
	}
}

/* model solved under opt by every solver case that takes its operator:
 * each x_final within tol (max_gap) of the first's, which goes into
 * first; the number of cases. */
static int solvers_agree(const picard_model *model, picard_options opt, double tol,
			 double *first)
{
	struct solver_case cases[MAX_CASES];
	const int ncases = solver_cases(model, cases);
	double *x = malloc(sizeof(double) * model->dim);

	for (int ci = 0; ci < ncases; ci++) {
		picard_traj_status st;
		long fw;
		int err;

		opt.linsolve = cases[ci].type->id;
		opt.precond = cases[ci].precond;
		err = imex_solve(model, opt, 1, NULL, ci ? x : first, &st, &fw);
		cr_assert_eq(err, 0, "%s %s/%d: %s", model->name, cases[ci].type->name,
			     cases[ci].precond, picard_error_detail());
		if (ci > 0)
			cr_expect_lt(max_gap(model->dim, x, first), tol, "%s: %s/%d: %.3e",
				     model->name, cases[ci].type->name, cases[ci].precond,
				     max_gap(model->dim, x, first));
	}
	free(x);
	return ncases;
}

/* Every linear solver (and preconditioner) gives the same trajectory to
 * its tolerance, on each kind of operator. */
Test(imex, every_linear_solver_gives_the_same_answer)
{
	const picard_options opt = {
		.scheme = PICARD_SCHEME_IMEX_SDIRK2, .m = 5, .h = 0.02, .iter_rtol = 1e-12,
		.linsolve_rtol = 1e-12,
	};

	for (size_t mi = 0; mi < NMODELS; mi++) {
		const picard_model *model = stencil_and_csr[mi];
		double first[MAX_DIM];
		const int runs = solvers_agree(model, opt, 1e-9, first);

		cr_log_info("%s: %d solvers agree", model->name, runs);
		cr_expect_geq(runs, model->op->symmetric ? 6 : 3);
	}
}

/* h 4k/dx^2 = 300 (k at its largest 1.5, dx 1/32, h 0.05) and 3000 (k
 * ten times that): the schemes stay stable and accurate, their errors
 * those of their order at h (observed_order's at h = 0.02 times (2.5)^p),
 * in windows H = 0.2 (H x Lipschitz(g) = 0.2); the explicit Picard
 * iteration on the same grid fails. */
Test(imex, stable_far_past_the_explicit_limit)
{
	const picard_model *model = &imex_heat1d;
	static const double ks[2] = { 1, 10 };
	double ref[MAX_DIM], x[MAX_DIM];
	picard_traj_status st;
	long fw;
	int err;

	for (int ki = 0; ki < 2; ki++) {
		const double params[3] = { ks[ki], 1, 1 };

		cr_assert_eq(picard_reference(model, params, model->x0, 0, &model->t1, 1, ref), 0);
		for (int si = 0; si < 2; si++) {
			const picard_options opt = {
				.scheme = si ? PICARD_SCHEME_IMEX_SDIRK2 : PICARD_SCHEME_IMEX_EULER,
				.m = 5, .h = 0.05,
			};
			double gap;

			err = imex_solve(model, opt, 1, params, x, &st, &fw);
			cr_assert_eq(err, 0, "%s", picard_error_detail());
			gap = scaled_gap(model->dim, x, ref, 0.8);
			cr_log_info("k %g, %s at h 0.05: error %.3e of the start", ks[ki],
				    picard_scheme_of(opt.scheme)->name, gap);
			cr_expect_lt(gap, si ? 1e-3 : 2e-2, "k %g: %.3e", ks[ki], gap);
		}
	}
	/* the trapezoid: the same grid, K_max sweeps */
	const picard_options trap = { .scheme = PICARD_SCHEME_TRAPEZOID, .m = 5, .h = 0.05,
				      .K_max = 40, .precision = PICARD_DOUBLE,
				      .backend = PICARD_BACKEND_CPU };
	picard_solver *solver = test_solver(model, &trap, 1);
	err = picard_solve(solver, model->x0, NULL, x, &st, &fw, NULL, 0, NULL);
	picard_solver_free(solver);
	cr_log_info("trapezoid at h 0.05: %s", picard_traj_status_name(st));
	cr_expect_neq(st, PICARD_TRAJ_OK);
}

/* Window-end records and dense output at times match the reference (the
 * linear interpolation between steps, order 2), and the window ends are
 * the x_final of a solve ending there. */
Test(imex, records_and_dense_output)
{
	const picard_model *model = &imex_heat1d;
	const picard_options opt = {
		.scheme = PICARD_SCHEME_IMEX_SDIRK2, .m = 5, .h = 0.01, .iter_rtol = 1e-12,
		.precision = PICARD_DOUBLE, .backend = PICARD_BACKEND_CPU,
	};
	picard_solver *solver = test_solver(model, &opt, 2);
	const picard_grid *g = picard_solver_grid(solver);
	const long windows = g->windows;
	double times[3] = { 0.013, 0.2, 0.333 }, ref[3 * MAX_DIM];
	double *ends = malloc(sizeof(double) * windows * 2 * model->dim);
	double dense[3 * 2 * MAX_DIM], x_final[2 * MAX_DIM];
	double *x0 = default_states(model, 2);
	picard_record recs[2] = {
		{ .every = 1, .traj_stride = 1, .states = ends },
		{ .traj_stride = 2, .states = dense, .times = times, .ntimes = 3 },
	};
	int err;

	err = picard_solve(solver, x0, NULL, x_final, NULL, NULL, recs, 2, NULL);
	cr_assert_eq(err, 0, "%s", picard_error_detail());
	cr_expect_eq(memcmp(ends + (windows - 1) * 2 * model->dim, x_final,
			    sizeof(double) * 2 * model->dim), 0);
	cr_assert_eq(picard_reference(model, NULL, model->x0, 0, times, 3, ref), 0);
	/* between steps: linear interpolation, h^2/8 |u''| with u'' ~ (pi^2
	 * k)^2 u of the slowest mode: ~2e-3 of the start at h = 0.01 */
	for (int r = 0; r < 3; r++) {
		double gap = scaled_gap(model->dim, dense + r * model->dim, ref + r * model->dim, 0.8);

		cr_log_info("t %g: gap %.3e", times[r], gap);
		cr_expect_lt(gap, 3e-3, "t %g: %.3e", times[r], gap);
	}
	/* a window end in the middle, against the reference: the scheme's
	 * own error (observed_order: 2e-5 at h = 0.01 at t1, where the
	 * solution has decayed further) */
	double tw = g->t0 + (windows / 2) * (g->m - 1) * g->h, gap;
	cr_assert_eq(picard_reference(model, NULL, model->x0, 0, &tw, 1, ref), 0);
	gap = scaled_gap(model->dim, ends + (windows / 2 - 1) * 2 * model->dim, ref, 0.8);
	cr_log_info("t %g (a window end): gap %.3e", tw, gap);
	cr_expect_lt(gap, 3e-4);
	picard_solver_free(solver);
	free(ends);
	free(x0);
}

/* The error estimate (a companion at h/2) is within a small factor of the
 * true error, for both orders. */
Test(imex, error_estimate_tracks_the_error)
{
	const picard_model *model = &imex_heat1d;
	static const picard_scheme schemes[] = {
		PICARD_SCHEME_IMEX_EULER, PICARD_SCHEME_IMEX_SDIRK2,
	};
	double ref[MAX_DIM];

	reference_end(model, model->t1, ref);
	for (int si = 0; si < 2; si++) {
		const picard_options opt = {
			.scheme = schemes[si], .m = 5, .h = 0.02, .iter_rtol = 1e-12,
			.precision = PICARD_DOUBLE, .backend = PICARD_BACKEND_CPU,
			.estimate_error = true,
		};
		picard_solver *solver = test_solver(model, &opt, 1);
		double x[MAX_DIM], true_error;
		const double *est;
		int err = picard_solve(solver, model->x0, NULL, x, NULL, NULL, NULL, 0, NULL);

		cr_assert_eq(err, 0, "%s", picard_error_detail());
		est = picard_solver_error_estimates(solver);
		cr_assert_not_null(est);
		true_error = 0;
		for (int k = 0; k < model->dim; k++)
			true_error = fmax(true_error, fabs(x[k] - ref[k]));
		cr_log_info("%s: estimate %.3e, error at t1 %.3e", picard_scheme_of(schemes[si])->name,
			    est[0], true_error);
		/* the estimate covers every window end; the error at t1 is one */
		cr_expect(est[0] >= 0.5 * true_error && est[0] < 20 * true_error,
			  "estimate %.3e, error %.3e", est[0], true_error);
		picard_solver_free(solver);
	}
}

/* Thomas's zero pivot (k = -1: I - h A = [[0, 1/2], [1/2, 0]]) ends its
 * trajectory with linsolve-failed in window 0 and the solver's message;
 * the ensemble's other member (k = 0.1) is solved. */
Test(imex, zero_pivot_is_linsolve_failed)
{
	const picard_options opt = {
		.scheme = PICARD_SCHEME_IMEX_EULER, .m = 3, .h = 0.5, .K = 1,
	};
	const double params[3] = { 0.1, -1, 0.1 };
	double x[3 * 2];
	picard_traj_status st[3];
	long fw[3];
	int err = imex_solve(&imex_tiny, opt, 3, params, x, st, fw);
	const char *detail = picard_error_detail();

	cr_log_info("detail: %s", detail);
	cr_assert_eq(err, PICARD_EFAILED);
	cr_expect_eq(st[0], PICARD_TRAJ_OK);
	cr_expect_eq(st[2], PICARD_TRAJ_OK);
	cr_expect_eq(st[1], PICARD_TRAJ_LINSOLVE_FAILED, "%s", picard_traj_status_name(st[1]));
	cr_expect_eq(fw[1], 0);
	cr_expect(isnan(x[2]) && isnan(x[3]));
	cr_expect(strstr(detail, "trajectory 1") && strstr(detail, "window 0") &&
		  strstr(detail, "zero pivot"), "%s", detail);
	cr_expect_str_eq(picard_traj_status_name(PICARD_TRAJ_LINSOLVE_FAILED), "linsolve-failed");
}

/* One trajectory of model under opt (params NULL: the defaults) ends
 * linsolve-failed in window 0, and the detail of the solve holds both
 * words. */
static void expect_linsolve_failed(const picard_model *model, picard_options opt,
				   const double *params, const char *word1, const char *word2)
{
	double x[MAX_DIM];
	picard_traj_status st;
	long fw;
	int err = imex_solve(model, opt, 1, params, x, &st, &fw);
	const char *detail = picard_error_detail();

	cr_log_info("detail: %s", detail);
	cr_assert_eq(err, PICARD_EFAILED);
	cr_expect_eq(st, PICARD_TRAJ_LINSOLVE_FAILED, "%s", picard_traj_status_name(st));
	cr_expect_eq(fw, 0);
	cr_expect(strstr(detail, word1) && strstr(detail, word2), "%s", detail);
}

/* cg on a symmetric matrix that is not positive definite (k = -4):
 * linsolve-failed, the message CG's. */
Test(imex, not_spd_for_cg_is_linsolve_failed)
{
	const picard_options opt = {
		.scheme = PICARD_SCHEME_IMEX_EULER, .m = 3, .h = 0.5, .K = 1,
		.linsolve = PICARD_LINSOLVER_CG,
	};
	const double params[1] = { -4 };

	expect_linsolve_failed(&imex_tiny, opt, params, "cg:", "not symmetric positive definite");
}

/* ADI given one iteration at a tight rtol cannot converge: linsolve-failed
 * naming ADI and the limit. */
Test(imex, adi_not_converged_is_linsolve_failed)
{
	const picard_options opt = {
		.scheme = PICARD_SCHEME_IMEX_SDIRK2, .m = 5, .h = 0.02,
		.linsolve = PICARD_LINSOLVER_PCR, .linsolve_rtol = 1e-13, .linsolve_maxit = 1,
	};

	expect_linsolve_failed(&imex_heat2d, opt, NULL, "adi over pcr", "not converged");
}

/* A linear g with Lipschitz constant r = 40 in windows of H = 0.8 (H r =
 * 32, h r = 8): the sweeps do not converge, adaptive or fixed K, and the
 * window is reported; the same model in short windows converges. */
Test(imex, lipschitz_large_g_in_long_windows_is_not_converged)
{
	const double params[3] = { 0.05, 40, 0 };
	picard_options opt = {
		.scheme = PICARD_SCHEME_IMEX_EULER, .m = 5, .h = 0.2, .K_max = 12, .t1 = 0.8,
		.bound = 1e300,
	};
	double x[MAX_DIM];
	picard_traj_status st;
	long fw;
	int err;

	opt.t0 = 0;
	err = imex_solve(&imex_heat1d, opt, 1, params, x, &st, &fw);
	cr_expect_eq(err, PICARD_EFAILED);
	cr_expect_eq(st, PICARD_TRAJ_NOT_CONVERGED, "%s", picard_traj_status_name(st));
	cr_expect_eq(fw, 0);
	opt.K_max = 0;
	opt.K = 6;
	err = imex_solve(&imex_heat1d, opt, 1, params, x, &st, &fw);
	cr_expect_eq(st, PICARD_TRAJ_NOT_CONVERGED, "fixed K: %s", picard_traj_status_name(st));
	opt = (picard_options){ .scheme = PICARD_SCHEME_IMEX_EULER, .m = 5, .h = 0.002,
				.t1 = 0.8, .bound = 1e300 };
	err = imex_solve(&imex_heat1d, opt, 1, params, x, &st, &fw);
	cr_expect_eq(err, 0, "short windows: %s", picard_error_detail());
}

/* What the schemes refuse, with the message that names it. */
Test(imex, refusals_name_the_option)
{
	static const struct {
		const picard_model *model;
		picard_options opt;
		const char *says;
	} cases[] = {
		{ &imex_convection, { .scheme = PICARD_SCHEME_IMEX_EULER, .linsolve = PICARD_LINSOLVER_CG,
				      .precision = PICARD_DOUBLE }, "not symmetric" },
		{ &imex_ring, { .scheme = PICARD_SCHEME_IMEX_EULER, .linsolve = PICARD_LINSOLVER_THOMAS,
				.precision = PICARD_DOUBLE }, "CSR" },
		{ &imex_heat1d, { .scheme = PICARD_SCHEME_IMEX_SDIRK2, .precision = PICARD_FLOAT },
		  "runs in double" },
		{ &imex_heat1d, { .scheme = PICARD_SCHEME_IMEX_SDIRK2, .precision = PICARD_DOUBLE,
				  .linsolve = PICARD_LINSOLVER_CUSPARSE }, "CUDA backend" },
		{ &imex_heat1d, { .scheme = PICARD_SCHEME_TRAPEZOID, .linsolve = PICARD_LINSOLVER_CG },
		  "solves no linear systems" },
		{ &imex_heat1d, { .scheme = PICARD_SCHEME_IMEX_EULER, .precision = PICARD_DOUBLE,
				  .linsolve_rtol = -1 }, "linsolve_rtol" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		picard_solver *solver = NULL;
		int err = picard_solver_create(&solver, cases[i].model, &cases[i].opt, 1);

		cr_expect_eq(err, PICARD_EINVAL, "case %zu: %d", i, err);
		cr_expect(strstr(picard_error_detail(), cases[i].says), "case %zu: %s", i,
			  picard_error_detail());
		picard_solver_free(solver);
	}
	/* a model without an operator */
	picard_options opt = { .scheme = PICARD_SCHEME_IMEX_EULER, .precision = PICARD_DOUBLE };
	picard_solver *solver = NULL;
	int err = picard_solver_create(&solver, test_model("lotka"), &opt, 1);

	cr_expect_eq(err, PICARD_EINVAL);
	cr_expect_str_eq(picard_error_detail(), "model lotka declares no linear operator (op): the "
			 "imex schemes need x' = A x + g");
}

/* Backend AUTO runs a model without kernel text (built in C) on the CPU. */
Test(imex, backend_auto_runs_on_the_cpu)
{
	const picard_options opt = { .scheme = PICARD_SCHEME_IMEX_EULER, .precision = PICARD_DOUBLE };
	picard_solver *solver = test_solver(&imex_heat1d, &opt, 1);
	picard_stats stats;
	double x[MAX_DIM];

	cr_assert_eq(picard_solve(solver, imex_heat1d.x0, NULL, x, NULL, NULL, NULL, 0, &stats), 0,
		     "%s", picard_error_detail());
	cr_expect_eq(stats.backend, PICARD_BACKEND_CPU);
	cr_expect_eq(picard_solver_grid(solver)->linsolve, PICARD_LINSOLVER_THOMAS);
	picard_solver_free(solver);
}

/* --warm-start (each window's first sweep from the previous window's
 * increments) reaches the same answer in fewer sweeps; the statistics
 * count g's evaluations, s per step. */
Test(imex, warm_start_same_answer_fewer_sweeps)
{
	picard_options opt = {
		.scheme = PICARD_SCHEME_IMEX_SDIRK2, .m = 5, .h = 0.01, .iter_rtol = 1e-12,
		.precision = PICARD_DOUBLE, .backend = PICARD_BACKEND_CPU,
	};
	double x[2][MAX_DIM];
	double sweeps[2];

	for (int warm = 0; warm < 2; warm++) {
		picard_solver *solver;
		picard_stats stats;

		opt.warm_start = warm;
		solver = test_solver(&imex_heat1d, &opt, 1);
		cr_assert_eq(picard_solve(solver, imex_heat1d.x0, NULL, x[warm], NULL, NULL, NULL, 0,
					  &stats), 0, "%s", picard_error_detail());
		sweeps[warm] = stats.sweeps_mean;
		/* g at each of the 2 stages of the m - 1 = 4 steps, once a sweep */
		cr_expect_float_eq(stats.rhs_evals, stats.sweeps_mean * stats.windows * 4 * 2,
				   1e-9 * stats.rhs_evals, "%g evaluations, %g sweeps of %ld windows",
				   stats.rhs_evals, stats.sweeps_mean, stats.windows);
		picard_solver_free(solver);
	}
	cr_log_info("sweeps per window: %.2f cold, %.2f warm", sweeps[0], sweeps[1]);
	cr_expect_lt(sweeps[1], sweeps[0]);
	cr_expect_lt(max_gap(imex_heat1d.dim, x[1], x[0]), 1e-10);
}

/* The shipped semi-linear models (heat1d, heat2d, filtration: 1D and 2D
 * stencils and a CSR matrix): every linear solver that takes the model's
 * operator, each preconditioner of the Krylov ones, gives one answer over
 * [0, 0.2], and that answer is near the manufactured solution (within the
 * grid's spatial error, which the models' own tests measure). */
Test(imex, shipped_models_every_solver_agrees, .timeout = 120)
{
	static const char *const names[] = { "heat1d", "heat2d", "filtration" };
	const picard_options opt = {
		.scheme = PICARD_SCHEME_IMEX_SDIRK2, .m = 5, .h = 0.01, .t0 = 0, .t1 = 0.2,
		.iter_rtol = 1e-12, .linsolve_rtol = 1e-12,
	};

	for (int mi = 0; mi < 3; mi++) {
		const picard_model *model = test_model(names[mi]);
		const int n = model->dim;
		double *first = malloc(sizeof(double) * n), *exact = malloc(sizeof(double) * n);
		int runs;

		cr_assert_not_null(model->op, "%s declares no operator", names[mi]);
		runs = solvers_agree(model, opt, 1e-8, first);
		model->exact(0.2, 0, model->x0, model->param_defaults, exact);
		cr_log_info("%s: %d solvers agree; %.3e from the manufactured solution", model->name,
			    runs, max_gap(n, first, exact));
		cr_expect_geq(runs, model->op->kind == PICARD_OP_CSR ? 6 : 9);
		cr_expect_lt(max_gap(n, first, exact), 1e-2, "%s", model->name);
		free(first);
		free(exact);
	}
}
