/* bench_radau5.c - bin/bench-radau5: picard's own stiff per-thread
 * schemes (radau5, src/schemes/radau5/radau5_integrate.cuh, by default;
 * --scheme rodas5p, rodas4, ros23: src/schemes/rosenbrock/) through the
 * library's picard_solve, on the stiff baselines' ensembles, measured as
 * bin/bench-rodas and bin/bench-cvode measure (stiff_common.h): the same
 * ensemble, output times, msbdf reference and CSV row, so that they sit
 * side by side.
 *
 *   bench-radau5 MODEL [--scheme NAME] [--layout thread|warp] [--rtol R --atol A]
 *                [--backend cuda|host] [options]
 *
 * --scheme: any scheme of picard's list that solves stiff models one
 * thread per trajectory (its table's solves_stiff and tableau). --layout:
 * a thread (the default) or a warp per trajectory on the GPU. rtol and
 * atol are its iter_rtol and iter_atol (the local error's scale, as
 * Rodas5P's and CVODE's). Timed: picard_stats.solve_seconds, the kernel
 * alone on the GPU (CUDA events, as bench-rodas times its kernel), the
 * OpenMP loop on the host, after one warm-up solve. Its "steps" are the
 * scheme's sweeps (radau5: Newton iterations, 3 right-hand sides each; a
 * Rosenbrock scheme: step attempts), rhs_evals_mean the library's count;
 * rejected steps and Jacobians are not counted (-1).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "scheme.h"
#include "stiff_common.h"

static const char *program = "bench-radau5";

/* --scheme NAME and --layout L (or --scheme=NAME, --layout=L) taken out
 * of argv, which stiff_parse reads after: the scheme named, radau5
 * without one; *layout thread without one. Dies where NAME is no
 * per-thread scheme that solves stiff models, or L is neither layout. */
static const picard_scheme_type *take_scheme(int *argc, char **argv, picard_layout *layout)
{
	const char *name = "radau5", *lname = "thread";
	char names[256] = "";
	int kept = 1;

	for (int i = 1; i < *argc; i++) {
		if (!strcmp(argv[i], "--scheme") && i + 1 < *argc)
			name = argv[++i];
		else if (!strncmp(argv[i], "--scheme=", 9))
			name = argv[i] + 9;
		else if (!strcmp(argv[i], "--layout") && i + 1 < *argc)
			lname = argv[++i];
		else if (!strncmp(argv[i], "--layout=", 9))
			lname = argv[i] + 9;
		else
			argv[kept++] = argv[i];
	}
	if (!strcmp(lname, "thread"))
		*layout = PICARD_LAYOUT_THREAD;
	else if (!strcmp(lname, "warp"))
		*layout = PICARD_LAYOUT_WARP;
	else
		bench_die_usage(program, "--layout %s: thread or warp", lname);
	argv[kept] = NULL;
	*argc = kept;
	const picard_scheme_type *type = picard_scheme_named(name);

	if (type && type->solves_stiff && type->tableau)
		return type;
	for (int i = 0; picard_scheme_list[i]; i++)
		if (picard_scheme_list[i]->solves_stiff && picard_scheme_list[i]->tableau)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 names[0] ? ", " : "", picard_scheme_list[i]->name);
	bench_die_usage(program, "--scheme %s: a per-thread scheme that solves stiff models (%s)",
			name, names);
	return NULL;
}

int main(int argc, char **argv)
{
	char **command = malloc((argc + 1) * sizeof(char *));
	char config[64], method[64];
	stiff_opts o;
	stiff_problem pb;
	stiff_sample sample;
	picard_solver *solver = NULL;
	picard_stats stats;
	bool new_file;

	if (!command)
		bench_die(program, "out of memory");
	/* stiff_parse permutes argv: keep the command as typed for the CSV. */
	for (int i = 0; i <= argc; i++)
		command[i] = argv[i];
	const int typed = argc;
	picard_layout layout = PICARD_LAYOUT_THREAD;
	const picard_scheme_type *scheme = take_scheme(&argc, argv, &layout);

	stiff_parse(argc, argv, program, true, &o);
	stiff_problem_make(&o, program, &pb);
	stiff_sample_make(&o, &pb, &sample);

	const long N = pb.ntraj;
	const int n = pb.dim, no = pb.nout;
	const picard_options opt = {
		.scheme = scheme->id, .precision = PICARD_DOUBLE, .layout = layout,
		.iter_rtol = o.rtol, .iter_atol = o.atol, .K_max = (int)o.max_steps,
		.t0 = pb.t0, .t1 = pb.tout[no - 1],
		.backend = o.host ? PICARD_BACKEND_CPU : PICARD_BACKEND_CUDA,
	};
	double *rows = malloc((size_t)no * N * n * sizeof(double));
	double *xout = malloc((size_t)N * no * n * sizeof(double));
	double *times_us = malloc(o.repeats * sizeof(double));
	picard_traj_status *status = malloc(N * sizeof(picard_traj_status));
	int *failed = malloc(N * sizeof(int));
	picard_record rec = {.traj_stride = 1, .times = pb.tout, .ntimes = no, .states = rows};
	int err;

	if (!rows || !xout || !times_us || !status || !failed)
		bench_die(program, "out of memory");
	err = picard_solver_create(&solver, o.model, &opt, N);
	if (err)
		bench_die(program, "solver: %s (%s)", picard_strerror(err), picard_error_detail());
	for (int rep = -1; rep < o.repeats; rep++) { /* -1: the warm-up */
		err = picard_solve(solver, pb.x0, pb.params, NULL, status, NULL, &rec, 1, &stats);
		if (err && err != PICARD_EFAILED)
			bench_die(program, "solve: %s (%s)", picard_strerror(err),
				  picard_error_detail());
		if (rep >= 0)
			times_us[rep] = stats.solve_seconds * 1e6;
	}
	/* [time][trajectory][k] to stiff_errors_of's [trajectory][time][k] */
	for (long i = 0; i < N; i++) {
		failed[i] = status[i] != PICARD_TRAJ_OK;
		for (int r = 0; r < no; r++)
			memcpy(xout + (i * no + r) * n, rows + ((size_t)r * N + i) * n,
			       n * sizeof(double));
	}

	stiff_counts c = {
		.steps_mean = stats.sweeps_mean, .steps_max = stats.sweeps_max,
		.rejected_mean = -1, .evals_mean = stats.rhs_evals / N, .jacs_mean = -1,
		.failed = stats.failed,
	};
	stiff_errors e = stiff_errors_of(&o, &pb, &sample, xout, failed);
	FILE *out = bench_csv_open(program, o.csv, &new_file);

	snprintf(config, sizeof(config), "%s", o.host ? "host" : picard_layout_name(layout));
	snprintf(method, sizeof(method), "picard-%s", scheme->name);
	stiff_csv_header(out, typed, command, program, stats.device, &o, &pb, &sample, new_file);
	fprintf(out, "# %s: picard's %s; steps = %s\n", scheme->name, scheme->summary,
		scheme->id == PICARD_SCHEME_RADAU5 ? "Newton iterations" : "step attempts");
	if (c.failed)
		fprintf(out, "# failed trajectories: %ld\n", c.failed);
	stiff_csv_row(out, stats.device, "-", &o, &pb, method, config, times_us, o.repeats, &c, &e,
		      sample.n);
	if (out != stdout) {
		fclose(out);
		stiff_csv_row(stdout, stats.device, "-", &o, &pb, method, config, times_us, o.repeats,
			      &c, &e, sample.n);
	}
	picard_solver_free(solver);
	free(failed);
	free(status);
	free(times_us);
	free(xout);
	free(rows);
	free(command);
	stiff_sample_free(&sample);
	stiff_problem_free(&pb);
	return c.failed ? 1 : 0;
}
