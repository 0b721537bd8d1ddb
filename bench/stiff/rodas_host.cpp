/* rodas_host.cpp - rodas.cuh's Rodas5P on the host for every model (see
 * rodas_host.h): the same template the GPU kernels of bin/bench-rodas
 * instantiate, built by the system C++ compiler with OpenMP. */
#include <stdlib.h>
#include <string.h>

#include "bench_models.h" /* generated: every models/NAME.cu, struct only */
#include "rodas.cuh"
#include "rodas_host.h"

using namespace stiffens;

/* The job's rows into the integrator's SoA arrays, solved, and back. */
template <class Model>
static int solve(const rodas_host_job *job)
{
	constexpr int n = Model::dim, np = Model::nparams;
	const long N = job->ntraj, no = job->nout;
	rodas_ensemble<double> ens = {};
	rodas_times<double> times = {};
	rodas_control ctl = {job->rtol, job->atol, job->h0,
			     job->max_steps > 0 ? job->max_steps : 1000000, job->fixed};
	double *x0 = (double *)malloc(n * N * sizeof(double));
	double *par = np > 0 && job->params ? (double *)malloc(np * N * sizeof(double)) : NULL;
	double *xout = (double *)malloc(no * n * N * sizeof(double));
	long *counts = (long *)malloc(4 * N * sizeof(long));
	int err = 0;

	if (!x0 || !xout || !counts || (np > 0 && job->params && !par)) {
		err = -2;
		goto out;
	}
	for (long i = 0; i < N; i++) {
		for (int k = 0; k < n; k++)
			x0[k * N + i] = job->x0[i * n + k];
		for (int q = 0; par && q < np; q++)
			par[q * N + i] = job->params[i * np + q];
	}
	times.t0 = job->t0;
	times.n = (int)no;
	for (int o = 0; o < no; o++)
		times.t[o] = job->tout[o];
	ens = {x0, par, xout, N, job->status, counts, counts + N, counts + 2 * N, counts + 3 * N};
	rodas_host<rodas5p, Model, double>(ens, times, ctl, job->threads);
	for (long i = 0; i < N; i++) {
		for (int o = 0; o < no; o++)
			for (int k = 0; k < n; k++)
				job->xout[(i * no + o) * n + k] = xout[(o * n + k) * N + i];
		if (job->evals)
			job->evals[i] = counts[i];
		if (job->jacs)
			job->jacs[i] = counts[N + i];
		if (job->accepted)
			job->accepted[i] = counts[2 * N + i];
		if (job->rejected)
			job->rejected[i] = counts[3 * N + i];
	}
out:
	free(x0);
	free(par);
	free(xout);
	free(counts);
	return err;
}

/* A model of bench_models.h and its instantiation. */
struct rodas_host_entry {
	const char *name;
	int (*solve)(const rodas_host_job *job);
};

#define RODAS_HOST_ENTRY(m) {#m, solve<m>},
static const rodas_host_entry entries[] = {BENCH_MODELS(RODAS_HOST_ENTRY)};

extern "C" int rodas_host_solve(const char *model, const rodas_host_job *job)
{
	if (!job || job->ntraj < 1 || job->nout < 1 || job->nout > RODAS_MAX_OUT ||
	    !job->x0 || !job->tout || !job->xout || !job->status)
		return -2;
	for (const rodas_host_entry &e : entries)
		if (!strcmp(e.name, model))
			return e.solve(job);
	return -1;
}
