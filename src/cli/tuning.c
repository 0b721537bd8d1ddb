/* tuning.c - the tolerance search as the programs use it: the cache key,
 * progress, the report when nothing meets E*, and picard-run --tol (see
 * tuning.h). */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "candidates.h"
#include "content_hash.h"
#include "decision_cache.h"
#include "diag.h"
#include "model_impl.h"
#include "parse.h"
#include "progress.h"
#include "scheme.h"
#include "tuning.h"

#define QUICK_SAMPLE 32        /* picard-run's quick search: trajectories measured */
#define QUICK_REPEATS 3       /* timed solves per candidate, median */

/* ---- the key ------------------------------------------------------------------ */

int tuning_key_init(struct tuning_key *tk, const picard_model *model,
		    picard_precision precision, picard_backend backend,
		    double tol, double rtol, double t0, double t1,
		    const char *ensemble, long ntraj)
{
	int err = 0;

	memset(tk, 0, sizeof(*tk));
	if (backend == PICARD_BACKEND_AUTO)
		backend = picard_cuda_available() ? PICARD_BACKEND_CUDA : PICARD_BACKEND_CPU;
	tk->backend = backend;
	if (backend == PICARD_BACKEND_CUDA)
		err = picard_cuda_device_name(tk->device, sizeof(tk->device));
	else
		snprintf(tk->device, sizeof(tk->device), "CPU");
	snprintf(tk->ensemble, sizeof(tk->ensemble), "%s", ensemble ? ensemble : "default");
	/* an edited copy of a registered model's file must not take that
	 * model's entries: a file's name carries its text's hash */
	if (picard_model_find(model->name) == model || !model->impl->source)
		snprintf(tk->model, sizeof(tk->model), "%s", model->name);
	else
		snprintf(tk->model, sizeof(tk->model), "%s+%016llx", model->name,
			 (unsigned long long)picard_hash(PICARD_HASH_SEED, model->impl->source,
							 strlen(model->impl->source)));
	tk->key = (picard_tune_key){
		.model = tk->model, .precision = precision, .tol = tol, .rtol = rtol,
		.t0 = t0, .t1 = t1, .device = tk->device, .ensemble = tk->ensemble,
		.ntraj = ntraj,
	};
	return err;
}

const char *tuning_precision_name(picard_precision precision)
{
	return precision == PICARD_DOUBLE ? "double" : "float";
}

const char *tuning_backend_name(picard_backend backend)
{
	return backend == PICARD_BACKEND_CUDA ? "cuda" : "cpu";
}

/* ---- progress ------------------------------------------------------------------- */

void tuning_ensemble_id(const picard_model *model, bool drawn_plain, double spread,
			unsigned long long seed, const double *x0, const double *params,
			long ntraj, char *id, size_t len)
{
	if (drawn_plain && spread == RUN_DEFAULT_SPREAD && seed == RUN_DEFAULT_SEED)
		snprintf(id, len, "default");
	else
		picard_ensemble_id(x0, params, ntraj, model->dim, model->nparams, id, len);
}

void tuning_progress_init(struct tuning_progress *progress, FILE *csv)
{
	memset(progress, 0, sizeof(*progress));
	progress->csv = csv;
	progress->tty = isatty(STDERR_FILENO);
	clock_gettime(CLOCK_MONOTONIC, &progress->start);
	if (csv && fputs("m,K,h,windows,E,seconds,meets,scheme\n", csv) == EOF)
		progress->csv_failed = true;
}

/* One CSV row: reals with 17 digits, so they read back exactly; E is inf
 * where a trajectory failed; seconds 0 where the point was not timed; the
 * scheme last (picard-tune searches several). */
static void write_csv_row(struct tuning_progress *progress, const picard_tune_point *p)
{
	if (fprintf(progress->csv, "%d,%d,%.17g,%ld,%.17g,%.17g,%d,%s\n", p->m, p->K, p->h,
		    p->windows, p->error, p->seconds, p->meets ? 1 : 0,
		    picard_scheme_of(p->scheme)->name) < 0 ||
	    fflush(progress->csv) != 0)
		progress->csv_failed = true;
}

/* Seconds since start. */
static double seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) + 1e-9 * (double)(now.tv_nsec - start->tv_nsec);
}

/* "[#####.....] 5/13 " when the candidates are counted, into bar. */
static void progress_bar(const struct tuning_progress *progress, char *bar, size_t len)
{
	enum { WIDTH = 20 };
	char filled[WIDTH + 1];
	int done;

	bar[0] = 0;
	if (progress->candidates <= 0)
		return;
	done = (int)((long)WIDTH * progress->done / progress->candidates);
	for (int i = 0; i < WIDTH; i++)
		filled[i] = i < done ? '#' : '.';
	filled[WIDTH] = 0;
	snprintf(bar, len, "[%s] %d/%d ", filled, progress->done, progress->candidates);
}

/* picard_tune reports each point once when its E is measured (seconds 0)
 * and once more, with its predicted time, when it is costed on the
 * ensemble. */
void tuning_on_point(const picard_tune_point *p, void *ctx)
{
	struct tuning_progress *progress = ctx;
	char line[200], bar[48];
	int len;

	if (progress->csv && !progress->csv_failed)
		write_csv_row(progress, p);
	if (p->seconds == 0)
		progress->points++;
	if (!progress->tty)
		return;
	progress_bar(progress, bar, sizeof(bar));
	if (p->seconds == 0)
		len = snprintf(line, sizeof(line), "%s%s m=%d K=%d h=%.3g E=%.2g%s "
			       "(%ld points, %.0f s)",
			       bar, picard_scheme_of(p->scheme)->name, p->m, p->K, p->h, p->error,
			       p->meets ? " meets" : "", progress->points,
			       seconds_since(&progress->start));
	else
		len = snprintf(line, sizeof(line), "%s%s m=%d K=%d h=%.3g predicted: %.3g ms "
			       "(%ld points, %.0f s)", bar, picard_scheme_of(p->scheme)->name, p->m,
			       p->K, p->h, p->seconds * 1e3, progress->points,
			       seconds_since(&progress->start));
	/* picard-run says it on its progress line (progress.h) */
	if (picard_progress_detail(line))
		return;
	fprintf(stderr, "\r%s%*s", line, progress->shown > len ? progress->shown - len : 0, "");
	fflush(stderr);
	progress->shown = len;
}

/* picard_tune reports each m candidate when it is done: counted for the
 * terminal's bar, or one line on stderr where that is no terminal and the
 * program asked for lines (label set). */
void tuning_on_candidate(const picard_tune_point *p, void *ctx)
{
	struct tuning_progress *progress = ctx;
	const picard_scheme_type *type = picard_scheme_of(p->scheme);

	progress->done++;
	if (progress->tty || !progress->label)
		return;
	fprintf(stderr, "%s: [%d/%d] %s m=%d: ", progress->label, progress->done,
		progress->candidates, type->name, p->m);
	if (p->meets)
		fprintf(stderr, "E = %.3g at K=%d h=%.4g (%ld window%s), %.4g ms predicted",
			p->error, p->K, p->h, p->windows, p->windows == 1 ? "" : "s",
			p->seconds * 1e3);
	else if (isfinite(p->error))
		fprintf(stderr, "none meets E* or beats the fastest so far (the smallest E %.3g)",
			p->error);
	else
		fprintf(stderr, "none meets E* (every point tried failed)");
	fprintf(stderr, " [%.1f s]\n", seconds_since(&progress->start));
	fflush(stderr);
}

void tuning_on_skipped(const char *scheme, int m, const char *why, void *ctx)
{
	struct tuning_progress *progress = ctx;

	progress->done++;
	if (progress->tty || !progress->label)
		return;
	fprintf(stderr, "%s: [%d/%d] %s m=%d: not searched (%s) [%.1f s]\n", progress->label,
		progress->done, progress->candidates, scheme, m, why,
		seconds_since(&progress->start));
	fflush(stderr);
}

void tuning_progress_done(struct tuning_progress *progress)
{
	if (progress->tty && progress->shown) {
		fprintf(stderr, "\r%*s\r", progress->shown, "");
		fflush(stderr);
	}
	progress->shown = 0;
}

/* ---- nothing meets E* --------------------------------------------------------------- */

int tuning_report_not_found(const picard_tune_result *result, double tol,
			    picard_precision precision, bool quick)
{
	const char *what = quick ? "quick search: no configuration" : "no configuration";
	char best[512];

	/* the best E, and the rule that refused it where it was not E > E* */
	if (result->refused_by && result->refused_error <= result->best_error * (1 + 1e-12))
		snprintf(best, sizeof(best), "the best E was %.3g, refused because %s",
			 result->best_error, result->refused_by);
	else if (result->refused_by)
		snprintf(best, sizeof(best), "the best E was %.3g; one of E = %.3g was refused "
			 "because %s", result->best_error, result->refused_error, result->refused_by);
	else
		snprintf(best, sizeof(best), "the best E was %.3g", result->best_error);

	if (!isfinite(result->best_error)) {
		cli_error(PICARD_ENOTFOUND, "%s reaches E* = %g: every one tried failed "
			  "(non-finite or diverged)", what, tol);
		cli_hint("a longer search (--max-windows) reaches smaller h");
		return PICARD_ENOTFOUND;
	}
	if (result->reference_error >= tol) {
		cli_error(PICARD_ENOTFOUND, "%s reaches E* = %g; %s (the reference's own "
			  "error, %.2g, is not below E*)", what, tol, best, result->reference_error);
		return PICARD_ENOTFOUND;
	}
	if (precision == PICARD_FLOAT) {
		cli_error(PICARD_ENOTFOUND, "%s reaches E* = %g; %s (float rounding may be "
			  "the limit: 6e-8 of |x| per operation, accumulated over the windows)",
			  what, tol, best);
		cli_hint("--precision double%s", quick ? "" : ", or a larger --kmax or --max-windows");
		return PICARD_ENOTFOUND;
	}
	cli_error(PICARD_ENOTFOUND, "%s reaches E* = %g; %s", what, tol, best);
	if (quick)
		cli_hint("picard-tune searches more (m up to 256, K up to 9) and stores the result");
	else
		cli_hint("a larger --kmax or --max-windows searches further");
	return PICARD_ENOTFOUND;
}

/* ---- picard-run --tol ----------------------------------------------------------------- */

/* Take m, K, h from p where they were not given; print where they come
 * from, and which were given. */
static void apply_point(struct run_options *opts, const picard_tune_point *p,
			const char *source)
{
	char given[32] = "";
	size_t used = 0;

	opts->tuned = true;
	/* the search bounds its grids itself (its window count, its K
	 * candidates); the work limit guards a grid typed by hand, and would
	 * count an adaptive point's K_max cap, not the sweeps it runs
	 * (lobatto's closest kepler point: 16384 windows x K_max 60, about 3
	 * sweeps each, was refused) */
	if (opts->max_work == 0)
		opts->max_work = HUGE_VAL;
	const picard_scheme_type *type = picard_scheme_of(p->scheme);

	if (type->tableau) {
		/* a per-thread Runge-Kutta pair: fixed steps of h, as many
		 * per output interval (--h, else the span) as cover it; or
		 * adaptive at its local tolerance (iter_rtol) over windows of h */
		opts->scheme = p->scheme;
		opts->m = 2;
		if (!opts->h_given)
			opts->h = p->h;
		if (p->iter_rtol > 0) {
			opts->K = 0;
			opts->K_max = opts->K_max ? opts->K_max : p->K;
			if (!opts->iter_rtol)
				opts->iter_rtol = p->iter_rtol;
			printf("%-12s %s adaptive, local tolerance %.2g, output every %.6g, from %s\n",
			       "parameters", type->name, opts->iter_rtol, opts->h, source);
		} else {
			if (!opts->h_given)
				opts->h = opts->t1 - opts->t0;
			if (!opts->K_given)
				opts->K = picard_rk_steps(opts->h, p->h);
			printf("%-12s %s fixed step h=%.6g, %d per output interval, from %s\n",
			       "parameters", type->name, opts->h / opts->K, opts->K, source);
		}
		return;
	}
	if (type->lobatto_grid) {
		/* m, window, tolerance: lobatto's adaptive sweeps from a warm
		 * start, or newton's iterations over its tuned block */
		opts->scheme = p->scheme;
		if (!opts->m_given)
			opts->m = p->m;
		if (!opts->window_given)
			opts->window = (opts->m - 1) * p->h;
		if (!opts->K_given) {
			opts->K = 0;
			opts->K_max = opts->K_max ? opts->K_max : p->K;
		}
		if (!opts->iter_rtol)
			opts->iter_rtol = p->iter_rtol;
		if (type->takes_block) {
			if (!opts->block)
				opts->block = p->block;
			printf("%-12s %s m=%d window=%.6g iter-rtol=%.2g K<=%d block=%d, from %s\n",
			       "parameters", type->name, opts->m, opts->window, opts->iter_rtol,
			       opts->K_max, opts->block, source);
			return;
		}
		opts->warm_start = true;
		/* the tuned windows in flight (parallel in time) */
		if (type->windows_in_flight && !opts->block && p->block > 1)
			opts->block = p->block;
		/* the tuned thread layout where it applies to the m in use */
		if (!opts->layout_given && p->layout == PICARD_LAYOUT_THREAD &&
		    opts->m <= PICARD_LOBATTO_THREAD_MAX_M) {
			opts->layout = p->layout;
			opts->traj_per_block = opts->traj_per_block ? opts->traj_per_block :
					       p->traj_per_block;
		}
		printf("%-12s lobatto m=%d window=%.6g iter-rtol=%.2g K<=%d, warm start%s%s", "parameters",
		       opts->m, opts->window, opts->iter_rtol, opts->K_max,
		       p->layout != PICARD_LAYOUT_AUTO ? ", layout=" : "",
		       p->layout != PICARD_LAYOUT_AUTO ? picard_layout_name(p->layout) : "");
		if (opts->block > 1)
			printf(", %d windows in flight", opts->block);
		printf(", from %s\n", source);
		return;
	}
	/* the trapezoid's grid: the paper's scheme, or an imex scheme on it */
	opts->scheme = type->takes_linsolve ? p->scheme : PICARD_SCHEME_TRAPEZOID;

	if (!opts->m_given)
		opts->m = p->m;
	else
		used += snprintf(given + used, sizeof(given) - used, "%s--m", used ? ", " : "");
	if (!opts->K_given)
		opts->K = p->K;
	else
		used += snprintf(given + used, sizeof(given) - used, "%s--K", used ? ", " : "");
	if (!opts->h_given)
		opts->h = p->h;
	else
		snprintf(given + used, sizeof(given) - used, "%s--h", used ? ", " : "");
	/* the tuned layout only where it applies to the m in use */
	if (!opts->layout_given && p->layout != PICARD_LAYOUT_AUTO &&
	    (p->layout == PICARD_LAYOUT_PAPER || opts->m <= PICARD_LAYOUT_MAX_M)) {
		opts->layout = p->layout;
		opts->traj_per_block = opts->traj_per_block ? opts->traj_per_block :
				       p->layout == PICARD_LAYOUT_PAPER ? 0 : p->traj_per_block;
	}
	printf("%-12s %s%sm=%d K=%d h=%.6g", "parameters", type->takes_linsolve ? type->name : "",
	       type->takes_linsolve ? " " : "", opts->m, opts->K, opts->h);
	if (p->layout != PICARD_LAYOUT_AUTO)
		printf(" layout=%s", picard_layout_name(p->layout));
	printf(" from %s%s%s%s\n", source, given[0] ? "; " : "", given,
	       given[0] ? " as given" : "");
}

void tuning_print_costs(const picard_tune_result *result)
{
	if (!result->best.meets)
		return; /* nothing was predicted */
	printf("%-12s times predicted: right-hand side evaluations x a cost per evaluation of "
	       "each scheme and m (%ld timed by this search%s, the others kept by an earlier "
	       "one)\n", "costs", result->costs_timed, result->costs_not_kept ?
	       " and not kept: the cache was not written, so a later run times them again" :
	       "");
}

void tuning_print_command(const char *program, const struct tuning_command *c)
{
	char spread_text[32];

	snprintf(spread_text, sizeof(spread_text), "%.15g", c->spread);
	printf("%s %s --tol %g", program, c->model_arg, c->tol);
	if (c->rtol > 0)
		printf(" --rtol %g", c->rtol);
	if (c->scheme_given)
		printf(" --scheme %s", picard_scheme_of(c->scheme)->name);
	if (c->precision != PICARD_FLOAT)
		printf(" --precision %s", tuning_precision_name(c->precision));
	if (c->backend != PICARD_BACKEND_AUTO)
		printf(" --backend %s", tuning_backend_name(c->backend));
	if (c->traj) /* an entry serves its ensemble size class */
		printf(" --traj %ld", c->traj);
	if (c->t0_given)
		printf(" --t0 %.17g", c->t0);
	if (c->t1_given)
		printf(" --t1 %.17g", c->t1);
	/* the spread as a short text where that reads back as the same double */
	if (c->spread != RUN_DEFAULT_SPREAD && strtod(spread_text, NULL) == c->spread)
		printf(" --spread %s", spread_text);
	else if (c->spread != RUN_DEFAULT_SPREAD)
		printf(" --spread %.17g", c->spread);
	if (c->seed && c->seed != RUN_DEFAULT_SEED)
		printf(" --seed %llu", c->seed);
}

/* The picard-tune command line that runs the full search for opts. */
static void print_full_search(const struct run_options *opts)
{
	const struct tuning_command command = {
		.model_arg = opts->model_name, .tol = opts->tol, .rtol = opts->rtol,
		.scheme_given = opts->scheme_given, .scheme = opts->scheme,
		.precision = opts->precision, .backend = opts->backend,
		.traj = opts->traj_given ? opts->traj : 0,
		.t0_given = opts->t0_given, .t0 = opts->t0, .t1_given = opts->t1_given, .t1 = opts->t1,
		.spread = opts->spread, .seed = opts->seed,
	};

	/* picard-tune draws its ensemble as picard-run does from --spread and
	 * --seed alone: an entry it stored would not serve this one */
	if (opts->init_path || opts->nspread_params || opts->nset_params) {
		printf("%-12s no full search for this ensemble: picard-tune draws its own "
		       "(--spread, --seed), not one from %s; this decision is kept for the same "
		       "command\n", "", opts->init_path ? "--init" : opts->nspread_params ?
		       "--spread-param" : "--param");
		return;
	}
	printf("%-12s the full search, stored for later runs: ", "");
	tuning_print_command("picard-tune", &command);
	putchar('\n');
}

/* The scheme a run's flags settle: --scheme, or --h, which only the
 * trapezoid has (--window already needs --scheme lobatto); false when
 * both remain. A search free to pick lobatto would drop the given h. */
static bool scheme_settled(const struct run_options *opts, picard_scheme *scheme)
{
	if (opts->scheme_given)
		*scheme = opts->scheme;
	else if (opts->h_given)
		*scheme = PICARD_SCHEME_TRAPEZOID;
	else
		return false;
	return true;
}

/* What the search left out of its sample, as ", ..." (or ""), into buf. */
static const char *sample_left_out(const picard_tune_result *result, char *buf, size_t size)
{
	int used = 0;

	buf[0] = 0;
	if (result->sample_dropped)
		used = snprintf(buf, size, ", %ld whose reference blows up left out",
				result->sample_dropped);
	if (result->sample_unverified && used >= 0 && (size_t)used < size)
		snprintf(buf + used, size - used, ", %ld whose reference's own error is not below "
			 "E* left out (judged by their estimates)", result->sample_unverified);
	return buf;
}

/* Keep the decision d of the quick search for key, so that the same
 * command repeated takes it (decision_cache.h); what to say of it:
 * where it is kept, or why not (the next run searches again). */
static const char *keep_decision(const char *key, const struct quick_decision *d)
{
	static char said[4300];
	char path[4200];

	if (decision_store(key, d) == 0 && decision_path(key, path, sizeof(path)) == 0) {
		snprintf(said, sizeof(said), "kept in %s", path);
		return said;
	}
	cli_warning("the quick search's decision not kept: %s", picard_error_detail());
	return "not kept";
}

/* No configuration met the tolerance on every sampled member, yet some
 * came close: the members that can meet it are still solved. The closest
 * point (the smallest scaled error on the sample) runs, each member is
 * judged on its own (promise.h: those that miss are tol-exceeded, named,
 * and the exit is 1), and none is solved again: the search already found
 * no finer grid that helps. searched: the schemes, or where the decision
 * was reused from. */
static void run_closest(struct run_options *opts, const picard_tune_point *closest,
			const char *searched, const char *source)
{
	printf("%-12s quick search (%s): no configuration meets the tolerance on every sampled "
	       "member; the closest (%ld meet it, %.3g x tol at worst) runs and each member is "
	       "judged\n", "search", searched, closest->sample_meeting, closest->scaled_error);
	apply_point(opts, closest, source);
	opts->tuned_closest = true;
}

/* A decision kept by an earlier run of the same command: applied as the
 * search left it, said so, with where it was kept and how it was made. */
static int reuse_decision(struct run_options *opts, const char *key,
			  const struct quick_decision *d)
{
	char path[4200], source[5000];
	int err = decision_path(key, path, sizeof(path));

	if (err)
		return cli_library_error(err);
	snprintf(source, sizeof(source), "%sa quick search's decision reused from %s (stored %s; "
		 "that search: %s)", d->closest ? "the closest point of " : "", path, d->date,
		 d->search);
	if (d->closest) {
		run_closest(opts, &d->point, "its decision reused", source);
		return 0;
	}
	apply_point(opts, &d->point, source);
	print_full_search(opts);
	return 0;
}

/* The quick search of picard-run: small sample, grid and ensemble, down
 * the candidate list picard-tune also goes through (candidates.h). A
 * run's --spread 0 cannot be passed as 0 (picard_tune reads it as its
 * default): DBL_MIN makes every 1 + S (2u - 1) round to 1, the same
 * states. */
static int quick_search(struct run_options *opts, const struct tuning_key *tk, long ntraj,
			const double *x0, const double *params, const char *key)
{
	static struct candidate_search search; /* its table of rows is large */
	struct candidate_request request = {.settled = false};
	struct candidate list[CANDIDATES_MAX];
	struct tuning_progress progress;
	struct quick_decision decision = {.closest = false};
	char source[5600], left_out[160];
	int err, n;

	request.settled = scheme_settled(opts, &request.scheme);
	request.spans = opts->spans;
	n = candidates_list(opts->model, &request, list);
	search = (struct candidate_search){
		.model = opts->model,
		.tune = {
			.tol = opts->tol, .rtol = opts->rtol, .precision = opts->precision,
			.backend = tk->backend, .t0 = opts->t0, .t1 = opts->t1,
			.ntraj = candidates_costed_traj(tk->backend, ntraj),
			.sample = QUICK_SAMPLE, .spread = opts->spread > 0 ? opts->spread : DBL_MIN,
			.seed = opts->seed, .repeats = QUICK_REPEATS,
			.on_point = tuning_on_point, .on_candidate = tuning_on_candidate,
			.ctx = &progress, .cost_key = &tk->key,
			/* the run's own ensemble: its extremes are in the sample */
			.x0 = x0, .params = params, .nstates = ntraj,
		},
	};
	const int phase = picard_progress_begin("quick search for a grid that meets the "
						"tolerance");
	tuning_progress_init(&progress, NULL);
	progress.candidates = candidates_count(list, n);
	err = candidates_search(&search, list, n);
	tuning_progress_done(&progress);
	picard_progress_end(phase);
	const picard_tune_result *result = &search.result;
	if (err == PICARD_ENOTFOUND && isfinite(search.closest.scaled_error) &&
	    result->reference_error < opts->tol) {
		decision = (struct quick_decision){.point = search.closest, .closest = true};
		snprintf(decision.search, sizeof(decision.search), "%s: %ld points, %.3g s%s",
			 search.names, result->points, search.seconds,
			 sample_left_out(result, left_out, sizeof(left_out)));
		snprintf(source, sizeof(source), "the closest point of a quick search on this "
			 "ensemble (%s; %s)", decision.search, keep_decision(key, &decision));
		run_closest(opts, &search.closest, search.names, source);
		return 0;
	}
	if (err == PICARD_ENOTFOUND)
		return tuning_report_not_found(result, opts->tol, opts->precision, true);
	if (err)
		return cli_library_error(err);
	decision.point = result->best;
	snprintf(decision.search, sizeof(decision.search), "%ld trajector%s sampled%s, %s%s: "
		 "%ld points, %.3g s", ntraj < QUICK_SAMPLE ? ntraj : QUICK_SAMPLE,
		 ntraj == 1 ? "y" : "ies", sample_left_out(result, left_out, sizeof(left_out)),
		 search.names, !request.settled ? ", the least predicted time by 10%" : "",
		 result->points, search.seconds);
	snprintf(source, sizeof(source), "a quick search on this ensemble (%s; %s)",
		 decision.search, keep_decision(key, &decision));
	apply_point(opts, &result->best, source);
	if (!request.settled)
		printf("%-12s %s ran; each scheme's least predicted time on %ld trajectories: %s\n",
		       "schemes", picard_scheme_of(result->best.scheme)->name, search.tune.ntraj,
		       search.times);
	tuning_print_costs(result);
	print_full_search(opts);
	return 0;
}

int tuning_for_run(struct run_options *opts, long ntraj, const double *x0,
		   const double *params, const char *ensemble_id)
{
	struct tuning_key tk;
	struct quick_decision decision;
	picard_tune_point point;
	picard_scheme scheme;
	char path[4096], source[4200], key[DECISION_KEY_MAX];
	int err;

	/* given grids win; lobatto's is m and the window, a per-thread
	 * pair's its fixed steps (--steps, over --h or the span) */
	if (!opts->tol_given || (opts->m_given && opts->K_given && opts->h_given) ||
	    (opts->scheme_given && picard_scheme_of(opts->scheme)->lobatto_grid && opts->m_given &&
	     opts->window_given) ||
	    (opts->scheme_given && picard_scheme_of(opts->scheme)->tableau && opts->K_given))
		return 0;
	err = tuning_key_init(&tk, opts->model, opts->precision, opts->backend,
			      opts->tol, opts->rtol, opts->t0, opts->t1, ensemble_id, ntraj);
	if (err) {
		cli_library_error(err);
		if (err == PICARD_ENODEV)
			cli_hint("--backend cpu runs on the host");
		return err;
	}
	err = picard_tune_cache_path(path, sizeof(path));
	if (!err)
		err = picard_tune_cache_load(&tk.key, &point);
	if (!err && ((scheme_settled(opts, &scheme) && point.scheme != scheme) ||
		     (opts->spans && !picard_scheme_of(point.scheme)->per_member_spans)))
		err = PICARD_ENOTFOUND; /* the cached entry is another scheme's */
	if (!err) {
		snprintf(source, sizeof(source), "the tuning cache (%s)", path);
		apply_point(opts, &point, source);
		return 0;
	}
	if (err != PICARD_ENOTFOUND)
		cli_warning("tuning cache not read: %s: %s", picard_strerror(err),
			    picard_error_detail());
	/* the same command's quick search decided before: its decision */
	decision_key(key, opts, &tk, ntraj);
	if (decision_load(key, &decision) == 0)
		return reuse_decision(opts, key, &decision);
	fflush(stdout);
	return quick_search(opts, &tk, ntraj, x0, params, key);
}
