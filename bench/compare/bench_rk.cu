/* bench_rk.cu - bin/bench-rk: the per-thread GPU Runge-Kutta baseline
 * (rk_ensemble.cuh) on picard's ensembles, timed and checked the same way
 * as picard (GitHub issue 6, "Compare with the alternatives").
 *
 *   bench-rk MODEL --method M [--precision float|double] [--traj N]
 *            (--steps N | --h H | --tol T | --target E) [options]
 *   bench-rk --selfcheck
 *
 * A run generates the ensemble (picard_ensemble_spread: the states
 * picard-run uses), integrates the reference of an evenly spaced sample
 * (picard_reference, GSL rk8pd 1e-12), solves once to warm up, then times
 * --repeats solves with CUDA events (the kernel alone: states stay on the
 * device) and prints one CSV row: median and min time, the error at t1 on
 * the sample, right-hand side evaluations per trajectory, failures.
 * --target E first searches, measuring each candidate, the fewest steps
 * (fixed methods) or the largest tolerance (adaptive ones) whose error is
 * <= E with no failed trajectory, and reports that setting.
 * --backend host runs the very same integrators on the host (OpenMP over
 * trajectories, compile-time right-hand side): a strong CPU baseline too.
 * --selfcheck validates the methods' orders on the host (and the device
 * against the host when a GPU is present); exit status 1 on any failure.
 */
#include <algorithm>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>

/* --selfcheck instantiates the __host__ __device__ integrators and model
 * right-hand sides with long double, on the host only; nvcc still warns
 * that long double is double on the device and that the long double maths
 * (sqrtl) is host code. A device instantiation calling host code would
 * still be an error, not one of these warnings. */
#pragma nv_diag_suppress 20011, 20013, 20014, 20015, 20208

#include "bench_common.h"
#include "bench_models.h" /* generated: every models/NAME.cu, struct only */
#include "build_flags.h"  /* generated: BENCH_BUILD_FLAGS */
#include "rk_ensemble.cuh"

using namespace rkens;

static const char *program = "bench-rk";

/* ---- methods --------------------------------------------------------------- */

enum method_id { M_EULER, M_RK4, M_DP5, M_DP8, M_DP5A, M_DP8A, M_COUNT };

static const struct method_info {
	const char *name;  /* --method and the CSV's method column */
	bool adaptive;     /* tolerance, not steps */
	int order;         /* of the propagated solution */
} methods[M_COUNT] = {
	{"euler", false, 1},        {"rk4", false, 4},
	{"dp5", false, 5},          {"dp8", false, 8},
	{"dp5-adaptive", true, 5},  {"dp8-adaptive", true, 8},
};

static int method_find(const char *name)
{
	for (int m = 0; m < M_COUNT; m++)
		if (!strcmp(methods[m].name, name))
			return m;
	return -1;
}

/* ---- options ------------------------------------------------------------------ */

/* What a run measures; zero fields mean defaults. */
struct bench_opts {
	const char *model;      /* model name */
	int method;             /* method_id */
	bool dbl;               /* double precision (else float) */
	long ntraj;             /* ensemble size */
	long steps;             /* fixed step count */
	double h;               /* fixed step size: steps = ceil(span / h) */
	double tol;             /* adaptive rtol = atol */
	double target;          /* > 0: search the cheapest setting meeting it */
	double spread;          /* ensemble spread */
	unsigned long long seed; /* ensemble seed */
	long sample;            /* trajectories compared with the reference */
	int repeats;            /* timed solves */
	int block;              /* threads per block (device) */
	bool host;              /* run on the host (OpenMP) */
	int threads;            /* host threads (0: all) */
	long max_steps;         /* adaptive: step limit; fixed: search limit */
	const char *csv;        /* append the output here (else stdout) */
};

/* ---- one ensemble, device or host --------------------------------------------- */

static void cuda_check(cudaError_t e, const char *what)
{
	if (e != cudaSuccess)
		bench_die(program, "%s: %s", what, cudaGetErrorString(e));
}

/* An ensemble of one model and precision, ready to be solved repeatedly. */
struct solver {
	virtual ~solver() {}
	/* One solve by method with steps or tol; *us: its time (CUDA events on
	 * the device, CLOCK_MONOTONIC on the host). */
	virtual void solve(int method, long steps, double tol, double *us) = 0;
	/* The last solve's end states (row per trajectory, double), statuses
	 * and evaluation counts, each ntraj entries. */
	virtual void results(double *x1, int *status, long *evals) = 0;
};

template <class Model, typename real>
struct ens_solver : solver {
	static constexpr int n = Model::dim;
	const bench_opts o;     /* options (a copy: the caller's may change) */
	double t0, t1;          /* span (the model's) */
	rk_ensemble<real> ens;  /* device or host arrays */
	cudaEvent_t start, stop; /* device timing */

	template <typename T> T *alloc(size_t count)
	{
		void *p = NULL;

		if (o.host)
			p = malloc(count * sizeof(T));
		else
			cuda_check(cudaMalloc(&p, count * sizeof(T)), "cudaMalloc");
		if (!p)
			bench_die(program, "out of memory (%zu bytes)", count * sizeof(T));
		return (T *)p;
	}
	void release(const void *p)
	{
		if (o.host)
			free((void *)p);
		else
			cudaFree((void *)p);
	}

	ens_solver(const bench_opts &opts, const double *x0) : o(opts)
	{
		const long N = o.ntraj;
		real *soa = (real *)malloc(n * N * sizeof(real));

		t0 = Model::t0;
		t1 = Model::t1;
		ens.ntraj = N;
		ens.x0 = alloc<real>(n * N);
		ens.x1 = alloc<real>(n * N);
		ens.status = alloc<int>(N);
		ens.evals = alloc<long>(N);
		ens.accepted = alloc<long>(N);
		ens.rejected = alloc<long>(N);
		if (!soa)
			bench_die(program, "out of memory");
		for (long i = 0; i < N; i++)
			for (int k = 0; k < n; k++)
				soa[k * N + i] = real(x0[i * n + k]);
		if (o.host) {
			memcpy((void *)ens.x0, soa, n * N * sizeof(real));
		} else {
			cuda_check(cudaMemcpy((void *)ens.x0, soa, n * N * sizeof(real),
					      cudaMemcpyHostToDevice), "copy x0");
			cuda_check(cudaEventCreate(&start), "event");
			cuda_check(cudaEventCreate(&stop), "event");
		}
		free(soa);
	}
	~ens_solver()
	{
		release(ens.x0);
		release(ens.x1);
		release(ens.status);
		release(ens.evals);
		release(ens.accepted);
		release(ens.rejected);
		if (!o.host) {
			cudaEventDestroy(start);
			cudaEventDestroy(stop);
		}
	}

	template <class Tab, bool adaptive>
	void run(long steps, const rk_control &ctl, double *us)
	{
		if (o.host) {
			double begin = bench_now_us();

			rk_host<Tab, Model, real, adaptive>(ens, real(t0), real(t1),
							    steps, ctl, o.threads);
			*us = bench_now_us() - begin;
			return;
		}
		float ms = 0;
		cuda_check(cudaEventRecord(start), "event record");
		cuda_check((rk_launch<Tab, Model, real, adaptive>(
				   ens, real(t0), real(t1), steps, ctl, o.block, 0)),
			   "kernel launch");
		cuda_check(cudaEventRecord(stop), "event record");
		cuda_check(cudaEventSynchronize(stop), "kernel");
		cuda_check(cudaGetLastError(), "kernel");
		cuda_check(cudaEventElapsedTime(&ms, start, stop), "event time");
		*us = 1e3 * ms;
	}

	void solve(int method, long steps, double tol, double *us) override
	{
		rk_control ctl = {tol, tol, 0.9, 0.2, 5.0, 0, o.max_steps};

		switch (method) {
		case M_EULER: run<euler, false>(steps, ctl, us); break;
		case M_RK4: run<rk4, false>(steps, ctl, us); break;
		case M_DP5: run<dp5, false>(steps, ctl, us); break;
		case M_DP8: run<dp8, false>(steps, ctl, us); break;
		case M_DP5A: run<dp5, true>(0, ctl, us); break;
		case M_DP8A: run<dp8, true>(0, ctl, us); break;
		}
	}

	void results(double *x1, int *status, long *evals) override
	{
		const long N = o.ntraj;
		real *soa = (real *)malloc(n * N * sizeof(real));

		if (!soa)
			bench_die(program, "out of memory");
		if (o.host) {
			memcpy(soa, ens.x1, n * N * sizeof(real));
			memcpy(status, ens.status, N * sizeof(int));
			memcpy(evals, ens.evals, N * sizeof(long));
		} else {
			cuda_check(cudaMemcpy(soa, ens.x1, n * N * sizeof(real),
					      cudaMemcpyDeviceToHost), "copy x1");
			cuda_check(cudaMemcpy(status, ens.status, N * sizeof(int),
					      cudaMemcpyDeviceToHost), "copy status");
			cuda_check(cudaMemcpy(evals, ens.evals, N * sizeof(long),
					      cudaMemcpyDeviceToHost), "copy evals");
		}
		for (long i = 0; i < N; i++)
			for (int k = 0; k < n; k++)
				x1[i * n + k] = double(soa[k * N + i]);
		free(soa);
	}
};

/* ---- the compile-time list of models ------------------------------------------ */

template <class Model>
static solver *make_solver(const bench_opts &o, const double *x0)
{
	if (o.dbl)
		return new ens_solver<Model, double>(o, x0);
	return new ens_solver<Model, float>(o, x0);
}

/* A model of bench_models.h. */
struct model_entry {
	const char *name;   /* as in the registry */
	int dim;            /* components */
	const double *x0;   /* default initial state */
	solver *(*make)(const bench_opts &o, const double *x0);
};

#define BENCH_MODEL_ENTRY(m) {#m, m::dim, m::x0, make_solver<m>},
static const model_entry model_list[] = {BENCH_MODELS(BENCH_MODEL_ENTRY)};
static const int model_count = sizeof(model_list) / sizeof(model_list[0]);

static const model_entry *model_entry_find(const char *name)
{
	for (int i = 0; i < model_count; i++)
		if (!strcmp(model_list[i].name, name))
			return &model_list[i];
	return NULL;
}

/* ---- measuring ---------------------------------------------------------------------- */

/* What a probe needs: the solver, the sample and scratch for the results. */
struct probe_ctx {
	const bench_opts *o;
	solver *s;
	const bench_sample *sample;
	int dim;
	double *x1;
	int *status;
	long *evals;
};

/* Fill p from the last solve's results. */
static void measure(probe_ctx *c, bench_probe *p)
{
	const long N = c->o->ntraj;
	double sum = 0;

	c->s->results(c->x1, c->status, c->evals);
	p->failed = 0;
	p->evals_max = 0;
	for (long i = 0; i < N; i++) {
		p->failed += c->status[i] != RK_OK;
		sum += c->evals[i];
		if (c->evals[i] > p->evals_max)
			p->evals_max = c->evals[i];
	}
	p->evals_mean = sum / N;
	p->error = bench_error(c->sample, c->dim, c->x1, c->status, false);
}

static int probe(void *ctx, long steps, double tol, bench_probe *out)
{
	probe_ctx *c = (probe_ctx *)ctx;
	double us;

	c->s->solve(c->o->method, steps, tol, &us);
	measure(c, out);
	return 0;
}

/* Per-status counts of the last solve, as a '#' line when any failed. */
static void report_failures(FILE *out, const int *status, long N)
{
	long counts[4] = {0};

	for (long i = 0; i < N; i++)
		if (status[i] >= 0 && status[i] < 4)
			counts[status[i]]++;
	if (counts[1] + counts[2] + counts[3])
		fprintf(out, "# failed trajectories: %ld non-finite, %ld step underflow, %ld too many steps (first: %ld)\n",
			counts[1], counts[2], counts[3],
			(long)(std::find_if(status, status + N, [](int v) { return v != 0; }) - status));
}

/* ---- selfcheck ------------------------------------------------------------------------- */

/* Integrate one trajectory of Model on the host, fixed or adaptive. */
template <class Tab, class Model>
static rk_counts host_one(double *x, double t0, double t1, long steps, double tol,
			  long max_steps = 10000000)
{
	rk_params<Model, double> par = rk_default_params<Model, double>();
	rk_control ctl = {tol, tol, 0.9, 0.2, 5.0, 0, max_steps};

	if (steps)
		return rk_fixed<Tab, Model, double>(x, par.v, t0, t1, steps);
	if constexpr (Tab::embedded)
		return rk_adaptive<Tab, Model, double>(x, par.v, t0, t1, ctl);
	return rk_counts{-1, 0, 0, 0};
}

/* The orders are measured in long double (x86: 64-bit significand), so
 * that the errors of the high-order methods can shrink through several
 * halvings before rounding (about 1e-16 here) takes over. */
typedef long double ldouble;

/* The Kepler orbit of models/kepler.cu (mu = 1, semi-major axis 1,
 * eccentricity e, periapsis at t = 0) at time t, exactly: Kepler's equation
 * E - e sin E = t solved by Newton's method, then q = (cos E - e,
 * sqrt(1 - e^2) sin E), p = q' (Hairer, Lubich & Wanner, GNI I.2.3). */
static void kepler_exact(ldouble t, ldouble *x)
{
	const ldouble e = kepler::param_defaults[1], w = sqrtl(1 - e * e);
	ldouble E = t;

	for (int it = 0; it < 100; it++) {
		ldouble dE = (E - e * sinl(E) - t) / (1 - e * cosl(E));

		E -= dE;
		if (fabsl(dE) < 1e-19L * (1 + fabsl(E)))
			break;
	}
	x[0] = cosl(E) - e;
	x[1] = w * sinl(E);
	x[2] = -sinl(E) / (1 - e * cosl(E));
	x[3] = w * cosl(E) / (1 - e * cosl(E));
}

/* The oscillator's exact solution (omega = 1) from its default start. */
static void oscillator_exact(ldouble t, ldouble *x)
{
	x[0] = oscillator::x0[0] * cosl(t) + oscillator::x0[1] * sinl(t);
	x[1] = -oscillator::x0[0] * sinl(t) + oscillator::x0[1] * cosl(t);
}

/* The exact state at t of the order problems: Kepler or the oscillator. */
template <class Model>
static void exact_state(ldouble t, ldouble *x)
{
	if constexpr (Model::dim == 4)
		kepler_exact(t, x);
	else
		oscillator_exact(t, x);
}

/* Global error of Tab with steps equal steps over [0, t1], in long double
 * against the exact solution: the largest over every step end (a single
 * end point can be lucky, its error components cancelling) of
 * max_k |x_k - x_exact,k|. Starts from the exact state in long double
 * (Kepler's x0 in double, sqrt 3 rounded, would put a 1e-14 floor on the
 * error). The oscillator is linear; Kepler is a nonlinear system and tests
 * the order conditions a linear problem cannot. */
template <class Tab, class Model>
static double exact_error(double t1, long steps)
{
	rk_params<Model, ldouble> par = rk_default_params<Model, ldouble>();
	ldouble x[Model::dim], exact[Model::dim], err = 0;
	const ldouble h = (ldouble)t1 / steps;

	exact_state<Model>(0, x);
	for (long i = 0; i < steps; i++) {
		rk_fixed<Tab, Model, ldouble>(x, par.v, i * h, (i + 1) * h, 1);
		exact_state<Model>((i + 1) * h, exact);
		for (int k = 0; k < Model::dim; k++)
			err = fmaxl(err, fabsl(x[k] - exact[k]));
	}
	return (double)err;
}

/* Observed order of Tab on Model over [0, t1] as the step halves from n0
 * steps: log2 of the ratio of successive errors, printed while the finer
 * error stays above 1e-13 (the coefficients are doubles: they satisfy the
 * order conditions to about 1e-16, which puts a floor near 1e-15 under the
 * error). Judged on the order over the last two halvings (log2 of the
 * ratio over a fourfold step reduction, halved: single ratios of dp8 on
 * Kepler still wander between 7 and 9.6 before the floor), which must lie
 * in [p - 0.3, p + 0.6], or [p - 0.3, p + 1.1] on the linear oscillator:
 * an order-p method can match exp(z) beyond order p (dp8 shows about 8.9
 * there before it reaches the floor). */
template <class Tab, class Model>
static bool check_order(const char *problem, double t1, long n0, int halvings = 8)
{
	double prev = exact_error<Tab, Model>(t1, n0), last = NAN, before = NAN;
	int pairs = 0;

	printf("order of %-5s (expected %d) on %s, [0, %g], exact solution:\n",
	       Tab::name, Tab::order, problem, t1);
	printf("  steps %8ld  error %.3e\n", n0, prev);
	for (long n = 2 * n0; n <= (n0 << halvings); n *= 2) {
		double e = exact_error<Tab, Model>(t1, n);

		if (e < 1e-13)
			break;
		before = last;
		last = log2(prev / e);
		pairs++;
		printf("  steps %8ld  error %.3e  observed order %.3f\n", n, e, last);
		prev = e;
	}
	const double lo = Tab::order - 0.3,
		     hi = Tab::order + (Model::dim == 4 ? 0.6 : 1.1);
	const double order = 0.5 * (last + before);
	bool ok = pairs >= 2 && order >= lo && order <= hi;
	printf("  order over the last two halvings %.3f, want [%.1f, %.1f]: %s\n", order,
	       lo, hi, ok ? "ok" : "FAILED");
	return ok;
}

/* Adaptive Tab on the oscillator: at tolerances 1e-5 .. 1e-11 the error
 * must shrink as tol does and stay within 200 tol (global error of a
 * locally controlled method over 20 time units), ending at t1. */
template <class Tab>
static bool check_adaptive(void)
{
	bool ok = true;
	double prev = INFINITY;

	printf("adaptive %s on the oscillator:\n", Tab::name);
	for (double tol = 1e-5; tol >= 1e-11; tol /= 100) {
		double x[2] = {oscillator::x0[0], oscillator::x0[1]}, exact[2];
		rk_counts c = host_one<Tab, oscillator>(x, oscillator::t0,
						       oscillator::t1, 0, tol);
		double e;

		oscillator::exact(oscillator::t1, oscillator::t0, oscillator::x0,
				  oscillator::param_defaults, exact);
		e = fmax(fabs(x[0] - exact[0]), fabs(x[1] - exact[1]));
		bool good = c.status == RK_OK && e <= 200 * tol && e < prev;
		printf("  tol %.0e  error %.3e  steps %ld (+%ld rejected)  evals %ld  %s\n",
		       tol, e, c.accepted, c.rejected, c.evals, good ? "ok" : "FAILED");
		ok = ok && good;
		prev = e;
	}
	return ok;
}

/* Failures must be reported: a blow-up (riccati past t = 10) and too few
 * allowed steps. */
static bool check_failures(void)
{
	bool ok = true;
	double x[1];
	rk_counts c;

	x[0] = riccati::x0[0];
	c = host_one<rk4, riccati>(x, 0, 20, 100000, 0);
	printf("failures: rk4 fixed through the riccati blow-up: status %d (want %d)\n",
	       c.status, RK_NONFINITE);
	ok = ok && c.status == RK_NONFINITE;
	x[0] = riccati::x0[0];
	c = host_one<dp5, riccati>(x, 0, 20, 0, 1e-8);
	printf("          dp5 adaptive through it: status %d (want %d or %d)\n", c.status,
	       RK_STEP_UNDERFLOW, RK_MAX_STEPS);
	ok = ok && (c.status == RK_STEP_UNDERFLOW || c.status == RK_MAX_STEPS);
	x[0] = riccati::x0[0];
	c = host_one<dp8, riccati>(x, 0, 20, 0, 1e-8);
	printf("          dp8 adaptive through it: status %d (want %d or %d)\n", c.status,
	       RK_STEP_UNDERFLOW, RK_MAX_STEPS);
	ok = ok && (c.status == RK_STEP_UNDERFLOW || c.status == RK_MAX_STEPS);
	double y[2] = {lotka::x0[0], lotka::x0[1]};
	c = host_one<dp5, lotka>(y, lotka::t0, lotka::t1, 0, 1e-10, 5);
	printf("          dp5 adaptive on lotka allowed 5 steps: status %d (want %d)\n",
	       c.status, RK_MAX_STEPS);
	ok = ok && c.status == RK_MAX_STEPS;
	printf("  %s\n", ok ? "ok" : "FAILED");
	return ok;
}

/* With a device: every method on lotka (256 trajectories, double) on the
 * device and on the host must agree, to rounding for fixed steps (1e-9
 * relative) and within 10 tol for adaptive ones (rounding may flip a step
 * decision). */
static bool check_device(void)
{
	int count = 0;

	if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) {
		printf("device vs host: skipped, no CUDA device\n");
		return true;
	}
	bench_opts o = {};
	o.ntraj = 256;
	o.dbl = true;
	o.block = 128;
	o.max_steps = 10000000;
	o.threads = 0;
	const long N = o.ntraj;
	double *x0 = (double *)malloc(N * 2 * sizeof(double));
	double *xd = (double *)malloc(N * 2 * sizeof(double));
	double *xh = (double *)malloc(N * 2 * sizeof(double));
	int *sd = (int *)malloc(N * sizeof(int)), *sh = (int *)malloc(N * sizeof(int));
	long *ed = (long *)malloc(N * sizeof(long)), *eh = (long *)malloc(N * sizeof(long));
	bool ok = true;

	if (picard_ensemble_spread(2, lotka::x0, N, 0.1, 1, PICARD_BACKEND_CPU, x0))
		bench_die(program, "ensemble: %s", picard_error_detail());
	for (int m = 0; m < M_COUNT; m++) {
		const double tol = 1e-9;
		const long steps = m == M_EULER ? 100000 : 2000;
		double us, diff = 0, scale = 0;

		o.host = false;
		solver *dev = make_solver<lotka>(o, x0);
		o.host = true;
		solver *host = make_solver<lotka>(o, x0);
		o.method = m;
		dev->solve(m, steps, tol, &us);
		host->solve(m, steps, tol, &us);
		dev->results(xd, sd, ed);
		host->results(xh, sh, eh);
		for (long i = 0; i < 2 * N; i++) {
			diff = fmax(diff, fabs(xd[i] - xh[i]));
			scale = fmax(scale, fabs(xh[i]));
		}
		long bad = 0;
		for (long i = 0; i < N; i++)
			bad += sd[i] != 0 || sh[i] != 0;
		double allowed = methods[m].adaptive ? 10 * tol * scale : 1e-9 * scale;
		bool good = bad == 0 && diff <= allowed;
		printf("device vs host, %-12s: max |x_dev - x_host| = %.3e (allowed %.1e)  %s\n",
		       methods[m].name, diff, allowed, good ? "ok" : "FAILED");
		ok = ok && good;
		delete dev;
		delete host;
	}
	free(x0); free(xd); free(xh); free(sd); free(sh); free(ed); free(eh);
	return ok;
}

static int selfcheck(void)
{
	bool ok = true;

	ok = check_order<euler, oscillator>("the oscillator", 20, 1000) && ok;
	ok = check_order<rk4, oscillator>("the oscillator", 20, 50) && ok;
	ok = check_order<dp5, oscillator>("the oscillator", 20, 25) && ok;
	ok = check_order<dp8, oscillator>("the oscillator", 20, 10) && ok;
	ok = check_order<euler, kepler>("kepler e=0.5", 4 * M_PI, 40000, 5) && ok;
	ok = check_order<rk4, kepler>("kepler e=0.5", 4 * M_PI, 100) && ok;
	ok = check_order<dp5, kepler>("kepler e=0.5", 4 * M_PI, 50) && ok;
	ok = check_order<dp8, kepler>("kepler e=0.5", 4 * M_PI, 25) && ok;
	ok = check_adaptive<dp5>() && ok;
	ok = check_adaptive<dp8>() && ok;
	ok = check_failures() && ok;
	ok = check_device() && ok;
	printf("selfcheck: %s\n", ok ? "passed" : "FAILED");
	return ok ? 0 : 1;
}

/* ---- command line ---------------------------------------------------------------------- */

static void usage(void)
{
	printf("usage: bench-rk MODEL --method M (--steps N | --h H | --tol T | --target E) [options]\n"
	       "       bench-rk --selfcheck | --list\n\n"
	       "  --method M        euler, rk4, dp5, dp8 (fixed step); dp5-adaptive, dp8-adaptive\n"
	       "  --precision P     float (default) or double\n"
	       "  --traj N          trajectories (default %d)\n"
	       "  --steps N, --h H  fixed: step count, or step size (steps = ceil(span / H))\n"
	       "  --tol T           adaptive: rtol = atol = T\n"
	       "  --target E        search the fewest steps / largest tol with error <= E, measured\n"
	       "  --spread S --seed N  ensemble as picard-run (default 0.1, 1)\n"
	       "  --sample N        trajectories compared with the reference (default %d)\n"
	       "  --repeats R       timed solves (default %d; median and min)\n"
	       "  --block B         threads per block (default 128)\n"
	       "  --backend B       cuda (default) or host (OpenMP, same integrators)\n"
	       "  --threads N       host threads (default: all)\n"
	       "  --max-steps N     adaptive: steps per trajectory before failing (default 1e7);\n"
	       "                    fixed --target: largest step count tried (default 2^22)\n"
	       "  --csv FILE        append the output to FILE (column names if it is new)\n"
	       "  --version         picard's version and build, the CUDA runtime and driver\n",
	       BENCH_DEFAULT_TRAJ, BENCH_DEFAULT_SAMPLE, BENCH_DEFAULT_REPEATS);
}

static double arg_double(const char *flag, const char *v)
{
	return bench_arg_double(program, flag, v);
}

static long arg_long(const char *flag, const char *v)
{
	return bench_arg_long(program, flag, v);
}

static void parse(int argc, char **argv, bench_opts *o, bool *self, bool *list)
{
	enum { O_METHOD = 256, O_PREC, O_TRAJ, O_STEPS, O_H, O_TOL, O_TARGET,
	       O_SPREAD, O_SEED, O_SAMPLE, O_REPEATS, O_BLOCK, O_BACKEND,
	       O_THREADS, O_MAXSTEPS, O_CSV, O_SELF, O_LIST, O_HELP, O_VERSION };
	static const struct option longopts[] = {
		{"method", 1, 0, O_METHOD}, {"precision", 1, 0, O_PREC},
		{"traj", 1, 0, O_TRAJ}, {"steps", 1, 0, O_STEPS}, {"h", 1, 0, O_H},
		{"tol", 1, 0, O_TOL}, {"target", 1, 0, O_TARGET},
		{"spread", 1, 0, O_SPREAD}, {"seed", 1, 0, O_SEED},
		{"sample", 1, 0, O_SAMPLE}, {"repeats", 1, 0, O_REPEATS},
		{"block", 1, 0, O_BLOCK}, {"backend", 1, 0, O_BACKEND},
		{"threads", 1, 0, O_THREADS}, {"max-steps", 1, 0, O_MAXSTEPS},
		{"csv", 1, 0, O_CSV}, {"selfcheck", 0, 0, O_SELF},
		{"list", 0, 0, O_LIST}, {"help", 0, 0, O_HELP},
		{"version", 0, 0, O_VERSION}, {0, 0, 0, 0}};
	int c;

	o->method = -1;
	o->ntraj = BENCH_DEFAULT_TRAJ;
	o->spread = BENCH_DEFAULT_SPREAD;
	o->seed = BENCH_DEFAULT_SEED;
	o->sample = BENCH_DEFAULT_SAMPLE;
	o->repeats = BENCH_DEFAULT_REPEATS;
	o->block = 128;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case O_METHOD:
			if ((o->method = method_find(optarg)) < 0)
				bench_die_usage(program, "--method: unknown '%s'", optarg);
			break;
		case O_PREC:
			if (strcmp(optarg, "float") && strcmp(optarg, "double"))
				bench_die_usage(program, "--precision: float or double, not '%s'", optarg);
			o->dbl = !strcmp(optarg, "double");
			break;
		case O_TRAJ: o->ntraj = arg_long("--traj", optarg); break;
		case O_STEPS: o->steps = arg_long("--steps", optarg); break;
		case O_H: o->h = arg_double("--h", optarg); break;
		case O_TOL: o->tol = arg_double("--tol", optarg); break;
		case O_TARGET: o->target = arg_double("--target", optarg); break;
		case O_SPREAD: o->spread = arg_double("--spread", optarg); break;
		case O_SEED: o->seed = arg_long("--seed", optarg); break;
		case O_SAMPLE: o->sample = arg_long("--sample", optarg); break;
		case O_REPEATS: o->repeats = (int)arg_long("--repeats", optarg); break;
		case O_BLOCK: o->block = (int)arg_long("--block", optarg); break;
		case O_BACKEND:
			if (strcmp(optarg, "cuda") && strcmp(optarg, "host"))
				bench_die_usage(program, "--backend: cuda or host, not '%s'", optarg);
			o->host = !strcmp(optarg, "host");
			break;
		case O_THREADS: o->threads = (int)arg_long("--threads", optarg); break;
		case O_MAXSTEPS: o->max_steps = arg_long("--max-steps", optarg); break;
		case O_CSV: o->csv = optarg; break;
		case O_SELF: *self = true; break;
		case O_LIST: *list = true; break;
		case O_HELP: usage(); exit(0);
		case O_VERSION: bench_print_version(program); exit(0);
		default: bench_die_usage(program, "bad option");
		}
	}
	if (*self || *list)
		return;
	if (optind != argc - 1)
		bench_die_usage(program, "one MODEL expected");
	o->model = argv[optind];
	if (o->method < 0)
		bench_die_usage(program, "--method is required");
	if (o->ntraj < 1 || o->sample < 1 || o->repeats < 1 || o->block < 1 ||
	    o->block > 1024)
		bench_die_usage(program, "--traj, --sample, --repeats >= 1; 1 <= --block <= 1024");
	int given = (o->steps > 0) + (o->h > 0) + (o->tol > 0) + (o->target > 0);
	if (given != 1)
		bench_die_usage(program, "give exactly one of --steps, --h, --tol, --target");
	if (methods[o->method].adaptive && (o->steps || o->h))
		bench_die_usage(program, "%s is adaptive: --tol or --target", methods[o->method].name);
	if (!methods[o->method].adaptive && o->tol > 0)
		bench_die_usage(program, "%s is fixed step: --steps, --h or --target", methods[o->method].name);
	if (!o->max_steps)
		o->max_steps = methods[o->method].adaptive ? 10000000 : 1L << 22;
}

/* Device name and driver version, or the host's. */
static void device_names(const bench_opts &o, char *device, size_t dlen,
			 char *driver, size_t vlen)
{
	int count = 0, version = 0;
	cudaDeviceProp prop;

	if (o.host) {
		bench_cpu_name(device, dlen);
		snprintf(driver, vlen, "-");
		return;
	}
	if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1)
		bench_die(program, "no CUDA device (use --backend host to run on the CPU)");
	cuda_check(cudaGetDeviceProperties(&prop, 0), "device properties");
	cuda_check(cudaDriverGetVersion(&version), "driver version");
	snprintf(device, dlen, "%s", prop.name);
	snprintf(driver, vlen, "%d.%d", version / 1000, version % 1000 / 10);
}

int main(int argc, char **argv)
{
	bench_opts o = {};
	bool self = false, list = false;
	char device[256], driver[32];

	char **command = (char **)malloc((argc + 1) * sizeof(char *));

	/* getopt_long permutes argv: keep the command as typed for the CSV. */
	for (int i = 0; i <= argc; i++)
		command[i] = argv[i];
	parse(argc, argv, &o, &self, &list);
	if (self)
		return selfcheck();
	if (list) {
		for (int i = 0; i < model_count; i++)
			printf("%s\n", model_list[i].name);
		return 0;
	}
	const model_entry *me = model_entry_find(o.model);
	const picard_model *pm = picard_model_find(o.model);
	if (!me || !pm || pm->dim != me->dim)
		bench_die_usage(program, "unknown model '%s' (--list)", o.model);
	device_names(o, device, sizeof(device), driver, sizeof(driver));

	bool new_file;
	FILE *out = bench_csv_open(program, o.csv, &new_file);

	const long N = o.ntraj;
	const int n = me->dim;
	const double span = pm->t1 - pm->t0;
	double *x0 = (double *)malloc(N * n * sizeof(double));
	double *x1 = (double *)malloc(N * n * sizeof(double));
	int *status = (int *)malloc(N * sizeof(int));
	long *evals = (long *)malloc(N * sizeof(long));
	bench_sample sample;
	int err;

	if (!x0 || !x1 || !status || !evals)
		bench_die(program, "out of memory");
	if ((err = picard_ensemble_spread(n, me->x0, N, o.spread, o.seed,
					  PICARD_BACKEND_CPU, x0)))
		bench_die(program, "ensemble: %s", picard_error_detail());
	if ((err = bench_sample_make(pm, x0, N, o.sample, pm->t0, pm->t1, &sample)))
		bench_die(program, "reference: %s: %s", picard_strerror(err),
			  picard_error_detail());

	bench_csv_header(out, argc, command, program, device, driver, BENCH_BUILD_FLAGS,
			 &sample, o.spread, o.seed, new_file);
	solver *s = me->make(o, x0);
	probe_ctx ctx = {&o, s, &sample, n, x1, status, evals};
	const method_info &mi = methods[o.method];
	long steps = o.steps ? o.steps : o.h > 0 ? (long)ceil(span / o.h) : 0;
	double tol = o.tol;
	bench_probe best;

	if (o.target > 0) {
		fprintf(out, "# search: %s for error <= %g\n",
			mi.adaptive ? "largest tol" : "fewest steps", o.target);
		err = mi.adaptive ?
			bench_search_tol(probe, &ctx, o.target, o.target,
					 o.dbl ? 1e-15 : 1e-7, &tol, &best, out) :
			bench_search_steps(probe, &ctx, o.target, 64, o.max_steps,
					   &steps, &best, out);
		if (err) {
			fprintf(out, "# target %g not met: smallest error reached %.3e\n",
				o.target, best.error);
			fprintf(stderr, "%s: target %g not met (smallest error %.3e)\n",
				program, o.target, best.error);
			return 1;
		}
	}

	/* Warm up, then time. */
	double us, *times = (double *)malloc(o.repeats * sizeof(double));
	bench_probe p;
	s->solve(o.method, steps, tol, &us);
	for (int r = 0; r < o.repeats; r++)
		s->solve(o.method, steps, tol, &times[r]);
	measure(&ctx, &p);
	report_failures(out, status, N);

	bench_row row = {};
	snprintf(row.device, sizeof(row.device), "%s", device);
	snprintf(row.driver, sizeof(row.driver), "%s", driver);
	bench_date(row.date, sizeof(row.date));
	row.model = o.model;
	row.ntraj = N;
	row.method = mi.name;
	row.precision = o.dbl ? "double" : "float";
	if (o.host)
		snprintf(row.config, sizeof(row.config), "threads=%d",
			 o.threads ? o.threads : omp_get_max_threads());
	else
		snprintf(row.config, sizeof(row.config), "block=%d", o.block);
	row.steps = mi.adaptive ? 0 : steps;
	row.tol = mi.adaptive ? tol : 0;
	row.error = p.error;
	row.error_traj = sample.n;
	row.time_min_us = bench_min(times, o.repeats);
	row.time_median_us = bench_median(times, o.repeats);
	row.repeats = o.repeats;
	row.evals_mean = p.evals_mean;
	row.evals_max = p.evals_max;
	row.failed = p.failed;
	row.drift = bench_invariant_drift(pm, &sample, x0, x1);
	bench_csv_row(out, &row);
	if (out != stdout) {
		fclose(out);
		bench_csv_row(stdout, &row);
	}
	delete s;
	free(times);
	free(x0);
	free(x1);
	free(status);
	free(evals);
	free(command);
	bench_sample_free(&sample);
	return p.failed ? 1 : 0;
}
