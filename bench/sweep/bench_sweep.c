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
 * sweep.py can hold its own answers to them. */
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
	const picard_model *model = picard_model_find("lotka");
	picard_options o = {.scheme = PICARD_SCHEME_DP5, .precision = PICARD_DOUBLE,
			    .backend = strcmp(backend, "cpu") ? PICARD_BACKEND_CUDA : PICARD_BACKEND_CPU,
			    .t0 = 0, .t1 = 100, .iter_rtol = 1e-6, .iter_atol = 1e-6};
	if (!model)
		return 1;
	const int n = model->dim, np = model->nparams;
	double *x0 = malloc(ntraj * n * sizeof(*x0)), *x1 = malloc(ntraj * n * sizeof(*x1));
	double *states = malloc(ntraj * n * sizeof(*states));
	double *params = malloc(ntraj * np * sizeof(*params)), *mean = malloc(points * sizeof(*mean));
	long *failed = malloc(points * sizeof(*failed));
	picard_traj_status *status = malloc(ntraj * sizeof(*status));
	double t_keep = 100;
	picard_record rec = {.traj_stride = 1, .states = states, .times = &t_keep, .ntimes = 1};
	picard_solver *solver;
	picard_stats stats;
	if (!x0 || !x1 || !states || !params || !mean || !failed || !status)
		return 1;
	int err = picard_ensemble_spread(n, model->x0, ntraj, 0.1, 1, PICARD_BACKEND_AUTO, x0);
	if (err)
		return die("picard_ensemble_spread", err);
	for (long i = 0; i < ntraj; i++)
		memcpy(params + i * np, model->param_defaults, np * sizeof(*params));

	err = picard_solver_create(&solver, model, &o, ntraj);
	if (err)
		return die("picard_solver_create", err);
	err = picard_solve(solver, x0, params, x1, status, NULL, &rec, 1, &stats);
	if (err)
		return die("picard_solve", err);
	printf("side,repeat,points,ntraj,seconds,device\n");
	for (int r = 0; r < repeats; r++) {
		double t = now_s();
		if (sweep(solver, model, points, ntraj, x0, params, x1, states, status, &rec,
			  mean, failed))
			return 1;
		printf("c,%d,%ld,%ld,%.6f,%s\n", r, points, ntraj, now_s() - t, stats.device);
	}
	printf("point,b2,mean_x1,failed\n");
	for (long pt = 0; pt < points; pt++)
		printf("%ld,%.17g,%.17g,%ld\n", pt, b2_at(pt, points), mean[pt], failed[pt]);
	picard_solver_free(solver);
	free(x0), free(x1), free(states), free(params), free(mean), free(failed), free(status);
	return 0;
}
