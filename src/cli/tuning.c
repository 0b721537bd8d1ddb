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

#include "diag.h"
#include "errors.h"
#include "parse.h"
#include "picard_choose.h"
#include "progress.h"
#include "scheme.h"
#include "tuning.h"

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

/* The parameters line of a chosen point p, applied to opts: the values in
 * use, where they come from, and which were given. */
static void print_parameters(const struct run_options *opts, const picard_tune_point *p,
			     const char *source)
{
	const picard_scheme_type *type = picard_scheme_of(p->scheme);
	char given[32] = "";
	size_t used = 0;

	if (type->tableau) {
		if (p->iter_rtol > 0)
			printf("%-12s %s adaptive, local tolerance %.2g, output every %.6g, from %s\n",
			       "parameters", type->name, opts->iter_rtol, opts->h, source);
		else
			printf("%-12s %s fixed step h=%.6g, %d per output interval, from %s\n",
			       "parameters", type->name, opts->h / opts->K, opts->K, source);
		return;
	}
	if (type->lobatto_grid && type->takes_block) {
		printf("%-12s %s m=%d window=%.6g iter-rtol=%.2g K<=%d block=%d, from %s\n",
		       "parameters", type->name, opts->m, opts->window, opts->iter_rtol,
		       opts->K_max, opts->block, source);
		return;
	}
	if (type->lobatto_grid) {
		printf("%-12s lobatto m=%d window=%.6g iter-rtol=%.2g K<=%d, warm start%s%s", "parameters",
		       opts->m, opts->window, opts->iter_rtol, opts->K_max,
		       p->layout != PICARD_LAYOUT_AUTO ? ", layout=" : "",
		       p->layout != PICARD_LAYOUT_AUTO ? picard_layout_name(p->layout) : "");
		if (opts->block > 1)
			printf(", %d windows in flight", opts->block);
		printf(", from %s\n", source);
		return;
	}
	if (opts->m_given)
		used += snprintf(given + used, sizeof(given) - used, "%s--m", used ? ", " : "");
	if (opts->K_given)
		used += snprintf(given + used, sizeof(given) - used, "%s--K", used ? ", " : "");
	if (opts->h_given)
		snprintf(given + used, sizeof(given) - used, "%s--h", used ? ", " : "");
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

/* picard_choose's warnings, as picard-run's. */
static void on_warning(const char *text, void *ctx)
{
	(void)ctx;
	cli_warning("%s", text);
}

/* The quick search starts: its candidates counted for the progress bar. */
static void on_search(int candidates, void *ctx)
{
	((struct tuning_progress *)ctx)->candidates = candidates;
}

/* What picard-run says of its choice: the parameters line, and for a
 * search the schemes that ran, the costs and the full search's command;
 * the closest point, that each member is judged. */
static void print_choice(const struct run_options *opts, const picard_choose_report *r,
			 const char *source)
{
	if (r->closest)
		printf("%-12s quick search (%s): no configuration meets the tolerance on every "
		       "sampled member; the closest (%ld meet it, %.3g x tol at worst) runs and "
		       "each member is judged\n", "search", r->source == PICARD_CHOICE_DECISION ?
		       "its decision reused" : r->names, r->point.sample_meeting,
		       r->point.scaled_error);
	print_parameters(opts, &r->point, source);
	if (r->closest || r->source == PICARD_CHOICE_CACHE)
		return;
	if (r->source == PICARD_CHOICE_SEARCH) {
		if (!r->settled)
			printf("%-12s %s ran; each scheme's least predicted time on %ld trajectories: "
			       "%s\n", "schemes", picard_scheme_of(r->point.scheme)->name,
			       r->costed_traj, r->times);
		tuning_print_costs(&r->result);
	}
	print_full_search(opts);
}

/* What picard_choose may not change: the run's flags, as fixed options. */
static picard_choose_request choose_request(const struct run_options *opts, long ntraj,
					    const double *x0, const double *params,
					    const char *ensemble_id)
{
	return (picard_choose_request){
		.x0 = x0, .params = params, .ntraj = ntraj, .ensemble_id = ensemble_id,
		.spread = opts->spread, .seed = opts->seed,
		.precision = opts->precision, .backend = opts->backend,
		.t0 = opts->t0, .t1 = opts->t1, .spans = opts->spans,
		.tol = opts->tol, .rtol = opts->rtol,
		.scheme_fixed = opts->scheme_given, .layout_fixed = opts->layout_given,
		.fixed = {
			.scheme = opts->scheme, .m = opts->m_given ? opts->m : 0,
			.K = opts->K_given ? opts->K : 0, .h = opts->h_given ? opts->h : 0,
			.window = opts->window_given ? opts->window : 0, .K_max = opts->K_max,
			.iter_rtol = opts->iter_rtol, .block = opts->block,
			.warm_start = opts->warm_start, .layout = opts->layout,
			.traj_per_block = opts->traj_per_block, .max_work = opts->max_work,
		},
		.on_point = tuning_on_point, .on_candidate = tuning_on_candidate,
		.on_skipped = tuning_on_skipped, .on_warning = on_warning,
		.on_search = on_search,
	};
}

/* The chosen options into the run's: what picard_choose_apply sets. */
static void take_chosen(struct run_options *opts, const picard_options *chosen, bool closest)
{
	opts->tuned = true;
	opts->tuned_closest = closest;
	opts->scheme = chosen->scheme;
	opts->m = chosen->m;
	opts->K = chosen->K;
	opts->K_max = chosen->K_max;
	if (chosen->h > 0)
		opts->h = chosen->h;
	if (chosen->window > 0)
		opts->window = chosen->window;
	opts->iter_rtol = chosen->iter_rtol;
	opts->block = chosen->block;
	opts->warm_start = chosen->warm_start;
	opts->layout = chosen->layout;
	opts->traj_per_block = chosen->traj_per_block;
	opts->max_work = chosen->max_work;
}

/* Where the chosen point came from, in the parameters line's words. */
static void describe_source(const picard_choose_report *r, char *source, size_t len)
{
	char kept[4300];

	if (r->source == PICARD_CHOICE_SEARCH)
		snprintf(kept, sizeof(kept), r->where[0] ? "kept in %s" : "not kept", r->where);
	if (r->source == PICARD_CHOICE_CACHE)
		snprintf(source, len, "the tuning cache (%s)", r->where);
	else if (r->source == PICARD_CHOICE_DECISION)
		snprintf(source, len, "%sa quick search's decision reused from %s (stored %s; "
			 "that search: %s)", r->closest ? "the closest point of " : "", r->where,
			 r->date, r->search);
	else if (r->closest)
		snprintf(source, len, "the closest point of a quick search on this ensemble (%s; "
			 "%s)", r->search, kept);
	else
		snprintf(source, len, "a quick search on this ensemble (%s; %s)", r->search, kept);
}

int tuning_for_run(struct run_options *opts, long ntraj, const double *x0,
		   const double *params, const char *ensemble_id)
{
	struct tuning_progress progress;
	picard_choose_request request = choose_request(opts, ntraj, x0, params, ensemble_id);
	picard_choose_report *report;
	picard_options chosen;
	char source[5600];
	int err;

	if (!opts->tol_given)
		return 0;
	report = malloc(sizeof(*report)); /* a search's outcome: large */
	if (!report)
		return cli_library_error(picard_fail(PICARD_ENOMEM, "no memory for the tuning report"));
	tuning_progress_init(&progress, NULL);
	request.ctx = &progress;
	fflush(stdout);
	err = picard_choose(opts->model, &request, &chosen, report);
	tuning_progress_done(&progress);
	if (err == PICARD_ENOTFOUND) {
		err = tuning_report_not_found(&report->result, opts->tol, opts->precision, true);
	} else if (err) {
		cli_library_error(err);
		if (err == PICARD_ENODEV)
			cli_hint("--backend cpu runs on the host");
	} else if (report->source != PICARD_CHOICE_GIVEN) {
		take_chosen(opts, &chosen, report->closest);
		describe_source(report, source, sizeof(source));
		print_choice(opts, report, source);
	}
	free(report);
	return err;
}
