/* test_draw.c - members drawn where they are solved (picard_solve_drawn):
 * the members of the host's draw (picard_ensemble_model_range), and the
 * results of solving those, bit for bit, on the CPU backend and (suite
 * gpu) on the device, in chunks, in parts, with the error estimate's
 * companion; and picard-run, whose host reads only the rows it needs,
 * against the same members given by --init. */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "ensemble_range.h"
#include "solver.h"
#include "support.h"

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	cr_assert_not_null(p);
	return p;
}

/* A draw of model around its start at values (NULL: its defaults), the
 * parameters spread by spreads (NULL: none). */
struct drawn {
	struct picard_draw draw;
	double start[8], values[8];
};

static void make_draw(struct drawn *d, const picard_model *model, long first,
		      const double *values, const double *spreads)
{
	picard_model at = *model;

	cr_assert(model->dim <= 8 && model->nparams <= 8);
	for (int q = 0; q < model->nparams; q++)
		d->values[q] = values ? values[q] : model->param_defaults[q];
	at.param_defaults = d->values;
	picard_model_start(&at, NULL, d->start);
	d->draw = (struct picard_draw){.first = first, .spread = 0.1, .seed = 11,
				       .start = d->start, .param_values = d->values,
				       .param_spreads = spreads};
}

/* make_draw's members first .. first+count-1 as picard-run drew them
 * before: picard_ensemble_model_range, its defaults at values; params
 * always filled. */
static void ensemble_rows(const picard_model *model, const struct drawn *d, long count,
			  double *x0, double *params)
{
	picard_model at = *model;
	int err;

	at.param_defaults = d->values;
	err = picard_ensemble_model_range(&at, d->draw.first, count, d->draw.spread,
					  d->draw.param_spreads, d->draw.seed, PICARD_BACKEND_CPU,
					  x0, params);
	cr_assert_eq(err, PICARD_OK, "%s", picard_error_detail());
}

/* picard_draw_host gives the ensemble's rows: lotka with and without a
 * parameter spread, from the first member and from far in; kepler, whose
 * start depends on its eccentricity, set for all. */
Test(draw, host_draw_gives_the_ensembles_members)
{
	const picard_model *lotka = test_model("lotka"), *kepler = test_model("kepler");
	double spreads[8] = {0.3, 0, 0.05}, kepler_values[8];
	const struct {
		const picard_model *model;
		long first, count;
		const double *values, *spreads;
	} cases[] = {
		{lotka, 0, 1000, NULL, NULL},       {lotka, 1000003, 777, NULL, spreads},
		{lotka, 65535, 70000, NULL, spreads}, {kepler, 12345, 999, kepler_values, NULL},
	};

	for (int q = 0; q < kepler->nparams; q++)
		kepler_values[q] = kepler->param_defaults[q] * 0.9;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const picard_model *m = cases[c].model;
		struct drawn d;

		make_draw(&d, m, cases[c].first, cases[c].values, cases[c].spreads);
		const long count = cases[c].count;
		const bool own = picard_draw_own_params(&d.draw, m->nparams);
		double *x0 = xcalloc(count * m->dim, sizeof(double));
		double *params = xcalloc(count * m->nparams, sizeof(double));
		double *want_x0 = xcalloc(count * m->dim, sizeof(double));
		double *want_params = xcalloc(count * m->nparams, sizeof(double));

		cr_assert_eq(own, cases[c].spreads != NULL);
		cr_assert_eq(picard_draw_host(&d.draw, m->dim, m->nparams, 0, count, x0, params), 0);
		ensemble_rows(m, &d, count, want_x0, want_params);
		cr_expect_eq(memcmp(x0, want_x0, count * m->dim * sizeof(double)), 0,
			     "case %zu: states differ from the ensemble's", c);
		if (own)
			cr_expect_eq(memcmp(params, want_params, count * m->nparams * sizeof(double)),
				     0, "case %zu: parameters differ from the ensemble's", c);
		free(x0), free(params), free(want_x0), free(want_params);
	}
}

/* One solve's outcomes. */
struct outcome {
	double *x_final, *estimates;
	picard_traj_status *status;
	long *fail_window;
	long chunks;
	int err;
};

static void outcome_free(struct outcome *o)
{
	free(o->x_final), free(o->estimates), free(o->status), free(o->fail_window);
}

/* Solve ntraj members of d under opt: drawn where solved, or from the
 * ensemble's rows drawn on the host. */
static struct outcome solve_members(const picard_model *model, const picard_options *opt,
				    const struct drawn *d, long ntraj, bool drawn)
{
	struct outcome o = {
		.x_final = xcalloc(ntraj * model->dim, sizeof(double)),
		.estimates = xcalloc(ntraj, sizeof(double)),
		.status = xcalloc(ntraj, sizeof(picard_traj_status)),
		.fail_window = xcalloc(ntraj, sizeof(long)),
	};
	picard_solver *s = NULL;
	picard_stats stats;

	cr_assert_eq(picard_solver_create(&s, model, opt, ntraj), 0, "%s", picard_error_detail());
	if (drawn) {
		o.err = picard_solve_drawn(s, ntraj, &d->draw, o.x_final, o.status, o.fail_window,
					   NULL, 0, &stats);
	} else {
		double *x0 = xcalloc(ntraj * model->dim, sizeof(double));
		double *params = xcalloc(ntraj * model->nparams, sizeof(double));

		ensemble_rows(model, d, ntraj, x0, params);
		o.err = picard_solve_batch(s, ntraj, x0,
					   picard_draw_own_params(&d->draw, model->nparams) ?
					   params : NULL, o.x_final, o.status, o.fail_window,
					   NULL, 0, &stats);
		free(x0), free(params);
	}
	cr_assert(o.err == PICARD_OK || o.err == PICARD_EFAILED, "%s", picard_error_detail());
	o.chunks = stats.chunks;
	if (picard_solver_error_estimates(s))
		memcpy(o.estimates, picard_solver_error_estimates(s), ntraj * sizeof(double));
	picard_solver_free(s);
	return o;
}

static bool same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof(a)) == 0 || (isnan(a) && isnan(b));
}

/* The drawn solve against the host's rows: the same outcomes bit for
 * bit. The number of chunks of the drawn solve. */
static long expect_drawn_matches(const char *what, const picard_options *opt, long first,
				 long ntraj, const double *spreads)
{
	const picard_model *lotka = test_model("lotka");
	struct drawn d;

	make_draw(&d, lotka, first, NULL, spreads);
	struct outcome a = solve_members(lotka, opt, &d, ntraj, true);
	struct outcome b = solve_members(lotka, opt, &d, ntraj, false);
	long differ = 0, first_differing = -1, chunks = a.chunks;

	cr_expect_eq(a.err, b.err, "%s: %d drawn, %d from rows", what, a.err, b.err);
	for (long i = 0; i < ntraj; i++) {
		bool same = a.status[i] == b.status[i] && a.fail_window[i] == b.fail_window[i] &&
			    same_double(a.estimates[i], b.estimates[i]);

		for (int k = 0; k < lotka->dim; k++)
			same = same && same_double(a.x_final[i * 2 + k], b.x_final[i * 2 + k]);
		if (!same && first_differing < 0)
			first_differing = i;
		differ += !same;
	}
	cr_expect_eq(differ, 0, "%s: %ld of %ld members differ, the first %ld", what, differ,
		     ntraj, first_differing);
	outcome_free(&a);
	outcome_free(&b);
	return chunks;
}

static const double a1_spread[8] = {0.3};

/* On the CPU backend the solver draws into its own arrays: a trapezoid
 * with its error estimate, and dp8 in float with a parameter spread. */
Test(draw, a_drawn_solve_matches_the_host_rows, .timeout = 120)
{
	const picard_options trapezoid = {.m = 6, .K = 3, .h = 0.05, .t1 = 10,
					  .backend = PICARD_BACKEND_CPU, .estimate_error = true,
					  .error_scale = {1e-6, 1e-6}};
	const picard_options dp8 = {.scheme = PICARD_SCHEME_DP8, .K = 40, .t1 = 10,
				    .backend = PICARD_BACKEND_CPU, .precision = PICARD_FLOAT};

	expect_drawn_matches("trapezoid, estimate", &trapezoid, 0, 3000, NULL);
	expect_drawn_matches("dp8 float, a1 spread", &dp8, 777777, 2500, a1_spread);
}

/* On the device: the members never cross the bus. A float trapezoid with
 * its estimate (the companion, in double, draws for itself), in one chunk
 * and in chunks; lobatto in double with its estimate (the companion
 * starts from the solve's drawn inputs); dp8 in double with a parameter
 * spread over 2^21 + 4321 members (a solve in parts, the draws on stream 0
 * beside the kernels). */
Test(gpu, drawn_on_the_device_matches_the_host_draw, .timeout = 240)
{
	picard_options trapezoid = {.m = 8, .K = 4, .h = 0.05, .t1 = 10, .bound = 1e4,
				    .backend = PICARD_BACKEND_CUDA, .precision = PICARD_FLOAT,
				    .estimate_error = true, .error_scale = {1e-6, 1e-6}};
	const picard_options lobatto = {.scheme = PICARD_SCHEME_LOBATTO, .m = 6, .window = 0.5,
					.t1 = 10, .backend = PICARD_BACKEND_CUDA,
					.precision = PICARD_DOUBLE, .estimate_error = true,
					.error_scale = {1e-8, 1e-8}};
	const picard_options dp8 = {.scheme = PICARD_SCHEME_DP8, .K = 40, .t1 = 10,
				    .backend = PICARD_BACKEND_CUDA, .precision = PICARD_DOUBLE};

	require_gpu();
	cr_expect_eq(expect_drawn_matches("trapezoid float, estimate", &trapezoid, 4321, 5000,
					  a1_spread), 1);
	trapezoid.device_memory = 1300 * (2 * 2 + 6) * (size_t)8;
	cr_expect_gt(expect_drawn_matches("trapezoid float, estimate, in chunks", &trapezoid,
					  4321, 5000, a1_spread), 1);
	expect_drawn_matches("lobatto double, estimate", &lobatto, 0, 3000, NULL);
	expect_drawn_matches("dp8 double, a1 spread, in parts", &dp8, 99, (1L << 21) + 4321,
			     a1_spread);
}

/* A draw that could pass what the precision holds, or a spread that is
 * no number, is refused before any work. */
Test(draw, refused_where_a_member_could_pass_the_precision)
{
	const picard_model *lotka = test_model("lotka");
	const picard_options opt = {.backend = PICARD_BACKEND_CPU, .precision = PICARD_FLOAT,
				    .t1 = 1};
	struct drawn d;
	double x[2 * 4];
	picard_solver *s = NULL;

	make_draw(&d, lotka, 0, NULL, NULL);
	cr_assert_eq(picard_solver_create(&s, lotka, &opt, 4), 0, "%s", picard_error_detail());
	d.draw.start = (const double[]){3.2e38, 1};
	cr_expect_eq(picard_solve_drawn(s, 4, &d.draw, x, NULL, NULL, NULL, 0, NULL),
		     PICARD_EINVAL);
	cr_expect_not_null(strstr(picard_error_detail(), "x[0] = 3.2e+38"), "%s",
			   picard_error_detail());
	d.draw.start = d.start;
	d.draw.spread = NAN;
	cr_expect_eq(picard_solve_drawn(s, 4, &d.draw, x, NULL, NULL, NULL, 0, NULL),
		     PICARD_EINVAL);
	d.draw.spread = 0.1;
	cr_expect_eq(picard_solve_drawn(s, 4, &d.draw, x, NULL, NULL, NULL, 0, NULL), PICARD_OK,
		     "%s", picard_error_detail());
	picard_solver_free(s);
}

/* ---- picard-run ------------------------------------------------------------ */

static void make_draw_workdir(void)
{
	make_workdir("draw-cli", NULL);
}

TestSuite(draw_cli, .init = make_draw_workdir, .fini = remove_workdir, .timeout = 240);

/* The lines of stdout starting with one of prefixes, in order. */
static char *lines_starting(const char *text, const char *const *prefixes)
{
	char *kept = xcalloc(strlen(text) + 1, 1);

	for (const char *line = text; *line;) {
		const char *end = strchr(line, '\n');
		const size_t len = end ? (size_t)(end - line + 1) : strlen(line);

		for (const char *const *p = prefixes; *p; p++)
			if (strncmp(line, *p, strlen(*p)) == 0)
				strncat(kept, line, len);
		line += len;
	}
	return kept;
}

/* picard-run of args (lotka, a1 spread by 0.2, seed 5, traj members)
 * against the same members written to an --init file: the host of the
 * first reads only the rows it checks or solves again. The same .npy,
 * status file, check and tolerance lines. */
static void expect_run_matches_init(const char *backend, const char *args, long traj)
{
	const picard_model *lotka = test_model("lotka");
	const int n = lotka->dim, np = lotka->nparams;
	double spreads[8] = {0.2};
	struct drawn d;
	const struct path init = in_workdir("members.txt"), drawn_npy = in_workdir("drawn.npy"),
			  init_npy = in_workdir("init.npy");
	double *x0 = xcalloc(traj * n, sizeof(double)), *params = xcalloc(traj * np, sizeof(double));
	static const char *const judged[] = {"check ", "tolerance ", "promise ", "verify ",
					     "retry ", "failed ", NULL};
	char line[1024];
	FILE *f = fopen(init.s, "w");

	cr_assert_not_null(f);
	make_draw(&d, lotka, 0, NULL, spreads);
	d.draw.seed = 5;
	ensemble_rows(lotka, &d, traj, x0, params);
	for (long i = 0; i < traj; i++) {
		for (int k = 0; k < n; k++)
			fprintf(f, "%.17g ", x0[i * n + k]);
		for (int q = 0; q < np; q++)
			fprintf(f, "%.17g%c", params[i * np + q], q + 1 < np ? ' ' : '\n');
	}
	fclose(f);
	snprintf(line, sizeof(line), "lotka --backend %s --traj %ld --spread 0.1 --seed 5 "
		 "--spread-param a1=0.2 %s --out %s", backend, traj, args, drawn_npy.s);
	struct cli_run a = run_program_line("picard-run", line);

	snprintf(line, sizeof(line), "lotka --backend %s --init %s %s --out %s", backend, init.s,
		 args, init_npy.s);
	struct cli_run b = run_program_line("picard-run", line);

	cr_expect_eq(a.status, b.status, "'%s': exit %d drawn (%s), %d from --init (%s)", args,
		     a.status, a.err, b.status, b.err);
	char *la = lines_starting(a.out, judged), *lb = lines_starting(b.out, judged);

	cr_expect_str_eq(la, lb, "'%s': drawn\n%s\n--- from --init ---\n%s", args, a.out, b.out);
	cr_expect_neq(strlen(la), 0, "'%s': no check or tolerance line: %s", args, a.out);
	expect_same_file(drawn_npy.s, init_npy.s);
	expect_same_file(in_workdir("drawn.status.csv").s, in_workdir("init.status.csv").s);
	free(la), free(lb), free(x0), free(params);
	free_run(&a);
	free_run(&b);
}

/* --check on every 50th member, in batches: the checked rows drawn on
 * demand; --tol on a given grid (every member judged, those over it by
 * estimate alone checked), in batches after a first drawn whole. */
Test(draw_cli, rows_drawn_on_demand_match_the_init_files)
{
	expect_run_matches_init("cpu", "--check --check-traj 50 --batch 700", 2000);
	expect_run_matches_init("cpu", "--tol 1e-7 --m 6 --K 3 --h 0.1 --batch 700", 2000);
}

Test(gpu, rows_drawn_on_demand_match_the_init_files)
{
	require_gpu();
	make_draw_workdir();
	expect_run_matches_init("cuda", "--check --check-traj 50 --batch 700", 2000);
	expect_run_matches_init("cuda", "--tol 1e-7 --m 6 --K 3 --h 0.1 --batch 700", 2000);
	remove_workdir();
}
