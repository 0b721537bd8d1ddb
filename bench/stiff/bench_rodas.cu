/* bench_rodas.cu - bin/bench-rodas: the per-thread Rosenbrock baseline of
 * issue 18 (Rodas5P, rodas.cuh) on picard's ensembles, timed and checked
 * like bin/bench-cvode (stiff_common.h).
 *
 *   bench-rodas MODEL [--rtol R --atol A] [--backend cuda|host] [options]
 *
 * One CUDA thread per trajectory (SoA layout, the model's rhs and Jacobian
 * compile-time template arguments, double precision); --backend host runs
 * the same template on the CPU with OpenMP (rodas_host.cpp). A run makes
 * the ensemble (picard-run's), the GSL msbdf reference of a sample, solves
 * once to warm up, times --repeats solves (GPU: CUDA events around the
 * kernel, states staying on the device; host: CLOCK_MONOTONIC around the
 * OpenMP loop) and prints one CSV row.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>

#include "bench_common.h"
#include "bench_models.h" /* generated: every models/NAME.cu, struct only */
#include "rodas.cuh"
#include "rodas_host.h"
#include "stiff_common.h"

using namespace stiffens;

static const char *program = "bench-rodas";

static void cuda_check(cudaError_t e, const char *what)
{
	if (e != cudaSuccess)
		bench_die(program, "%s: %s", what, cudaGetErrorString(e));
}

/* What a solve returns, row per trajectory. */
struct results {
	double *xout;   /* ntraj * nout * dim */
	int *status;    /* ntraj */
	long *evals, *jacs, *accepted, *rejected; /* ntraj each */
};

/* ---- the GPU ------------------------------------------------------------------- */

template <typename T> static T *dev_alloc(size_t count)
{
	void *p = NULL;

	cuda_check(cudaMalloc(&p, count * sizeof(T)), "cudaMalloc");
	return (T *)p;
}

/* The ensemble on the device, solved repeatedly. */
template <class Model>
static void gpu_run(const stiff_opts &o, const stiff_problem &pb, double *times_us,
		    results *r)
{
	constexpr int n = Model::dim, np = Model::nparams;
	const long N = pb.ntraj, no = pb.nout;
	rodas_ensemble<double> ens = {};
	rodas_times<double> times = {};
	rodas_control ctl = {o.rtol, o.atol, 0, o.max_steps, 0};
	double *soa = (double *)malloc((no * n + (np > 0 ? np : 1)) * N * sizeof(double));
	long *counts = (long *)malloc(4 * N * sizeof(long));
	cudaEvent_t start, stop;

	if (!soa || !counts)
		bench_die(program, "out of memory");
	double *x0 = dev_alloc<double>(n * N), *par = dev_alloc<double>((np > 0 ? np : 1) * N);
	double *xout = dev_alloc<double>(no * n * N);
	int *status = dev_alloc<int>(N);
	long *dcounts = dev_alloc<long>(4 * N);

	for (long i = 0; i < N; i++)
		for (int k = 0; k < n; k++)
			soa[k * N + i] = pb.x0[i * n + k];
	cuda_check(cudaMemcpy(x0, soa, n * N * sizeof(double), cudaMemcpyHostToDevice), "copy x0");
	for (long i = 0; i < N; i++)
		for (int q = 0; q < np; q++)
			soa[q * N + i] = pb.params[i * np + q];
	cuda_check(cudaMemcpy(par, soa, (np > 0 ? np : 1) * N * sizeof(double),
			      cudaMemcpyHostToDevice), "copy params");
	times.t0 = pb.t0;
	times.n = (int)no;
	for (int k = 0; k < no; k++)
		times.t[k] = pb.tout[k];
	ens = {x0, np > 0 ? par : NULL, xout, N, status, dcounts, dcounts + N, dcounts + 2 * N,
	       dcounts + 3 * N};
	cuda_check(cudaEventCreate(&start), "event");
	cuda_check(cudaEventCreate(&stop), "event");
	for (int rep = -1; rep < o.repeats; rep++) { /* -1: the warm-up */
		float ms = 0;

		cuda_check(cudaEventRecord(start), "event record");
		cuda_check((rodas_launch<rodas5p, Model, double>(ens, times, ctl, o.block, 0)),
			   "kernel launch");
		cuda_check(cudaEventRecord(stop), "event record");
		cuda_check(cudaEventSynchronize(stop), "kernel");
		cuda_check(cudaGetLastError(), "kernel");
		cuda_check(cudaEventElapsedTime(&ms, start, stop), "event time");
		if (rep >= 0)
			times_us[rep] = 1e3 * ms;
	}
	cuda_check(cudaMemcpy(soa, xout, no * n * N * sizeof(double), cudaMemcpyDeviceToHost),
		   "copy xout");
	cuda_check(cudaMemcpy(r->status, status, N * sizeof(int), cudaMemcpyDeviceToHost),
		   "copy status");
	cuda_check(cudaMemcpy(counts, dcounts, 4 * N * sizeof(long), cudaMemcpyDeviceToHost),
		   "copy counts");
	for (long i = 0; i < N; i++) {
		for (int k = 0; k < no * n; k++)
			r->xout[i * no * n + k] = soa[k * N + i];
		r->evals[i] = counts[i];
		r->jacs[i] = counts[N + i];
		r->accepted[i] = counts[2 * N + i];
		r->rejected[i] = counts[3 * N + i];
	}
	cudaEventDestroy(start);
	cudaEventDestroy(stop);
	cudaFree(x0);
	cudaFree(par);
	cudaFree(xout);
	cudaFree(status);
	cudaFree(dcounts);
	free(soa);
	free(counts);
}

/* A model of bench_models.h and its GPU instantiation. */
struct model_entry {
	const char *name;
	void (*run)(const stiff_opts &o, const stiff_problem &pb, double *times_us, results *r);
};

#define RODAS_MODEL_ENTRY(m) {#m, gpu_run<m>},
static const model_entry model_list[] = {BENCH_MODELS(RODAS_MODEL_ENTRY)};

/* ---- the host ------------------------------------------------------------------- */

static void host_run(const stiff_opts &o, const stiff_problem &pb, double *times_us,
		     results *r)
{
	rodas_host_job job = {};
	int err;

	job.ntraj = pb.ntraj;
	job.x0 = pb.x0;
	job.params = pb.params;
	job.t0 = pb.t0;
	job.tout = pb.tout;
	job.nout = pb.nout;
	job.rtol = o.rtol;
	job.atol = o.atol;
	job.max_steps = o.max_steps;
	job.threads = o.threads;
	job.xout = r->xout;
	job.status = r->status;
	job.evals = r->evals;
	job.jacs = r->jacs;
	job.accepted = r->accepted;
	job.rejected = r->rejected;
	for (int rep = -1; rep < o.repeats; rep++) {
		double begin = bench_now_us();

		if ((err = rodas_host_solve(o.model_name, &job)))
			bench_die(program, "host solve: error %d", err);
		if (rep >= 0)
			times_us[rep] = bench_now_us() - begin;
	}
}

int main(int argc, char **argv)
{
	char **command = (char **)malloc((argc + 1) * sizeof(char *));
	char device[256], driver[32], config[64];
	stiff_opts o;
	stiff_problem pb;
	stiff_sample sample;

	/* stiff_parse permutes argv: keep the command as typed for the CSV. */
	for (int i = 0; i <= argc; i++)
		command[i] = argv[i];
	stiff_parse(argc, argv, program, true, &o);
	const model_entry *me = NULL;
	for (const model_entry &e : model_list)
		if (!strcmp(e.name, o.model_name))
			me = &e;
	if (!me)
		bench_die_usage(program, "no instantiation of model '%s'", o.model_name);
	if (o.host) {
		bench_cpu_name(device, sizeof(device));
		snprintf(driver, sizeof(driver), "-");
		snprintf(config, sizeof(config), "threads=%d",
			 o.threads ? o.threads : omp_get_max_threads());
	} else {
		int count = 0, version = 0;
		cudaDeviceProp prop;

		if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1)
			bench_die(program, "no CUDA device (use --backend host to run on the CPU)");
		cuda_check(cudaGetDeviceProperties(&prop, 0), "device properties");
		cuda_check(cudaDriverGetVersion(&version), "driver version");
		snprintf(device, sizeof(device), "%s", prop.name);
		snprintf(driver, sizeof(driver), "%d.%d", version / 1000, version % 1000 / 10);
		snprintf(config, sizeof(config), "block=%d", o.block);
	}

	bool new_file;
	FILE *out = bench_csv_open(program, o.csv, &new_file);

	stiff_problem_make(&o, program, &pb);
	stiff_sample_make(&o, &pb, &sample);
	stiff_csv_header(out, argc, command, program, device, &o, &pb, &sample, new_file);

	const long N = pb.ntraj;
	results r;
	double *times_us = (double *)malloc(o.repeats * sizeof(double));

	r.xout = (double *)malloc(N * pb.nout * pb.dim * sizeof(double));
	r.status = (int *)malloc(N * sizeof(int));
	r.evals = (long *)malloc(4 * N * sizeof(long));
	if (!r.xout || !r.status || !r.evals || !times_us)
		bench_die(program, "out of memory");
	r.jacs = r.evals + N;
	r.accepted = r.evals + 2 * N;
	r.rejected = r.evals + 3 * N;
	if (o.host)
		host_run(o, pb, times_us, &r);
	else
		me->run(o, pb, times_us, &r);

	stiff_counts c = stiff_counts_of(N, r.status, r.accepted, r.rejected, r.evals, r.jacs);
	stiff_errors e = stiff_errors_of(&o, &pb, &sample, r.xout, r.status);
	if (c.failed)
		fprintf(out, "# failed trajectories: %ld\n", c.failed);
	stiff_csv_row(out, device, driver, &o, &pb, "rodas5p", config, times_us, o.repeats, &c, &e,
		      sample.n);
	if (out != stdout) {
		fclose(out);
		stiff_csv_row(stdout, device, driver, &o, &pb, "rodas5p", config, times_us,
			      o.repeats, &c, &e, sample.n);
	}
	free(times_us);
	free(r.xout);
	free(r.status);
	free(r.evals);
	free(command);
	stiff_sample_free(&sample);
	stiff_problem_free(&pb);
	return c.failed ? 1 : 0;
}
