/* stiff_common.c - the measurement the stiff baselines share (see
 * stiff_common.h): command line, ensemble, output times, the GSL msbdf
 * reference of a sample and the errors against it, CSV. */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>

#include "bench_common.h"
#include "init_file.h"
#include "stiff_common.h"

/* ---- command line ------------------------------------------------------------ */

static void usage(const char *program, bool gpu)
{
	printf("usage: %s MODEL [options]\n\n"
	       "  --rtol R, --atol A   tolerances (default 1e-6, 1e-10)\n"
	       "  --traj N             trajectories (default %d)\n"
	       "  --spread S           initial states x0 (1 + S (2u - 1)), as picard-run (default 0.1)\n"
	       "  --spread-param NAME=S  parameter NAME per trajectory, as picard-run (repeatable)\n"
	       "  --seed N             Philox seed, as picard-run (default 1)\n"
	       "  --init FILE          initial states [and parameters] per row, as picard-run --init\n"
	       "  --t1 T               end time (default: the model's)\n"
	       "  --outputs N          output times: N decades ending at t1 (default 8, at most %d)\n"
	       "  --sample N           trajectories compared with the reference (default 256)\n"
	       "  --repeats R          timed solves after a warm-up (default 5)\n"
	       "  --threads N          CPU threads (default: all)\n"
	       "  --max-steps N        steps per trajectory before it fails (default 1000000)\n"
	       "%s"
	       "  --csv FILE           append the row to FILE (column names if new)\n",
	       program, 8192, STIFF_MAX_OUT,
	       gpu ? "  --backend B          cuda (default) or host (the same integrator, OpenMP)\n"
		     "  --block B            GPU threads per block (default 64)\n" : "");
}

static void spread_param(const char *program, stiff_opts *o, const char *arg)
{
	const picard_model *m = o->model;
	const char *eq = strchr(arg, '=');

	if (!m)
		bench_die_usage(program, "--spread-param: give MODEL first");
	if (!eq)
		bench_die_usage(program, "--spread-param %s: NAME=S", arg);
	for (int q = 0; q < m->nparams && q < STIFF_MAX_PARAMS; q++)
		if (strlen(m->param_names[q]) == (size_t)(eq - arg) &&
		    !strncmp(m->param_names[q], arg, eq - arg)) {
			o->param_spread[q] = bench_arg_double(program, "--spread-param", eq + 1);
			return;
		}
	bench_die_usage(program, "--spread-param %s: %s has no such parameter", arg, m->name);
}

void stiff_parse(int argc, char **argv, const char *program, bool gpu, stiff_opts *o)
{
	enum { O_RTOL = 256, O_ATOL, O_TRAJ, O_SPREAD, O_SPREADP, O_SEED, O_INIT, O_T1,
	       O_OUT, O_SAMPLE, O_REPEATS, O_THREADS, O_MAXSTEPS, O_BACKEND, O_BLOCK,
	       O_CSV, O_HELP, O_VERSION };
	static const struct option longopts[] = {
		{"rtol", 1, 0, O_RTOL}, {"atol", 1, 0, O_ATOL}, {"traj", 1, 0, O_TRAJ},
		{"spread", 1, 0, O_SPREAD}, {"spread-param", 1, 0, O_SPREADP},
		{"seed", 1, 0, O_SEED}, {"init", 1, 0, O_INIT}, {"t1", 1, 0, O_T1},
		{"outputs", 1, 0, O_OUT}, {"sample", 1, 0, O_SAMPLE},
		{"repeats", 1, 0, O_REPEATS}, {"threads", 1, 0, O_THREADS},
		{"max-steps", 1, 0, O_MAXSTEPS}, {"backend", 1, 0, O_BACKEND},
		{"block", 1, 0, O_BLOCK}, {"csv", 1, 0, O_CSV}, {"help", 0, 0, O_HELP},
		{"version", 0, 0, O_VERSION}, {0, 0, 0, 0}};
	int c;

	memset(o, 0, sizeof(*o));
	o->ntraj = BENCH_DEFAULT_TRAJ;
	o->spread = BENCH_DEFAULT_SPREAD;
	o->seed = BENCH_DEFAULT_SEED;
	o->nout = 8;
	o->rtol = 1e-6;
	o->atol = 1e-10;
	o->sample = 256;
	o->repeats = BENCH_DEFAULT_REPEATS;
	o->max_steps = 1000000;
	o->block = 64;
	/* MODEL first, so that --spread-param can name its parameters. */
	if (argc > 1 && argv[1][0] != '-') {
		const char *name = argv[1];
		size_t len = strlen(name);

		o->model_name = name;
		/* a path, as picard-run takes one: a model file compiled now
		 * (or taken from picard's cache) */
		if (strchr(name, '/') || (len > 3 && !strcmp(name + len - 3, ".cu"))) {
			if (picard_model_load(name, &o->model))
				bench_die_usage(program, "model file %s: %s", name, picard_error_detail());
		} else if (!(o->model = picard_model_find(name))) {
			bench_die_usage(program, "unknown model '%s'", name);
		}
		argv[1] = argv[0];
		argv++;
		argc--;
	}
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case O_RTOL: o->rtol = bench_arg_double(program, "--rtol", optarg); break;
		case O_ATOL: o->atol = bench_arg_double(program, "--atol", optarg); break;
		case O_TRAJ: o->ntraj = bench_arg_long(program, "--traj", optarg); break;
		case O_SPREAD: o->spread = bench_arg_double(program, "--spread", optarg); break;
		case O_SPREADP: spread_param(program, o, optarg); break;
		case O_SEED: o->seed = bench_arg_long(program, "--seed", optarg); break;
		case O_INIT: o->init_path = optarg; break;
		case O_T1: o->t1 = bench_arg_double(program, "--t1", optarg); break;
		case O_OUT: o->nout = (int)bench_arg_long(program, "--outputs", optarg); break;
		case O_SAMPLE: o->sample = bench_arg_long(program, "--sample", optarg); break;
		case O_REPEATS: o->repeats = (int)bench_arg_long(program, "--repeats", optarg); break;
		case O_THREADS: o->threads = (int)bench_arg_long(program, "--threads", optarg); break;
		case O_MAXSTEPS: o->max_steps = bench_arg_long(program, "--max-steps", optarg); break;
		case O_BACKEND:
			if (!gpu || (strcmp(optarg, "cuda") && strcmp(optarg, "host")))
				bench_die_usage(program, "--backend: %s", gpu ? "cuda or host" : "CPU only");
			o->host = !strcmp(optarg, "host");
			break;
		case O_BLOCK:
			if (!gpu)
				bench_die_usage(program, "--block: CPU only");
			o->block = (int)bench_arg_long(program, "--block", optarg);
			break;
		case O_CSV: o->csv = optarg; break;
		case O_HELP: usage(program, gpu); exit(0);
		case O_VERSION: bench_print_version(program); exit(0);
		default: bench_die_usage(program, "bad option");
		}
	}
	if (!o->model || optind != argc)
		bench_die_usage(program, "MODEL first, then options (--help)");
	if (o->ntraj < 1 || o->sample < 1 || o->repeats < 1 || o->nout < 1 ||
	    o->nout > STIFF_MAX_OUT || o->block < 1 || o->block > 1024 || !(o->rtol > 0) ||
	    !(o->atol > 0) || o->max_steps < 1)
		bench_die_usage(program, "--traj, --sample, --repeats >= 1; 1 <= --outputs <= %d; "
				"1 <= --block <= 1024; --rtol, --atol > 0", STIFF_MAX_OUT);
	if (o->t1 != 0 && !(o->t1 > o->model->t0))
		bench_die_usage(program, "--t1 must exceed the model's t0 (%g)", o->model->t0);
}

/* ---- ensemble and output times --------------------------------------------------- */

void stiff_problem_make(const stiff_opts *o, const char *program, stiff_problem *pb)
{
	const picard_model *m = o->model;
	const double t1 = o->t1 != 0 ? o->t1 : m->t1;
	bool spread_params = false;
	int err;

	memset(pb, 0, sizeof(*pb));
	pb->dim = m->dim;
	pb->nparams = m->nparams;
	pb->t0 = m->t0;
	pb->nout = o->nout;
	/* decades ending at t1: t0 + span 10^-(nout-1-k) */
	for (int k = 0; k < o->nout; k++)
		pb->tout[k] = m->t0 + (t1 - m->t0) * pow(10.0, -(o->nout - 1 - k));
	pb->tout[o->nout - 1] = t1;
	for (int q = 0; q < m->nparams && q < STIFF_MAX_PARAMS; q++)
		spread_params = spread_params || o->param_spread[q] > 0;
	if (o->init_path) {
		struct init_data data;

		if (spread_params)
			bench_die_usage(program, "--spread-param: not with --init (the file's columns)");
		if (init_file_read(o->init_path, m, &data))
			exit(2);
		pb->ntraj = data.ntraj;
		pb->x0 = data.x0;
		pb->params = data.params;
	} else {
		pb->ntraj = o->ntraj;
		pb->x0 = malloc(pb->ntraj * m->dim * sizeof(double));
		if (spread_params)
			pb->params = malloc(pb->ntraj * (m->nparams ? m->nparams : 1) * sizeof(double));
		if (!pb->x0 || (spread_params && !pb->params))
			bench_die(program, "out of memory");
		/* picard-run's make_ensemble(), on the host generator: the
		 * same numbers as the device's */
		err = picard_ensemble_model(m, pb->ntraj, o->spread,
					    spread_params ? o->param_spread : NULL, o->seed,
					    PICARD_BACKEND_CPU, pb->x0, pb->params);
		if (err)
			bench_die(program, "ensemble: %s", picard_error_detail());
	}
	if (!pb->params) {
		pb->params = malloc(pb->ntraj * (m->nparams ? m->nparams : 1) * sizeof(double));
		if (!pb->params)
			bench_die(program, "out of memory");
		for (long i = 0; i < pb->ntraj; i++)
			for (int q = 0; q < m->nparams; q++)
				pb->params[i * m->nparams + q] = m->param_defaults[q];
	}
}

void stiff_problem_free(stiff_problem *pb)
{
	free(pb->x0);
	free(pb->params);
	memset(pb, 0, sizeof(*pb));
}

/* ---- the reference: GSL msbdf with the model's Jacobian ---------------------- */

/* One trajectory's model and parameters for GSL. */
struct ref_system {
	const picard_model *model;
	const double *params;
};

static int ref_rhs(double t, const double y[], double dydt[], void *arg)
{
	const struct ref_system *rs = arg;

	picard_model_rhs(rs->model, t, y, rs->params, dydt);
	return GSL_SUCCESS;
}

/* dfdy: the model's Jacobian (its own or automatic), row-major as GSL's;
 * dfdt by central differences (msbdf does not use it; bsimp would). */
static int ref_jac(double t, const double y[], double *dfdy, double dfdt[], void *arg)
{
	const struct ref_system *rs = arg;
	const int n = rs->model->dim;
	const double dt = 1e-7 * (1 + fabs(t));
	double *fp = malloc(2 * n * sizeof(double)), *fm = fp + n;

	if (!fp)
		return GSL_ENOMEM;
	picard_model_jacobian(rs->model, t, y, rs->params, dfdy);
	picard_model_rhs(rs->model, t + dt, y, rs->params, fp);
	picard_model_rhs(rs->model, t - dt, y, rs->params, fm);
	for (int i = 0; i < n; i++)
		dfdt[i] = (fp[i] - fm[i]) / (2 * dt);
	free(fp);
	return GSL_SUCCESS;
}

int stiff_reference(const picard_model *model, const double *params, const double *x0,
		    double t0, const double *tout, int nout, double rtol, double atol,
		    double *out)
{
	struct ref_system rs = {model, params};
	gsl_odeiv2_system sys = {ref_rhs, ref_jac, (size_t)model->dim, &rs};
	gsl_odeiv2_driver *driver;
	double t = t0, *y = malloc(model->dim * sizeof(double));
	int status = GSL_SUCCESS;

	driver = gsl_odeiv2_driver_alloc_standard_new(&sys, gsl_odeiv2_step_msbdf,
						      1e-9 * (tout[nout - 1] - t0), atol, rtol,
						      1.0, 0.0);
	if (!driver || !y) {
		if (driver)
			gsl_odeiv2_driver_free(driver);
		free(y);
		return -1;
	}
	gsl_odeiv2_driver_set_nmax(driver, 0);
	memcpy(y, x0, model->dim * sizeof(double));
	for (int o = 0; o < nout && status == GSL_SUCCESS; o++) {
		status = gsl_odeiv2_driver_apply(driver, &t, tout[o], y);
		memcpy(out + o * model->dim, y, model->dim * sizeof(double));
	}
	gsl_odeiv2_driver_free(driver);
	free(y);
	return status == GSL_SUCCESS ? 0 : -1;
}

/* |x - ref| / (atol + rtol |ref|), the largest over n components. */
static double scaled_diff(const double *x, const double *ref, int n, double rtol, double atol)
{
	double e = 0;

	for (int k = 0; k < n; k++) {
		double d = fabs(x[k] - ref[k]) / (atol + rtol * fabs(ref[k]));

		e = isfinite(d) ? fmax(e, d) : INFINITY;
	}
	return e;
}

void stiff_sample_make(const stiff_opts *o, const stiff_problem *pb, stiff_sample *s)
{
	const long n = pb->ntraj < o->sample ? pb->ntraj : o->sample;
	const int dim = pb->dim, no = pb->nout;
	const double ref_atol = 1e-4 * o->atol;
	long bad = 0;
	double floor = 0;

	s->n = n;
	s->traj = malloc(n * sizeof(long));
	s->ref = malloc(n * no * dim * sizeof(double));
	if (!s->traj || !s->ref)
		bench_die("stiff", "out of memory");
	for (long i = 0; i < n; i++)
		s->traj[i] = i * pb->ntraj / n;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : bad) reduction(max : floor)
	for (long i = 0; i < n; i++) {
		const long tr = s->traj[i];
		double *ref = s->ref + i * no * dim;

		if (stiff_reference(o->model, pb->params + tr * pb->nparams, pb->x0 + tr * dim,
				    pb->t0, pb->tout, no, STIFF_REF_RTOL, ref_atol, ref)) {
			bad++;
			continue;
		}
		if (i < STIFF_FLOOR_TRAJ) {
			double *tight = malloc(no * dim * sizeof(double));

			if (!tight || stiff_reference(o->model, pb->params + tr * pb->nparams,
						      pb->x0 + tr * dim, pb->t0, pb->tout, no,
						      STIFF_REF_RTOL / 10, ref_atol / 10, tight)) {
				free(tight);
				bad++;
				continue;
			}
			for (int k = 0; k < no; k++)
				floor = fmax(floor, scaled_diff(ref + k * dim, tight + k * dim, dim,
								o->rtol, o->atol));
			free(tight);
		}
	}
	if (bad)
		bench_die("stiff", "the msbdf reference failed on %ld sampled trajectories", bad);
	s->floor = floor;
}

void stiff_sample_free(stiff_sample *s)
{
	free(s->traj);
	free(s->ref);
	memset(s, 0, sizeof(*s));
}

stiff_errors stiff_errors_of(const stiff_opts *o, const stiff_problem *pb,
			     const stiff_sample *s, const double *xout, const int *status)
{
	const int dim = pb->dim, no = pb->nout;
	stiff_errors e = {0, 0, 0, 0};

	for (long i = 0; i < s->n; i++) {
		const long tr = s->traj[i];
		const double *x = xout + tr * no * dim, *ref = s->ref + i * no * dim;

		if (status && status[tr]) {
			e.scaled = e.scaled_t1 = e.rel = e.abs = INFINITY;
			continue;
		}
		for (int k = 0; k < no; k++) {
			double sc = scaled_diff(x + k * dim, ref + k * dim, dim, o->rtol, o->atol);

			e.scaled = fmax(e.scaled, sc);
			if (k == no - 1)
				e.scaled_t1 = fmax(e.scaled_t1, sc);
			for (int c = 0; c < dim; c++) {
				double d = fabs(x[k * dim + c] - ref[k * dim + c]);

				if (!isfinite(d)) {
					e.scaled = e.scaled_t1 = e.rel = e.abs = INFINITY;
					continue;
				}
				e.abs = fmax(e.abs, d);
				if (fabs(ref[k * dim + c]) > o->atol)
					e.rel = fmax(e.rel, d / fabs(ref[k * dim + c]));
			}
		}
	}
	return e;
}

stiff_counts stiff_counts_of(long ntraj, const int *status, const long *accepted,
			     const long *rejected, const long *evals, const long *jacs)
{
	stiff_counts c = {0, 0, 0, 0, 0, 0};

	for (long i = 0; i < ntraj; i++) {
		c.steps_mean += accepted[i];
		c.rejected_mean += rejected[i];
		c.evals_mean += evals[i];
		c.jacs_mean += jacs[i];
		if (accepted[i] > c.steps_max)
			c.steps_max = accepted[i];
		c.failed += status[i] != 0;
	}
	c.steps_mean /= ntraj;
	c.rejected_mean /= ntraj;
	c.evals_mean /= ntraj;
	c.jacs_mean /= ntraj;
	return c;
}

/* ---- CSV ------------------------------------------------------------------------ */

void stiff_csv_header(FILE *f, int argc, char **argv, const char *program,
		      const char *device, const stiff_opts *o, const stiff_problem *pb,
		      const stiff_sample *s, bool columns)
{
	const picard_model *m = o->model;

	fprintf(f, "# %s, picard build %s\n# command:", program, picard_build_id());
	for (int i = 0; i < argc; i++)
		fprintf(f, " %s", argv[i]);
	fprintf(f, "\n# device: %s\n", device);
	if (o->init_path) {
		fprintf(f, "# ensemble: %ld trajectories from %s\n", pb->ntraj, o->init_path);
	} else {
		fprintf(f, "# ensemble: picard_ensemble_model, %ld trajectories, spread %g, seed %llu, "
			"parameter spreads", pb->ntraj, o->spread, o->seed);
		for (int q = 0; q < m->nparams; q++)
			fprintf(f, " %s=%g", m->param_names[q], o->param_spread[q]);
		fprintf(f, " (picard-run's)\n");
	}
	fprintf(f, "# outputs: t0 = %g, t =", pb->t0);
	for (int k = 0; k < pb->nout; k++)
		fprintf(f, " %g", pb->tout[k]);
	fprintf(f, "\n# reference: GSL msbdf with the model's Jacobian, rtol %g, atol %g, on %ld "
		"evenly spaced trajectories; floor (scaled difference from rtol %g, atol %g on "
		"%d of them): %.3e\n", STIFF_REF_RTOL, 1e-4 * o->atol, s->n, STIFF_REF_RTOL / 10,
		1e-5 * o->atol, STIFF_FLOOR_TRAJ, s->floor);
	fprintf(f, "# errors: err_scaled = max over sample, outputs, components of |x - ref| / "
		"(atol + rtol |ref|); err_rel: |x_k - ref_k| / |ref_k| where |ref_k| > atol\n");
	if (columns)
		fprintf(f, "%s\n", STIFF_CSV_COLUMNS);
	fflush(f);
}

void stiff_csv_row(FILE *f, const char *device, const char *driver, const stiff_opts *o,
		   const stiff_problem *pb, const char *method, const char *config,
		   const double *times, int repeats, const stiff_counts *c,
		   const stiff_errors *e, long error_traj)
{
	char date[32];
	double *sorted = malloc(repeats * sizeof(double));

	if (!sorted)
		bench_die("stiff", "out of memory");
	memcpy(sorted, times, repeats * sizeof(double));
	bench_date(date, sizeof(date));
	fprintf(f, "\"%s\",%s,%s,%s,%ld,%s,double,%s,%g,%g,%d,%.1f,%.1f,%d,%.1f,%ld,%.1f,%.1f,"
		"%.1f,%ld,%.3e,%.3e,%.3e,%.3e,%ld\n",
		device, driver, date, o->model_name, pb->ntraj, method, config, o->rtol, o->atol,
		pb->nout, bench_median(sorted, repeats), bench_min(sorted, repeats), repeats,
		c->steps_mean, c->steps_max, c->rejected_mean, c->evals_mean, c->jacs_mean,
		c->failed, e->scaled, e->scaled_t1, e->rel, e->abs, error_traj);
	fflush(f);
	free(sorted);
}
