/* bench_sweep.c - the C side of the parameter sweep that bench/sweep/sweep.py
 * makes from Python: the same sweep through the C API, timed whole.
 *
 *   bin/bench-sweep [POINTS [NTRAJ [cpu|cuda [REPEATS]]]]
 *
 * lotka's b2 (its fifth parameter) at POINTS values (default 1000) evenly
 * from 0.005 to 0.015, each an ensemble of NTRAJ members (default 8192)
 * drawn 10% around the model's start with seed 1 (picard_ensemble_spread,
 * as picard.ensemble draws them), the other parameters at their defaults;
 * dp5 at rtol = atol = 1e-6 in double over [0, 100], each member's state
 * kept at t = 100 only. What a sweep in C would do: one solver, made once,
 * and per point the parameters written and one picard_solve. Per point
 * the mean of x1(100) over the members is the sweep's answer.
 *
 * Prints, as CSV: each repeat's seconds for the whole sweep (the solver's
 * creation and a first solve excluded, as sweep.py excludes them), then
 * the answers of the last repeat (point, b2, mean_x1, failed), so that
 * sweep.py can hold its own answers to them. bin/bench-sweep.so holds the
 * same sweep for sweep.py to run in its own process (bench_sweep_new). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "picard.h"

#define B2 4 /* lotka's b2 */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int die(const char *what, int err)
{
	fprintf(stderr, "bench-sweep: %s: %s (%s)\n", what, picard_error_detail(),
		picard_strerror(err));
	return 1;
}

static double b2_at(long point, long points)
{
	return points > 1 ? 0.005 + 0.01 * point / (points - 1) : 0.01;
}

/* The sweep once: per point the parameters, one solve and its mean. */
static int sweep(picard_solver *solver, const picard_model *model, long points, long ntraj,
		 const double *x0, double *params, double *x1, double *states,
		 picard_traj_status *status, picard_record *rec, double *mean, long *failed)
{
	picard_stats stats;

	for (long pt = 0; pt < points; pt++) {
		for (long i = 0; i < ntraj; i++)
			params[i * model->nparams + B2] = b2_at(pt, points);
		int err = picard_solve(solver, x0, params, x1, status, NULL, rec, 1, &stats);
		if (err && err != PICARD_EFAILED)
			return die("picard_solve", err);
		double sum = 0;
		failed[pt] = 0;
		for (long i = 0; i < ntraj; i++) {
			failed[pt] += status[i] != PICARD_TRAJ_OK;
			sum += states[i * model->dim];
		}
		mean[pt] = sum / ntraj;
	}
	return 0;
}

/* A sweep made once (the solver created, its first solve done) and run
 * as often as asked: bench_sweep_new, bench_sweep_run, bench_sweep_free.
 * sweep.py calls them through ctypes (bin/bench-sweep.so), so that C and
 * Python take turns in one process, on one CUDA context. */
struct bench_sweep {
	const picard_model *model;
	picard_solver *solver;
	long points, ntraj;
	double *x0, *x1, *states, *params, *mean, t_keep;
	long *failed;
	picard_traj_status *status;
	picard_record rec;
	picard_stats stats;
};

void bench_sweep_free(struct bench_sweep *s)
{
	if (!s)
		return;
	picard_solver_free(s->solver);
	free(s->x0), free(s->x1), free(s->states), free(s->params), free(s->mean);
	free(s->failed), free(s->status), free(s);
}

struct bench_sweep *bench_sweep_new(long points, long ntraj, int cpu)
{
	struct bench_sweep *s = calloc(1, sizeof(*s));
	const picard_model *model = picard_model_find("lotka");
	picard_options o = {.scheme = PICARD_SCHEME_DP5, .precision = PICARD_DOUBLE,
			    .backend = cpu ? PICARD_BACKEND_CPU : PICARD_BACKEND_CUDA,
			    .t0 = 0, .t1 = 100, .iter_rtol = 1e-6, .iter_atol = 1e-6};
	int err;

	if (!s || !model) {
		free(s);
		return NULL;
	}
	const int n = model->dim, np = model->nparams;
	s->model = model, s->points = points, s->ntraj = ntraj, s->t_keep = 100;
	s->x0 = malloc(ntraj * n * sizeof(double)), s->x1 = malloc(ntraj * n * sizeof(double));
	s->states = malloc(ntraj * n * sizeof(double));
	s->params = malloc(ntraj * np * sizeof(double)), s->mean = malloc(points * sizeof(double));
	s->failed = malloc(points * sizeof(long));
	s->status = malloc(ntraj * sizeof(picard_traj_status));
	s->rec = (picard_record){.traj_stride = 1, .states = s->states, .times = &s->t_keep,
				 .ntimes = 1};
	if (!s->x0 || !s->x1 || !s->states || !s->params || !s->mean || !s->failed || !s->status)
		goto fail;
	err = picard_ensemble_spread(n, model->x0, ntraj, 0.1, 1, PICARD_BACKEND_AUTO, s->x0);
	if (err) {
		die("picard_ensemble_spread", err);
		goto fail;
	}
	for (long i = 0; i < ntraj; i++)
		memcpy(s->params + i * np, model->param_defaults, np * sizeof(double));
	err = picard_solver_create(&s->solver, model, &o, ntraj);
	if (!err)
		err = picard_solve(s->solver, s->x0, s->params, s->x1, s->status, NULL, &s->rec, 1,
				   &s->stats);
	if (err) {
		die(s->solver ? "picard_solve" : "picard_solver_create", err);
		goto fail;
	}
	return s;
fail:
	bench_sweep_free(s);
	return NULL;
}

/* One sweep: its seconds (negative on failure); the answers in
 * bench_sweep_means and bench_sweep_failed. */
double bench_sweep_run(struct bench_sweep *s)
{
	double t = now_s();

	if (sweep(s->solver, s->model, s->points, s->ntraj, s->x0, s->params, s->x1, s->states,
		  s->status, &s->rec, s->mean, s->failed))
		return -1;
	return now_s() - t;
}

const double *bench_sweep_means(const struct bench_sweep *s) { return s->mean; }
const long *bench_sweep_failed(const struct bench_sweep *s) { return s->failed; }
const char *bench_sweep_device(const struct bench_sweep *s) { return s->stats.device; }

int main(int argc, char **argv)
{
	long points = argc > 1 ? atol(argv[1]) : 1000;
	long ntraj = argc > 2 ? atol(argv[2]) : 8192;
	const char *backend = argc > 3 ? argv[3] : "cuda";
	int repeats = argc > 4 ? atoi(argv[4]) : 3;
	if (points < 1 || ntraj < 1 || repeats < 1 || (strcmp(backend, "cpu") && strcmp(backend, "cuda"))) {
		fprintf(stderr, "usage: bench-sweep [POINTS >= 1 [NTRAJ >= 1 [cpu|cuda [REPEATS >= 1]]]]\n");
		return 2;
	}
	struct bench_sweep *s = bench_sweep_new(points, ntraj, !strcmp(backend, "cpu"));
	if (!s)
		return 1;
	printf("side,repeat,points,ntraj,seconds,device\n");
	for (int r = 0; r < repeats; r++) {
		double seconds = bench_sweep_run(s);
		if (seconds < 0) {
			bench_sweep_free(s);
			return 1;
		}
		printf("c,%d,%ld,%ld,%.6f,%s\n", r, points, ntraj, seconds, s->stats.device);
	}
	printf("point,b2,mean_x1,failed\n");
	for (long pt = 0; pt < points; pt++)
		printf("%ld,%.17g,%.17g,%ld\n", pt, b2_at(pt, points), s->mean[pt], s->failed[pt]);
	bench_sweep_free(s);
	return 0;
}
