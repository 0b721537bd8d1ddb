/* test_imex_gpu.c - the imex schemes on the CUDA backend (src/schemes/imex/)
 * against the CPU backend (src/schemes/imex/cpu_imex.c), suite imex_gpu: every model
 * with a linear operator, each imex scheme, each GPU linear solver that
 * applies to the operator (a stencil's: thomas, checkerboard, pcr,
 * cusparse, the CPU running cusparse's systems by thomas; any operator's:
 * cg where it is symmetric, bicgstab, each with the Jacobi and the
 * Neumann preconditioner), fixed and adaptive sweeps, warm start; the states at every window end, at times
 * inside windows and at t1, the statuses and the sweeps. Then the
 * failures: a linear solve that fails (ADI held to one iteration), a
 * trajectory past the bound, each in the same window on both backends.
 * Skips without a device, fails under PICARD_REQUIRE_GPU=1 (require_gpu);
 * CUDA is touched only inside test bodies.
 *
 * Tolerance. The backends run the same equations in the same order; they
 * part by rounding: nvcc's fused multiply-adds in g, the right-hand sides
 * and the bands (the CPU build has none), the tridiagonal algorithm
 * (checkerboard, PCR and cuSPARSE against Thomas: within 1.1e-15 per
 * solve, bench/results/h100-2026-11-25-tridiag), the order of ADI's
 * residual sums (atomic on the GPU) and the Krylov solvers' reductions
 * (src/linsolve/gpu/krylov/: the same recurrences, their iteration counts within
 * a few of the host's). Every step is a contraction (I -
 * gamma h A)^-1 with A's spectrum <= 0, so rounding does not grow; what
 * can differ by more is where a test sits on its threshold and one
 * backend takes one more sweep (or ADI or Krylov iteration) than the
 * other: a change below iter_rtol = 1e-12 (linsolve_rtol = 1e-13). TOL = 1e-9,
 * relative to the state's largest component, leaves 1000x above that and
 * stays far below a real bug (a wrong stage, index or coefficient moves
 * the states at 1e-3 or more). */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_grid.h"
#include "picard.h"
#include "scheme.h"
#include "support.h"
#include "linsolve/implicit.h"
#include "tridiag/tridiag.h"

#define NTRAJ 37        /* not a multiple of a warp */
#define MAX_WINDOWS 12  /* the span cut to this */
#define NTIMES 5        /* dense output's times */
#define TOL 1e-9        /* GPU vs CPU, relative (above) */
#define SPREAD_PARAMS 0.1

/* One solve's results. */
struct imex_out {
	int err;
	picard_grid grid;
	double *x_final;
	picard_traj_status *status;
	long *fail_window;
	picard_record ends, at_times;
	size_t ends_len, times_len;
	double times[NTIMES];
	picard_stats stats;
	char detail[512];
};

static void *xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size);

	cr_assert_not_null(p, "out of host memory");
	return p;
}

static void solve(const picard_model *model, const picard_options *opt, const double *x0,
		  const double *params, struct imex_out *out)
{
	picard_solver *solver = NULL;
	int err = picard_solver_create(&solver, model, opt, NTRAJ);

	memset(out, 0, sizeof(*out));
	cr_assert_eq(err, PICARD_OK, "%s on backend %d: refused: %s (%s)", model->name,
		     (int)opt->backend, picard_strerror(err), picard_error_detail());
	out->grid = *picard_solver_grid(solver);
	out->x_final = xcalloc(NTRAJ * model->dim, sizeof(double));
	out->status = xcalloc(NTRAJ, sizeof(*out->status));
	out->fail_window = xcalloc(NTRAJ, sizeof(long));
	for (int i = 0; i < NTIMES; i++)
		out->times[i] = out->grid.t0 + (out->grid.t1 - out->grid.t0) * (i + 0.37) / NTIMES;
	out->ends = (picard_record){ .every = 1, .traj_stride = 1 };
	out->at_times = (picard_record){ .traj_stride = 3, .times = out->times, .ntimes = NTIMES };
	out->ends_len = picard_record_size(solver, &out->ends);
	out->times_len = picard_record_size(solver, &out->at_times);
	out->ends.states = xcalloc(out->ends_len, sizeof(double));
	out->at_times.states = xcalloc(out->times_len, sizeof(double));
	picard_record records[2] = { out->ends, out->at_times };
	out->err = picard_solve(solver, x0, params, out->x_final, out->status, out->fail_window,
				records, 2, &out->stats);
	snprintf(out->detail, sizeof(out->detail), "%s", picard_error_detail());
	picard_solver_free(solver);
}

static void out_free(struct imex_out *out)
{
	free(out->x_final), free(out->status), free(out->fail_window);
	free(out->ends.states), free(out->at_times.states);
}

/* max |a - b| / max |b| over count states of n (NaN in both: equal). */
static double max_diff(const double *a, const double *b, size_t count, int n)
{
	double worst = 0;

	for (size_t i = 0; i < count; i++) {
		double diff = 0, scale = 0;

		for (int k = 0; k < n; k++) {
			const double x = a[i * n + k], y = b[i * n + k];

			if (isnan(x) && isnan(y))
				continue;
			if (!isfinite(x) || !isfinite(y))
				return INFINITY;
			diff = fmax(diff, fabs(x - y));
			scale = fmax(scale, fabs(y));
		}
		worst = fmax(worst, diff / fmax(scale, DBL_MIN));
	}
	return worst;
}

/* Members' parameters spread +-10% around the defaults, starts the
 * model's. */
static void make_ensemble(const picard_model *model, double **x0, double **params)
{
	*x0 = default_states(model, NTRAJ);
	*params = NULL;
	if (!model->nparams)
		return;
	*params = xcalloc(NTRAJ * model->nparams, sizeof(double));
	cr_assert_eq(picard_ensemble_spread(model->nparams, model->param_defaults, NTRAJ,
					    SPREAD_PARAMS, 2111, PICARD_BACKEND_CPU, *params),
		     PICARD_OK);
}

/* The imex schemes: those that take a linear solver. */
static bool imex_scheme(const picard_scheme_type *type)
{
	return type->takes_linsolve;
}

/* GPU and CPU on one case: everything alike. */
static void compare(const picard_model *model, const picard_options *base, const char *what)
{
	const int n = model->dim;
	picard_options gpu_opt = *base, cpu_opt = *base;
	struct imex_out gpu, cpu;
	double *x0, *params, ends, at_times, final;
	long swept_gpu = 0, swept_cpu = 0;

	gpu_opt.backend = PICARD_BACKEND_CUDA;
	cpu_opt.backend = PICARD_BACKEND_CPU;
	if (cpu_opt.linsolve == PICARD_LINSOLVER_CUSPARSE) /* the GPU's alone */
		cpu_opt.linsolve = PICARD_LINSOLVER_THOMAS;
	make_ensemble(model, &x0, &params);
	solve(model, &cpu_opt, x0, params, &cpu);
	solve(model, &gpu_opt, x0, params, &gpu);
	cr_assert_eq(gpu.stats.backend, PICARD_BACKEND_CUDA, "%s: ran on the CPU", what);
	cr_assert_eq(gpu.err, cpu.err, "%s: solve returned %d on the GPU (%s), %d on the CPU (%s)",
		     what, gpu.err, gpu.detail, cpu.err, cpu.detail);
	for (long i = 0; i < NTRAJ; i++) {
		cr_assert_eq(gpu.status[i], cpu.status[i], "%s: trajectory %ld: %s on the GPU, %s on "
			     "the CPU", what, i, picard_traj_status_name(gpu.status[i]),
			     picard_traj_status_name(cpu.status[i]));
		cr_assert_eq(gpu.fail_window[i], cpu.fail_window[i], "%s: trajectory %ld: window %ld "
			     "on the GPU, %ld on the CPU", what, i, gpu.fail_window[i],
			     cpu.fail_window[i]);
	}
	ends = max_diff(gpu.ends.states, cpu.ends.states, cpu.ends_len / n, n);
	at_times = max_diff(gpu.at_times.states, cpu.at_times.states, cpu.times_len / n, n);
	final = max_diff(gpu.x_final, cpu.x_final, NTRAJ, n);
	swept_gpu = lround(gpu.stats.sweeps_mean * gpu.stats.windows * NTRAJ);
	swept_cpu = lround(cpu.stats.sweeps_mean * cpu.stats.windows * NTRAJ);
	cr_log_info("%s: %ld windows, GPU vs CPU %.2e at window ends, %.2e at times, %.2e at t1; "
		    "sweeps %ld (GPU) %ld (CPU), most %d %d; %ld failed", what, gpu.grid.windows, ends,
		    at_times, final, swept_gpu, swept_cpu, gpu.stats.sweeps_max,
		    cpu.stats.sweeps_max, gpu.stats.failed);
	cr_expect_leq(ends, TOL, "%s: window ends differ by %.2e", what, ends);
	cr_expect_leq(at_times, TOL, "%s: dense output differs by %.2e", what, at_times);
	cr_expect_leq(final, TOL, "%s: x_final differs by %.2e", what, final);
	/* a sweep more or less where a test sits on its threshold, no more */
	cr_expect_leq(labs(swept_gpu - swept_cpu), NTRAJ, "%s: %ld sweeps on the GPU, %ld on the "
		      "CPU", what, swept_gpu, swept_cpu);
	out_free(&gpu), out_free(&cpu);
	free(x0), free(params);
}

/* The grid of a case: m nodes, h a 40th of the model's span over m - 1,
 * the span cut to MAX_WINDOWS windows. */
static picard_options case_options(const picard_model *model, picard_scheme scheme,
				   picard_linsolver linsolve, int m, int K, bool warm)
{
	picard_options opt = { 0 };

	opt.scheme = scheme;
	opt.m = m;
	opt.K = K;
	opt.h = (model->t1 - model->t0) / (40.0 * (m - 1));
	opt.t0 = model->t0;
	opt.t1 = model_t1(model, m, opt.h, MAX_WINDOWS);
	opt.precision = PICARD_DOUBLE;
	opt.iter_rtol = 1e-12;
	opt.linsolve = linsolve;
	opt.linsolve_rtol = 1e-13;
	opt.warm_start = warm;
	return opt;
}

/* The GPU's linear solvers, by the host list's names: the tridiagonal
 * methods (src/linsolve/gpu/tridiag/), then the Krylov ones (src/linsolve/gpu/krylov/). */
static const char *const gpu_solvers[] = {
	"thomas", "checkerboard", "pcr", "cusparse", "cg", "bicgstab",
};
#define NSOLVERS (sizeof(gpu_solvers) / sizeof(gpu_solvers[0]))

/* Whether solver applies to model's operator (the CPU's choice decides). */
static bool applies(const picard_model *model, const char *solver)
{
	char why[256];

	return picard_implicit_choose(model->op, (picard_linsolver)picard_linsolver_parse(solver),
				      PICARD_PRECOND_AUTO, false, why, sizeof(why)) != NULL;
}

/* Every operator model x imex scheme x GPU solver that applies: adaptive
 * sweeps at m = 4; with each model's first solver also fixed K = 3 at m
 * = 5 and warm adaptive at m = 3; the Krylov solvers with the Neumann
 * preconditioner too. */
Test(imex_gpu, matches_cpu, .timeout = 600)
{
	int cases = 0, stencil_cases = 0;

	require_gpu();
	cr_assert_eq(tridiag_method_list[NSOLVERS - 2], NULL, "a GPU tridiagonal method the test "
		     "does not name");
	for (int i = 0; i < picard_model_count(); i++) {
		const picard_model *model = picard_model_at(i);

		if (!model->op)
			continue;
		for (int s = 0; picard_scheme_list[s]; s++) {
			const picard_scheme_type *type = picard_scheme_list[s];
			bool first = true;

			if (!imex_scheme(type))
				continue;
			cr_assert_not_null(type->cuda, "%s: no CUDA part", type->name);
			for (size_t k = 0; k < NSOLVERS; k++) {
				const char *solver = gpu_solvers[k];
				const picard_linsolver id = (picard_linsolver)picard_linsolver_parse(solver);
				picard_options opt = case_options(model, type->id, id, 4, 0, false);
				char what[160];

				if (!applies(model, solver)) {
					cr_log_info("%s %s: --linsolve %s does not apply", model->name,
						    type->name, solver);
					continue;
				}
				snprintf(what, sizeof(what), "%s %s --linsolve %s", model->name,
					 type->name, solver);
				compare(model, &opt, what);
				cases++;
				stencil_cases += k < 4;
				if (k >= 4) {
					opt.precond = PICARD_PRECOND_NEUMANN;
					snprintf(what, sizeof(what), "%s %s --linsolve %s --precond neumann",
						 model->name, type->name, solver);
					compare(model, &opt, what);
					cases++;
				}
				if (!first)
					continue;
				first = false;
				opt = case_options(model, type->id, id, 5, 3, false);
				snprintf(what, sizeof(what), "%s %s --linsolve %s, K = 3", model->name,
					 type->name, solver);
				compare(model, &opt, what);
				opt = case_options(model, type->id, id, 3, 0, true);
				snprintf(what, sizeof(what), "%s %s --linsolve %s, warm", model->name,
					 type->name, solver);
				compare(model, &opt, what);
				cases += 2;
			}
		}
	}
	cr_assert_geq(stencil_cases, 2 * 2 * 4, "only %d tridiagonal cases: heat1d and heat2d are "
		      "each run by both schemes and four methods", stencil_cases);
	cr_log_info("%d cases", cases);
}

/* ADI held to one iteration cannot reach its tolerance: every trajectory
 * of the 2D model fails its first solve, linsolve-failed in window 0 on
 * both backends, x_final NaN, and the solver's detail names the failure. */
Test(imex_gpu, linsolve_failure_like_cpu, .timeout = 120)
{
	const picard_model *model = test_model("heat2d");
	picard_options opt = case_options(model, PICARD_SCHEME_IMEX_SDIRK2,
					  PICARD_LINSOLVER_THOMAS, 4, 0, false);

	require_gpu();
	opt.linsolve_maxit = 1;
	compare(model, &opt, "heat2d, ADI at most 1 iteration");
	{
		struct imex_out gpu;
		double *x0, *params;

		opt.backend = PICARD_BACKEND_CUDA;
		make_ensemble(model, &x0, &params);
		solve(model, &opt, x0, params, &gpu);
		for (long i = 0; i < NTRAJ; i++)
			cr_assert_eq(gpu.status[i], PICARD_TRAJ_LINSOLVE_FAILED);
		cr_assert(isnan(gpu.x_final[0]));
		cr_assert(strstr(gpu.detail, "linsolve-failed in window 0"), "detail: %s",
			  gpu.detail);
		cr_assert(strstr(gpu.detail, "adi over thomas"), "detail: %s", gpu.detail);
		out_free(&gpu);
		free(x0), free(params);
	}
}

/* A bound below the solution's size: diverged, in the same window on
 * both backends, for each stencil model. */
Test(imex_gpu, divergence_like_cpu, .timeout = 120)
{
	static const char *const names[] = {"heat1d", "heat2d"};

	require_gpu();
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const picard_model *model = test_model(names[i]);
		picard_options opt = case_options(model, PICARD_SCHEME_IMEX_EULER,
						  PICARD_LINSOLVER_THOMAS, 4, 0, false);

		opt.bound = 0.05;
		compare(model, &opt, names[i]);
	}
}

/* Float is refused, as on the CPU: the schemes run in double. */
Test(imex_gpu, float_refused)
{
	const picard_model *model = test_model("heat1d");
	picard_options opt = case_options(model, PICARD_SCHEME_IMEX_EULER, PICARD_LINSOLVER_AUTO,
					  4, 0, false);
	picard_solver *solver = NULL;

	require_gpu();
	opt.precision = PICARD_FLOAT;
	opt.backend = PICARD_BACKEND_CUDA;
	cr_assert_eq(picard_solver_create(&solver, model, &opt, NTRAJ), PICARD_EINVAL);
	cr_assert(strstr(picard_error_detail(), "double"), "%s", picard_error_detail());
}
