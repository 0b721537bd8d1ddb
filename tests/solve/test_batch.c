/* test_batch.c - a solver made with options.batch solves its ensemble a
 * batch at a time (picard_solve_batch), and the batches give what one
 * picard_solve of all gives, bit for bit: final states, statuses, failing
 * windows and times, error estimates, records, sweep counts. On the CPU
 * backend here, on the GPU in the gpu suite. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "picard.h"
#include "support.h"

#define STRIDE 3 /* the record keeps every third trajectory */

/* What a solve of the whole ensemble, or of its batches put together,
 * gave. */
struct results {
	double *x_final;
	picard_traj_status *status;
	long *fail_window;
	double *fail_time;  /* 2 per trajectory */
	double *estimate;   /* NaN-filled without one */
	double *kept;       /* every window end of every STRIDE-th member */
	double rhs_evals;   /* sweeps counted: the batches' sum */
	int sweeps_max;
	long failed;
};

static void results_alloc(struct results *r, const picard_model *model, long ntraj,
			  size_t kept)
{
	memset(r, 0, sizeof(*r));
	r->x_final = calloc(ntraj * model->dim, sizeof(double));
	r->status = calloc(ntraj, sizeof(*r->status));
	r->fail_window = calloc(ntraj, sizeof(long));
	r->fail_time = calloc(2 * ntraj, sizeof(double));
	r->estimate = calloc(ntraj, sizeof(double));
	r->kept = calloc(kept, sizeof(double));
	cr_assert(r->x_final && r->status && r->fail_window && r->fail_time && r->estimate &&
		  r->kept);
}

static void results_free(struct results *r)
{
	free(r->x_final);
	free(r->status);
	free(r->fail_window);
	free(r->fail_time);
	free(r->estimate);
	free(r->kept);
}

/* Trajectories first .. first+count-1 of a solve into r at first: the
 * record's slots from the batch's, which starts at a multiple of STRIDE. */
static void keep_batch(struct results *r, const picard_solver *s, const picard_model *model,
		       long first, long count, long ntraj, const picard_record *rec,
		       const picard_stats *stats, long rows)
{
	const int n = model->dim;
	const double *est = picard_solver_error_estimates(s);
	const double *ft = picard_solver_fail_times(s);
	const long slots = (count + STRIDE - 1) / STRIDE, all = (ntraj + STRIDE - 1) / STRIDE;

	for (long i = 0; i < count; i++) {
		r->estimate[first + i] = est ? est[i] : NAN;
		r->fail_time[2 * (first + i)] = ft[2 * i];
		r->fail_time[2 * (first + i) + 1] = ft[2 * i + 1];
	}
	for (long row = 0; row < rows; row++)
		memcpy(r->kept + (row * all + first / STRIDE) * n, rec->states + row * slots * n,
		       slots * n * sizeof(double));
	/* a sum of whole numbers: exact in any order */
	r->rhs_evals += stats->rhs_evals;
	r->sweeps_max = stats->sweeps_max > r->sweeps_max ? stats->sweeps_max : r->sweeps_max;
	r->failed += stats->failed;
}

/* Solve x0 (and params) as one, and a batch at a time, and compare. */
static void batches_match_one_solve(const char *name, picard_options opt, long ntraj,
				    long batch, const double *x0, const double *params,
				    bool failing)
{
	const picard_model *model = test_model(name);
	const int n = model->dim, np = model->nparams;
	picard_solver *whole, *parts;
	picard_record rec = {.every = 1, .traj_stride = STRIDE};
	struct results a, b;
	picard_stats stats;
	long rows;
	int err;

	whole = test_solver(model, &opt, ntraj);
	opt.batch = batch;
	parts = test_solver(model, &opt, ntraj);
	rows = picard_solver_grid(whole)->windows;
	results_alloc(&a, model, ntraj, picard_record_size(whole, &rec));
	results_alloc(&b, model, ntraj, picard_record_size(whole, &rec));
	cr_assert_eq(picard_record_size(parts, &rec),
		     (size_t)rows * ((batch + STRIDE - 1) / STRIDE) * n,
		     "a record of a batched solver holds a batch");

	rec.states = a.kept;
	err = picard_solve(whole, x0, params, a.x_final, a.status, a.fail_window, &rec, 1, &stats);
	cr_assert(err == PICARD_OK || err == PICARD_EFAILED, "%s: %s", name, picard_error_detail());
	{
		const double *est = picard_solver_error_estimates(whole);
		const double *ft = picard_solver_fail_times(whole);

		for (long i = 0; i < ntraj; i++) {
			a.estimate[i] = est ? est[i] : NAN;
			a.fail_time[2 * i] = ft[2 * i];
			a.fail_time[2 * i + 1] = ft[2 * i + 1];
		}
	}
	a.rhs_evals = stats.rhs_evals;
	a.sweeps_max = stats.sweeps_max;
	a.failed = stats.failed;
	cr_assert(failing ? a.failed > 0 && a.failed < ntraj : a.failed == 0,
		  "%s: %ld of %ld failed", name, a.failed, ntraj);
	cr_assert(!opt.estimate_error || !isnan(a.estimate[0]), "%s: no estimate", name);

	err = picard_solve(parts, x0, params, b.x_final, b.status, b.fail_window, NULL, 0, NULL);
	cr_assert_eq(err, PICARD_EINVAL, "picard_solve on a batched solver is refused");
	rec.states = malloc(picard_record_size(parts, &rec) * sizeof(double));
	cr_assert_not_null(rec.states);
	for (long first = 0; first < ntraj; first += batch) {
		const long count = ntraj - first < batch ? ntraj - first : batch;

		err = picard_solve_batch(parts, count, x0 + first * n,
					 params ? params + first * np : NULL, b.x_final + first * n,
					 b.status + first, b.fail_window + first, &rec, 1, &stats);
		cr_assert(err == PICARD_OK || err == PICARD_EFAILED, "%s batch at %ld: %s", name,
			  first, picard_error_detail());
		keep_batch(&b, parts, model, first, count, ntraj, &rec, &stats, rows);
	}
	err = picard_solve_batch(parts, batch + 1, x0, params, b.x_final, b.status,
				 b.fail_window, NULL, 0, NULL);
	cr_assert_eq(err, PICARD_EINVAL, "a batch larger than the solver holds is refused");

	cr_assert_eq(memcmp(a.x_final, b.x_final, ntraj * n * sizeof(double)), 0,
		     "%s: final states differ", name);
	cr_assert_eq(memcmp(a.status, b.status, ntraj * sizeof(*a.status)), 0, "%s: statuses", name);
	cr_assert_eq(memcmp(a.fail_window, b.fail_window, ntraj * sizeof(long)), 0,
		     "%s: failing windows", name);
	cr_assert_eq(memcmp(a.fail_time, b.fail_time, 2 * ntraj * sizeof(double)), 0,
		     "%s: failing times", name);
	cr_assert_eq(memcmp(a.estimate, b.estimate, ntraj * sizeof(double)), 0,
		     "%s: error estimates", name);
	cr_assert_eq(memcmp(a.kept, b.kept, picard_record_size(whole, &rec) * sizeof(double)), 0,
		     "%s: records", name);
	cr_assert_eq(a.rhs_evals, b.rhs_evals, "%s: %g against %g evaluations", name, a.rhs_evals,
		     b.rhs_evals);
	cr_assert_eq(a.sweeps_max, b.sweeps_max);
	cr_assert_eq(a.failed, b.failed);
	free(rec.states);
	results_free(&a);
	results_free(&b);
	picard_solver_free(whole);
	picard_solver_free(parts);
}

/* ntraj members of model spread around its start, some (every 17th from
 * the 5th) turned to -40 times it, where lotka's quadratic terms blow up
 * within t = 1. */
static double *spread_states(const char *name, long ntraj, bool push)
{
	const picard_model *model = test_model(name);
	double *x0 = malloc(ntraj * model->dim * sizeof(double));

	cr_assert_not_null(x0);
	cr_assert_eq(picard_ensemble_model(model, ntraj, 0.2, NULL, 29, PICARD_BACKEND_CPU, x0, NULL),
		     PICARD_OK);
	for (long i = 5; push && i < ntraj; i += 17)
		for (int k = 0; k < model->dim; k++)
			x0[i * model->dim + k] *= -40;
	return x0;
}

/* Every scheme family: the trapezoid with its estimate (float, failures
 * among the members), lobatto with its estimate, an adaptive pair whose
 * failing times are its steps'. */
static void every_family(picard_backend backend)
{
	const long ntraj = 100, batch = 21; /* 5 batches, the last of 16 */
	double *x0 = spread_states("lotka", ntraj, true);
	double *calm = spread_states("lotka", ntraj, false);
	picard_options trapezoid = {.m = 8, .K = 4, .h = 0.05, .t1 = 10, .bound = 1e4,
				    .backend = backend, .precision = PICARD_FLOAT,
				    .estimate_error = true, .error_scale = {1e-6, 1e-6}};
	picard_options lobatto = {.scheme = PICARD_SCHEME_LOBATTO, .m = 6, .window = 0.5,
				  .t1 = 10, .backend = backend, .precision = PICARD_DOUBLE,
				  .estimate_error = true, .error_scale = {1e-8, 1e-8}};
	picard_options dp5 = {.scheme = PICARD_SCHEME_DP5, .h = 0.5, .t1 = 10, .bound = 1e4,
			      .iter_rtol = 1e-8, .iter_atol = 1e-8, .backend = backend,
			      .precision = PICARD_DOUBLE};

	batches_match_one_solve("lotka", trapezoid, ntraj, batch, x0, NULL, true);
	batches_match_one_solve("lotka", lobatto, ntraj, batch, calm, NULL, false);
	batches_match_one_solve("lotka", dp5, ntraj, batch, x0, NULL, true);
	free(x0);
	free(calm);
}

Test(batch, every_family_matches_one_solve, .timeout = 120)
{
	every_family(PICARD_BACKEND_CPU);
}

Test(batch, refused_where_negative)
{
	const picard_model *model = test_model("lotka");
	picard_options opt = {.m = 8, .K = 4, .h = 0.05, .t1 = 1, .backend = PICARD_BACKEND_CPU,
			      .batch = -3};
	picard_solver *s = NULL;

	cr_assert_eq(picard_solver_create(&s, model, &opt, 10), PICARD_EINVAL);
	cr_assert_not_null(strstr(picard_error_detail(), "batch = -3"), "%s", picard_error_detail());
}

Test(gpu, batches_match_one_solve, .timeout = 300)
{
	require_gpu();
	every_family(PICARD_BACKEND_CUDA);
}
