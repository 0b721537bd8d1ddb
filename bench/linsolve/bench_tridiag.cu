/* bench_tridiag.cu - bin/bench-tridiag: the GPU batched tridiagonal
 * solvers of src/linsolve/gpu/tridiag/ side by side in one run (issue 21), as the
 * checkerboard Thomas papers compare them (Zolfaghari and Foadaddini 2016,
 * Fig. 11: checkerboard Thomas against Thomas and PCR for nop = 4 ... 32;
 * 2018: shared against global memory; 2016, Fig. 12: coalesced against
 * uncoalesced access, here the interleaved against the contiguous layout).
 *
 * For each N, the N systems of size N of one ADI sweep of an N x N grid:
 * random implicit diffusion rows (host_reference.h), the same in both
 * layouts. Every solver (and the checkerboard for each nop) is checked
 * against a host Thomas solve in double before it is timed: the error is
 * the worst system's max |x - x_host| / max |x_host|, and systems with a
 * non-zero status are counted. Times are of the solve alone with CUDA
 * events, after two warm-up solves: min and median of the repeats. The
 * host Thomas (one thread, the papers' speed-up base) is timed once.
 *
 *   bench-tridiag [--sizes N,N,...] [--parts P,P,...] [--repeats R] [--out DIR]
 *
 * A table on stdout; with --out the CSV in DIR/bench-tridiag.csv. Exit
 * status 1 where any solver's error exceeds ERROR_LIMIT or it reported a
 * bad status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cuda_runtime_api.h>

#include "bench_common.h"
#include "tridiag/batch_memory.h"
#include "tridiag/host_reference.h"
#include "tridiag/tridiag.h"

#define PROGRAM "bench-tridiag"
#define WARMUPS 2
#define MAX_LIST 16
#define MAX_REPEATS 1000
#define ERROR_LIMIT 1e-10 /* dominant by 1: every solver is near round-off */
#define SEED 21

#define CSV_COLUMNS                                                                    \
	"device,driver,date,n,batch,layout,solver,parts,time_min_us,time_median_us,repeats," \
	"max_rel_error,bad_status,speedup_vs_thomas,speedup_vs_host"

/* What the command line asks. */
struct options {
	int sizes[MAX_LIST]; /* N: N systems of N rows */
	int nsizes;
	int parts[MAX_LIST]; /* the checkerboard's nop values */
	int nparts;
	int repeats;
	const char *out; /* directory of the CSV, or NULL */
};

/* One size's systems in one layout: host copies, device arrays. */
struct problem {
	struct tridiag_batch host;   /* host arrays, the reference in x */
	struct tridiag_batch device; /* device arrays */
	double *host_x;              /* a solver's solution, copied back */
	int *host_status;
	double host_us; /* the host Thomas, one run */
};

/* What one timed solver gives. */
struct result {
	double min_us, median_us, error;
	long bad_status;
};

static void cuda_check(int err, const char *what)
{
	if (err != cudaSuccess)
		bench_die(PROGRAM, "%s: %s", what,
			  err > 0 ? cudaGetErrorString((cudaError_t)err)
				  : (err == TRIDIAG_EUNSUPPORTED ? "unsupported" : "library error"));
}

/* A comma-separated list of positive integers, or exit(2). */
static int parse_list(const char *flag, const char *text, int *values)
{
	char copy[256], *save = NULL;
	int count = 0;

	snprintf(copy, sizeof(copy), "%s", text);
	for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		long v = bench_arg_long(PROGRAM, flag, item);

		if (v < 1 || v > 1 << 20 || count == MAX_LIST)
			bench_die_usage(PROGRAM, "%s: '%s' is out of range (1 .. 2^20, %d values)",
					flag, item, MAX_LIST);
		values[count++] = (int)v;
	}
	return count;
}

static struct options parse_options(int argc, char **argv)
{
	struct options o = {{128, 256, 512, 1024, 2048, 4096}, 6, {4, 8, 16, 32}, 4, 20, NULL};

	for (int i = 1; i < argc; i++) {
		const char *value = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(argv[i], "--help") == 0) {
			printf("usage: %s [--sizes N,N,...] [--parts P,P,...] [--repeats R] [--out DIR]\n",
			       PROGRAM);
			exit(0);
		}
		if (!value)
			bench_die_usage(PROGRAM, "%s: needs a value", argv[i]);
		if (strcmp(argv[i], "--sizes") == 0)
			o.nsizes = parse_list(argv[i], value, o.sizes);
		else if (strcmp(argv[i], "--parts") == 0)
			o.nparts = parse_list(argv[i], value, o.parts);
		else if (strcmp(argv[i], "--repeats") == 0)
			o.repeats = (int)bench_arg_long(PROGRAM, argv[i], value);
		else if (strcmp(argv[i], "--out") == 0)
			o.out = value;
		else
			bench_die_usage(PROGRAM, "unknown option %s", argv[i]);
		i++;
	}
	if (o.repeats < 1 || o.repeats > MAX_REPEATS)
		bench_die_usage(PROGRAM, "--repeats: 1 .. %d", MAX_REPEATS);
	return o;
}

static void *host_alloc(size_t bytes)
{
	void *p = malloc(bytes);

	if (!p)
		bench_die(PROGRAM, "out of host memory (%zu bytes)", bytes);
	return p;
}

/* N systems of N rows in layout, on the host and the device, and the host
 * Thomas solve of them (timed). */
static struct problem problem_make(int n, enum tridiag_layout layout)
{
	struct problem p;
	struct tridiag_host_arrays arrays;
	size_t bytes = (size_t)n * n * sizeof(double);

	p.host = {NULL, NULL, NULL, NULL, NULL, NULL, n, n, layout, 0};
	if (tridiag_host_alloc(&p.host, &arrays) != 0)
		bench_die(PROGRAM, "out of host memory (N = %d)", n);
	tridiag_fill_dominant(&p.host, arrays, SEED);
	double t0 = bench_now_us();
	if (tridiag_host_thomas(&p.host) != 0)
		bench_die(PROGRAM, "out of host memory");
	p.host_us = bench_now_us() - t0;
	cuda_check(tridiag_device_copy(&p.host, &p.device), "upload");
	p.host_x = (double *)host_alloc(bytes);
	p.host_status = (int *)host_alloc(n * sizeof(int));
	return p;
}

static void problem_free(struct problem *p)
{
	tridiag_host_free(&p->host);
	tridiag_device_free(&p->device);
	free(p->host_x);
	free(p->host_status);
}

/* Check solver on p (parts for the checkerboard), then time it. False
 * where it does not take p. */
static bool run_solver(const struct tridiag_solver *solver, struct problem *p, int parts,
		       int repeats, struct result *r)
{
	struct tridiag_batch batch = p->device;
	size_t bytes = (size_t)batch.batch * batch.n * sizeof(double);
	double *work = NULL, times[MAX_REPEATS];
	cudaEvent_t start, stop;
	int err;

	batch.parts = parts;
	if (!tridiag_solver_takes(solver, &batch))
		return false;
	if (solver->work_doubles(&batch))
		cuda_check(cudaMalloc(&work, solver->work_doubles(&batch) * sizeof(double)),
			   "cudaMalloc workspace");
	cuda_check(cudaMemset(batch.x, 0, bytes), "cudaMemset");
	err = solver->solve(&batch, work, 0);
	if (err == TRIDIAG_EUNSUPPORTED) {
		cudaFree(work);
		return false;
	}
	cuda_check(err, solver->name);
	cuda_check(cudaMemcpy(p->host_x, batch.x, bytes, cudaMemcpyDeviceToHost), "download");
	cuda_check(cudaMemcpy(p->host_status, batch.status, batch.batch * sizeof(int),
			      cudaMemcpyDeviceToHost), "download");
	r->error = tridiag_max_relative_error(&p->host, p->host_x, p->host.x);
	r->bad_status = 0;
	for (long s = 0; s < batch.batch; s++)
		r->bad_status += p->host_status[s] != TRIDIAG_OK;

	cuda_check(cudaEventCreate(&start), "cudaEventCreate");
	cuda_check(cudaEventCreate(&stop), "cudaEventCreate");
	for (int k = 0; k < WARMUPS + repeats; k++) {
		float ms;

		cuda_check(cudaEventRecord(start, 0), "cudaEventRecord");
		cuda_check(solver->solve(&batch, work, 0), solver->name);
		cuda_check(cudaEventRecord(stop, 0), "cudaEventRecord");
		cuda_check(cudaEventSynchronize(stop), solver->name);
		cuda_check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
		if (k >= WARMUPS)
			times[k - WARMUPS] = 1e3 * ms;
	}
	r->min_us = bench_min(times, repeats);
	r->median_us = bench_median(times, repeats);
	cudaEventDestroy(start);
	cudaEventDestroy(stop);
	cudaFree(work);
	return true;
}

static const char *layout_name(enum tridiag_layout layout)
{
	return layout == TRIDIAG_INTERLEAVED ? "interleaved" : "contiguous";
}

int main(int argc, char **argv)
{
	struct options o = parse_options(argc, argv);
	char device[256], driver[32], date[32], path[512];
	struct cudaDeviceProp prop;
	int version, failed = 0;
	FILE *csv = NULL;

	cuda_check(cudaGetDeviceProperties(&prop, 0), "no CUDA device");
	cuda_check(cudaDriverGetVersion(&version), "driver version");
	snprintf(device, sizeof(device), "%s", prop.name);
	snprintf(driver, sizeof(driver), "%d.%d", version / 1000, version % 1000 / 10);
	bench_date(date, sizeof(date));
	if (o.out) {
		mkdir(o.out, 0777);
		snprintf(path, sizeof(path), "%s/bench-tridiag.csv", o.out);
		csv = fopen(path, "w");
		if (!csv)
			bench_die(PROGRAM, "%s: cannot write", path);
		fprintf(csv, "# %s on %s (driver %s), %s; N systems of N rows, double; "
			     "error: worst system's max|x - x_host| / max|x_host|; "
			     "speed-ups of the median against thomas in the same layout and "
			     "against one host thread's Thomas\n%s\n",
			PROGRAM, device, driver, date, CSV_COLUMNS);
	}
	printf("%s on %s, driver %s, %s\n", PROGRAM, device, driver, date);
	printf("%6s %-11s %-20s %5s %12s %12s %10s %4s %8s %8s\n", "N", "layout", "solver", "parts",
	       "min_us", "median_us", "error", "bad", "vs_thom", "vs_host");
	for (int si = 0; si < o.nsizes; si++) {
		for (int li = 0; li < 2; li++) {
			enum tridiag_layout layout = li ? TRIDIAG_INTERLEAVED : TRIDIAG_CONTIGUOUS;
			struct problem p = problem_make(o.sizes[si], layout);
			double thomas_us = 0;

			for (int k = 0; tridiag_solvers[k]; k++) {
				const struct tridiag_solver *solver = tridiag_solvers[k];
				bool split = solver->uses_parts;

				for (int pi = 0; pi < (split ? o.nparts : 1); pi++) {
					int parts = split ? o.parts[pi] : 0;
					struct result r;

					if (!run_solver(solver, &p, parts, o.repeats, &r)) {
						printf("%6d %-11s %-20s %5d   (does not take this batch)\n",
						       p.host.n, layout_name(layout), solver->name, parts);
						continue;
					}
					if (solver == &tridiag_thomas)
						thomas_us = r.median_us;
					bool bad = !(r.error <= ERROR_LIMIT) || r.bad_status;
					failed |= bad;
					printf("%6d %-11s %-20s %5d %12.1f %12.1f %10.2e %4ld %8.2f %8.2f%s\n",
					       p.host.n, layout_name(layout), solver->name, parts,
					       r.min_us, r.median_us, r.error, r.bad_status,
					       thomas_us / r.median_us, p.host_us / r.median_us,
					       bad ? "  FAILED" : "");
					if (csv)
						fprintf(csv, "\"%s\",%s,%s,%d,%ld,%s,%s,%d,%.2f,%.2f,%d,%.3e,%ld,%.3f,%.3f\n",
							device, driver, date, p.host.n, p.host.batch,
							layout_name(layout), solver->name, parts, r.min_us,
							r.median_us, o.repeats, r.error, r.bad_status,
							thomas_us / r.median_us, p.host_us / r.median_us);
				}
			}
			printf("%6d %-11s %-20s %5d %12.1f %12.1f %10s %4s %8s %8.2f\n", p.host.n,
			       layout_name(layout), "host-thomas", 0, p.host_us, p.host_us, "-", "-",
			       "-", 1.0);
			if (csv)
				fprintf(csv, "\"%s\",%s,%s,%d,%ld,%s,host-thomas,0,%.2f,%.2f,1,0,0,,1\n",
					device, driver, date, p.host.n, p.host.batch, layout_name(layout),
					p.host_us, p.host_us);
			problem_free(&p);
		}
	}
	if (csv) {
		fclose(csv);
		printf("CSV: %s\n", path);
	}
	return failed;
}
