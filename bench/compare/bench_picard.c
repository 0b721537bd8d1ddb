/* bench_picard.c - bin/bench-picard: picard measured as bench-rk and
 * bench-cpu measure the alternatives (same ensemble, same error at t1 on the
 * same sample, same CSV), for GitHub issues 6-8.
 *
 *   bench-picard MODEL [--scheme lobatto|trapezoid] [--m LIST]
 *                (--windows N | --target E) [options]
 *
 * --target E: for each m of --m, the fewest windows whose error at t1 meets
 * E (bench_search_steps: doubling, then bisection to 1%), measured on the
 * sampled trajectories of a solve of the whole ensemble; each m's setting
 * is then timed (CUDA events, one warm-up, median and min of --repeats) and
 * the fastest is the result row, the others '#' lines. The window's
 * convergence tolerance defaults to 1e-5 E (issue 7: iteration errors add
 * up over the windows), no lower than the precision allows; lobatto starts
 * each window from the previous one's polynomial (--no-warm-start not to).
 *
 * The per-thread Runge-Kutta schemes (--scheme dp5|dp8|vern9, issue 15)
 * run through the same API: fixed steps (the fewest steps meeting E, as
 * bench-rk's fixed methods), or with --adaptive the largest local
 * tolerance (rtol = atol) meeting E, as bench-rk's adaptive ones.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "bench_common.h"
#include "build_flags.h"
#include "scheme.h"

static const char *program = "bench-picard";

#define MAX_M 16

struct pic_opts {
	const char *model;
	picard_scheme scheme;
	picard_precision precision;
	picard_backend backend;
	picard_layout layout;
	int ms[MAX_M], nms;
	int K, K_max;            /* trapezoid: fixed K, or adaptive (default K_max 20) */
	double iter_rtol;        /* 0: 1e-5 target, clamped */
	bool warm_start;
	int block;               /* newton: windows iterated together (0: its default) */
	bool rk, adaptive;       /* a per-thread Runge-Kutta scheme; its steps adaptive */
	long ntraj, windows, sample;
	double target, spread;
	unsigned long long seed;
	int repeats;
	const char *csv;
};

/* One configuration on the ensemble: a solver and its last solve. */
struct pic_run {
	const struct pic_opts *o;
	const picard_model *model;
	const double *x0;
	int m;
	double iter_rtol;
	double *x1;
	int *status;
	picard_stats stats;
};

static void usage(void)
{
	printf("usage: bench-picard MODEL (--windows N | --target E) [options]\n\n"
	       "  --scheme S        lobatto (default), trapezoid, newton, or a per-thread pair:\n"
	       "                    dp5, dp8, vern9 (fixed steps; --adaptive: adaptive)\n"
	       "  --m LIST          nodes per window tried, e.g. 4,8,12 (default 4,6,8,12,16)\n"
	       "  --K K, --K-max K  trapezoid: fixed sweeps, or adaptive (default K-max 20;\n"
	       "                    lobatto: adaptive, K-max 60)\n"
	       "  --iter-rtol R     window convergence (default 1e-5 target, >= 1e-6 float, 1e-14 double;\n"
	       "                    newton 1e-3 target, >= 1e-13)\n"
	       "  --no-warm-start   lobatto: start windows from a constant\n"
	       "  --block N         newton: windows iterated together (default 512)\n"
	       "  --layout L        auto, paper, warp, thread (lobatto: warp or thread;\n"
	       "                    default auto)\n"
	       "  --precision P     float or double (default float)\n"
	       "  --backend B       cuda or cpu (default cuda)\n"
	       "  --traj N --spread S --seed N --sample N --repeats R --csv FILE  as bench-rk\n"
	       "  --version         picard's version and build, the CUDA runtime and driver\n");
}

static double arg_double(const char *flag, const char *v)
{
	return bench_arg_double(program, flag, v);
}

static long arg_long(const char *flag, const char *v)
{
	return bench_arg_long(program, flag, v);
}

static void parse(int argc, char **argv, struct pic_opts *o)
{
	enum { O_BLOCK = 300, O_SCHEME = 256, O_ADAPTIVE, O_M, O_K, O_KMAX, O_RTOL, O_NOWARM, O_LAYOUT, O_PREC,
	       O_BACKEND, O_TRAJ, O_WINDOWS, O_TARGET, O_SPREAD, O_SEED, O_SAMPLE,
	       O_REPEATS, O_CSV, O_HELP, O_VERSION };
	static const struct option longopts[] = {
		{"scheme", 1, 0, O_SCHEME}, {"adaptive", 0, 0, O_ADAPTIVE}, {"block", 1, 0, O_BLOCK},
		{"m", 1, 0, O_M}, {"K", 1, 0, O_K},
		{"K-max", 1, 0, O_KMAX}, {"iter-rtol", 1, 0, O_RTOL},
		{"no-warm-start", 0, 0, O_NOWARM}, {"layout", 1, 0, O_LAYOUT},
		{"precision", 1, 0, O_PREC}, {"backend", 1, 0, O_BACKEND},
		{"traj", 1, 0, O_TRAJ}, {"windows", 1, 0, O_WINDOWS},
		{"target", 1, 0, O_TARGET}, {"spread", 1, 0, O_SPREAD},
		{"seed", 1, 0, O_SEED}, {"sample", 1, 0, O_SAMPLE},
		{"repeats", 1, 0, O_REPEATS}, {"csv", 1, 0, O_CSV},
		{"help", 0, 0, O_HELP},
		{"version", 0, 0, O_VERSION}, {0, 0, 0, 0}};
	static const int default_ms[] = {4, 6, 8, 12, 16};
	char *save, *tok;
	int c, layout;

	*o = (struct pic_opts){.scheme = PICARD_SCHEME_LOBATTO, .backend = PICARD_BACKEND_CUDA,
			       .warm_start = true, .ntraj = BENCH_DEFAULT_TRAJ,
			       .spread = BENCH_DEFAULT_SPREAD, .seed = BENCH_DEFAULT_SEED,
			       .sample = BENCH_DEFAULT_SAMPLE, .repeats = BENCH_DEFAULT_REPEATS};
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case O_SCHEME:
			if (!picard_scheme_named(optarg))
				bench_die_usage(program, "--scheme: unknown '%s'", optarg);
			o->scheme = picard_scheme_named(optarg)->id;
			o->rk = !picard_scheme_of(o->scheme)->lobatto_grid &&
				o->scheme != PICARD_SCHEME_TRAPEZOID;
			break;
		case O_ADAPTIVE: o->adaptive = true; break;
		case O_BLOCK: o->block = (int)arg_long("--block", optarg); break;
		case O_M:
			o->nms = 0;
			for (tok = strtok_r(optarg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				if (o->nms == MAX_M)
					bench_die_usage(program, "--m: at most %d values", MAX_M);
				o->ms[o->nms++] = (int)arg_long("--m", tok);
			}
			break;
		case O_K: o->K = (int)arg_long("--K", optarg); break;
		case O_KMAX: o->K_max = (int)arg_long("--K-max", optarg); break;
		case O_RTOL: o->iter_rtol = arg_double("--iter-rtol", optarg); break;
		case O_NOWARM: o->warm_start = false; break;
		case O_LAYOUT:
			if ((layout = picard_layout_parse(optarg)) < 0)
				bench_die_usage(program, "--layout: unknown '%s'", optarg);
			o->layout = (picard_layout)layout;
			break;
		case O_PREC:
			if (strcmp(optarg, "float") && strcmp(optarg, "double"))
				bench_die_usage(program, "--precision: float or double, not '%s'", optarg);
			o->precision = strcmp(optarg, "double") ? PICARD_FLOAT : PICARD_DOUBLE;
			break;
		case O_BACKEND:
			if (strcmp(optarg, "cuda") && strcmp(optarg, "cpu"))
				bench_die_usage(program, "--backend: cuda or cpu, not '%s'", optarg);
			o->backend = strcmp(optarg, "cpu") ? PICARD_BACKEND_CUDA : PICARD_BACKEND_CPU;
			break;
		case O_TRAJ: o->ntraj = arg_long("--traj", optarg); break;
		case O_WINDOWS: o->windows = arg_long("--windows", optarg); break;
		case O_TARGET: o->target = arg_double("--target", optarg); break;
		case O_SPREAD: o->spread = arg_double("--spread", optarg); break;
		case O_SEED: o->seed = arg_long("--seed", optarg); break;
		case O_SAMPLE: o->sample = arg_long("--sample", optarg); break;
		case O_REPEATS: o->repeats = (int)arg_long("--repeats", optarg); break;
		case O_CSV: o->csv = optarg; break;
		case O_HELP: usage(); exit(0);
		case O_VERSION: bench_print_version(program); exit(0);
		default: bench_die_usage(program, "bad option");
		}
	}
	if (optind != argc - 1)
		bench_die_usage(program, "one MODEL expected");
	o->model = argv[optind];
	if ((o->windows > 0) + (o->target > 0) != 1)
		bench_die_usage(program, "give exactly one of --windows, --target");
	if (o->ntraj < 1 || o->sample < 1 || o->repeats < 1)
		bench_die_usage(program, "--traj, --sample, --repeats must be >= 1");
	if (o->adaptive && !o->rk)
		bench_die_usage(program, "--adaptive: for dp5, dp8 or vern9");
	if (o->rk) { /* m = 2: a window is an output interval, here a step */
		o->nms = 1;
		o->ms[0] = 2;
		o->warm_start = false;
		return;
	}
	if (!o->nms) {
		memcpy(o->ms, default_ms, sizeof(default_ms));
		o->nms = sizeof(default_ms) / sizeof(default_ms[0]);
		if (o->windows > 0)
			o->nms = 1, o->ms[0] = 8;
	}
	if (!o->K && !o->K_max)
		o->K_max = picard_scheme_of(o->scheme)->lobatto_grid ? 60 : 20;
	if (o->scheme == PICARD_SCHEME_TRAPEZOID)
		o->warm_start = false;
}

static int solver_for(struct pic_run *r, long windows, picard_solver **solver)
{
	const struct pic_opts *o = r->o;
	const double span = r->model->t1 - r->model->t0;
	picard_options opt = {
		.scheme = o->scheme, .m = r->m, .K = o->K, .K_max = o->K_max,
		.warm_start = o->warm_start, .iter_rtol = r->iter_rtol,
		.precision = o->precision, .backend = o->backend, .layout = o->layout,
		.block = o->block,
	};

	if (o->rk) { /* fixed: windows steps; adaptive: one window, at r->iter_rtol */
		opt.K = o->adaptive ? 0 : 1;
		opt.K_max = o->adaptive ? 1000000 : 0;
		opt.h = o->adaptive ? 0 : span / (double)windows;
	} else if (picard_scheme_of(o->scheme)->lobatto_grid) {
		opt.window = span / windows;
	} else {
		opt.h = span / ((double)windows * (r->m - 1));
	}
	return picard_solver_create(solver, r->model, &opt, o->ntraj);
}

static int solve_once(struct pic_run *r, picard_solver *solver)
{
	int err = picard_solve(solver, r->x0, NULL, r->x1, (picard_traj_status *)r->status,
			       NULL, NULL, 0, &r->stats);

	return err == PICARD_EFAILED ? 0 : err;
}

struct probe_ctx {
	struct pic_run *r;
	const bench_sample *sample;
};

static int picard_probe(void *vctx, long windows, double tol, bench_probe *out)
{
	struct probe_ctx *ctx = vctx;
	struct pic_run *r = ctx->r;
	picard_solver *solver;
	int err;

	if (r->o->adaptive)
		r->iter_rtol = tol;
	err = solver_for(r, windows, &solver);
	if (!err)
		err = solve_once(r, solver);
	picard_solver_free(solver);
	if (err)
		return err;
	out->error = bench_error(ctx->sample, r->model->dim, r->x1, r->status, false);
	out->failed = r->stats.failed;
	out->evals_mean = r->stats.rhs_evals / r->o->ntraj;
	out->evals_max = 0;
	return 0;
}

/* Time windows: a warm-up, then repeats; median and min in microseconds. */
static int time_config(struct pic_run *r, long windows, double *median, double *min,
		       picard_grid *grid)
{
	double *t = malloc(r->o->repeats * sizeof(double));
	picard_solver *solver;
	int err = t ? solver_for(r, windows, &solver) : PICARD_ENOMEM;

	if (err) {
		free(t);
		return err;
	}
	*grid = *picard_solver_grid(solver);
	err = solve_once(r, solver);
	for (int i = 0; !err && i < r->o->repeats; i++) {
		err = solve_once(r, solver);
		t[i] = r->stats.solve_seconds * 1e6;
	}
	picard_solver_free(solver);
	if (!err) {
		*min = bench_min(t, r->o->repeats);
		*median = bench_median(t, r->o->repeats);
	}
	free(t);
	return err;
}

int main(int argc, char **argv)
{
	struct pic_opts o;
	struct pic_run r = {0};
	bench_sample sample;
	bench_row best_row = {0};
	FILE *out;
	bool new_file = true, found = false;
	char device[256] = "CPU", driver[32] = "-", method[64];
	double *x0;
	int err;
	char **command = malloc((argc + 1) * sizeof(char *));

	for (int i = 0; command && i <= argc; i++)
		command[i] = argv[i];
	if (!command)
		bench_die(program, "out of memory");
	parse(argc, argv, &o);
	r.o = &o;
	r.model = picard_model_find(o.model);
	if (!r.model)
		bench_die_usage(program, "unknown model '%s'", o.model);
	out = bench_csv_open(program, o.csv, &new_file);
	x0 = malloc(o.ntraj * r.model->dim * sizeof(double));
	r.x1 = malloc(o.ntraj * r.model->dim * sizeof(double));
	r.status = malloc(o.ntraj * sizeof(int));
	if (!x0 || !r.x1 || !r.status)
		bench_die(program, "out of memory");
	r.x0 = x0;
	if ((err = picard_ensemble_spread(r.model->dim, r.model->x0, o.ntraj, o.spread, o.seed,
					  PICARD_BACKEND_CPU, x0)))
		bench_die(program, "ensemble: %s", picard_error_detail());
	if ((err = bench_sample_make(r.model, x0, o.ntraj, o.sample, r.model->t0, r.model->t1,
				     &sample)))
		bench_die(program, "reference: %s: %s", picard_strerror(err), picard_error_detail());
	if (o.backend == PICARD_BACKEND_CUDA) {
		int version = 0;

		if ((err = picard_cuda_device_name(device, sizeof(device))))
			bench_die(program, "no CUDA device: %s", picard_error_detail());
		cudaDriverGetVersion(&version);
		snprintf(driver, sizeof(driver), "%d.%d", version / 1000, version % 1000 / 10);
	} else {
		bench_cpu_name(device, sizeof(device));
	}
	bench_csv_header(out, argc, command, program, device, driver, BENCH_BUILD_FLAGS, &sample,
			 o.spread, o.seed, new_file);

	for (int i = 0; i < o.nms; i++) {
		struct probe_ctx ctx = {&r, &sample};
		bench_row row = {0};
		bench_probe best = {0};
		picard_grid grid = {0};
		long windows = o.windows;
		/* newton's changes shrink quadratically, and its iteration
		 * does not reach 1e-14: the tuner's rule (src/schemes/newton/scheme_newton.c) */
		const bool newton = o.scheme == PICARD_SCHEME_NEWTON;
		double floor_rtol = newton ? 1e-13 : o.precision == PICARD_DOUBLE ? 1e-14 : 1e-6;

		r.m = o.ms[i];
		r.iter_rtol = o.iter_rtol > 0 ? o.iter_rtol :
			      o.target > 0 ? fmax((newton ? 1e-3 : 1e-5) * o.target, floor_rtol) : 0;
		if (o.rk && !o.adaptive)
			r.iter_rtol = 0; /* fixed steps: no tolerance */
		if (o.adaptive && o.target > 0) {
			double tol = 0;

			fprintf(out, "# largest local tolerance with error <= %g on the %ld sampled "
				"trajectories\n", o.target, sample.n);
			/* the same range as bench-rk's adaptive methods */
			err = bench_search_tol(picard_probe, &ctx, o.target, o.target,
					       o.precision == PICARD_DOUBLE ? 1e-15 : 1e-7, &tol,
					       &best, out);
			if (err == PICARD_ENOTFOUND) {
				fprintf(out, "# target %g not met, smallest error %.3e\n", o.target,
					best.error);
				continue;
			}
			if (err)
				bench_die(program, "%s: %s", picard_strerror(err), picard_error_detail());
			r.iter_rtol = tol;
			windows = 1;
		} else if (o.target > 0) {
			fprintf(out, "# m = %d: fewest windows with error <= %g on the %ld sampled "
				"trajectories (iter_rtol %g)\n", r.m, o.target, sample.n, r.iter_rtol);
			err = bench_search_steps(picard_probe, &ctx, o.target, 16, 1L << 22, &windows,
						 &best, out);
			if (err == PICARD_ENOTFOUND) {
				fprintf(out, "# m = %d: target %g not met, smallest error %.3e\n",
					r.m, o.target, best.error);
				continue;
			}
			if (err)
				bench_die(program, "m = %d: %s (%s)", r.m, picard_strerror(err),
					  picard_error_detail());
		}
		err = time_config(&r, windows, &row.time_median_us, &row.time_min_us, &grid);
		if (err)
			bench_die(program, "m = %d: %s (%s)", r.m, picard_strerror(err),
				  picard_error_detail());
		snprintf(row.device, sizeof(row.device), "%s", device);
		snprintf(row.driver, sizeof(row.driver), "%s", driver);
		bench_date(row.date, sizeof(row.date));
		row.model = o.model;
		row.ntraj = o.ntraj;
		snprintf(method, sizeof(method), "picard-%s%s", picard_scheme_of(o.scheme)->name,
			 o.adaptive ? "-adaptive" : "");
		row.method = method;
		row.precision = o.precision == PICARD_DOUBLE ? "double" : "float";
		snprintf(row.config, sizeof(row.config), "m=%d K%s%d %s", r.m,
			 grid.adaptive ? "<=" : "=", grid.K,
			 picard_layout_name(grid.layout) ? picard_layout_name(grid.layout) : "?");
		row.steps = windows;
		row.tol = grid.iter_rtol;
		row.error = bench_error(&sample, r.model->dim, r.x1, r.status, false);
		row.error_traj = sample.n;
		row.repeats = o.repeats;
		row.evals_mean = r.stats.rhs_evals / o.ntraj;
		row.evals_max = 0;
		row.failed = r.stats.failed;
		row.drift = bench_invariant_drift(r.model, &sample, x0, r.x1);
		fprintf(out, "# m = %d: %ld windows, %.3g sweeps per window (max %d), error %.3e, "
			"%.1f us median\n", r.m, windows, r.stats.sweeps_mean, r.stats.sweeps_max,
			row.error, row.time_median_us);
		if (o.nms == 1 || !found || row.time_median_us < best_row.time_median_us) {
			best_row = row;
			found = true;
		}
	}
	if (!found) {
		fprintf(stderr, "%s: target %g not met for any m\n", program, o.target);
		return 1;
	}
	bench_csv_row(out, &best_row);
	if (out != stdout)
		fclose(out);
	bench_sample_free(&sample);
	return 0;
}
