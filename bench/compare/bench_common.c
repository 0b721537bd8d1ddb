/* bench_common.c - the measurement both baseline programs share (see
 * bench_common.h): reference sample and error at t1, the target search,
 * timing statistics, CSV output. */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>

#include "bench_common.h"
#include "cli/parse.h"
#include "errors.h"

#define FLOOR_TOL 1e-14 /* the tighter reference the floor compares with */

/* ---- reference ------------------------------------------------------------ */

/* GSL's view of the registry model's right-hand side (floor estimate). */
static int floor_rhs(double t, const double y[], double dydt[], void *arg)
{
	const picard_model *model = arg;

	picard_model_rhs(model, t, y, model->param_defaults, dydt);
	return GSL_SUCCESS;
}

/* x0 integrated from t0 to t1 by GSL rk8pd at rtol = atol = FLOOR_TOL into
 * x1; 0 or -1. */
static int floor_reference(const picard_model *model, const double *x0,
			   double t0, double t1, double *x1)
{
	gsl_odeiv2_system sys = {floor_rhs, NULL, (size_t)model->dim,
				 (void *)model};
	gsl_odeiv2_driver *driver;
	double t = t0;
	int status;

	driver = gsl_odeiv2_driver_alloc_y_new(&sys, gsl_odeiv2_step_rk8pd,
					       1e-6 * (t1 - t0), FLOOR_TOL, FLOOR_TOL);
	if (!driver)
		return -1;
	gsl_odeiv2_driver_set_nmax(driver, 100000000);
	memcpy(x1, x0, model->dim * sizeof(*x1));
	status = gsl_odeiv2_driver_apply(driver, &t, t1, x1);
	gsl_odeiv2_driver_free(driver);
	return status == GSL_SUCCESS ? 0 : -1;
}

/* The planar two-body problem of models/kepler.cu (state q1, q2, p1, p2;
 * parameter mu) from x0 at time 0 to time t, in closed form: Kepler's
 * equation in the eccentric-anomaly difference dE,
 *	n t = dE + sigma0 / sqrt(a) (1 - cos dE) - (1 - r0 / a) sin dE,
 * solved by Newton's method, then the Lagrange coefficients f, g, f', g'
 * (H. D. Curtis, Orbital Mechanics for Engineering Students, section 3.7;
 * R. H. Battin, An Introduction to the Mathematics and Methods of
 * Astrodynamics, section 4.3). Elliptic orbits only; returns -1 otherwise.
 * Over the model's 100 periods its error is ~1e-13, where GSL rk8pd at
 * 1e-12 is off by ~1e-8 (the header's floor line shows it). */
static int kepler_exact(double mu, const double *x0, double t, double *x)
{
	const double r0 = hypot(x0[0], x0[1]), v2 = x0[2] * x0[2] + x0[3] * x0[3];
	const double inv_a = 2 / r0 - v2 / mu, a = 1 / inv_a;
	const double sigma0 = (x0[0] * x0[2] + x0[1] * x0[3]) / sqrt(mu);
	double n, M, dE, r, f, g, fdot, gdot, c, sn;

	if (!(inv_a > 0))
		return -1;
	n = sqrt(mu * inv_a * inv_a * inv_a);
	M = n * t;
	dE = M;
	for (int it = 0; it < 200; it++) {
		double F = dE + sigma0 / sqrt(a) * (1 - cos(dE)) - (1 - r0 / a) * sin(dE) - M;
		double dF = 1 + sigma0 / sqrt(a) * sin(dE) - (1 - r0 / a) * cos(dE);
		double step = F / dF;

		dE -= step;
		if (fabs(step) <= 4e-16 * fmax(1, fabs(dE)))
			break;
	}
	c = cos(dE);
	sn = sin(dE);
	r = a + (r0 - a) * c + sigma0 * sqrt(a) * sn;
	f = 1 - a / r0 * (1 - c);
	g = a * sigma0 / sqrt(mu) * (1 - c) + r0 * sqrt(a / mu) * sn;
	fdot = -sqrt(mu * a) / (r * r0) * sn;
	gdot = 1 - a / r * (1 - c);
	x[0] = f * x0[0] + g * x0[2];
	x[1] = f * x0[1] + g * x0[3];
	x[2] = fdot * x0[0] + gdot * x0[2];
	x[3] = fdot * x0[1] + gdot * x0[3];
	return 0;
}

/* True when the sample's reference is kepler_exact(), not rk8pd. */
static bool uses_kepler_exact(const picard_model *model)
{
	return !strcmp(model->name, "kepler") && model->dim == 4;
}

const char *bench_reference_name(const picard_model *model)
{
	return uses_kepler_exact(model) ?
		"the closed-form two-body solution (Kepler's equation, Lagrange f and g; GSL rk8pd 1e-12 is too inexact over 100 orbits)" :
		"picard_reference (GSL rk8pd, rtol = atol = 1e-12)";
}

/* Reference at t1 of one trajectory. */
static int sample_reference(const picard_model *model, const double *x0,
			    double t0, double t1, double *out)
{
	if (uses_kepler_exact(model))
		return kepler_exact(model->param_defaults[0], x0, t1 - t0, out) ?
			picard_fail(PICARD_EREF, "kepler: orbit not elliptic") : 0;
	return picard_reference(model, NULL, x0, t0, &t1, 1, out);
}

int bench_sample_make(const picard_model *model, const double *x0, long ntraj,
		      long max_sample, double t0, double t1, bench_sample *sample)
{
	const int n = model->dim;
	int err = 0;

	memset(sample, 0, sizeof(*sample));
	sample->n = ntraj < max_sample ? ntraj : max_sample;
	sample->traj = malloc(sample->n * sizeof(*sample->traj));
	sample->ref = malloc(sample->n * n * sizeof(*sample->ref));
	if (!sample->traj || !sample->ref) {
		bench_sample_free(sample);
		return PICARD_ENOMEM;
	}
	for (long s = 0; s < sample->n; s++)
		sample->traj[s] = (long)((double)s * ntraj / sample->n);
	gsl_set_error_handler_off();
#pragma omp parallel for schedule(dynamic, 1) reduction(min : err)
	for (long s = 0; s < sample->n; s++) {
		int e = sample_reference(model, x0 + sample->traj[s] * n, t0, t1,
					 sample->ref + s * n);
		if (e < err)
			err = e;
	}
	if (err) {
		bench_sample_free(sample);
		return err;
	}
	/* The floor: the reference against GSL rk8pd at 1e-14 (kepler: rk8pd at
	 * 1e-12, picard's reference, against the closed form). */
	sample->ref_name = bench_reference_name(model);
	sample->floor_name = uses_kepler_exact(model) ? "x_rk8pd(1e-12)" :
						       "x_rk8pd(1e-14)";
	sample->floor = 0;
	for (long s = 0; s < sample->n && s < BENCH_FLOOR_TRAJ; s++) {
		const double *x = x0 + sample->traj[s] * n;
		double other[64];

		if (n > 64 || (uses_kepler_exact(model) ?
				       picard_reference(model, NULL, x, t0, &t1, 1, other) :
				       floor_reference(model, x, t0, t1, other))) {
			sample->floor = NAN;
			break;
		}
		for (int k = 0; k < n; k++)
			sample->floor = fmax(sample->floor,
					     fabs(other[k] - sample->ref[s * n + k]));
	}
	return 0;
}

void bench_sample_free(bench_sample *sample)
{
	free(sample->traj);
	free(sample->ref);
	sample->traj = NULL;
	sample->ref = NULL;
	sample->n = 0;
}

double bench_error(const bench_sample *sample, int dim, const double *x1,
		   const int *status, bool packed)
{
	double error = 0;

	for (long s = 0; s < sample->n; s++) {
		long i = sample->traj[s];
		const double *x = x1 + (packed ? s : i) * dim;

		if (status && status[packed ? s : i])
			return INFINITY;
		for (int k = 0; k < dim; k++) {
			if (!isfinite(x[k]))
				return INFINITY;
			error = fmax(error, fabs(x[k] - sample->ref[s * dim + k]));
		}
	}
	return error;
}

/* ---- search --------------------------------------------------------------- */

bool bench_meets(const bench_probe *probe, double target)
{
	return probe->failed == 0 && probe->error <= target;
}

/* Measure one point, log it and keep the smallest error in *best. */
static int probe_at(bench_probe_fn fn, void *ctx, long steps, double tol,
		    double target, bench_probe *out, bench_probe *best, FILE *log)
{
	int err = fn(ctx, steps, tol, out);

	if (err)
		return err;
	if (log) {
		if (steps)
			fprintf(log, "# probe steps=%ld", steps);
		else
			fprintf(log, "# probe tol=%.6g", tol);
		fprintf(log, " error=%.6e failed=%ld rhs_evals_mean=%.1f meets=%d\n",
			out->error, out->failed, out->evals_mean,
			bench_meets(out, target));
		fflush(log);
	}
	if (!(best->error <= out->error) && out->failed == 0)
		*best = *out;
	return 0;
}

int bench_search_steps(bench_probe_fn fn, void *ctx, double target, long start,
		       long max_steps, long *steps, bench_probe *best, FILE *log)
{
	bench_probe p;
	long lo = 0, hi, n = start < 1 ? 1 : start;
	int err;

	best->error = INFINITY;
	best->failed = 0;
	if ((err = probe_at(fn, ctx, n, 0, target, &p, best, log)))
		return err;
	if (bench_meets(&p, target)) {
		/* Met already: halve down to a failing count (or 1). */
		hi = n;
		while (hi > 1) {
			n = hi / 2;
			if ((err = probe_at(fn, ctx, n, 0, target, &p, best, log)))
				return err;
			if (!bench_meets(&p, target)) {
				lo = n;
				break;
			}
			hi = n;
		}
	} else {
		lo = n;
		for (;;) {
			if (n >= max_steps)
				return PICARD_ENOTFOUND;
			n = 2 * n > max_steps ? max_steps : 2 * n;
			if ((err = probe_at(fn, ctx, n, 0, target, &p, best, log)))
				return err;
			if (bench_meets(&p, target))
				break;
			lo = n;
		}
		hi = n;
	}
	/* lo fails (or is 0), hi meets. */
	while (lo > 0 && hi - lo > 1 && hi - lo > hi / 100) {
		n = lo + (hi - lo) / 2;
		if ((err = probe_at(fn, ctx, n, 0, target, &p, best, log)))
			return err;
		if (bench_meets(&p, target))
			hi = n;
		else
			lo = n;
	}
	*steps = hi;
	return 0;
}

int bench_search_tol(bench_probe_fn fn, void *ctx, double target, double start,
		     double min_tol, double *tol, bench_probe *best, FILE *log)
{
	const double max_tol = 0.1;
	double good, bad, t = start;
	bench_probe p;
	int err;

	best->error = INFINITY;
	best->failed = 0;
	if ((err = probe_at(fn, ctx, 0, t, target, &p, best, log)))
		return err;
	if (bench_meets(&p, target)) {
		good = t;
		bad = 0;
		while (good < max_tol) {
			t = fmin(good * 10, max_tol);
			if ((err = probe_at(fn, ctx, 0, t, target, &p, best, log)))
				return err;
			if (!bench_meets(&p, target)) {
				bad = t;
				break;
			}
			good = t;
		}
		if (bad == 0) {
			*tol = good;
			return 0;
		}
	} else {
		bad = t;
		for (;;) {
			if (bad <= min_tol * (1 + 1e-9))
				return PICARD_ENOTFOUND;
			t = fmax(bad / 10, min_tol);
			if ((err = probe_at(fn, ctx, 0, t, target, &p, best, log)))
				return err;
			if (bench_meets(&p, target))
				break;
			bad = t;
		}
		good = t;
	}
	/* good meets, bad (> good) does not. */
	while (bad / good > 1.2) {
		t = sqrt(good * bad);
		if ((err = probe_at(fn, ctx, 0, t, target, &p, best, log)))
			return err;
		if (bench_meets(&p, target))
			good = t;
		else
			bad = t;
	}
	*tol = good;
	return 0;
}

/* ---- statistics ------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double bench_min(const double *v, int n)
{
	double m = INFINITY;

	for (int i = 0; i < n; i++)
		m = fmin(m, v[i]);
	return m;
}

/* ---- output ----------------------------------------------------------------- */

void bench_date(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

double bench_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

void bench_cpu_name(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(buf, len, "CPU: unknown");
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon += 1 + strspn(colon + 1, " \t");
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(buf, len, "CPU: %s", colon);
		break;
	}
	if (f)
		fclose(f);
}

/* CSV field: commas in a device name would shift the columns. */
static void put_field(FILE *f, const char *s)
{
	if (strpbrk(s, ",\"")) {
		fputc('"', f);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', f);
			fputc(*s, f);
		}
		fputc('"', f);
	} else {
		fputs(s, f);
	}
}

void bench_csv_header(FILE *f, int argc, char **argv, const char *program,
		      const char *device, const char *driver,
		      const char *build_flags, const bench_sample *sample,
		      double spread, unsigned long long seed, bool columns)
{
	char date[32];

	bench_date(date, sizeof(date));
	fprintf(f, "# %s, picard build %s, %s\n", program, picard_build_id(), date);
	fprintf(f, "# command:");
	for (int i = 0; i < argc; i++)
		fprintf(f, " %s", argv[i]);
	fprintf(f, "\n# build flags: %s\n", build_flags);
	fprintf(f, "# device: %s; driver: %s\n", device, driver);
	fprintf(f, "# ensemble: picard_ensemble_spread(model x0, spread %g, seed %llu), as picard-run\n",
		spread, seed);
	fprintf(f, "# error: max over %ld evenly spaced trajectories (i = s*ntraj/%ld) and components of |x(t1) - x_ref(t1)|, x_ref = %s; failed sampled trajectory: inf\n",
		sample->n, sample->n, sample->ref_name);
	fprintf(f, "# reference floor: max |x_ref - %s| over %ld sampled trajectories = %.3e\n",
		sample->floor_name,
		sample->n < BENCH_FLOOR_TRAJ ? sample->n : (long)BENCH_FLOOR_TRAJ,
		sample->floor);
	if (columns)
		fprintf(f, "%s\n", BENCH_CSV_COLUMNS);
	fflush(f);
}

void bench_csv_row(FILE *f, const bench_row *r)
{
	put_field(f, r->device);
	fprintf(f, ",%s,%s,%s,%ld,%s,%s,%s,", r->driver, r->date, r->model,
		r->ntraj, r->method, r->precision, r->config);
	if (r->steps)
		fprintf(f, "%ld", r->steps);
	fputc(',', f);
	if (r->tol > 0)
		fprintf(f, "%.6g", r->tol);
	fprintf(f, ",%.6e,%ld,%.3f,%.3f,%d,%.1f,%ld,%ld,", r->error, r->error_traj,
		r->time_median_us, r->time_min_us, r->repeats, r->evals_mean,
		r->evals_max, r->failed);
	if (!isnan(r->drift))
		fprintf(f, "%.3e", r->drift);
	fputc('\n', f);
	fflush(f);
}

double bench_invariant_drift(const picard_model *model, const bench_sample *sample,
			     const double *x0, const double *x1)
{
	const int n = model->dim, ni = model->ninvariants;
	double start[8], end[8], drift = 0;

	if (ni < 1 || ni > 8)
		return NAN;
	for (long s = 0; s < sample->n; s++) {
		const double *a = x0 + sample->traj[s] * n, *b = x1 + sample->traj[s] * n;

		model->invariants(a, model->param_defaults, start);
		model->invariants(b, model->param_defaults, end);
		for (int q = 0; q < ni; q++) {
			const double change = fabs(end[q] - start[q]);

			if (!isfinite(end[q]))
				return INFINITY;
			drift = fmax(drift, start[q] != 0 ? change / fabs(start[q]) : change);
		}
	}
	return drift;
}

double bench_arg_double(const char *program, const char *flag, const char *v)
{
	char *end;
	double d = strtod(v, &end);

	if (end == v || *end || !isfinite(d) || d < 0)
		bench_die_usage(program, "%s: '%s' is not a non-negative number", flag, v);
	return d;
}

long bench_arg_long(const char *program, const char *flag, const char *v)
{
	char *end;
	long l = strtol(v, &end, 10);

	if (end == v || *end || l < 0)
		bench_die_usage(program, "%s: '%s' is not a non-negative integer", flag, v);
	return l;
}

FILE *bench_csv_open(const char *program, const char *path, bool *new_file)
{
	FILE *check, *out;

	*new_file = true;
	if (!path)
		return stdout;
	if ((check = fopen(path, "r"))) {
		*new_file = fgetc(check) == EOF;
		fclose(check);
	}
	if (!(out = fopen(path, "a")))
		bench_die(program, "%s: cannot open for appending", path);
	return out;
}

void bench_print_version(const char *program)
{
	cli_print_version(stdout, program);
}

void bench_die_usage(const char *program, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", program);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (try %s --help)\n", program);
	exit(2);
}

void bench_die(const char *program, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", program);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}
