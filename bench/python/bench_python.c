/* bench_python.c - the C side of the Python binding's per-call overhead
 * (bench/python/overhead.py): the same tiny solve as picard.solve makes,
 * through the C API, timed call by call.
 *
 *   bin/bench-python [NTRAJ [REPEATS [BACKEND]]]
 *
 * A decay ensemble of NTRAJ members (default 1) over [0, 1], dp5 adaptive at
 * rtol 1e-8, in double, its state kept at t = 1 (one record of times): the
 * arguments picard.solve("decay", ..., save_at=[1.0]) passes. Two timings,
 * each min and median of REPEATS (default 2000) in microseconds:
 *   solve         picard_solve on a solver made once (what picard.solve
 *                 does in a sweep of one shape: it keeps its solver);
 *   create+solve  picard_solver_create, picard_solve, picard_solver_free.
 * The answer is checked against exp(-0.5) before anything is timed. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "picard.h"

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void report(const char *what, double *us, int repeats, long ntraj, const char *device)
{
	qsort(us, repeats, sizeof(*us), by_value);
	printf("c,%s,%ld,%d,%.2f,%.2f,%s\n", what, ntraj, repeats, us[0], us[repeats / 2], device);
}

static int die(const char *what, int err)
{
	fprintf(stderr, "bench-python: %s: %s (%s)\n", what, picard_error_detail(),
		picard_strerror(err));
	return 1;
}

int main(int argc, char **argv)
{
	long ntraj = argc > 1 ? atol(argv[1]) : 1;
	int repeats = argc > 2 ? atoi(argv[2]) : 2000;
	const char *backend_name = argc > 3 ? argv[3] : "cpu";
	if (ntraj < 1 || repeats < 1 || (strcmp(backend_name, "cpu") && strcmp(backend_name, "cuda"))) {
		fprintf(stderr, "usage: bench-python [NTRAJ >= 1 [REPEATS >= 1 [cpu|cuda]]]\n");
		return 2;
	}
	const picard_model *model = picard_model_find("decay");
	picard_options o = {.scheme = PICARD_SCHEME_DP5, .precision = PICARD_DOUBLE,
			    .backend = strcmp(backend_name, "cpu") ? PICARD_BACKEND_CUDA
								   : PICARD_BACKEND_CPU,
			    .t0 = 0, .t1 = 1, .iter_rtol = 1e-8};
	double *x0 = malloc(ntraj * sizeof(*x0)), *x1 = malloc(ntraj * sizeof(*x1));
	double *states = malloc(ntraj * sizeof(*states)), *us = malloc(repeats * sizeof(*us));
	picard_traj_status *status = malloc(ntraj * sizeof(*status));
	double t_keep = 1;
	picard_record rec = {.traj_stride = 1, .states = states, .times = &t_keep, .ntimes = 1};
	picard_stats stats;
	picard_solver *solver;
	if (!model || !x0 || !x1 || !states || !us || !status)
		return 1;
	for (long i = 0; i < ntraj; i++)
		x0[i] = 1;

	int err = picard_solver_create(&solver, model, &o, ntraj);
	if (err)
		return die("picard_solver_create", err);
	err = picard_solve(solver, x0, NULL, x1, status, NULL, &rec, 1, &stats);
	if (err)
		return die("picard_solve", err);
	if (fabs(states[0] - exp(-0.5)) > 1e-7) {
		fprintf(stderr, "bench-python: x(1) = %.17g, not exp(-0.5)\n", states[0]);
		return 1;
	}
	printf("side,what,ntraj,repeats,min_us,median_us,device\n");
	for (int r = 0; r < repeats; r++) {
		double t = now_us();
		picard_solve(solver, x0, NULL, x1, status, NULL, &rec, 1, &stats);
		us[r] = now_us() - t;
	}
	report("solve", us, repeats, ntraj, stats.device);
	picard_solver_free(solver);
	for (int r = 0; r < repeats; r++) {
		double t = now_us();
		picard_solver_create(&solver, model, &o, ntraj);
		picard_solve(solver, x0, NULL, x1, status, NULL, &rec, 1, &stats);
		picard_solver_free(solver);
		us[r] = now_us() - t;
	}
	report("create+solve", us, repeats, ntraj, stats.device);
	free(x0), free(x1), free(states), free(us), free(status);
	return 0;
}
