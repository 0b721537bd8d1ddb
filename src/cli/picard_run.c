/* picard_run.c - picard-run MODEL [options]: integrate an ensemble of one
 * model's initial-value problems by parallel-in-time Picard iteration
 * (Korobitsyn & Frolova 2011), print a short summary, optionally write the
 * states (--out) and compare them with GSL's rk8pd (--check). With --tol E,
 * m, K and h not given come from the tuning cache (picard-tune) or a quick
 * search (tuning.h).
 *
 * Exit status (diag.h): 0 all well; 1 a library error, failed trajectories
 * (non-finite or diverged), a check over --tol, no configuration meeting
 * --tol, or output not written;
 * 2 bad command line or --init file, nothing solved.
 *
 * Under mpirun each rank solves a contiguous range of the trajectories
 * (shard.h); rank 0 prints the job's summary and every rank writes its
 * rows into the one --out file.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clear_cache.h"
#include "diag.h"
#include "event_out.h"
#include "ensemble_range.h"
#include "jit.h"
#include "members.h"
#include "linsolve/implicit.h"
#include "init_file.h"
#include "options.h"
#include "options/defaults.h"
#include "output.h"
#include "parse.h"
#include "progress.h"
#include "promise.h"
#include "scheme.h"
#include "run.h"
#include "tolerance.h"
#include "shard.h"
#include "solver.h"
#include "tuning.h"



/* dst[i] = src[i], i < count, by the OpenMP threads (first touch of
 * dst's pages too). */
static void copy_doubles(double *dst, const double *src, long count)
{
#pragma omp parallel for
	for (long i = 0; i < count; i++)
		dst[i] = src[i];
}

/* A status that says how a finished member was judged, not that it
 * failed. */
static bool judged_only(picard_traj_status status)
{
	return status == PICARD_TRAJ_OK || status == PICARD_TRAJ_TOL_EXCEEDED ||
	       status == PICARD_TRAJ_CHECK_FAILED || status == PICARD_TRAJ_EVENT;
}

/* Seconds since the start of main. */
static double elapsed(const struct run *run)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - run->start.tv_sec) +
	       1e-9 * (double)(now.tv_nsec - run->start.tv_nsec);
}

/* "12.3 ms" or "4.56 s" into buf. */
static const char *format_seconds(char *buf, size_t len, double seconds)
{
	if (seconds < 1)
		snprintf(buf, len, "%.3g ms", seconds * 1e3);
	else
		snprintf(buf, len, "%.3g s", seconds);
	return buf;
}

/* ---- --list ----------------------------------------------------------------- */

static void print_values(const double *values, int count)
{
	for (int i = 0; i < count; i++)
		printf("%s%g", i ? " " : "", values[i]);
}

/* One model: name, dimension, equations, defaults, time span, source. */
static void list_model(const picard_model *model)
{
	printf("%s (n=%d): %s\n", model->name, model->dim, model->summary);
	printf("    parameters  ");
	for (int q = 0; q < model->nparams; q++)
		printf("%s%s=%g", q ? " " : "", model->param_names[q], model->param_defaults[q]);
	printf("%s\n    x0          ", model->nparams ? "" : "(none)");
	print_values(model->x0, model->dim);
	if (model->initial)
		printf(" (at the defaults: the start depends on the parameters)");
	printf("\n    time span   [%g, %g]\n", model->t0, model->t1);
	if (model->default_h > 0)
		printf("    default h   %g\n", model->default_h);
	if (model->default_atol > 0)
		printf("    default atol %g (--iter-atol)\n", model->default_atol);
	if (model->ninvariants) {
		printf("    invariants  ");
		for (int i = 0; i < model->ninvariants; i++)
			printf("%s%s", i ? ", " : "", model->invariant_names[i]);
		putchar('\n');
	}
	printf("    reference   %s\n", model->reference);
}

/* --describe: the model file's header comment, then the list entry. */
static int describe_model(const picard_model *model)
{
	fputs(picard_model_description(model), stdout);
	putchar('\n');
	list_model(model);
	return CLI_EXIT_OK;
}

/* --list: every registered model, or just MODEL when one was given. */
static int list_models(const struct run_options *opts)
{
	if (opts->model) {
		list_model(opts->model);
		return CLI_EXIT_OK;
	}
	for (int i = 0; i < picard_model_count(); i++) {
		if (i)
			putchar('\n');
		list_model(picard_model_at(i));
	}
	return CLI_EXIT_OK;
}

/* ---- setting up --------------------------------------------------------------- */

/* Zero bytes at p, a page per iteration, by the OpenMP threads: the
 * kernel's first-touch faults of a large array spread over the cores
 * (a copy from the device into fresh pages takes them one at a time). */
static void touch_pages(void *p, size_t bytes)
{
	const long page = 4096, pages = (long)((bytes + page - 1) / page);

#pragma omp parallel for schedule(static) if (pages > 256)
	for (long i = 0; i < pages; i++) {
		const size_t at = (size_t)i * page;

		memset((char *)p + at, 0, bytes - at < (size_t)page ? bytes - at : (size_t)page);
	}
}

/* count*size bytes for what, untouched, or NULL after a message: sizes
 * that overflow or exceed half the machine's memory are refused (rather
 * than the process being killed when it touches them). */
static void *reserve_array(size_t count, size_t size, const char *what)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	double bytes = (double)count * (double)size;
	double limit = pages > 0 && page > 0 ? 0.5 * (double)pages * (double)page : 1e300;
	void *ptr;

	if (bytes > limit || bytes > (double)SIZE_MAX) {
		cli_error(PICARD_ENOMEM, "%s: %.3g GB exceed half the memory (%.3g GB)",
			  what, bytes / 1e9, limit / 1e9);
		return NULL;
	}
	ptr = malloc(count * size > 0 ? count * size : 1);
	if (!ptr)
		cli_error(PICARD_ENOMEM, "%s: cannot allocate %.3g GB", what, bytes / 1e9);
	return ptr;
}

/* The same, its pages touched (touch_pages). */
static void *alloc_array(size_t count, size_t size, const char *what)
{
	void *ptr = reserve_array(count, size, what);

	if (ptr)
		touch_pages(ptr, count * size);
	return ptr;
}

/* --init's t0 and t1 columns: each row's span after t0, and a scheme
 * named that takes spans (before any search for its grid); sets
 * opts.spans. */
static int check_init_spans(struct run *run)
{
	struct run_options *opts = &run->opts;
	const picard_scheme_type *type = picard_scheme_of(opts->scheme);

	opts->spans = run->init.t0 || run->init.t1;
	if (!opts->spans)
		return 0;
	if (opts->scheme_given && !type->per_member_spans) {
		char names[256];

		return cli_error(CLI_EUSAGE, "--scheme %s: --init %s's t0 and t1 columns need a "
				 "scheme that integrates each member on its own span (%s)",
				 type->name, opts->init_path,
				 picard_scheme_names_if(names, sizeof(names), picard_scheme_takes_spans));
	}
	return init_data_check_spans(opts->init_path, &run->init, opts->t0, opts->t1);
}

/* The ensemble size: the --init file's rows, else --traj. Under mpirun a
 * binary file is only measured here (each rank reads its own rows in
 * take_share) and a text file is read whole by every rank; rank 0 reports
 * what is wrong with it. */
static int read_init(struct run *run)
{
	const struct run_options *opts = &run->opts;
	long rows = -1;
	int err = 0, quiet;

	run->ntraj = opts->traj;
	if (!opts->init_path)
		return 0;
	quiet = shard_quiet_begin(&run->shard);
	if (run->shard.size > 1)
		err = init_file_binary_count(opts->init_path, run->model, &rows);
	if (!err && rows < 0) {
		err = init_file_read(opts->init_path, run->model, &run->init);
		rows = run->init.ntraj;
	}
	if (!err && opts->traj_given && opts->traj != rows)
		err = cli_error(CLI_EUSAGE, "--traj %ld: but --init %s holds %ld trajectories",
				opts->traj, opts->init_path, rows);
	if (!err)
		err = check_init_spans(run);
	shard_quiet_end(&run->shard, quiet, err);
	if (!err)
		run->ntraj = rows;
	return err;
}

/* This process's share of the ensemble (all of it alone): a contiguous
 * range of ranks' trajectories, each starting at a multiple of the --check
 * stride so that the members checked are those one process checks; the
 * --init rows of the range read (a binary file under mpirun) or moved to
 * the front. */
static int take_share(struct run *run)
{
	const long total = run->ntraj, n = run->model->dim, np = run->model->nparams;
	const long align = run->opts.check ? options_check_stride(&run->opts, total) : 1;
	long first;
	int err;

	err = shard_split(&run->shard, total, align, &run->ntraj);
	run->share = run->ntraj;
	first = run->shard.first;
	if (!err && run->opts.init_path && !run->init.x0)
		return init_file_read_range(run->opts.init_path, run->model, first, run->ntraj,
					    &run->init);
	if (err || !run->init.x0 || first == 0)
		return err;
	memmove(run->init.x0, run->init.x0 + first * n, (size_t)(run->ntraj * n) * sizeof(double));
	if (run->init.params)
		memmove(run->init.params, run->init.params + first * np,
			(size_t)(run->ntraj * np) * sizeof(double));
	/* the spans follow their rows */
	if (run->init.t0)
		memmove(run->init.t0, run->init.t0 + first, (size_t)run->ntraj * sizeof(double));
	if (run->init.t1)
		memmove(run->init.t1, run->init.t1 + first, (size_t)run->ntraj * sizeof(double));
	if (run->init.lines)
		memmove(run->init.lines, run->init.lines + first, (size_t)run->ntraj * sizeof(long));
	return 0;
}

/* Host bytes one member of a batch takes: its states, parameters (where
 * they are its own), outcomes and errors here, the solver's outcomes, its
 * estimate's companion (--tol, --check), the saved states. */
static double member_bytes(const struct run *run)
{
	const struct run_options *opts = &run->opts;
	const double n = run->model->dim, np = run->model->nparams;
	const bool own_params = opts->nspread_params || opts->nset_params;
	/* the inputs twice: the next batch is drawn while one is solved */
	double bytes = 24 * n + (own_params ? 16 * np : 0) + 8 * n * (double)opts->nsave;

	bytes += 28 + 17 + 28; /* outcomes, errors; the solver's outcomes */
	if (opts->check || opts->tol_given)
		bytes += 16 * n + 40; /* the companion's states and outcomes */
	if (opts->out_path) /* the results again: one batch written, one solved */
		bytes += 8 * n * (1 + (double)opts->nsave) + 44;
	return bytes;
}

/* Whether the run can go in batches: one solve timed, and no CSV written
 * time by time (choose_batch says why not). */
static bool batches_allowed(const struct run *run)
{
	const struct run_options *opts = &run->opts;

	return opts->repeat == 1 && !(opts->out_path && opts->nsave && run->out.format == OUTPUT_CSV);
}

/* Under mpirun, where any rank batches: every rank takes the smallest
 * rank's batch, and runs as many batches as the largest share needs, so
 * that the collective calls of each batch pair up (a smaller share's last
 * batch may be empty). Sets run->batches. Collective. */
static void agree_batches(struct run *run)
{
	double v[2] = {run->batch < run->share, -(double)run->batch}, count;

	shard_max(&run->shard, v, 2);
	if (v[0] > 0 && -v[1] < run->share)
		run->batch = (long)-v[1];
	run->ntraj = run->batch;
	count = (double)((run->share + run->batch - 1) / run->batch);
	shard_max(&run->shard, &count, 1);
	run->batches = (long)count;
}

/* Trajectories solved, checked and written at once: --batch's, else the
 * whole share where its arrays fit RUN_BATCH_BYTES (and always where
 * batches are not allowed, or from --init, which is read whole), else as
 * many as do; a multiple of the --check stride, so that the members
 * checked are those one solve checks. Sets run->batch, and run->ntraj to
 * the first batch's count. Returns 0 or CLI_EUSAGE after a message. */
static int choose_batch(struct run *run)
{
	const struct run_options *opts = &run->opts;
	const long align = opts->check ? options_check_stride(opts, run->shard.total) : 1;
	long batch = opts->batch;

	if (!batch) {
		const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
		const double memory = pages > 0 && page > 0 ? (double)pages * page : 1e300;
		const double fit = fmin((double)RUN_BATCH_BYTES, memory / 8) / member_bytes(run);

		batch = run->share;
		if (!opts->init_path && batches_allowed(run) && (double)run->share > fit)
			batch = (long)fit;
	}
	if (batch < run->share)
		batch = batch < align ? align : batch / align * align;
	run->batch = batch < run->share ? batch : run->share;
	run->ntraj = run->batch;
	if (run->batch == run->share || batches_allowed(run))
		return 0;
	/* --batch asked for what cannot be */
	if (opts->repeat > 1)
		return cli_error(CLI_EUSAGE, "--repeat %d: it times one solve of the whole "
				 "ensemble, which is solved in batches of %ld here (--batch, or "
				 "host memory); drop one of them", opts->repeat, run->batch);
	if (opts->out_path && opts->nsave && run->out.format == OUTPUT_CSV)
		return cli_error(CLI_EUSAGE, "--out %s with saved times, in batches of %ld "
				 "trajectories: a CSV holds all trajectories at one time before the "
				 "next time, which batches cannot write in turn; write a .npy (each "
				 "batch's rows at their place)%s", opts->out_path, run->batch,
				 opts->batch ? ", or drop --batch" : "");
	return 0;
}

/* A hint after the library errors a flag can fix. */
static void hint_library_error(int err)
{
	if (err == PICARD_ENODEV)
		cli_hint("--backend cpu runs on the host");
	else if (err == PICARD_EBLOCK || err == PICARD_ESHMEM)
		cli_hint("a smaller --m (paper layout: m*n threads and 2*m*n reals per block), or a smaller --traj-per-block");
	else if (err == PICARD_ENOMEM)
		cli_hint("fewer trajectories (--traj)");
}

/* The solver; a grid over the work limit or a tolerance below the
 * precision's floor is a usage error (exit 2), naming the flags. */
static int create_solver(struct run *run)
{
	picard_options solver_opts = options_solver(&run->opts);
	int err;

	solver_opts.batch = run->batch < run->share ? run->batch : 0;
	err = picard_solver_create(&run->solver, run->model, &solver_opts, run->share);
	if (err == PICARD_EWORK) {
		cli_error(CLI_EUSAGE, "too much work (--max-work %g): %s", solver_opts.max_work ?
			  solver_opts.max_work : PICARD_MAX_WORK_DEFAULT, picard_error_detail());
		cli_hint("a larger --%s, fewer sweeps (--K, --K-max, --steps), or a larger --max-work",
			 picard_scheme_of(run->opts.scheme)->length_name);
		return CLI_EUSAGE;
	}
	/* --check without --tol judges each checked member against its error
	 * estimate in units of the iteration tolerance (promise.h), which only
	 * the settled grid knows: the solver again, with the estimate */
	if (!err && run->opts.check && !run->opts.tol_given && !run->model->events &&
	    !run->opts.spans) {
		const picard_grid *g = picard_solver_grid(run->solver);

		solver_opts.estimate_error = true;
		solver_opts.error_scale = (picard_tolerance){g->iter_atol, g->iter_rtol};
		picard_solver_free(run->solver);
		run->solver = NULL;
		err = picard_solver_create(&run->solver, run->model, &solver_opts, run->share);
		if (err) { /* ENOMEM included: the companion doubles the memory */
			cli_warning("--check: no error estimate (%s): each member is judged by its "
				    "size alone", picard_error_detail());
			solver_opts.estimate_error = false;
			err = picard_solver_create(&run->solver, run->model, &solver_opts,
						   run->share);
		}
	}
	if (err) {
		cli_library_error(err);
		hint_library_error(err);
		/* the options it refused are the command line's: a usage error
		 * (exit 2, as the README says), nothing solved */
		return err == PICARD_EINVAL || err == PICARD_EACCURACY ? CLI_EUSAGE : err;
	}
	run->grid = picard_solver_grid(run->solver);
	return 0;
}

/* The buffer of rec (its rows and trajectories set), allocated. */
static int make_record(struct run *run, picard_record *rec, const char *what)
{
	rec->states = alloc_array(picard_record_size(run->solver, rec), sizeof(double), what);
	return rec->states ? 0 : PICARD_ENOMEM;
}

/* --save-every/--save-at: a record of their times, every trajectory. */
static int make_save_record(struct run *run)
{
	const long ntimes = run->opts.nsave;

	run->save_times = alloc_array(ntimes, sizeof(double), "--save-every/--save-at times");
	if (!run->save_times)
		return PICARD_ENOMEM;
	options_save_times(&run->opts, run->save_times);
	run->save = (picard_record){
		.traj_stride = 1, .times = run->save_times, .ntimes = ntimes,
	};
	return make_record(run, &run->save, "--save-every/--save-at states");
}

/* Whether the host reads the members' final states: --out's rows, and
 * --tol's judge (a member checked at t1 alone, those solved again). Else
 * they stay on the device, and a run without --out reads only its
 * checked members' (the check record). */
static bool final_states_read(const struct run *run)
{
	return run->opts.out_path || run->opts.tol_given;
}

/* Buffers of the solve: outcomes and the records asked for. The failing
 * times are touched only where read: --out's, or a failed member's. */
static int allocate(struct run *run)
{
	const size_t states = (size_t)run->ntraj * run->model->dim;
	int err = 0;

	if (final_states_read(run) &&
	    !(run->x_final = alloc_array(states, sizeof(double), "final states")))
		return PICARD_ENOMEM;
	run->status = alloc_array(run->ntraj, sizeof(*run->status), "trajectory status");
	if (run->status)
		run->fail_window = alloc_array(run->ntraj, sizeof(*run->fail_window),
					       "trajectory status");
	if (run->fail_window)
		run->fail_time = (run->opts.out_path ? alloc_array : reserve_array)(
			2 * run->ntraj, sizeof(*run->fail_time), "trajectory status");
	if (!run->fail_time)
		return PICARD_ENOMEM;
	if (run->opts.nsave)
		err = make_save_record(run);
	if (!err && run->opts.check) {
		run->check = (picard_record){
			.every = 1, .traj_stride = options_check_stride(&run->opts, run->shard.total),
		};
		err = make_record(run, &run->check, "--check states (lower --check-traj)");
	}
	return err;
}

/* Whether --param set parameter q. */
static bool param_set(const struct run_options *opts, int q)
{
	for (int i = 0; i < opts->nset_params; i++)
		if (opts->set_params[i].index == q)
			return true;
	return false;
}

/* A float run rounds its states and parameters to binary32: a value past
 * its range is refused before any work, naming where it came from. */
static int check_ensemble_fits(const struct run *run)
{
	const struct run_options *opts = &run->opts;
	const picard_model *model = run->model;
	const long n = model->dim, np = model->nparams;
	const long first = run->shard.first + run->batch_first; /* the batch's */

	if (opts->precision != PICARD_FLOAT || run->rows_on_demand) /* a draw that fits */
		return 0;
	for (long i = 0; i < run->ntraj * n; i++)
		if (fabs(run->x0[i]) > FLT_MAX) {
			if (opts->init_path)
				return cli_error(CLI_EUSAGE, "--init %s: trajectory %ld (data row %ld), column %ld (%s%ld): %g does not fit --precision float (|x| <= 3.4e38); use --precision double",
						 opts->init_path, first + i / n,
						 first + i / n + 1, i % n + 1, "x", i % n, run->x0[i]);
			return cli_error(CLI_EUSAGE, "the start of trajectory %ld, x[%ld] = %g, does not fit --precision float (|x| <= 3.4e38); use --precision double",
					 first + i / n, i % n, run->x0[i]);
		}
	for (long i = 0; run->params && i < run->ntraj * np; i++)
		if (fabs(run->params[i]) > FLT_MAX) {
			const char *name = model->param_names[i % np];

			if (opts->init_path)
				return cli_error(CLI_EUSAGE, "--init %s: trajectory %ld (data row %ld), column %ld (%s): %g does not fit --precision float (|p| <= 3.4e38); use --precision double",
						 opts->init_path, first + i / np,
						 first + i / np + 1, n + i % np + 1, name, run->params[i]);
			return cli_error(CLI_EUSAGE, "%s %s: %s = %g in trajectory %ld does not fit --precision float (|p| <= 3.4e38); use --precision double",
					 param_set(opts, (int)(i % np)) ? "--param" : "--spread-param", name,
					 name, run->params[i], first + i / np);
		}
	return 0;
}

/* Trajectories first .. first+count-1 of the share into x0 and params
 * (NULL where no member has its own): the --init file's rows, or spread
 * around the model's start (from each trajectory's parameters where
 * --spread-param spreads them and the model's start depends on them), the
 * parameters around the model's defaults or --param's values. Reads only
 * what stays put while batches are solved: safe beside the solve. */
static int draw_batch(const struct run *run, long first, long count, double *x0, double *params)
{
	const struct run_options *opts = &run->opts;
	picard_model model_at = *run->model; /* its defaults as --param sets them */
	const picard_model *model = &model_at;
	const long n = model->dim, np = model->nparams;
	double *spreads = NULL, *defaults = NULL;
	int err;

	if (opts->init_path) {
		copy_doubles(x0, run->init.x0 + first * n, count * n);
		if (run->init.params)
			copy_doubles(params, run->init.params + first * np, count * np);
		return 0;
	}
	if (opts->nset_params) {
		defaults = malloc((size_t)np * sizeof(double));
		if (!defaults)
			return cli_error(PICARD_ENOMEM, "--param: out of memory");
		for (int q = 0; q < np; q++)
			defaults[q] = model->param_defaults[q];
		for (int i = 0; i < opts->nset_params; i++)
			defaults[opts->set_params[i].index] = opts->set_params[i].value;
		model_at.param_defaults = defaults;
	}
	if (params) {
		spreads = calloc(np, sizeof(double));
		if (!spreads) {
			free(defaults);
			return cli_error(PICARD_ENOMEM, "--spread-param: out of memory");
		}
		for (int i = 0; i < opts->nspread_params; i++)
			spreads[opts->spread_params[i].index] = opts->spread_params[i].value;
	}
	err = picard_ensemble_model_range(model, run->shard.first + first, count, opts->spread,
					  spreads, opts->seed, opts->backend, x0, params);
	free(spreads);
	free(defaults);
	if (err) {
		cli_library_error(err);
		hint_library_error(err);
	}
	return err;
}

/* Whether the members have parameters of their own. */
static bool own_params(const struct run *run)
{
	return run->opts.init_path ? run->init.params != NULL :
	       run->opts.nspread_params || run->opts.nset_params;
}

/* Arrays for a batch's inputs (x0 and, where the members have their own,
 * params): 0, or PICARD_ENOMEM after a message. Rows drawn on demand
 * (members.h) touch only their own pages. */
static int alloc_inputs(const struct run *run, double **x0, double **params)
{
	void *(*make)(size_t, size_t, const char *) = run->draw.start ? reserve_array :
							alloc_array;

	*x0 = make((size_t)run->batch * run->model->dim, sizeof(double), "initial states");
	if (own_params(run))
		*params = make((size_t)run->batch * run->model->nparams, sizeof(double),
			       "parameters");
	return !*x0 || (own_params(run) && !*params) ? PICARD_ENOMEM : 0;
}

/* The first batch's inputs: the --init file's own arrays when one batch
 * holds them all, else drawn (or copied) into arrays made for a batch;
 * where the members are drawn where they are solved, rows drawn on demand
 * (members.h), unless --tol weighs and tunes on the batch. */
static int make_ensemble(struct run *run)
{
	int err = members_plan(run);

	if (err)
		return err;
	if (run->opts.init_path && run->batch >= run->share) {
		run->x0 = run->init.x0;
		run->params = run->init.params;
		run->init.x0 = run->init.params = NULL;
		return 0;
	}
	if (alloc_inputs(run, &run->x0, &run->params))
		return PICARD_ENOMEM;
	run->rows_on_demand = run->draw.start && !run->opts.tol_given;
	if (run->rows_on_demand)
		return 0;
	return draw_batch(run, run->batch_first, run->ntraj, run->x0, run->params);
}

/* The ensemble's identity for the tuning cache (tuning_ensemble_id): a
 * plain draw unless --init, --spread-param or --param made it. */
static void ensemble_identity(const struct run *run, char *id, size_t len)
{
	const struct run_options *opts = &run->opts;

	tuning_ensemble_id(run->model, !opts->init_path && !opts->nspread_params &&
			   !opts->nset_params, opts->spread, opts->seed, run->x0, run->params,
			   run->ntraj, id, len);
}

/* --tol without --precision: double where the tolerance asks for more than
 * float reaches on this ensemble (cli_tolerance_wants_double), rather than
 * a search that ends in failure. A model or scheme that already defaults
 * to double, and a given --precision, stay as they are. */
/* The start states the tolerance is weighed against: the share's where
 * they are all at hand (--init's rows, held whole in batches), else the
 * first batch's (the draw's largest start barely varies between batches
 * of millions). Their count into *count. */
static const double *tolerance_states(const struct run *run, long *count)
{
	if (run->init.x0) {
		*count = run->share;
		return run->init.x0;
	}
	*count = run->ntraj;
	return run->x0;
}

static void precision_for_tolerance(struct run *run)
{
	struct run_options *opts = &run->opts;
	long count;
	const double *x0 = tolerance_states(run, &count);
	double scale = 0;

	if (!opts->tol_given || opts->precision_given || opts->precision != PICARD_FLOAT)
		return;
	scale = cli_largest_abs(x0, count * run->model->dim);
	shard_max(&run->shard, &scale, 1); /* every rank's share: one choice */
	if (!cli_tolerance_wants_double(opts->tol, opts->rtol, scale))
		return;
	opts->precision = PICARD_DOUBLE;
	opts->precision_for_tol = true;
}

/* --tol, --atol, --rtol: within what the precision reaches on some
 * member of this ensemble (picard_tolerance_check), before any work. */
static int check_tolerance(const struct run *run)
{
	const struct run_options *opts = &run->opts;
	const picard_tolerance tol = {.atol = opts->tol, .rtol = opts->rtol};
	long count;
	const double *x0 = tolerance_states(run, &count);
	char flags[64];

	if (!opts->tol_given || !picard_tolerance_check_ensemble(&tol, opts->precision, x0, count,
								 run->model->dim))
		return 0;
	if (opts->rtol > 0 && opts->tol > 0)
		snprintf(flags, sizeof(flags), "--atol %g --rtol %g", opts->tol, opts->rtol);
	else if (opts->rtol > 0)
		snprintf(flags, sizeof(flags), "--rtol %g", opts->rtol);
	else
		snprintf(flags, sizeof(flags), "--tol %g", opts->tol);
	return cli_error(CLI_EUSAGE, "%s: %s", flags, picard_error_detail());
}

/* ---- solving and reporting -------------------------------------------- */

static int compare_seconds(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Integrate, --repeat times over the same inputs (the same results each
 * time): the first's stats, and the median and min of all. Failed
 * trajectories (PICARD_EFAILED) are reported, not fatal here: their
 * results are still written. */
/* A batch's statistics into the run's (total), before trajectories
 * before it: times, counts and evaluations add up, the mean sweeps are
 * weighed by the trajectories. */
static void add_stats(picard_stats *total, const picard_stats *b, long before, long count)
{
	if (!before) {
		*total = *b;
		return;
	}
	total->solve_seconds += b->solve_seconds;
	total->estimate_seconds += b->estimate_seconds;
	total->failed += b->failed;
	total->sweeps_mean = (total->sweeps_mean * (double)before + b->sweeps_mean * (double)count) /
			     (double)(before + count);
	if (b->sweeps_max > total->sweeps_max)
		total->sweeps_max = b->sweeps_max;
	total->rhs_evals += b->rhs_evals;
	total->chunks += b->chunks;
	total->launches += b->launches;
	total->host_waits += b->host_waits;
}

/* The batch's members' own spans (--init's t0 and t1 columns), or none:
 * 0, or CLI_EUSAGE after the library's words (a scheme on one span). */
static int set_batch_spans(const struct run *run)
{
	const struct init_data *init = &run->init;
	int err = picard_solver_set_spans(run->solver, run->ntraj, run_batch_span(run, init->t0),
					  run_batch_span(run, init->t1));

	if (!err)
		return 0;
	cli_library_error(err);
	cli_hint("a per-thread scheme (--scheme) for --init's t0 and t1 columns");
	return CLI_EUSAGE;
}

static int solve(struct run *run)
{
	const int repeat = run->opts.repeat;
	picard_record records[2];
	picard_stats stats, batch_stats;
	double *seconds = alloc_array(repeat, sizeof(double), "--repeat's solve times");
	int nrecords = 0, err = 0;

	if (!seconds)
		return PICARD_ENOMEM;
	err = set_batch_spans(run);
	if (err) {
		free(seconds);
		return err;
	}
	if (run->save.states)
		records[nrecords++] = run->save;
	if (run->check.states)
		records[nrecords++] = run->check;
	char which[64] = "";

	if (run->batch < run->share)
		snprintf(which, sizeof(which), " (batch %ld of %ld)", run->batch_first / run->batch + 1,
			 run->batches);
	const int phase = picard_progress_begin("solving %ld trajector%s%s%s", run->ntraj,
						run->ntraj == 1 ? "y" : "ies", run->opts.tol_given ?
						" with their error estimates" : "", which);
	for (int r = 0; r < repeat && !err; r++) {
		if (run->draw.start) {
			const struct picard_draw draw = members_of_batch(run);

			err = picard_solve_drawn(run->solver, run->ntraj, &draw, run->x_final,
						 run->status, run->fail_window, records, nrecords,
						 r ? &stats : &batch_stats);
		} else {
			err = picard_solve_batch(run->solver, run->ntraj, run->x0, run->params,
						 run->x_final, run->status, run->fail_window,
						 records, nrecords, r ? &stats : &batch_stats);
		}
		if ((r ? stats : batch_stats).failed || run->opts.out_path)
			copy_doubles(run->fail_time, picard_solver_fail_times(run->solver),
				     2 * run->ntraj);
		seconds[r] = r ? stats.solve_seconds : batch_stats.solve_seconds;
		if (err == PICARD_EFAILED) {
			snprintf(run->solve_detail, sizeof(run->solve_detail), "%s",
				 picard_error_detail());
			err = 0;
		}
	}
	picard_progress_end(phase);
	if (!err)
		events_out_take(run);
	if (!err) {
		qsort(seconds, repeat, sizeof(double), compare_seconds);
		/* --repeat runs with one batch alone: the batches' times add up */
		run->solve_median = run->batch_first ? run->solve_median + seconds[0] :
				    seconds[repeat / 2];
		run->solve_min = run->batch_first ? run->solve_min + seconds[0] : seconds[0];
		add_stats(&run->stats, &batch_stats, run->batch_first, run->ntraj);
	}
	free(seconds);
	return err ? cli_library_error(err) : 0;
}

/* Under mpirun: the job's statistics from every rank's, the slowest rank's
 * times. */
static void reduce_stats(struct run *run)
{
	double times[2] = {run->solve_median, run->solve_min};

	shard_reduce_stats(&run->shard, run->share, &run->stats, &run->job);
	shard_max(&run->shard, times, 2);
	run->solve_median = times[0];
	run->solve_min = times[1];
}

static const char *backend_name(picard_backend backend)
{
	return backend == PICARD_BACKEND_CUDA ? "cuda" : "cpu";
}

/* The imex schemes' linear solver, settled: which, and how an iterative
 * one stops. */
static void print_linsolve(const struct run *run)
{
	const picard_grid *grid = run->grid;
	const picard_implicit_type *type = picard_implicit_of(grid->linsolve);
	const picard_operator *op = run->model->op;

	printf("%-12s %s", "linsolve", picard_linsolver_name(grid->linsolve));
	if (type && type->krylov)
		printf(", precond %s, rtol %.3g, at most %d iterations",
		       picard_preconditioner_name(grid->precond), grid->linsolve_rtol,
		       grid->linsolve_maxit);
	else if (op && op->kind == PICARD_OP_STENCIL_2D)
		printf(" on lines, Peaceman-Rachford ADI to rtol %.3g, at most %d iterations",
		       grid->linsolve_rtol, grid->linsolve_maxit);
	else
		printf(" (direct)");
	printf("%s\n", run->opts.linsolve == PICARD_LINSOLVER_AUTO ? " (the operator's default)" :
	       "");
}

/* The summary of the solve on stdout, aligned. */
static void print_summary(const struct run *run)
{
	const picard_grid *grid = run->grid;
	/* a window's m - 1 steps (the paper's count); a per-thread scheme's
	 * own step attempts, its sweeps (its grid's m says nothing of them) */
	const double steps = (double)run->shard.total * grid->windows *
			     (picard_scheme_of(grid->scheme)->tableau ? run->stats.sweeps_mean
								      : grid->m - 1);
	char buf[32];

	printf("%-12s %s (n=%d)\n", "model", run->model->name, run->model->dim);
	printf("%-12s %s: %s%s\n", "backend", backend_name(run->stats.backend),
	       run->stats.device,
	       run->opts.backend == PICARD_BACKEND_AUTO && run->stats.backend == PICARD_BACKEND_CPU ?
	       (run->model->events ? " (auto: the CPU backend locates events)" :
		" (auto: no CUDA device found)") : "");
	printf("%-12s %ld%s\n", "trajectories", run->shard.total,
	       run->opts.init_path ? " (from --init)" : "");
	if (run->batch < run->share)
		printf("%-12s %ld of at most %ld trajector%s each, solved, checked and written in "
		       "turn (%s)\n", "batches", run->batches, run->batch,
		       run->batch == 1 ? "y" : "ies",
		       run->opts.batch ? "--batch" : "within " CLI_TEXT(RUN_BATCH_GIB) " GiB or an eighth of "
		       "host memory");
	const picard_scheme_type *type = picard_scheme_of(grid->scheme);

	if (type->tableau) { /* a per-thread Runge-Kutta scheme */
		const char *name = type->name;

		if (grid->adaptive)
			printf("%-12s %s adaptive, rtol=%.3g atol=%.3g, at most %d steps, output every %.6g",
			       "grid", name, grid->iter_rtol, grid->iter_atol, grid->K, grid->h);
		else
			printf("%-12s %s %d step%s of %.6g per window", "grid", name, grid->K,
			       grid->K == 1 ? "" : "s", grid->h / grid->K);
	} else if (type->lobatto_grid) {
		printf("%-12s %s m=%d K%s%d window=%.6g (mean h=%.6g)", "grid", type->name, grid->m,
		       grid->adaptive ? "<=" : "=", grid->K, grid->window, grid->h);
		if (type->takes_block || grid->block > 1)
			printf(" block=%d", grid->block);
		if (run->opts.window_given &&
		    fabs(grid->window - run->opts.window) > 1e-12 * run->opts.window)
			printf(" (requested %g)", run->opts.window);
	} else {
		/* the trapezoid's grid: the paper's scheme unnamed, as ever */
		printf("%-12s %s%sm=%d K%s%d h=%.6g", "grid", type->takes_linsolve ? type->name : "",
		       type->takes_linsolve ? " " : "", grid->m, grid->adaptive ? "<=" : "=",
		       grid->K, grid->h);
		if ((run->opts.h_given || !type->takes_linsolve) &&
		    fabs(grid->h - run->opts.h) > 1e-12 * run->opts.h)
			printf(" (requested %g)", run->opts.h);
	}
	if (run->init.t0 || run->init.t1)
		printf(", %ld window%s, each member on its own span (--init)\n", grid->windows,
		       grid->windows == 1 ? "" : "s");
	else
		printf(", %ld window%s, t in [%g, %g]\n", grid->windows,
		       grid->windows == 1 ? "" : "s", grid->t0, grid->t1);
	printf("%-12s %s%s\n", "precision", run->opts.precision == PICARD_DOUBLE ? "double" : "float",
	       run->opts.precision_for_tol ? " (for --tol: below " CLI_TEXT(CLI_FLOAT_TOL_FLOOR)
					     " of the largest start state, float's rounding adds up; "
					     "--precision float to force it)" : "");
	if (type->takes_linsolve)
		print_linsolve(run);
	if (run->stats.backend == PICARD_BACKEND_CUDA && type->takes_linsolve) {
		printf("%-12s g by a thread per member, step and stage; the linear solves batched "
		       "over the members\n", "layout");
	} else if (run->stats.backend == PICARD_BACKEND_CUDA && type->takes_block) {
		printf("%-12s a thread per window of the block, a block per trajectory's scan\n",
		       "layout");
	} else if (run->stats.backend == PICARD_BACKEND_CUDA) {
		printf("%-12s %s%s, %d trajector%s per block", "layout", picard_layout_name(grid->layout),
		       run->opts.layout == PICARD_LAYOUT_AUTO ? " (auto)" : "", grid->traj_per_block,
		       grid->traj_per_block == 1 ? "y" : "ies");
		if (grid->block > 1)
			printf(", %d windows in flight (a group of lanes each)", grid->block);
		else if (grid->layout == PICARD_LAYOUT_WARP)
			printf(", %s scan", picard_scan_name(grid->scan));
		printf("\n");
	}
	printf("%-12s %s", "solve", format_seconds(buf, sizeof(buf), run->stats.solve_seconds));
	if (run->opts.repeat > 1) {
		printf(", the first of %d; median %s", run->opts.repeat,
		       format_seconds(buf, sizeof(buf), run->solve_median));
		printf(", min %s", format_seconds(buf, sizeof(buf), run->solve_min));
	}
	putchar('\n');
	if (run->stats.estimate_seconds > 0)
		printf("%-12s %s: a companion solve in double on a twice finer grid\n", "estimate",
		       format_seconds(buf, sizeof(buf), run->stats.estimate_seconds));
	if (run->stats.solve_seconds > 0)
		printf("%-12s %.3g trajectory-steps/s\n", "throughput",
		       steps / run->stats.solve_seconds);
	printf("%-12s %.3g per window (max %d), %.3g right-hand side evaluations\n", "sweeps",
	       run->stats.sweeps_mean, run->stats.sweeps_max, run->stats.rhs_evals);
	if (run->stats.backend == PICARD_BACKEND_CUDA)
		printf("%-12s %ld kernel launches, %ld host waits on the device\n", "launches",
		       run->stats.launches, run->stats.host_waits);
	if (run->opts.verbose && run->stats.chunks > 1)
		printf("%-12s %ld launches: the ensemble did not fit device memory at once\n",
		       "chunks", run->stats.chunks);
	shard_print_summary(&run->shard, &run->job);
}

/* Whether some trajectory of this process ended with status. */
static bool any_status(const struct run *run, picard_traj_status status)
{
	return run->tally.seen & (1u << status);
}

/* A hint per kind of failure, naming the flag that bears on it: a step
 * limit is --max-steps (a per-thread pair's K_max), not --K-max. */
static void hint_failures(const struct run *run)
{
	const picard_scheme_type *scheme = picard_scheme_of(run->grid->scheme);

	if (any_status(run, PICARD_TRAJ_LINSOLVE_FAILED) && scheme->takes_linsolve)
		cli_hint("%s; another --linsolve, a larger --linsolve-maxit or --linsolve-rtol may "
			 "solve it", strstr(run->solve_detail, "trajectory ") ?
			 strstr(run->solve_detail, "trajectory ") : run->solve_detail);
	else if (any_status(run, PICARD_TRAJ_LINSOLVE_FAILED)) /* a Rosenbrock scheme's W */
		cli_hint("linsolve-failed: W = I/(h gamma) - J stayed singular at the step's start "
			 "over shorter steps: the Jacobian there is past what %s LU can take; "
			 "--precision double, or another --scheme",
			 tuning_precision_name(run->opts.precision));
	if (any_status(run, PICARD_TRAJ_MAX_STEPS))
		cli_hint("max-steps: %d steps were tried before t1; a larger --max-steps (it is "
			 "--max-steps %d) or a looser --iter-rtol lets it finish", run->grid->K,
			 run->grid->K);
	if (!any_status(run, PICARD_TRAJ_NONFINITE) && !any_status(run, PICARD_TRAJ_DIVERGED) &&
	    !any_status(run, PICARD_TRAJ_NOT_CONVERGED) &&
	    !any_status(run, PICARD_TRAJ_STEP_UNDERFLOW))
		return;
	if (scheme->tableau)
		cli_hint("non-finite or |x| > --bound %g; %s may keep it finite", run->opts.bound,
			 run->grid->adaptive ? "a smaller --iter-rtol" : "more --steps");
	else
		cli_hint("non-finite or |x| > --bound %g; a smaller --%s or a larger --K%s may "
			 "converge", run->opts.bound, scheme->length_name,
			 run->grid->adaptive ? "-max" : "");
}

/* Where a trajectory failed (picard_solver_fail_times): "between t=A and
 * B", the step (or window) that failed, or "at t=A" where the two print
 * alike (a step shorter than the digits shown). */
static const char *fail_span(char *buf, size_t len, double from, double to)
{
	char start[32], end[32];

	snprintf(start, sizeof(start), "%.9g", from);
	snprintf(end, sizeof(end), "%.9g", to);
	if (strcmp(start, end) == 0)
		snprintf(buf, len, "at t=%s", start);
	else
		snprintf(buf, len, "between t=%s and %s", start, end);
	return buf;
}

/* A batch's trajectories that failed outright (not those over the
 * tolerance or far from the run's promise: promise_report names them)
 * into the tally: a count, the first few, and the statuses seen. */
static void tally_failures(struct run *run)
{
	struct run_tally *t = &run->tally;
	unsigned seen = 0;
	long any = 0;

#pragma omp parallel for reduction(+ : any) reduction(| : seen)
	for (long i = 0; i < run->ntraj; i++) {
		any += !judged_only(run->status[i]);
		seen |= 1u << run->status[i];
	}
	t->seen |= seen;
	for (long i = 0; any && i < run->ntraj; i++) {
		if (judged_only(run->status[i]))
			continue;
		if (t->failed++ >= FAILURES_SHOWN)
			continue;
		t->first[t->shown++] = (struct shard_failure){
			.traj = run->shard.first + run->batch_first + i, .window = run->fail_window[i],
			.from = run->fail_time[2 * i], .to = run->fail_time[2 * i + 1],
			.status = run->status[i], .ref_failed = run->ref_failed && run->ref_failed[i],
		};
	}
}

/* The failed trajectories of the whole job: a count and the first few on
 * stderr, once. */
static long report_failures(struct run *run)
{
	struct run_tally *t = &run->tally;
	char list[512] = "";
	size_t used = 0;
	long shown = t->shown, failed = t->failed;

	shard_gather_failures(&run->shard, t->first, &shown, FAILURES_SHOWN, &failed);
	if (!failed || !shard_is_root(&run->shard))
		return failed;
	for (long s = 0; s < shown && used < sizeof(list); s++) {
		const struct shard_failure *f = &t->first[s];
		char span[96];

		used += snprintf(list + used, sizeof(list) - used, "%s%ld %s in window %ld, %s%s",
				 s ? ", " : "", f->traj, picard_traj_status_name(f->status),
				 f->window, fail_span(span, sizeof(span), f->from, f->to),
				 f->ref_failed ? ", its reference fails too" : "");
	}
	printf("%-12s %ld of %ld trajectories\n", "failed", failed, run->shard.total);
	cli_error(PICARD_EFAILED, "%ld of %ld trajectories failed: %s%s", failed, run->shard.total,
		  list, failed > shown ? ", ..." : "");
	hint_failures(run);
	return failed;
}

/* The batch's results as the writers read them. */
static struct run_results batch_results(const struct run *run)
{
	const bool errors = run->opts.check || run->opts.tol_given;

	return (struct run_results){
		.model = run->model, .grid = run->grid, .ntraj = run->ntraj,
		.first = run->shard.first + run->batch_first, .total = run->shard.total,
		.x_final = run->x_final, .status = run->status,
		.fail_window = run->fail_window, .fail_time = run->fail_time, .times = run->save.times,
		.ntimes = run->save.ntimes, .saved = run->save.states,
		.span_t0 = run_batch_span(run, run->init.t0),
		.span_t1 = run_batch_span(run, run->init.t1),
		.span_grid = run->init.t0 || run->init.t1,
		.err = errors ? run->err : NULL, .err_est = errors ? run->err_est : NULL,
	};
}

/* The arrays of the results of a batch set, out of run or into it. */
static void swap_set(struct run *run, struct batch_set *set)
{
	struct batch_set mine = {
		run->x_final, run->status, run->fail_window, run->fail_time, run->save.states,
		run->err, run->err_est,
	};

	run->x_final = set->x_final;
	run->status = set->status;
	run->fail_window = set->fail_window;
	run->fail_time = set->fail_time;
	run->save.states = set->saved;
	run->err = set->err;
	run->err_est = set->err_est;
	*set = mine;
}

static void free_set(struct batch_set *set)
{
	free(set->x_final);
	free(set->status);
	free(set->fail_window);
	free(set->fail_time);
	free(set->saved);
	free(set->err);
	free(set->err_est);
}

/* --out in batches: a second set of result arrays, for the next batch to
 * be solved into while the last is written. */
static int make_spare_set(struct run *run)
{
	struct batch_set *set = &run->spare;
	const size_t b = (size_t)run->batch, n = run->model->dim;

	set->x_final = alloc_array(b * n, sizeof(double), "final states");
	set->status = alloc_array(b, sizeof(*set->status), "trajectory status");
	set->fail_window = alloc_array(b, sizeof(long), "trajectory status");
	set->fail_time = alloc_array(2 * b, sizeof(double), "trajectory status");
	set->err = alloc_array(b, sizeof(double), "per-trajectory errors");
	set->err_est = alloc_array(b, sizeof(double), "per-trajectory errors");
	if (run->save.states)
		set->saved = alloc_array(picard_record_size(run->solver, &run->save), sizeof(double),
					 "--save-every/--save-at states");
	if (!set->x_final || !set->status || !set->fail_window || !set->fail_time || !set->err ||
	    !set->err_est || (run->save.states && !set->saved))
		return PICARD_ENOMEM;
	for (size_t i = 0; i < b; i++)
		set->err[i] = set->err_est[i] = NAN;
	return 0;
}

static void *write_thread(void *arg)
{
	struct run *run = arg;

	output_append(&run->out, &run->written);
	return NULL;
}

/* Wait for the batch being written, if one is. */
static void join_writer(struct run *run)
{
	if (run->writing)
		pthread_join(run->writer, NULL);
	run->writing = false;
}

/* --out, one process: the batch's rows written as it finishes, the
 * header before the first; in batches, on a thread while the next batch
 * is drawn and solved into the other set of arrays. A failure is reported
 * by write_output. */
static void write_batch(struct run *run)
{
	const struct run_results res = batch_results(run);

	if (!run->opts.out_path || (run->shard.size > 1 && run->batches == 1))
		return; /* one batch under mpirun: write_output writes it */
	if (run->shard.size > 1) {
		shard_output_append(&run->shard, &run->out, &res);
		return;
	}
	if (!run->batch_first && output_begin(&run->out, &res))
		output_discard(&run->out);
	join_writer(run); /* rows go in order */
	if (!run->out.file)
		return;
	if (!run->spare.x_final) {
		output_append(&run->out, &res);
		return;
	}
	run->written = res;
	run->writing = pthread_create(&run->writer, NULL, write_thread, run) == 0;
	if (!run->writing)
		output_append(&run->out, &res);
	swap_set(run, &run->spare);
}

/* --out after the last batch: the file closed and renamed into place
 * (under mpirun, every rank's rows written into it now). */
static int write_output(struct run *run)
{
	const struct run_results res = batch_results(run);
	int err;

	if (run->shard.size > 1)
		err = shard_output_write(&run->shard, &run->out, &res);
	else if (!run->out.file) /* output_begin failed, and said why */
		err = PICARD_EIO;
	else
		err = output_finish(&run->out);
	if (!err && res.times)
		printf("%-12s %s (%ld times x %ld trajectories)\n", "output", run->out.path,
		       res.ntimes, res.total);
	else if (!err)
		printf("%-12s %s (final states of %ld trajectories)\n", "output", run->out.path,
		       res.total);
	return err;
}

static void *warm_up_cuda(void *unused)
{
	(void)unused;
	picard_cuda_warm_up();
	return NULL;
}

/* Set up: the ensemble's first batch drawn, the grid tuned on it
 * (--tol), the solver and the batch's arrays made; 0 or the error that
 * stopped the run (reported). */
static int prepare(struct run *run)
{
	pthread_t warm;
	int err;

	run->model = run->opts.model;
	/* the CUDA runtime starts while the host reads and draws */
	const bool warming = run->opts.backend != PICARD_BACKEND_CPU &&
			     pthread_create(&warm, NULL, warm_up_cuda, NULL) == 0;
	err = read_init(run);
	if (!err)
		err = take_share(run);
	if (!err && run->opts.out_path)
		err = shard_output_open(&run->shard, &run->out, run->opts.out_path);
	if (!err)
		err = events_out_open(run);
	if (!err) { /* every rank alike: rank 0 says what is wrong */
		const int quiet = shard_quiet_begin(&run->shard);

		err = choose_batch(run);
		shard_quiet_end(&run->shard, quiet, err);
	}
	err = shard_agree(&run->shard, err, &run->out);
	if (!err) /* every rank here */
		agree_batches(run);
	phases_mark(&run->phases, "init");
	if (!err)
		err = shard_agree(&run->shard, make_ensemble(run), &run->out);
	phases_mark(&run->phases, "draw");
	if (warming)
		pthread_join(warm, NULL);
	phases_mark(&run->phases, "cuda start");
	if (!err)
		precision_for_tolerance(run);
	if (!err)
		err = shard_agree(&run->shard, check_ensemble_fits(run), &run->out);
	if (!err)
		err = shard_agree(&run->shard, check_tolerance(run), &run->out);
	phases_mark(&run->phases, "checks");
	/* --tol: m, K, h (trapezoid) or m, window, tolerance (lobatto) tuned
	 * on the ensemble this run solves (rank 0's share under mpirun, the
	 * first batch of a run in batches) */
	if (!err) {
		int tuned = 0;
		char id[32];

		if (shard_is_root(&run->shard) && run->opts.tol_given) {
			ensemble_identity(run, id, sizeof(id));
			tuned = tuning_for_run(&run->opts, run->ntraj, run->x0, run->params, id);
		}
		err = shard_share_tuning(&run->shard, &run->opts, tuned);
	}
	phases_mark(&run->phases, "search");
	if (!err)
		err = create_solver(run);
	if (!err)
		err = allocate(run);
	if (!err)
		err = promise_allocate(run);
	if (!err && run->opts.out_path && run->batch < run->share && run->shard.size == 1)
		err = make_spare_set(run);
	if (!err) {
		run->tally.lines_file = open_memstream(&run->tally.lines, &run->tally.lines_len);
		if (!run->tally.lines_file)
			err = cli_error(PICARD_ENOMEM, "out of memory");
	}
	phases_mark(&run->phases, "set-up");
	return shard_agree(&run->shard, err, &run->out);
}

/* The next batch's inputs, drawn on a thread while this one is solved. */
struct next_draw {
	const struct run *run;
	long first, count;
	double *x0, *params; /* the arrays the batch after is drawn into */
	pthread_t thread;
	bool running;
	int err;
};

static void *draw_thread(void *arg)
{
	struct next_draw *d = arg;

	d->err = draw_batch(d->run, d->first, d->count, d->x0, d->params);
	return NULL;
}

/* Start drawing trajectories first .. first+count-1 (none past the share). */
static void start_draw(struct next_draw *d, long first, long count)
{
	d->first = first;
	d->count = count;
	d->err = 0;
	if (count <= 0)
		return;
	d->running = pthread_create(&d->thread, NULL, draw_thread, d) == 0;
	if (!d->running)
		draw_thread(d);
}

/* Wait for the draw, and take its arrays for the batch: the run's go to
 * the next draw. */
static int take_draw(struct run *run, struct next_draw *d)
{
	double *x0 = run->x0, *params = run->params;

	if (d->running)
		pthread_join(d->thread, NULL);
	d->running = false;
	run->x0 = d->x0;
	run->params = d->params;
	d->x0 = x0;
	d->params = params;
	return d->err;
}

/* Solve the share batch after batch, each solved, judged, added to the
 * tally and written in turn, the next drawn meanwhile (the first by
 * prepare); 0 or the error that stopped the run (reported). Under mpirun
 * every rank runs run->batches, agreeing after each: one whose share
 * ends sooner only agrees. */
static int solve_batches(struct run *run)
{
	struct next_draw next = {.run = run};
	const long batches = run->batches;
	int err = 0, phase = -1;

	if (batches > 1) {
		if (!run->draw.start) /* the next batch's, drawn beside this one's solve */
			err = alloc_inputs(run, &next.x0, &next.params);
		/* the whole run said once it is long, each batch shown on a
		 * terminal */
		phase = picard_progress_begin("solving %ld trajectories in %ld batches", run->share,
					      batches);
	}
	/* the last batch's first stays: under mpirun in one batch, its rows
	 * are written after the reports */
	for (long k = 0, first = 0; !err && k < batches; k++, first += run->batch) {
		if (first >= run->share) { /* past this rank's share */
			err = shard_agree(&run->shard, 0, &run->out);
			if (!err)
				err = shard_agree(&run->shard, 0, &run->out);
			continue;
		}
		run->batch_first = first;
		run->ntraj = run->share - first < run->batch ? run->share - first : run->batch;
		if (run->batch_first && run->draw.start) {
			run->rows_on_demand = true; /* drawn where solved */
		} else if (run->batch_first) {
			err = take_draw(run, &next);
			if (!err)
				err = check_ensemble_fits(run);
			phases_mark(&run->phases, "draw");
		}
		if (batches > 1) {
			char at[64];

			snprintf(at, sizeof(at), "batch %ld of %ld", first / run->batch + 1, batches);
			picard_progress_detail(at);
		}
		if (!err && first + run->batch < run->share && !run->draw.start)
			start_draw(&next, first + run->batch,
				   run->share - first - run->batch < run->batch ?
				   run->share - first - run->batch : run->batch);
		if (!err)
			err = solve(run);
		err = shard_agree(&run->shard, err, &run->out);
		phases_mark(&run->phases, "solve+copies");
		/* checks, estimates, statuses; tuned runs solve their misses
		 * again */
		if (!err)
			err = shard_agree(&run->shard, promise_keep(run), &run->out);
		if (!err)
			tally_failures(run);
		phases_mark(&run->phases, "estimate+check");
		if (!err)
			write_batch(run);
		phases_mark(&run->phases, "output");
	}
	join_writer(run);
	picard_progress_end(phase);
	if (next.running)
		pthread_join(next.thread, NULL);
	free(next.x0);
	free(next.params);
	if (run->tally.lines_file)
		fflush(run->tally.lines_file);
	return err;
}

/* Solve, report, write, check: the exit status of a run. */
/* What NVRTC compiled for this run: a model's first runs, which later
 * runs find in the cache. */
static void print_compiled(void)
{
	double seconds = 0;
	long compiled = 0;
	char buf[32];

	picard_jit_stats(&seconds, &compiled, NULL);
	if (compiled)
		printf("%-12s %ld NVRTC compilation%s in %s, cached for later runs\n", "compiled",
		       compiled, compiled == 1 ? "" : "s", format_seconds(buf, sizeof(buf), seconds));
}

static int run_main(struct run *run)
{
	int status = CLI_EXIT_OK, err;
	char buf[32];

	err = prepare(run);
	if (!err)
		err = solve_batches(run);
	if (err) {
		output_discard(&run->out);
		return err == CLI_EUSAGE ? CLI_EXIT_USAGE : CLI_EXIT_FAILED;
	}
	reduce_stats(run);
	print_summary(run);
	events_out_report(run);
	if (events_out_finish(run))
		status = CLI_EXIT_FAILED;
	phases_mark(&run->phases, "summary");
	if (shard_agree(&run->shard, promise_finish(run), &run->out))
		status = CLI_EXIT_FAILED;
	phases_mark(&run->phases, "estimate+check");
	/* the rest reports on the whole job: rank 0 prints it */
	shard_quiet(&run->shard);
	if (report_failures(run))
		status = CLI_EXIT_FAILED;
	if (run->opts.out_path && write_output(run))
		status = CLI_EXIT_FAILED;
	phases_mark(&run->phases, "output");
	if (promise_report(run) != CLI_EXIT_OK)
		status = CLI_EXIT_FAILED;
	print_compiled();
	shard_print_traffic(&run->shard);
	phases_mark(&run->phases, "report");
	if (run->opts.verbose)
		phases_print(&run->phases, stdout);
	printf("%-12s %s\n", "total", format_seconds(buf, sizeof(buf), elapsed(run)));
	return status;
}

static void run_free(struct run *run)
{
	events_out_discard(run);
	output_discard(&run->out);
	picard_solver_free(run->solver);
	init_data_free(&run->init);
	members_free(run);
	free(run->x0);
	free(run->params);
	free(run->x_final);
	free(run->status);
	free(run->fail_window);
	free(run->fail_time);
	free(run->save_times);
	free(run->save.states);
	free(run->check.states);
	promise_free(run);
	if (run->tally.lines_file)
		fclose(run->tally.lines_file);
	free(run->tally.lines);
	free_set(&run->spare);
}

/* --precompile: every kernel of the model into the cache, or with
 * --scheme that scheme's. */
static int precompile(const struct run_options *opts)
{
	const picard_model *model = opts->model;
	struct timespec t0, t1;
	int count = 0, err;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = opts->scheme_given ? picard_precompile_scheme(model, opts->scheme, &count)
				 : picard_precompile(model, &count);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (err) {
		cli_library_error(err);
		return CLI_EXIT_FAILED;
	}
	long compiled = 0, found = 0;

	picard_jit_stats(NULL, &compiled, &found);
	printf("%s: %d kernels, %ld compiled, %ld found in the caches, in %.1f s\n", model->name,
	       count, compiled, found,
	       (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec));
	return CLI_EXIT_OK;
}

/* What the command line asks for: the exit status. */
static int run_command(struct run *run)
{
	int status, quiet;

	quiet = shard_quiet_begin(&run->shard);
	status = options_parse(run->argc, run->argv, &run->opts);
	shard_quiet_end(&run->shard, quiet, status);
	phases_mark(&run->phases, "options+model");
	if (status)
		return status == CLI_DONE ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	if (run->opts.help) {
		options_usage(stdout);
		return CLI_EXIT_OK;
	}
	if (run->opts.list_schemes) {
		cli_list_schemes(stdout);
		return CLI_EXIT_OK;
	}
	if (run->opts.clear_cache)
		return clear_caches(stdout) ? CLI_EXIT_FAILED : CLI_EXIT_OK;
	if (run->opts.list)
		return list_models(&run->opts);
	if (run->opts.describe)
		return describe_model(run->opts.model);
	if (run->opts.precompile)
		return precompile(&run->opts);
	status = run_main(run);
	run_free(run);
	return status;
}

int main(int argc, char **argv)
{
	struct run run;

	memset(&run, 0, sizeof(run));
	clock_gettime(CLOCK_MONOTONIC, &run.start);
	phases_start(&run.phases, &run.start);
	shard_start(&run.shard, &argc, &argv);
	/* long work said on stderr: by rank 0 alone under mpirun */
	if (shard_is_root(&run.shard))
		picard_progress_enable("picard-run");
	run.argc = argc;
	run.argv = argv;
	return shard_finish(&run.shard, run_command(&run));
}
