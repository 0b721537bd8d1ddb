/* test_reference.c - picard_reference() and picard_check() on the cases a
 * check exists for: poisoned and planted states, ties, bad arguments, a
 * reference that blows up (suite reference).
 *
 * The records come from real CPU-backend solves of decay; the planted
 * errors are written into them afterwards, so each test knows the answer
 * picard_check() must find. Criterion forks per test; no CUDA here.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "picard.h"

#define NTRAJ 11   /* not a multiple of STRIDE */
#define EVERY 2    /* record every 2nd window ... */
#define STRIDE 2   /* ... of every 2nd trajectory */
#define SLOTS ((NTRAJ + STRIDE - 1) / STRIDE)

/* A solve of decay with its record and what picard_check needs. */
struct fixture {
	const picard_model *model; /* decay */
	picard_grid grid;          /* the solver's grid */
	double x0[NTRAJ];          /* initial states (dim 1) */
	double params[NTRAJ];      /* lambda per trajectory */
	picard_record rec;         /* every EVERY-th window, STRIDE-th trajectory */
	long nrec;                 /* records kept */
};

/* Solve NTRAJ decay trajectories from x0 = start + i/10 (lambda 0.3 +
 * 0.05 i) on the CPU backend, 30 windows, converged sweeps. */
static void fixture_solve(struct fixture *f, double start)
{
	picard_options opt = { .m = 6, .K = 12, .precision = PICARD_DOUBLE,
			       .backend = PICARD_BACKEND_CPU };
	picard_solver *solver;
	int err;

	f->model = picard_model_find("decay");
	cr_assert_not_null(f->model);
	cr_assert_eq(f->model->dim, 1);
	opt.h = (f->model->t1 - f->model->t0) / (30.0 * (opt.m - 1));
	for (int i = 0; i < NTRAJ; i++) {
		f->x0[i] = start == 0 ? 0 : start + 0.1 * i;
		f->params[i] = 0.3 + 0.05 * i;
	}
	err = picard_solver_create(&solver, f->model, &opt, NTRAJ);
	cr_assert_eq(err, 0, "%s", picard_error_detail());
	f->grid = *picard_solver_grid(solver);
	cr_assert_eq(f->grid.windows, 30);
	f->nrec = f->grid.windows / EVERY;
	f->rec = (picard_record){ .every = EVERY, .traj_stride = STRIDE };
	f->rec.states = malloc(picard_record_size(solver, &f->rec) * sizeof(double));
	cr_assert_not_null(f->rec.states);
	err = picard_solve(solver, f->x0, f->params, NULL, NULL, NULL, &f->rec, 1, NULL);
	cr_assert_eq(err, 0, "%s", picard_error_detail());
	picard_solver_free(solver);
}

/* Record entry of record r, slot s (decay: one component). */
static double *entry(struct fixture *f, long r, long s)
{
	return &f->rec.states[r * SLOTS + s];
}

static picard_check_result fixture_check(struct fixture *f)
{
	picard_check_result result;
	int err;

	err = picard_check(f->model, &f->grid, NTRAJ, f->x0, f->params, &f->rec,
			   &result);
	cr_assert_eq(err, 0, "check: %s (%s)", picard_strerror(err),
		     picard_error_detail());
	cr_assert_eq(result.checked_traj, SLOTS);
	cr_assert_eq(result.points, SLOTS * f->nrec);
	return result;
}

/* The clean solve is accurate, with per-trajectory parameters honoured:
 * checking with the defaults instead shows a large error. */
Test(reference, check_uses_each_trajectorys_params)
{
	struct fixture f;
	picard_check_result own, defaults;
	int err;

	fixture_solve(&f, 1);
	own = fixture_check(&f);
	err = picard_check(f.model, &f.grid, NTRAJ, f.x0, NULL, &f.rec, &defaults);
	cr_assert_eq(err, 0, "%s", picard_error_detail());
	cr_log_info("own parameters E = %.3e, model defaults E = %.3e", own.error,
		    defaults.error);
	cr_assert_eq(own.nonfinite, 0);
	/* trapezoid theory: x0 (lambda h)^2 / (12 e) <= 1.75e-4 here */
	cr_assert_lt(own.error, 2e-4, "clean solve: E = %.3e", own.error);
	cr_assert_gt(defaults.error, 100 * own.error,
		     "params ignored? E %.3e with the defaults", defaults.error);
	free(f.rec.states);
}

/* One NaN in the record: counted, E = Inf, and the worst point is it. */
Test(reference, check_reports_nan)
{
	struct fixture f;
	picard_check_result result;

	fixture_solve(&f, 1);
	*entry(&f, 6, 3) = NAN;
	result = fixture_check(&f);
	cr_assert_eq(result.nonfinite, 1, "nonfinite = %ld", result.nonfinite);
	cr_assert(isinf(result.error) && result.error > 0, "E = %g", result.error);
	cr_assert(isinf(result.rel_error), "rel = %g", result.rel_error);
	cr_assert_eq(result.worst_traj, 3 * STRIDE);
	cr_assert_eq(result.worst_window, 7 * EVERY - 1);
	free(f.rec.states);
}

/* Two non-finite points of equal (infinite) error: the smaller trajectory
 * is reported, whatever the thread count, and both are counted. */
Test(reference, check_nonfinite_ties_pick_smallest_trajectory)
{
	struct fixture f;
	picard_check_result many, one;

	fixture_solve(&f, 1);
	*entry(&f, 1, 5) = INFINITY;
	*entry(&f, 9, 2) = -INFINITY;
	*entry(&f, 4, 2) = NAN;
	many = fixture_check(&f);
	omp_set_num_threads(1);
	one = fixture_check(&f);
	cr_assert_eq(many.nonfinite, 3);
	cr_assert(isinf(many.error));
	cr_assert_eq(many.worst_traj, 2 * STRIDE, "worst trajectory %ld", many.worst_traj);
	cr_assert_eq(many.worst_window, 5 * EVERY - 1, "earliest window of the slot");
	cr_assert_eq(memcmp(&many, &one, sizeof(many)), 0,
		     "1 thread and many threads disagree");
	free(f.rec.states);
}

/* A planted finite error is found where it was planted, with its size. */
Test(reference, check_finds_planted_error)
{
	struct fixture f;
	picard_check_result clean, result;

	fixture_solve(&f, 1);
	clean = fixture_check(&f);
	*entry(&f, 11, 4) += 0.25;
	result = fixture_check(&f);
	cr_log_info("clean E %.3e; planted E %.6f at %ld, %ld", clean.error,
		    result.error, result.worst_traj, result.worst_window);
	cr_assert_eq(result.nonfinite, 0);
	cr_assert_eq(result.worst_traj, 4 * STRIDE);
	cr_assert_eq(result.worst_window, 12 * EVERY - 1);
	cr_assert_float_eq(result.error, 0.25, 2 * clean.error + 1e-12, "E = %.9f",
			   result.error);
	cr_assert_gt(result.rel_error, clean.rel_error);
	free(f.rec.states);
}

/* x0 = 0: every state and reference is exactly 0. Equal planted errors:
 * the smallest trajectory wins, then its earliest window; the relative
 * error of a mismatch against a zero reference is Inf (picard.h). */
Test(reference, check_ties_are_deterministic)
{
	struct fixture f;
	picard_check_result result, zero, one_thread;

	fixture_solve(&f, 0);
	zero = fixture_check(&f);
	cr_assert_eq(zero.error, 0, "zero solution: E = %g", zero.error);
	cr_assert_eq(zero.rel_error, 0, "zero solution: rel = %g", zero.rel_error);
	cr_assert_eq(zero.worst_traj, 0);
	cr_assert_eq(zero.worst_window, EVERY - 1);
	*entry(&f, 3, 5) = 1;
	*entry(&f, 8, 1) = -1;
	*entry(&f, 2, 1) = 1;
	*entry(&f, 0, 4) = 0.5;
	result = fixture_check(&f);
	omp_set_num_threads(1);
	one_thread = fixture_check(&f);
	cr_assert_eq(result.error, 1);
	cr_assert(isinf(result.rel_error));
	cr_assert_eq(result.worst_traj, 1 * STRIDE);
	cr_assert_eq(result.worst_window, 3 * EVERY - 1);
	cr_assert_eq(memcmp(&result, &one_thread, sizeof(result)), 0);
	free(f.rec.states);
}

/* A record that keeps no window, or is malformed, is refused: E = 0 over
 * nothing must not read as a pass. */
Test(reference, check_rejects_bad_arguments)
{
	struct fixture f;
	picard_check_result result;
	picard_record rec;

	fixture_solve(&f, 1);
	rec = f.rec;
	rec.every = f.grid.windows + 1;
	cr_assert_eq(picard_check(f.model, &f.grid, NTRAJ, f.x0, NULL, &rec, &result),
		     PICARD_EINVAL);
	cr_assert_neq(picard_error_detail()[0], '\0');
	rec = f.rec;
	rec.traj_stride = 0;
	cr_assert_eq(picard_check(f.model, &f.grid, NTRAJ, f.x0, NULL, &rec, &result),
		     PICARD_EINVAL);
	cr_assert_eq(picard_check(f.model, &f.grid, 0, f.x0, NULL, &f.rec, &result),
		     PICARD_EINVAL);
	cr_assert_eq(picard_check(f.model, &f.grid, NTRAJ, f.x0, NULL, NULL, &result),
		     PICARD_EINVAL);
	free(f.rec.states);
}

/* Times must be finite and increasing from t0, the start state finite. */
Test(reference, reference_rejects_bad_times)
{
	const picard_model *model = picard_model_find("decay");
	double out[3], x0 = 1;
	double backwards[3] = { 1, 3, 2 }, before[1] = { -1 }, nan[2] = { 1, NAN };

	cr_assert_not_null(model);
	cr_assert_eq(picard_reference(model, NULL, &x0, 0, backwards, 3, out),
		     PICARD_EINVAL);
	cr_assert_eq(picard_reference(model, NULL, &x0, 0, before, 1, out),
		     PICARD_EINVAL);
	cr_assert_eq(picard_reference(model, NULL, &x0, 0, nan, 2, out),
		     PICARD_EINVAL);
	cr_assert_eq(picard_reference(model, NULL, &x0, 0, NULL, 0, NULL), 0);
	x0 = NAN;
	cr_assert_eq(picard_reference(model, NULL, &x0, 0, backwards, 1, out),
		     PICARD_EINVAL);
}

/* One call through many times continues a single integration: splitting
 * the times over two calls (the second from the first's end) agrees to
 * the reference tolerance, and a time equal to the previous one repeats
 * its state. */
Test(reference, reference_continues_through_times)
{
	const picard_model *model = picard_model_find("oscillator");
	double times[4] = { 1, 2, 2, 7 }, all[8], first[4], rest[4];
	const double x0[2] = { 1, 0.5 };
	int err;

	cr_assert_not_null(model);
	err = picard_reference(model, NULL, x0, 0, times, 4, all);
	cr_assert_eq(err, 0, "%s", picard_error_detail());
	cr_assert_eq(all[2], all[4]);
	cr_assert_eq(all[3], all[5]);
	err = picard_reference(model, NULL, x0, 0, times, 2, first);
	cr_assert_eq(err, 0);
	err = picard_reference(model, NULL, first + 2, 2, times + 3, 1, rest);
	cr_assert_eq(err, 0);
	cr_assert_eq(memcmp(first, all, sizeof(first)), 0, "same first steps");
	for (int k = 0; k < 2; k++)
		cr_assert_float_eq(rest[k], all[6 + k], 1e-10);
}

/* The modified Lotka-Volterra model blows up in finite time from a
 * negative prey state (x1' ~ -c1 x1^2: t* ~ 1/(c1 |x1|) = 1 here). The
 * reference must fail with PICARD_EREF and say where, never abort, and
 * picard_check must pass that failure on. */
Test(reference, reference_blowup_is_eref)
{
	const picard_model *model = picard_model_find("lotka");
	const double x0[2] = { -1000, 0 };
	double times[3] = { 0.5, 2, 5 }, out[6];
	picard_grid grid = { .m = 5, .K = 2, .h = 0.25, .t0 = 0, .t1 = 5,
			     .windows = 5 };
	double states[5 * 2] = { 0 };
	picard_record rec = { .every = 1, .traj_stride = 1, .states = states };
	picard_check_result result;
	int err;

	cr_assert_not_null(model);
	err = picard_reference(model, NULL, x0, 0, times, 3, out);
	cr_log_info("blow-up: %s (%s)", picard_strerror(err), picard_error_detail());
	cr_assert_eq(err, PICARD_EREF, "got %d: %s", err, picard_error_detail());
	cr_assert(strstr(picard_error_detail(), "lotka"), "detail: %s",
		  picard_error_detail());
	cr_assert(isfinite(out[0]) && out[0] < -1000, "state before the blow-up: %g",
		  out[0]);
	err = picard_check(model, &grid, 1, x0, NULL, &rec, &result);
	cr_assert_eq(err, PICARD_EREF, "check passed on %d: %s", err,
		     picard_error_detail());
	cr_assert(strstr(picard_error_detail(), "trajectory 0"), "detail: %s",
		  picard_error_detail());
}
