/* bench_paper.c - bench-paper: the measurements behind the paper's Figs.
 * 2-4 and Table 1 (Korobitsyn & Frolova 2011), on lotka by default.
 *
 *   bench-paper sweep  E versus h for each (m, K) of --m x --K, h from
 *                      --h-min to --h-max (--per-decade points a decade),
 *                      and with --euler explicit Euler on the same axes
 *   bench-paper tune   for each E* of --tols: picard_tune's fastest (m, K, h)
 *                      per m (Fig. 4) and overall, and the serial explicit
 *                      Euler run reaching the same E* on one core (Table 1:
 *                      timed on --euler-traj trajectories, scaled to --traj;
 *                      Euler's cost per trajectory does not depend on it)
 *
 * E is the paper's: max |x - x_ref| over window ends (at most MAX_POINTS
 * evenly strided ones per trajectory) and components, against GSL rk8pd
 * (rtol = atol = 1e-12) interpolated densely (src/reference/dense_reference.h), on an
 * evenly spaced sample of the ensemble. The ensemble is picard-run's
 * (--spread, --seed); with the paper's --spread 0 every trajectory is the
 * same and one is measured. Output: CSV on stdout, '#' lines first saying
 * what ran where.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dense_reference.h"
#include "diag.h"
#include "model_impl.h"
#include "parse.h"
#include "picard.h"

#define MAX_POINTS 4000 /* window ends compared per trajectory */
#define MAX_LIST 16

struct bench {
	const char *mode;          /* "sweep" or "tune" */
	const picard_model *model;
	const char *model_name;
	int ms[MAX_LIST], nms, Ks[MAX_LIST], nKs;
	double h_min, h_max;
	int per_decade;
	double tols[MAX_LIST];
	int ntols;
	picard_precision precision;
	picard_backend backend;
	long traj, sample, euler_traj;
	double spread;
	unsigned long long seed;
	int repeats;
	bool euler, help;
};

/* ---- the command line ------------------------------------------------------- */

static int set_model_name(void *ctx, const char *flag, const char *value)
{
	(void)flag;
	((struct bench *)ctx)->model_name = value;
	return 0;
}

static int set_m(void *ctx, const char *flag, const char *value)
{
	struct bench *b = ctx;
	return parse_int_list(flag, value, 2, 1024, b->ms, MAX_LIST, &b->nms);
}

static int set_K(void *ctx, const char *flag, const char *value)
{
	struct bench *b = ctx;
	return parse_int_list(flag, value, 1, 100, b->Ks, MAX_LIST, &b->nKs);
}

static int set_h_min(void *ctx, const char *flag, const char *value)
{
	return parse_positive(flag, value, &((struct bench *)ctx)->h_min);
}

static int set_h_max(void *ctx, const char *flag, const char *value)
{
	return parse_positive(flag, value, &((struct bench *)ctx)->h_max);
}

static int set_per_decade(void *ctx, const char *flag, const char *value)
{
	long v;
	int err = parse_long(flag, value, 1, 100, &v);

	((struct bench *)ctx)->per_decade = (int)v;
	return err;
}

/* Comma-separated tolerances. */
static int set_tols(void *ctx, const char *flag, const char *value)
{
	struct bench *b = ctx;
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", value);
	b->ntols = 0;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (b->ntols == MAX_LIST)
			return cli_error(CLI_EUSAGE, "%s %s: at most %d", flag, value, MAX_LIST);
		if (parse_positive(flag, tok, &b->tols[b->ntols++]))
			return CLI_EUSAGE;
	}
	return b->ntols ? 0 : cli_error(CLI_EUSAGE, "%s: no tolerance given", flag);
}

static int set_precision(void *ctx, const char *flag, const char *value)
{
	return parse_precision(flag, value, &((struct bench *)ctx)->precision);
}

static int set_backend(void *ctx, const char *flag, const char *value)
{
	return parse_backend(flag, value, &((struct bench *)ctx)->backend);
}

static int set_traj(void *ctx, const char *flag, const char *value)
{
	return parse_long(flag, value, 1, 1L << 30, &((struct bench *)ctx)->traj);
}

static int set_sample(void *ctx, const char *flag, const char *value)
{
	return parse_long(flag, value, 1, 1L << 20, &((struct bench *)ctx)->sample);
}

static int set_euler_traj(void *ctx, const char *flag, const char *value)
{
	return parse_long(flag, value, 1, 1L << 30, &((struct bench *)ctx)->euler_traj);
}

static int set_spread(void *ctx, const char *flag, const char *value)
{
	return parse_double(flag, value, &((struct bench *)ctx)->spread);
}

static int set_seed(void *ctx, const char *flag, const char *value)
{
	return parse_seed(flag, value, &((struct bench *)ctx)->seed);
}

static int set_repeats(void *ctx, const char *flag, const char *value)
{
	long v;
	int err = parse_long(flag, value, 1, 1000, &v);

	((struct bench *)ctx)->repeats = (int)v;
	return err;
}

static int set_euler(void *ctx, const char *flag, const char *value)
{
	(void)flag;
	(void)value;
	((struct bench *)ctx)->euler = true;
	return 0;
}

static int set_help(void *ctx, const char *flag, const char *value)
{
	(void)flag;
	(void)value;
	((struct bench *)ctx)->help = true;
	return 0;
}

static const struct cli_flag flags[] = {
	{"--model", "NAME", set_model_name, "the model (default lotka)"},
	{"--m", "LIST", set_m, "sweep: nodes per window, e.g. 4,16,64,256"},
	{"--K", "LIST", set_K, "sweep: sweeps per window, e.g. 3 or 2,3,4,6,9"},
	{"--h-min", "H", set_h_min, "sweep: smallest h (default 1e-5)"},
	{"--h-max", "H", set_h_max, "sweep: largest h (default 1)"},
	{"--per-decade", "N", set_per_decade, "sweep: h values per decade (default 4)"},
	{"--euler", NULL, set_euler, "sweep: explicit Euler (double) on the same h too"},
	{"--tols", "LIST", set_tols, "tune: the E* values (default 1e-2,1e-3,1e-4)"},
	{"--precision", "P", set_precision, "float or double (default float, the paper's)"},
	{"--backend", "B", set_backend, "auto, cuda or cpu (default auto)"},
	{"--traj", "N", set_traj, "ensemble size, timed (default 8192)"},
	{"--sample", "N", set_sample, "trajectories whose E is measured (default 32; 1 when --spread 0)"},
	{"--euler-traj", "N", set_euler_traj, "tune: trajectories the serial Euler run times (default 256; T1 scaled to --traj)"},
	{"--spread", "S", set_spread, "initial states x0*(1 + S*(2u-1)) (default 0: the paper's x0 for all)"},
	{"--seed", "N", set_seed, "seed of the spread (default 1)"},
	{"--repeats", "R", set_repeats, "timed repeats, median (default 5)"},
	{"--help", NULL, set_help, "this text"},
};

static int set_mode(void *ctx, const char *arg)
{
	struct bench *b = ctx;

	if (!b->mode) {
		b->mode = arg;
		return 0;
	}
	return cli_error(CLI_EUSAGE, "unexpected argument '%s'", arg);
}

static void usage(void)
{
	printf("usage: bench-paper sweep|tune [options]\n\n");
	cli_print_flags(stdout, flags, sizeof(flags) / sizeof(flags[0]));
}

static int parse(int argc, char **argv, struct bench *b)
{
	const struct cli_command cmd = { .program = "bench-paper", .flags = flags,
					 .nflags = sizeof(flags) / sizeof(flags[0]),
					 .positional = set_mode };
	int err;

	*b = (struct bench){ .model_name = "lotka", .h_min = 1e-5, .h_max = 1, .per_decade = 4,
			     .tols = {1e-2, 1e-3, 1e-4}, .ntols = 3, .traj = 8192, .sample = 32,
			     .euler_traj = 256, .seed = 1, .repeats = 5 };
	err = cli_parse_args(&cmd, argc, argv, b, &b->help);
	if (err || b->help)
		return err;
	if (!b->mode || (strcmp(b->mode, "sweep") && strcmp(b->mode, "tune")))
		return cli_error(CLI_EUSAGE, "the first argument is sweep or tune");
	err = cli_find_model(b->model_name, &b->model);
	if (!err && b->mode[0] == 's' && (!b->nms || !b->nKs))
		err = cli_error(CLI_EUSAGE, "sweep: needs --m and --K");
	if (b->spread == 0)
		b->sample = 1;
	if (b->sample > b->traj)
		b->sample = b->traj;
	return err;
}

/* ---- measuring E -------------------------------------------------------------- */

/* The ensemble (picard-run's) and its evenly spaced sample. */
struct sample {
	long n;          /* trajectories in the sample */
	double *x0;      /* n*dim */
	struct dense_reference ref;
};

static int sample_make(struct sample *s, const struct bench *b, double ref_target)
{
	const int dim = b->model->dim;
	double *all = malloc(b->traj * dim * sizeof(double));
	int err;

	s->n = b->sample;
	s->x0 = malloc(s->n * dim * sizeof(double));
	if (!all || !s->x0)
		return PICARD_ENOMEM;
	err = picard_ensemble_model(b->model, b->traj, b->spread, NULL, b->seed,
				    PICARD_BACKEND_CPU, all, NULL);
	for (long i = 0; !err && i < s->n; i++)
		memcpy(s->x0 + i * dim, all + (i * (b->traj / s->n)) * dim, dim * sizeof(double));
	free(all);
	if (!err)
		err = dense_reference_build(&s->ref, b->model, s->x0, NULL, s->n, NULL, b->model->t0,
					    b->model->t1, ref_target);
	return err;
}

/* E of a record (window ends every-th, all sample trajectories) of grid. */
static double record_error(const struct sample *s, const picard_grid *g,
			   const picard_record *rec)
{
	const int n = s->ref.model->dim;
	const long rows = g->windows / rec->every;
	double E = 0, x[64];

	for (long r = 0; r < rows; r++) {
		double t = g->t0 + (double)((r + 1) * rec->every) * (g->m - 1) * g->h;

		for (long i = 0; i < s->n; i++) {
			const double *y = rec->states + (r * s->n + i) * n;

			dense_reference_eval(&s->ref, i, t, x);
			for (int k = 0; k < n; k++)
				E = fmax(E, isfinite(y[k]) ? fabs(y[k] - x[k]) : INFINITY);
		}
	}
	return E;
}

/* One Picard run of the sample at (m, K, h): its E (Inf when a trajectory
 * failed), its windows. */
static int picard_point(const struct bench *b, const struct sample *s, int m, int K,
			double h, double *E, long *windows)
{
	picard_options opt = { .m = m, .K = K, .h = h, .precision = b->precision,
			       .backend = b->backend };
	picard_record rec = { .traj_stride = 1 };
	picard_solver *solver;
	picard_stats stats;
	int err;

	err = picard_solver_create(&solver, b->model, &opt, s->n);
	if (err)
		return err;
	*windows = picard_solver_grid(solver)->windows;
	rec.every = (*windows + MAX_POINTS - 1) / MAX_POINTS;
	rec.states = malloc(picard_record_size(solver, &rec) * sizeof(double));
	if (!rec.states) {
		picard_solver_free(solver);
		return PICARD_ENOMEM;
	}
	err = picard_solve(solver, s->x0, NULL, NULL, NULL, NULL, &rec, 1, &stats);
	*E = err == PICARD_EFAILED ? INFINITY : record_error(s, picard_solver_grid(solver), &rec);
	free(rec.states);
	picard_solver_free(solver);
	return err == PICARD_EFAILED ? 0 : err;
}

/* Explicit Euler of one trajectory from x0 over the model's span in steps
 * steps, in double (in float its rounding stops it short of 1e-3 on lotka,
 * so it could not serve as the baseline at the paper's E*); E against the
 * reference at up to MAX_POINTS strided step ends (ref NULL: no
 * comparison, for timing; the first component is returned). */
static double euler_run(const struct bench *b, const struct dense_reference *ref, long traj,
			const double *x0, long steps)
{
	const picard_model *model = b->model;
	const int n = model->dim;
	const double t0 = model->t0, h = (model->t1 - t0) / steps;
	const long every = (steps + MAX_POINTS - 1) / MAX_POINTS;
	double E = 0, xr[64], x[64], f[64];

	memcpy(x, x0, n * sizeof(double));
	for (long i = 0; i < steps; i++) {
		model->impl->rhs_double(t0 + i * h, x, model->param_defaults, f);
		for (int k = 0; k < n; k++)
			x[k] += h * f[k];
		if (ref && (i + 1) % every == 0) {
			dense_reference_eval(ref, traj, t0 + (i + 1) * h, xr);
			for (int k = 0; k < n; k++)
				E = fmax(E, isfinite(x[k]) ? fabs(x[k] - xr[k]) : INFINITY);
		}
	}
	return ref ? E : x[0];
}

/* Euler's E over the sample, trajectories in parallel. */
static double euler_error(const struct bench *b, const struct sample *s, long steps)
{
	double E = 0;

#pragma omp parallel for reduction(max : E) schedule(dynamic)
	for (long i = 0; i < s->n; i++)
		E = fmax(E, euler_run(b, &s->ref, i, s->x0 + i * b->model->dim, steps));
	return E;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* ---- sweep: Figs. 2 and 3 --------------------------------------------------- */

static int sweep(const struct bench *b)
{
	const int points = (int)lround(log10(b->h_max / b->h_min) * b->per_decade) + 1;
	struct sample s;
	int err = sample_make(&s, b, 1e-9);

	if (err)
		return err;
	printf("# reference interpolation error %.3g (the floor of E)\n", s.ref.interp_error);
	printf("method,m,K,h,windows,E\n");
	for (int p = 0; p < points && !err; p++) {
		double h = b->h_max * pow(10, -(double)p / b->per_decade), E = NAN;
		long windows = 0;

		for (int i = 0; i < b->nms && !err; i++)
			for (int j = 0; j < b->nKs && !err; j++) {
				err = picard_point(b, &s, b->ms[i], b->Ks[j], h, &E, &windows);
				if (err == PICARD_EINVAL || err == PICARD_EBLOCK || err == PICARD_ESHMEM) {
					fprintf(stderr, "bench-paper: m=%d K=%d h=%g skipped: %s\n",
						b->ms[i], b->Ks[j], h, picard_error_detail());
					err = 0;
					continue;
				}
				if (!err)
					printf("picard,%d,%d,%.6g,%ld,%.6g\n", b->ms[i], b->Ks[j],
					       h, windows, E);
				fflush(stdout);
			}
		if (b->euler && !err) {
			long steps = (long)ceil((b->model->t1 - b->model->t0) / h);

			printf("euler,,,%.6g,%ld,%.6g\n", (b->model->t1 - b->model->t0) / steps,
			       steps, euler_error(b, &s, steps));
		}
	}
	dense_reference_free(&s.ref);
	free(s.x0);
	return err;
}

/* ---- tune: Fig. 4 and Table 1 ------------------------------------------------- */

/* Fewest Euler steps with E <= tol on the sample (doubling, then
 * bisection), or 0 when even max_steps do not get there. */
static long euler_steps_for(const struct bench *b, const struct sample *s, double tol,
			    double *E)
{
	long lo = 1, hi = 16, max_steps = 1L << 28;

	while ((*E = euler_error(b, s, hi)) > tol) {
		lo = hi;
		hi *= 2;
		if (hi > max_steps)
			return 0;
	}
	while (hi - lo > hi / 100 + 1) {
		long mid = lo + (hi - lo) / 2;
		double e = euler_error(b, s, mid);

		if (e <= tol) {
			hi = mid;
			*E = e;
		} else {
			lo = mid;
		}
	}
	*E = euler_error(b, s, hi);
	return hi;
}

/* Serial Euler over euler_traj trajectories on one core: median seconds. */
static double euler_time(const struct bench *b, const struct sample *s, long steps)
{
	double times[1000], sink = 0;

	for (int r = 0; r < b->repeats; r++) {
		double start = now();

		for (long i = 0; i < b->euler_traj; i++)
			sink += euler_run(b, NULL, 0, s->x0 + (i % s->n) * b->model->dim, steps);
		times[r] = now() - start;
	}
	if (sink == 42.4242) /* keep the runs from being optimised away */
		fputc(' ', stderr);
	qsort(times, b->repeats, sizeof(double), cmp_double);
	return times[b->repeats / 2];
}

/* The median solve time of the tuner's ensemble (spread and seed as
 * picard_tune's) at point p, after a warm-up: picard_tune's seconds are
 * predicted (evaluations x a cost per evaluation), the table's are timed. */
static int time_tuned(const struct bench *b, const picard_tune_point *p, double *seconds)
{
	picard_options opt = { .m = p->m, .K = p->K, .h = p->h, .precision = b->precision,
			       .backend = b->backend, .layout = p->layout,
			       .traj_per_block = p->traj_per_block };
	double *x0 = malloc((size_t)b->traj * b->model->dim * sizeof(double));
	double *times = malloc((size_t)b->repeats * sizeof(double));
	picard_solver *solver = NULL;
	picard_stats stats;
	int err = x0 && times ? 0 : PICARD_ENOMEM;

	if (!err)
		err = picard_ensemble_spread(b->model->dim, b->model->x0, b->traj, b->spread,
					     b->seed, b->backend, x0);
	if (!err)
		err = picard_solver_create(&solver, b->model, &opt, b->traj);
	for (int r = -1; !err && r < b->repeats; r++) {
		err = picard_solve(solver, x0, NULL, NULL, NULL, NULL, NULL, 0, &stats);
		if (r >= 0)
			times[r] = stats.solve_seconds;
	}
	if (!err) {
		qsort(times, b->repeats, sizeof(double), cmp_double);
		*seconds = times[b->repeats / 2];
	}
	picard_solver_free(solver);
	free(x0);
	free(times);
	return err;
}

static int tune(const struct bench *b)
{
	int err = 0;

	printf("row,tol,m,K,h,windows,E,t_c_s,euler_h,euler_steps,euler_E,T1_s,euler_traj_timed,S\n");
	for (int t = 0; t < b->ntols && !err; t++) {
		picard_tune_options opt = { .tol = b->tols[t], .precision = b->precision,
					    .backend = b->backend, .ntraj = b->traj,
					    .sample = b->sample, .spread = b->spread,
					    .seed = b->seed, .repeats = b->repeats };
		picard_tune_result res;
		struct sample s;
		long steps;
		double E, T1 = NAN, span = b->model->t1 - b->model->t0;
		int terr;

		terr = picard_tune(b->model, &opt, &res);
		if (terr && terr != PICARD_ENOTFOUND)
			return terr;
		for (int i = 0; i < res.nm; i++) {
			picard_tune_point *p = &res.per_m[i];

			if (p->meets)
				terr = time_tuned(b, p, &p->seconds);
			if (terr)
				return terr;
			if (p->meets)
				printf("per_m,%g,%d,%d,%.6g,%ld,%.6g,%.6g,,,,,,\n", b->tols[t], p->m,
				       p->K, p->h, p->windows, p->error, p->seconds);
			else
				printf("per_m,%g,%d,,,,,,,,,,,\n", b->tols[t], p->m);
		}
		err = sample_make(&s, b, 0.1 * b->tols[t]);
		if (err)
			return err;
		steps = euler_steps_for(b, &s, 0.8 * b->tols[t], &E);
		if (steps)
			T1 = euler_time(b, &s, steps) * ((double)b->traj / b->euler_traj);
		if (res.best.meets)
			terr = time_tuned(b, &res.best, &res.best.seconds);
		if (terr)
			return terr;
		if (res.best.meets)
			printf("best,%g,%d,%d,%.6g,%ld,%.6g,%.6g,", b->tols[t], res.best.m, res.best.K,
			       res.best.h, res.best.windows, res.best.error, res.best.seconds);
		else
			printf("best,%g,,,,,%.6g,,", b->tols[t], res.best_error);
		printf("%.6g,%ld,%.6g,%.6g,%ld,%.6g\n", steps ? span / steps : NAN, steps, E, T1,
		       b->euler_traj, res.best.meets ? T1 / res.best.seconds : NAN);
		fflush(stdout);
		dense_reference_free(&s.ref);
		free(s.x0);
	}
	return err;
}

int main(int argc, char **argv)
{
	struct bench b;
	char device[128] = "CPU";
	int err;

	err = parse(argc, argv, &b);
	if (err)
		return err == CLI_DONE ? 0 : 2;
	if (b.help) {
		usage();
		return 0;
	}
	if (b.backend != PICARD_BACKEND_CPU && picard_cuda_available())
		picard_cuda_device_name(device, sizeof(device));
	printf("# bench-paper %s on %s (%s), %s, %d CPU threads\n", b.mode, b.model->name,
	       b.precision == PICARD_DOUBLE ? "double" : "float", device, omp_get_max_threads());
	printf("# command:");
	for (int i = 0; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\n");
	err = strcmp(b.mode, "sweep") == 0 ? sweep(&b) : tune(&b);
	if (err) {
		fprintf(stderr, "bench-paper: %s (%s)\n", picard_strerror(err), picard_error_detail());
		return 1;
	}
	return 0;
}
