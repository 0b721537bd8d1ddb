/* bench_newton.c - bin/bench-newton: Newton's method across windows (src/
 * schemes/newton/newton.c, issue 17) on the host, one trajectory of each model from its
 * default start: how many iterations the sliding block takes, the most
 * one window takes, and the error against GSL's rk8pd at every window end,
 * for windows of 4, 16 and 64 times (m-1) default_h (the model's spacing
 * for 1% on picard-run's default grid; span/200 without one), blocks of
 * 64, 1024 and every window. What issue 17 asks recorded:
 * the iteration counts per model, and where they grow (lorenz). CSV on
 * stdout; wall time of the host solve (one thread) in the last column.
 *
 *   bench-newton [MODEL]    every model, or one
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/parse.h"
#include "lobatto.h"
#include "newton.h"
#include "picard.h"

#define M_NODES 8
#define RTOL 1e-12
#define MAX_ITERATIONS 50

static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (t1.tv_nsec - t0->tv_nsec);
}

static void run(const picard_model *model, double stretch, int block)
{
	const int n = model->dim;
	const double span = model->t1 - model->t0;
	const double base = model->default_h > 0 ? (M_NODES - 1) * model->default_h : span / 200;
	const long W = (long)fmax(1, round(span / (stretch * base)));
	const double H = span / W;
	struct picard_newton_problem pb = {
		.collocation = picard_lobatto_build, .model = model, .params = model->param_defaults, .t0 = model->t0, .window = H,
		.windows = W, .m = M_NODES, .block = block ? block : (int)W,
		.max_iterations = MAX_ITERATIONS, .atol = RTOL, .rtol = RTOL, .bound = 1e12,
	};
	double *x0 = malloc(n * sizeof(double)), *ends = malloc(W * n * sizeof(double));
	double *times = malloc(W * sizeof(double)), *ref = malloc(W * n * sizeof(double));
	struct picard_newton_result res;
	struct timespec t0;
	double seconds, error = 0;

	picard_model_start(model, NULL, x0);
	for (long w = 0; w < W; w++)
		times[w] = model->t0 + (w + 1) * H;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (picard_newton_trajectory(&pb, x0, ends, &res) != 0) {
		fprintf(stderr, "bench-newton: %s: %s\n", model->name, picard_error_detail());
		exit(1);
	}
	seconds = seconds_since(&t0);
	if (picard_reference(model, NULL, x0, model->t0, times, W, ref) == 0)
		for (long i = 0; i < W * n; i++)
			error = fmax(error, fabs(ends[i] - ref[i]) / fmax(1, fabs(ref[i])));
	else
		error = NAN;
	printf("%s,%d,%d,%ld,%.6g,%d,%s,%ld,%ld,%.2f,%d,%.3g,%.4f\n", model->name, n, M_NODES, W, H,
	       pb.block, picard_traj_status_name(res.status), res.fail_window, res.iterations,
	       (double)res.iterations * pb.block / W, res.iterations_max, error, seconds);
	fflush(stdout);
	free(x0), free(ends), free(times), free(ref);
}

int main(int argc, char **argv)
{
	static const double stretches[] = {4, 16, 64};
	static const int blocks[] = {64, 1024, 0};
	const char *only = argc > 1 ? argv[1] : NULL;

	if (only && strcmp(only, "--version") == 0) {
		cli_print_version(stdout, "bench-newton");
		return 0;
	}
	printf("# bench-newton: m = %d, rtol = atol = %g, at most %d iterations per window, "
	       "host, one thread\n", M_NODES, RTOL, MAX_ITERATIONS);
	printf("model,n,m,windows,H,block,status,fail_window,iterations,iterations_x_block_"
	       "per_window,iterations_max,error_vs_rk8pd,seconds\n");
	for (int i = 0; i < picard_model_count(); i++) {
		const picard_model *model = picard_model_at(i);

		if (only && strcmp(only, model->name) != 0)
			continue;
		for (int s = 0; s < 3; s++)
			for (int b = 0; b < 3; b++)
				run(model, stretches[s], blocks[b]);
	}
	return 0;
}
