/* bench_cpu.c - bin/bench-cpu: the CPU baselines of GitHub issue 6 on
 * picard's ensembles, measured as bench-rk measures the GPU ones.
 *
 *   bench-cpu MODEL --method gsl-rk8pd|gsl-rkf45|euler [--threads N]
 *             (--tol T | --steps N | --h H | --target E) [options]
 *
 * gsl-rk8pd, gsl-rkf45: GSL gsl_odeiv2 with its driver (standard control,
 * rtol = atol = tol, first step 1e-6 of the span, at most --max-steps steps),
 * one driver per thread allocated before the clock starts, reset for each
 * trajectory; OpenMP over trajectories (--threads 1: one core, 0: all).
 * euler: explicit Euler with fixed steps, the paper's baseline (the
 * right-hand side compiled in, float or double; one core unless --threads).
 * Wall time (CLOCK_MONOTONIC) of the whole ensemble, median and min of
 * --repeats after one warm-up solve. --target E searches on the sampled
 * trajectories alone (the others cannot change their error); the chosen
 * setting is then run on the whole ensemble and its failures reported.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <gsl/gsl_version.h>

#include "bench_common.h"
#include "bench_cpu_models.h"
#include "build_flags.h"

static const char *program = "bench-cpu";

enum cpu_method { C_RK8PD, C_RKF45, C_EULER };
static const char *const method_names[] = {"gsl-rk8pd", "gsl-rkf45", "euler"};

/* Outcome of one trajectory. */
enum cpu_status { S_OK = 0, S_NONFINITE = 1, S_GSL_FAILED = 2, S_MAX_STEPS = 3 };

/* What a run measures. */
struct cpu_opts {
	const char *model;       /* model name */
	int method;              /* cpu_method */
	bool dbl;                /* euler in double (GSL is always double) */
	long ntraj;              /* ensemble size */
	long steps;              /* euler: step count */
	double h;                /* euler: step size, steps = ceil(span / h) */
	double tol;              /* GSL: rtol = atol */
	double target;           /* > 0: search */
	double spread;           /* ensemble spread */
	unsigned long long seed; /* ensemble seed */
	long sample;             /* trajectories compared with the reference */
	int repeats;             /* timed solves */
	int threads;             /* OpenMP threads, 0: all */
	long max_steps;          /* GSL: driver nmax; euler: search limit */
	const char *csv;         /* append output here */
};

/* One ensemble solve's inputs, outputs and per-thread GSL drivers. */
struct cpu_run {
	const struct cpu_opts *o;
	const bench_cpu_model *cm;
	const picard_model *pm;
	const double *x0;        /* ntraj * dim */
	double *x1;              /* ntraj * dim (rows by position in the set) */
	int *status;             /* per position */
	long *evals;             /* per position */
	int nthreads;            /* threads in use */
	gsl_odeiv2_system *sys;  /* per thread */
	bench_gsl_ctx *ctx;      /* per thread */
	gsl_odeiv2_driver **drv; /* per thread */
	double drv_tol;          /* tolerance the drivers were made for */
};

static void drivers_free(struct cpu_run *r)
{
	for (int t = 0; r->drv && t < r->nthreads; t++)
		if (r->drv[t])
			gsl_odeiv2_driver_free(r->drv[t]);
}

/* (Re)make the per-thread drivers for tol: outside the timed region. */
static void drivers_make(struct cpu_run *r, double tol)
{
	const gsl_odeiv2_step_type *type =
		r->o->method == C_RK8PD ? gsl_odeiv2_step_rk8pd : gsl_odeiv2_step_rkf45;
	const double hstart = 1e-6 * (r->pm->t1 - r->pm->t0);

	if (r->drv_tol == tol)
		return;
	drivers_free(r);
	/* Each thread allocates its own driver: glibc's per-thread arenas keep
	 * the drivers' small arrays off each other's cache lines. */
#pragma omp parallel num_threads(r->nthreads)
	{
		const int t = omp_get_thread_num();

		r->sys[t] = (gsl_odeiv2_system){r->cm->gsl_rhs, NULL, (size_t)r->cm->dim,
						 &r->ctx[t]};
		r->drv[t] = gsl_odeiv2_driver_alloc_y_new(&r->sys[t], type, hstart, tol, tol);
		if (r->drv[t])
			gsl_odeiv2_driver_set_nmax(r->drv[t], r->o->max_steps);
	}
	for (int t = 0; t < r->nthreads; t++)
		if (!r->drv[t])
			bench_die(program, "GSL driver allocation failed");
	r->drv_tol = tol;
}

/* Trajectory i into position s with the thread's GSL driver. */
static void solve_gsl(struct cpu_run *r, long i, long s)
{
	const int n = r->cm->dim, t = omp_get_thread_num();
	gsl_odeiv2_driver *d = r->drv[t];
	double *y = r->x1 + s * n, time = r->pm->t0;
	int st;

	memcpy(y, r->x0 + i * n, n * sizeof(*y));
	gsl_odeiv2_driver_reset_hstart(d, 1e-6 * (r->pm->t1 - r->pm->t0));
	r->ctx[t].evals = 0;
	st = gsl_odeiv2_driver_apply(d, &time, r->pm->t1, y);
	r->evals[s] = r->ctx[t].evals;
	r->status[s] = st == GSL_EMAXITER ? S_MAX_STEPS : st ? S_GSL_FAILED : S_OK;
	for (int k = 0; k < n && !r->status[s]; k++)
		if (!isfinite(y[k]))
			r->status[s] = S_NONFINITE;
}

/* Trajectory i into position s by explicit Euler. */
static void solve_euler(struct cpu_run *r, long i, long s, long steps)
{
	const int n = r->cm->dim;
	double *y = r->x1 + s * n;
	float yf[64];

	memcpy(y, r->x0 + i * n, n * sizeof(*y));
	if (r->o->dbl) {
		r->status[s] = r->cm->euler_double(y, r->pm->t0, r->pm->t1, steps,
						   &r->evals[s]);
		return;
	}
	for (int k = 0; k < n; k++)
		yf[k] = (float)y[k];
	r->status[s] = r->cm->euler_float(yf, (float)r->pm->t0, (float)r->pm->t1,
					  steps, &r->evals[s]);
	for (int k = 0; k < n; k++)
		y[k] = yf[k];
}

/* Solve the trajectories set[0 .. count-1] (NULL: all, count = ntraj) into
 * positions 0 .. count-1; returns the wall time in microseconds. */
static double solve(struct cpu_run *r, const long *set, long count, long steps,
		    double tol)
{
	double begin;

	if (r->o->method != C_EULER)
		drivers_make(r, tol);
	begin = bench_now_us();
#pragma omp parallel for schedule(dynamic, 16) num_threads(r->nthreads)
	for (long s = 0; s < count; s++) {
		long i = set ? set[s] : s;

		if (r->o->method == C_EULER)
			solve_euler(r, i, s, steps);
		else
			solve_gsl(r, i, s);
	}
	return bench_now_us() - begin;
}

/* Statistics of positions 0 .. count-1 into p (error from the caller). */
static void tally(const struct cpu_run *r, long count, bench_probe *p)
{
	double sum = 0;

	p->failed = 0;
	p->evals_max = 0;
	for (long s = 0; s < count; s++) {
		p->failed += r->status[s] != S_OK;
		sum += r->evals[s];
		if (r->evals[s] > p->evals_max)
			p->evals_max = r->evals[s];
	}
	p->evals_mean = sum / count;
}

/* What a probe of the search needs. */
struct cpu_probe_ctx {
	struct cpu_run *run;
	const bench_sample *sample;
};

/* A probe solves the sampled trajectories only. */
static int cpu_probe(void *arg, long steps, double tol, bench_probe *out)
{
	struct cpu_probe_ctx *c = arg;

	solve(c->run, c->sample->traj, c->sample->n, steps, tol);
	tally(c->run, c->sample->n, out);
	out->error = bench_error(c->sample, c->run->cm->dim, c->run->x1,
				 c->run->status, true);
	return 0;
}

/* ---- command line ------------------------------------------------------------ */

static void usage(void)
{
	printf("usage: bench-cpu MODEL --method gsl-rk8pd|gsl-rkf45|euler\n"
	       "                 (--tol T | --steps N | --h H | --target E) [options]\n\n"
	       "  --threads N       OpenMP threads over trajectories (default 1; 0: all cores)\n"
	       "  --precision P     euler: float or double (default double); GSL: double\n"
	       "  --traj N          trajectories (default %d)\n"
	       "  --tol T           GSL: rtol = atol = T\n"
	       "  --steps N, --h H  euler: step count, or step size\n"
	       "  --target E        search the largest tol / fewest steps with error <= E,\n"
	       "                    measured on the sampled trajectories\n"
	       "  --spread S --seed N  ensemble as picard-run (default 0.1, 1)\n"
	       "  --sample N        trajectories compared with the reference (default %d)\n"
	       "  --repeats R       timed solves (default %d; median and min)\n"
	       "  --max-steps N     GSL: driver step limit (default 1e7); euler --target:\n"
	       "                    largest step count tried (default 2^24)\n"
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

static void parse(int argc, char **argv, struct cpu_opts *o)
{
	enum { O_METHOD = 256, O_PREC, O_TRAJ, O_STEPS, O_H, O_TOL, O_TARGET,
	       O_SPREAD, O_SEED, O_SAMPLE, O_REPEATS, O_THREADS, O_MAXSTEPS,
	       O_CSV, O_HELP, O_VERSION };
	static const struct option longopts[] = {
		{"method", 1, 0, O_METHOD}, {"precision", 1, 0, O_PREC},
		{"traj", 1, 0, O_TRAJ}, {"steps", 1, 0, O_STEPS}, {"h", 1, 0, O_H},
		{"tol", 1, 0, O_TOL}, {"target", 1, 0, O_TARGET},
		{"spread", 1, 0, O_SPREAD}, {"seed", 1, 0, O_SEED},
		{"sample", 1, 0, O_SAMPLE}, {"repeats", 1, 0, O_REPEATS},
		{"threads", 1, 0, O_THREADS}, {"max-steps", 1, 0, O_MAXSTEPS},
		{"csv", 1, 0, O_CSV}, {"help", 0, 0, O_HELP},
		{"version", 0, 0, O_VERSION}, {0, 0, 0, 0}};
	int c, given;

	*o = (struct cpu_opts){.method = -1, .dbl = true, .ntraj = BENCH_DEFAULT_TRAJ,
			       .spread = BENCH_DEFAULT_SPREAD, .seed = BENCH_DEFAULT_SEED,
			       .sample = BENCH_DEFAULT_SAMPLE,
			       .repeats = BENCH_DEFAULT_REPEATS, .threads = 1};
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case O_METHOD:
			o->method = -1;
			for (int m = 0; m < 3; m++)
				if (!strcmp(optarg, method_names[m]))
					o->method = m;
			if (o->method < 0)
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
		case O_THREADS: o->threads = (int)arg_long("--threads", optarg); break;
		case O_MAXSTEPS: o->max_steps = arg_long("--max-steps", optarg); break;
		case O_CSV: o->csv = optarg; break;
		case O_HELP: usage(); exit(0);
		case O_VERSION: bench_print_version(program); exit(0);
		default: bench_die_usage(program, "bad option");
		}
	}
	if (optind != argc - 1)
		bench_die_usage(program, "one MODEL expected");
	o->model = argv[optind];
	if (o->method < 0)
		bench_die_usage(program, "--method is required");
	if (o->ntraj < 1 || o->sample < 1 || o->repeats < 1)
		bench_die_usage(program, "--traj, --sample, --repeats must be >= 1");
	given = (o->steps > 0) + (o->h > 0) + (o->tol > 0) + (o->target > 0);
	if (given != 1)
		bench_die_usage(program, "give exactly one of --steps, --h, --tol, --target");
	if (o->method == C_EULER && o->tol > 0)
		bench_die_usage(program, "euler is fixed step: --steps, --h or --target");
	if (o->method != C_EULER && (o->steps || o->h))
		bench_die_usage(program, "%s is adaptive: --tol or --target", method_names[o->method]);
	if (o->method != C_EULER && !o->dbl)
		bench_die_usage(program, "GSL integrates in double only");
	if (!o->max_steps)
		o->max_steps = o->method == C_EULER ? 1L << 24 : 10000000;
}

static void report_failures(FILE *out, const int *status, long n)
{
	long counts[4] = {0};

	for (long i = 0; i < n; i++)
		if (status[i] >= 0 && status[i] < 4)
			counts[status[i]]++;
	if (counts[1] + counts[2] + counts[3])
		fprintf(out, "# failed trajectories: %ld non-finite, %ld GSL error (step underflow), %ld too many steps\n",
			counts[1], counts[2], counts[3]);
}

int main(int argc, char **argv)
{
	struct cpu_opts o;
	const bench_cpu_model *cm;
	const picard_model *pm;
	struct cpu_run r = {0};
	bench_sample sample;
	bench_probe best, p;
	bench_row row = {0};
	FILE *out;
	bool new_file = true;
	double *x0, *times, tol;
	long steps;
	int err;

	char **command = malloc((argc + 1) * sizeof(char *));

	/* getopt_long permutes argv: keep the command as typed for the CSV. */
	for (int i = 0; command && i <= argc; i++)
		command[i] = argv[i];
	if (!command)
		bench_die(program, "out of memory");
	parse(argc, argv, &o);
	cm = bench_cpu_model_find(o.model);
	pm = picard_model_find(o.model);
	if (!cm || !pm || cm->dim != pm->dim || cm->dim > 64)
		bench_die_usage(program, "unknown model '%s'", o.model);
	out = bench_csv_open(program, o.csv, &new_file);
	gsl_set_error_handler_off();
	x0 = malloc(o.ntraj * cm->dim * sizeof(*x0));
	r = (struct cpu_run){.o = &o, .cm = cm, .pm = pm, .x0 = x0, .drv_tol = -1};
	r.nthreads = o.threads ? o.threads : omp_get_max_threads();
	r.x1 = malloc(o.ntraj * cm->dim * sizeof(*r.x1));
	r.status = malloc(o.ntraj * sizeof(*r.status));
	r.evals = malloc(o.ntraj * sizeof(*r.evals));
	r.sys = calloc(r.nthreads, sizeof(*r.sys));
	r.ctx = aligned_alloc(64, r.nthreads * sizeof(*r.ctx));
	r.drv = calloc(r.nthreads, sizeof(*r.drv));
	times = malloc(o.repeats * sizeof(*times));
	if (!x0 || !r.x1 || !r.status || !r.evals || !r.sys || !r.ctx || !r.drv || !times)
		bench_die(program, "out of memory");
	memset(r.ctx, 0, r.nthreads * sizeof(*r.ctx));
	if ((err = picard_ensemble_spread(cm->dim, cm->x0, o.ntraj, o.spread, o.seed,
					  PICARD_BACKEND_CPU, x0)))
		bench_die(program, "ensemble: %s", picard_error_detail());
	if ((err = bench_sample_make(pm, x0, o.ntraj, o.sample, pm->t0, pm->t1, &sample)))
		bench_die(program, "reference: %s: %s", picard_strerror(err),
			  picard_error_detail());

	bench_cpu_name(row.device, sizeof(row.device));
	snprintf(row.driver, sizeof(row.driver), "-");
	bench_csv_header(out, argc, command, program, row.device, "- (GSL " GSL_VERSION ")",
			 BENCH_BUILD_FLAGS, &sample, o.spread, o.seed, new_file);

	steps = o.steps ? o.steps : o.h > 0 ? (long)ceil((pm->t1 - pm->t0) / o.h) : 0;
	tol = o.tol;
	if (o.target > 0) {
		struct cpu_probe_ctx ctx = {&r, &sample};

		fprintf(out, "# search on the %ld sampled trajectories: %s for error <= %g\n",
			sample.n, o.method == C_EULER ? "fewest steps" : "largest tol", o.target);
		err = o.method == C_EULER ?
			bench_search_steps(cpu_probe, &ctx, o.target, 64, o.max_steps,
					   &steps, &best, out) :
			bench_search_tol(cpu_probe, &ctx, o.target, o.target, 1e-15, &tol,
					 &best, out);
		if (err) {
			fprintf(out, "# target %g not met: smallest error reached %.3e\n",
				o.target, best.error);
			fprintf(stderr, "%s: target %g not met (smallest error %.3e)\n",
				program, o.target, best.error);
			return 1;
		}
	}

	solve(&r, NULL, o.ntraj, steps, tol); /* warm-up */
	for (int i = 0; i < o.repeats; i++)
		times[i] = solve(&r, NULL, o.ntraj, steps, tol);
	tally(&r, o.ntraj, &p);
	p.error = bench_error(&sample, cm->dim, r.x1, r.status, false);
	report_failures(out, r.status, o.ntraj);

	bench_date(row.date, sizeof(row.date));
	row.model = o.model;
	row.ntraj = o.ntraj;
	row.method = method_names[o.method];
	row.precision = o.dbl ? "double" : "float";
	snprintf(row.config, sizeof(row.config), "threads=%d", r.nthreads);
	row.steps = o.method == C_EULER ? steps : 0;
	row.tol = o.method == C_EULER ? 0 : tol;
	row.error = p.error;
	row.error_traj = sample.n;
	row.time_min_us = bench_min(times, o.repeats);
	row.time_median_us = bench_median(times, o.repeats);
	row.repeats = o.repeats;
	row.evals_mean = p.evals_mean;
	row.evals_max = p.evals_max;
	row.failed = p.failed;
	row.drift = bench_invariant_drift(pm, &sample, x0, r.x1);
	bench_csv_row(out, &row);
	if (out != stdout) {
		fclose(out);
		bench_csv_row(stdout, &row);
	}
	drivers_free(&r);
	free(r.drv);
	free(r.ctx);
	free(r.sys);
	free(r.evals);
	free(r.status);
	free(r.x1);
	free(x0);
	free(times);
	free(command);
	bench_sample_free(&sample);
	return p.failed ? 1 : 0;
}
