/* bench_layouts.c - bin/bench-layouts: the CUDA layouts of issue 8 timed
 * against each other on lotka (float, every trajectory from x(0) = (50, 30)
 * as Table 1), the evidence for AUTO's rule and the warp/thread defaults in
 * src/schemes/trapezoid/cuda_trapezoid.c.
 *
 * Each row: one (ensemble, m, K, h, layout, scan, trajectories per block),
 * validated first (its final states against the paper layout's, relative
 * max difference in the `vs_paper` column; every trajectory OK), then timed:
 * one warm-up solve and REPEATS solves on one solver, median and minimum of
 * the solve time (CUDA events, picard_stats.solve_seconds). CSV on stdout
 * with the device and date in a comment line.
 *
 *   sets: table1 (8192 trajectories, m=8 K=2, h = 0.5, 0.06, 0.008, every
 *         layout and block size), ensemble (m=8 K=2 h=0.06, 8192 .. 1M
 *         trajectories), scan (8192 trajectories, m = 2..32, K=2, windows
 *         of length 0.42).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/parse.h"
#include "picard.h"

#define REPEATS 7

struct config {
	const char *set;      /* which question the row answers */
	long ntraj;           /* ensemble */
	int m, K;             /* grid */
	double h;
	picard_layout layout; /* layout, scan, per block as picard_options */
	picard_scan scan;
	int traj_per_block;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Solve once for validation into x_final, then time; one CSV row. The
 * paper layout's states of the same ensemble and grid are in reference
 * (NULL: this row is the paper's, and fills reference). */
static int run(const picard_model *lotka, const struct config *c, const double *x0,
	       double *x_final, double *reference)
{
	picard_options opt = { .m = c->m, .K = c->K, .h = c->h, .backend = PICARD_BACKEND_CUDA,
			       .layout = c->layout, .scan = c->scan,
			       .traj_per_block = c->traj_per_block };
	double times[REPEATS], diff = 0;
	picard_solver *solver;
	picard_stats stats;
	const picard_grid *g;
	int err;

	err = picard_solver_create(&solver, lotka, &opt, c->ntraj);
	if (err) {
		printf("# %s %ld m=%d %s/%d: %s (%s)\n", c->set, c->ntraj, c->m,
		       picard_layout_name(c->layout), c->traj_per_block, picard_strerror(err),
		       picard_error_detail());
		return err;
	}
	g = picard_solver_grid(solver);
	err = picard_solve(solver, x0, NULL, x_final, NULL, NULL, NULL, 0, &stats);
	if (err) {
		printf("# %s %ld m=%d %s: solve failed: %s (%s)\n", c->set, c->ntraj, c->m,
		       picard_layout_name(g->layout), picard_strerror(err), picard_error_detail());
		picard_solver_free(solver);
		return err;
	}
	if (reference) {
		for (long i = 0; i < c->ntraj * 2; i++)
			diff = fmax(diff, fabs(x_final[i] - reference[i]) / fmax(fabs(reference[i]), 1e-30));
	}
	for (int r = 0; r < REPEATS && !err; r++) {
		err = picard_solve(solver, x0, NULL, NULL, NULL, NULL, NULL, 0, &stats);
		times[r] = stats.solve_seconds;
	}
	qsort(times, REPEATS, sizeof(double), cmp_double);
	printf("%s,%ld,%d,%d,%.6g,%ld,%s,%s,%d,%.4f,%.4f,%.2e\n", c->set, c->ntraj, c->m, c->K,
	       c->h, g->windows, picard_layout_name(g->layout),
	       g->layout == PICARD_LAYOUT_WARP ? picard_scan_name(g->scan) : "-",
	       g->traj_per_block, times[REPEATS / 2] * 1e3, times[0] * 1e3, diff);
	fflush(stdout);
	picard_solver_free(solver);
	return err;
}

/* The rows of one ensemble and grid: the paper's first (the reference),
 * then the warp layout with each scan and block size, the thread layout
 * with each block size. */
static void run_grid(const picard_model *lotka, const char *set, long ntraj, int m, int K,
		     double h, const int *warp_tpb, int nwarp, const int *thread_tpb,
		     int nthread, bool both_scans)
{
	double *x0 = calloc(ntraj * 2, sizeof(double));
	double *reference = malloc(ntraj * 2 * sizeof(double));
	double *x_final = malloc(ntraj * 2 * sizeof(double));
	struct config c = { set, ntraj, m, K, h, PICARD_LAYOUT_PAPER, PICARD_SCAN_AUTO, 0 };

	if (!x0 || !reference || !x_final) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	for (long i = 0; i < ntraj; i++) {
		x0[2 * i] = lotka->x0[0];
		x0[2 * i + 1] = lotka->x0[1];
	}
	run(lotka, &c, x0, reference, NULL);
	for (int s = PICARD_SCAN_PARALLEL; s <= PICARD_SCAN_SERIAL; s++) {
		if (s == PICARD_SCAN_SERIAL && !both_scans)
			break;
		for (int b = 0; b < nwarp; b++) {
			c.layout = PICARD_LAYOUT_WARP;
			c.scan = (picard_scan)s;
			c.traj_per_block = warp_tpb[b];
			run(lotka, &c, x0, x_final, reference);
		}
	}
	for (int b = 0; b < nthread; b++) {
		c.layout = PICARD_LAYOUT_THREAD;
		c.scan = PICARD_SCAN_AUTO;
		c.traj_per_block = thread_tpb[b];
		run(lotka, &c, x0, x_final, reference);
	}
	c.layout = PICARD_LAYOUT_AUTO;
	c.scan = PICARD_SCAN_AUTO;
	c.traj_per_block = 0;
	run(lotka, &c, x0, x_final, reference);
	free(x0);
	free(reference);
	free(x_final);
}

int main(int argc, char **argv)
{
	const picard_model *lotka = picard_model_find("lotka");
	static const int warp_all[] = { 1, 2, 4, 8, 16, 32, 64 };
	static const int thread_all[] = { 32, 64, 128, 256 };
	static const int warp_few[] = { 4, 8, 16 };
	static const int thread_few[] = { 64, 128 };
	const char *only = argc > 1 ? argv[1] : NULL;
	char device[128] = "none", date[32] = "";
	time_t now = time(NULL);

	if (only && strcmp(only, "--version") == 0) {
		cli_print_version(stdout, "bench-layouts");
		return 0;
	}
	if (!lotka || picard_cuda_device_name(device, sizeof(device)) != 0) {
		fprintf(stderr, "bench-layouts: no CUDA device (%s)\n", picard_error_detail());
		return 1;
	}
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%MZ", gmtime(&now));
	printf("# bench-layouts %s, device %s, %s, median and min of %d solves\n",
	       only ? only : "", device, date, REPEATS);
	printf("set,ntraj,m,K,h,windows,layout,scan,traj_per_block,median_ms,min_ms,vs_paper\n");
	if (!only || strcmp(only, "table1") == 0) {
		const double hs[] = { 0.5, 0.06, 0.008 };
		for (int i = 0; i < 3; i++)
			run_grid(lotka, "table1", 8192, 8, 2, hs[i], warp_all, 7, thread_all, 4, true);
	}
	if (!only || strcmp(only, "ensemble") == 0) {
		const long ns[] = { 8192, 32768, 131072, 262144, 524288, 1048576 };
		for (int i = 0; i < 6; i++)
			run_grid(lotka, "ensemble", ns[i], 8, 2, 0.06, warp_few, 3, thread_few, 2,
				 true);
	}
	if (!only || strcmp(only, "scan") == 0) {
		const int ms[] = { 2, 4, 8, 16, 32 };
		for (int i = 0; i < 5; i++)
			run_grid(lotka, "scan", 8192, ms[i], 2, 0.42 / (ms[i] - 1), warp_few, 3,
				 thread_few, 2, true);
	}
	return 0;
}
