/* picard_tune.c - picard-tune MODEL --tol E [options]: find the fastest
 * configuration whose error E against GSL's rk8pd meets E* (picard_tune),
 * the brute-force search behind the paper's Table 1 done by a search on h:
 * first every candidate of picard-run's quick search (candidates.h), then
 * its scheme wider (m up to 256, K up to 9), within --budget seconds; print
 * one row per scheme and m and the winner, and store the winner in the
 * tuning cache, where picard-run --tol finds it. MODEL is a shipped
 * model's name or a model file, as picard-run's.
 *
 * Exit status (diag.h): 0 found (and stored); 1 no configuration meets E*
 * (within the budget), a library error, or the cache or --csv file not
 * written; 2 bad command line, nothing searched.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "candidates.h"
#include "diag.h"
#include "options/defaults.h"
#include "options/validate.h"
#include "parse.h"
#include "scheme.h"
#include "tuning.h"

#define TRAJ_MAX (1L << 40)     /* as picard-run --traj */
#define M_MAX (1 << 20)         /* as picard-run --m */
#define KMAX_MAX 1000
#define REPEATS_MAX 1000
#define BUDGET_DEFAULT 60.0     /* --budget: seconds of search */

/* What picard-tune was asked to do; 0 in a numeric field means
 * picard_tune's default. */
struct tune_cli_options {
	const char *model_name;      /* MODEL: a name, or a model file's path */
	const picard_model *model;   /* that model */
	double tol;                  /* --tol E*: required */
	double rtol;                 /* --rtol R: a relative part (0: none) */
	bool tol_given;              /* --tol was on the command line */
	picard_scheme scheme;        /* --scheme */
	bool scheme_given;           /* --scheme was given */
	picard_precision precision;  /* --precision */
	bool precision_given;        /* --precision was given */
	picard_backend backend;      /* --backend */
	long traj;                   /* --traj: timed ensemble (8192) */
	long sample;                 /* --sample: trajectories measured (32) */
	int kmax;                    /* --kmax: K = 1..kmax (9) */
	double budget;               /* --budget: seconds of search (60) */
	int nms;                     /* --m: number of m candidates, 0: default */
	int ms[PICARD_TUNE_MAX_M];   /* --m: the candidates */
	double t0, t1;               /* --t0, --t1: span (model's if absent) */
	bool t0_given, t1_given;     /* --t0 / --t1 were given */
	double spread;               /* --spread (0.1) */
	bool spread_given;           /* --spread was given (0 means 0) */
	unsigned long long seed;     /* --seed (1) */
	int repeats;                 /* --repeats: timed solves, median (5) */
	long max_windows;            /* --max-windows: smallest h (100000) */
	const char *csv_path;        /* --csv FILE, or NULL */
	bool no_cache;               /* --no-cache: do not store the winner */
	bool help;                   /* --help / -h */
	bool list_schemes;           /* --list-schemes */
};

/* ---- setters, one per flag ------------------------------------------------- */

static int set_tol(void *ctx, const char *flag, const char *value)
{
	struct tune_cli_options *opts = ctx;

	opts->tol_given = true;
	return parse_positive(flag, value, &opts->tol);
}

static int set_rtol(void *ctx, const char *flag, const char *value)
{
	return parse_positive(flag, value, &((struct tune_cli_options *)ctx)->rtol);
}

static int set_precision(void *ctx, const char *flag, const char *value)
{
	struct tune_cli_options *opts = ctx;

	opts->precision_given = true;
	return parse_precision(flag, value, &opts->precision);
}

static int set_backend(void *ctx, const char *flag, const char *value)
{
	struct tune_cli_options *opts = ctx;

	return parse_backend(flag, value, &opts->backend);
}

static int set_traj(void *ctx, const char *flag, const char *value)
{
	struct tune_cli_options *opts = ctx;

	return parse_long(flag, value, 1, TRAJ_MAX, &opts->traj);
}

static int set_sample(void *ctx, const char *flag, const char *value)
{
	struct tune_cli_options *opts = ctx;

	return parse_long(flag, value, 1, TRAJ_MAX, &opts->sample);
}

static int set_scheme(void *ctx, const char *flag, const char *value)
{
	struct tune_cli_options *opts = ctx;

	opts->scheme_given = true;
	return cli_parse_scheme(flag, value, &opts->scheme);
}

static int set_kmax(void *ctx, const char *flag, const char *value)
{
	struct tune_cli_options *opts = ctx;
	long kmax = 0;
	int err = parse_long(flag, value, 1, KMAX_MAX, &kmax);

	opts->kmax = (int)kmax;
	return err;
}

static int set_budget(void *ctx, const char *flag, const char *value)
{
	return parse_positive(flag, value, &((struct tune_cli_options *)ctx)->budget);
}

static int set_m(void *ctx, const char *flag, const char *value)
{
	struct tune_cli_options *opts = ctx;

	return parse_int_list(flag, value, 2, M_MAX, opts->ms, PICARD_TUNE_MAX_M, &opts->nms);
}

static int set_t0(void *ctx, const char *flag, const char *value)
{
	struct tune_cli_options *opts = ctx;

	opts->t0_given = true;
	return parse_double(flag, value, &opts->t0);
}

static int set_t1(void *ctx, const char *flag, const char *value)
{
	struct tune_cli_options *opts = ctx;

	opts->t1_given = true;
	return parse_double(flag, value, &opts->t1);
}

static int set_spread(void *ctx, const char *flag, const char *value)
{
	struct tune_cli_options *opts = ctx;
	int err = parse_double(flag, value, &opts->spread);

	opts->spread_given = true;
	if (!err && opts->spread < 0)
		return cli_error(CLI_EUSAGE, "%s %s: must be >= 0", flag, value);
	return err;
}

/* picard_tune reads seed 0 as its default (1), so 0 cannot be asked for. */
static int set_seed(void *ctx, const char *flag, const char *value)
{
	struct tune_cli_options *opts = ctx;
	int err = parse_seed(flag, value, &opts->seed);

	if (!err && opts->seed == 0)
		return cli_error(CLI_EUSAGE, "%s 0: must be at least 1", flag);
	return err;
}

static int set_repeats(void *ctx, const char *flag, const char *value)
{
	struct tune_cli_options *opts = ctx;
	long repeats = 0;
	int err = parse_long(flag, value, 1, REPEATS_MAX, &repeats);

	opts->repeats = (int)repeats;
	return err;
}

static int set_max_windows(void *ctx, const char *flag, const char *value)
{
	struct tune_cli_options *opts = ctx;

	return parse_long(flag, value, 1, 1000000000L, &opts->max_windows);
}

static int set_csv(void *ctx, const char *flag, const char *value)
{
	struct tune_cli_options *opts = ctx;

	return parse_path(flag, value, &opts->csv_path);
}

static int set_no_cache(void *ctx, const char *flag, const char *value)
{
	struct tune_cli_options *opts = ctx;

	(void)flag;
	(void)value;
	opts->no_cache = true;
	return 0;
}

static int set_list_schemes(void *ctx, const char *flag, const char *value)
{
	struct tune_cli_options *opts = ctx;

	(void)flag;
	(void)value;
	opts->list_schemes = true;
	return 0;
}

static int set_help(void *ctx, const char *flag, const char *value)
{
	struct tune_cli_options *opts = ctx;

	(void)flag;
	(void)value;
	opts->help = true;
	return 0;
}

static const struct cli_flag flags[] = {
	{"--tol", "E", set_tol, "the error bound E*, > 0 (required): E = max |x - x_rk8pd| at every window end; at least 1.1e-14 (double), 2.4e-7 (float) times the largest |x0|"},
	{"--rtol", "R", set_rtol, "with --tol as the absolute part: |x_k - x_rk8pd_k| <= E + R |x_rk8pd_k| per component (default 0)"},
	{"--precision", "P", set_precision, CLI_PRECISION_HELP},
	{"--backend", "B", set_backend, "auto, cuda or cpu: where to solve and time (default auto)"},
	{"--traj", "N", set_traj, "trajectories of the ensemble tuned for, as picard-run --traj (default 8192); on the CPU backend at most 1024 of them are costed, as picard-run's quick search"},
	{"--sample", "N", set_sample, "trajectories whose E is measured: those holding each component's smallest and largest start, then evenly spaced, as picard-run's quick search (default 32)"},
	{"--scheme", "S", set_scheme, "search this scheme alone: trapezoid (m, K, h), lobatto (m, window, iteration tolerance), newton and newton-radau (m, window, block), dp5, dp8, vern9, radau5, rodas5p, rodas4 or ros23 (fixed step h, or adaptive local tolerances); --list-schemes says more. Default: every scheme picard-run's quick search tries, then the model's default scheme wider (trapezoid; a stiff or PDE model's own, as picard-run)"},
	{"--kmax", "K", set_kmax, "trapezoid: sweeps per window tried, K = 1..K (default 9); given, the scheme alone is searched, with these candidates"},
	{"--m", "LIST", set_m, "nodes per window tried, e.g. 4,8,16 (default 4,8,...,256 as the device fits); given, the scheme alone is searched, with these candidates"},
	{"--budget", "S", set_budget, "seconds of search, > 0 (default 60): past them no further point is tried, and the fastest configuration found so far is stored (the quick search's candidates come first)"},
	{"--t0", "T", set_t0, "start time (default: the model's)"},
	{"--t1", "T", set_t1, "end time, > t0 (default: the model's)"},
	{"--spread", "S", set_spread, "initial states x0*(1 + S*(2u-1)) as picard-run (default 0.1)"},
	{"--seed", "N", set_seed, "seed of the ensemble, >= 1 (default 1)"},
	{"--repeats", "R", set_repeats, "timed solves of each cost per evaluation (once per scheme, m and layout, then cached), median after a warm-up (default 5)"},
	{"--max-windows", "W", set_max_windows, "smallest h tried: (t1-t0)/((m-1) W) (default 100000)"},
	{"--csv", "FILE", set_csv, "write every evaluated point: m,K,h,windows,E,seconds,meets,scheme"},
	{"--no-cache", NULL, set_no_cache, "leave the tuning cache alone: the winner not stored, the costs per evaluation timed afresh and not kept"},
	{"--list-schemes", NULL, set_list_schemes, "list the schemes, their orders and options, and exit"},
	{"--help", NULL, set_help, "this text (also -h)"},
};

#define NFLAGS (sizeof(flags) / sizeof(flags[0]))

static void usage(FILE *f)
{
	char path[4096];

	fprintf(f, "usage: picard-tune MODEL --tol E [options]\n\n"
		   "MODEL is a shipped model's name or a model file (PATH/NAME.cu), as for\n"
		   "picard-run. Find the fastest configuration whose error E against GSL\n"
		   "rk8pd, on a sample of the ensemble at every window end, is at most E*:\n"
		   "first every candidate picard-run's quick search tries (each scheme that\n"
		   "suits the model, m up to 32, K up to 4), then the model's default scheme\n"
		   "wider (trapezoid: m up to 256, K up to 9), within --budget seconds; for\n"
		   "each scheme, m and K the largest h meeting E* (a search on log h, its\n"
		   "neighbours confirmed). A point's time on the ensemble is predicted, so\n"
		   "the same command picks the same point: its counted right-hand side\n"
		   "evaluations times a cost per evaluation, timed once per scheme, m and\n"
		   "layout and kept in the tuning cache. The quick search's candidates come\n"
		   "first and a later one wins only when predicted faster, so the stored\n"
		   "configuration is never predicted slower than picard-run's own pick.\n"
		   "The winner is stored in the tuning cache for picard-run MODEL --tol E.\n"
		   "Progress: a line per scheme and m on stderr, or one updating line on a\n"
		   "terminal.\n\n"
		   "options (--flag VALUE or --flag=VALUE):\n");
	cli_print_flags(f, flags, NFLAGS);
	if (picard_tune_cache_path(path, sizeof(path)))
		snprintf(path, sizeof(path), "(none: set PICARD_CACHE_DIR)");
	fprintf(f, "\ntuning cache: %s\n"
		   "  ($PICARD_CACHE_DIR/tune.txt, else $XDG_CACHE_HOME/picard/tune.txt, else\n"
		   "  ~/.cache/picard/tune.txt), one line per model (a model file's keyed by\n"
		   "  its text), precision, E*, time span, device and build of picard.\n"
		   "\nexit status: 0 found and stored (also when --budget ran out first); 1 no\n"
		   "configuration meets E* (within the budget), a library error, or the cache\n"
		   "or --csv not written; 2 bad command line.\n", path);
}

/* ---- the command line ----------------------------------------------------------- */

static int set_model_name(void *ctx, const char *arg)
{
	struct tune_cli_options *opts = ctx;

	if (opts->model_name)
		return cli_error(CLI_EUSAGE, "unexpected argument '%s': MODEL is already '%s'",
				 arg, opts->model_name);
	opts->model_name = arg;
	return 0;
}

/* --m's candidates against the scheme's nodes: a bad command line, seen
 * before the --csv file is made or the search starts (picard_tune would
 * refuse it only then, as a library error). */
static int check_m_candidates(const struct tune_cli_options *opts)
{
	const picard_scheme_type *type = picard_scheme_of(opts->scheme);

	/* max_m 0: the scheme sets no limit of its own (trapezoid, imex) */
	for (int i = 0; type->max_m > 0 && i < opts->nms; i++)
		if (opts->ms[i] > type->max_m)
			return cli_error(CLI_EUSAGE, "--m %d: the %s scheme takes at most %d nodes",
					 opts->ms[i], type->name, type->max_m);
	return 0;
}

/* The command line in picard-run's order (options.c): the flags read,
 * MODEL found, the defaults picard-run shares (options/defaults.h), then
 * the checks. */
static int parse_options(int argc, char **argv, struct tune_cli_options *opts)
{
	static const struct cli_command command = {
		.program = "picard-tune", .flags = flags, .nflags = NFLAGS,
		.positional = set_model_name,
	};
	int err;

	memset(opts, 0, sizeof(*opts));
	opts->precision = PICARD_FLOAT;
	opts->backend = PICARD_BACKEND_AUTO;
	opts->budget = BUDGET_DEFAULT;
	err = cli_parse_args(&command, argc, argv, opts, &opts->help);
	if (err || opts->help || opts->list_schemes)
		return err;
	err = cli_find_model(opts->model_name, &opts->model);
	if (err)
		return err;
	cli_default_scheme_precision(opts->model, opts->scheme_given, &opts->scheme,
				     opts->precision_given, &opts->precision);
	cli_default_span(opts->model, opts->t0_given, &opts->t0, opts->t1_given, &opts->t1);
	if (!opts->tol_given)
		return cli_error(CLI_EUSAGE, "--tol E: the error bound is required");
	err = check_m_candidates(opts);
	if (err)
		return err;
	return cli_check_span(opts->model, opts->t0_given, opts->t0, opts->t1_given, opts->t1);
}

/* ---- the search ---------------------------------------------------------------- */

/* One search: options, what it found, and the reporting. */
struct tune_run {
	struct tune_cli_options opts;  /* the command line */
	struct tuning_key key;         /* cache key, resolved backend, device */
	long traj;                     /* the ensemble tuned for (--traj) */
	double *x0;                    /* its traj initial states */
	char ensemble[32];             /* its identity in the cache key */
	struct candidate list[CANDIDATES_MAX]; /* what is searched */
	int nlist;                     /* entries of list */
	struct candidate_search search; /* the search's options and findings */
	struct tuning_progress progress; /* CSV, stderr lines, terminal line */
	FILE *csv;                     /* --csv file, or NULL */
};

/* The ensemble tuned for, as picard-run --traj N --spread S --seed N makes
 * it: picard-run's quick search and this search then sample and cost the
 * same trajectories. Its identity as picard-run names it: "default" at
 * the default spread and seed, else a hash of its states, so that the
 * entry serves that command's ensemble and no other. */
static int make_ensemble(struct tune_run *run)
{
	const struct tune_cli_options *opts = &run->opts;
	const double spread = opts->spread_given ? opts->spread : RUN_DEFAULT_SPREAD;
	const unsigned long long seed = opts->seed ? opts->seed : RUN_DEFAULT_SEED;
	int err;

	run->traj = opts->traj ? opts->traj : RUN_DEFAULT_TRAJ;
	run->x0 = malloc((size_t)run->traj * opts->model->dim * sizeof(double));
	if (!run->x0)
		return cli_error(PICARD_ENOMEM, "--traj %ld: out of memory", run->traj);
	err = picard_ensemble_model(opts->model, run->traj, spread, NULL, seed, opts->backend,
				    run->x0, NULL);
	if (err)
		return cli_library_error(err);
	tuning_ensemble_id(opts->model, true, spread, seed, run->x0, NULL, run->traj,
			   run->ensemble, sizeof(run->ensemble));
	return 0;
}

/* The list searched and the library's options from the command line (0:
 * picard_tune's default). */
static void make_search(struct tune_run *run)
{
	const struct tune_cli_options *opts = &run->opts;
	struct candidate_request request = {
		.settled = opts->scheme_given, .scheme = opts->scheme, .wide = true,
		/* --m, --kmax: those candidates of the scheme, nothing else */
		.wide_only = opts->nms > 0 || opts->kmax > 0,
		.wide_nms = opts->nms, .wide_kmax = opts->kmax,
	};

	memcpy(request.wide_ms, opts->ms, sizeof(request.wide_ms));
	run->nlist = candidates_list(opts->model, &request, run->list);
	run->search = (struct candidate_search){
		.model = opts->model, .budget = opts->budget, .on_skipped = tuning_on_skipped,
		.tune = {
			.tol = opts->tol, .rtol = opts->rtol, .precision = opts->precision,
			.backend = run->key.backend, .t0 = opts->t0, .t1 = opts->t1,
			.ntraj = candidates_costed_traj(run->key.backend, run->traj),
			.sample = opts->sample, .repeats = opts->repeats,
			.max_windows = opts->max_windows,
			.x0 = run->x0, .nstates = run->traj,
			.on_point = tuning_on_point, .on_candidate = tuning_on_candidate,
			.ctx = &run->progress,
			/* --no-cache leaves the cache alone: costs timed afresh */
			.cost_key = opts->no_cache ? NULL : &run->key.key,
		},
	};
}

/* One entry's candidates, as "dp8 m in {2}, K = 1..4". */
static void print_entry(const struct candidate *entry)
{
	printf("%s m in {", entry->type->name);
	for (int i = 0; i < entry->nms; i++)
		printf("%s%d", i ? ", " : "", entry->ms[i]);
	if (entry->type->tune_summary)
		printf("}, %s", entry->type->tune_summary);
	else
		printf("}, K = 1..%d", entry->kmax ? entry->kmax : 9);
}

/* What is searched, before the search starts. */
static void print_header(const struct tune_run *run)
{
	const struct tune_cli_options *opts = &run->opts;
	const picard_tune_options *tune = &run->search.tune;
	long sample = opts->sample ? opts->sample : 32;

	printf("%-12s %s (n=%d), %s, E* = %g, t in [%g, %g]\n", "picard-tune",
	       opts->model_name, opts->model->dim, tuning_precision_name(opts->precision),
	       opts->tol, opts->t0, opts->t1);
	printf("%-12s %s: %s\n", "backend", tuning_backend_name(run->key.backend), run->key.device);
	for (int i = 0; i < run->nlist; i++) {
		printf("%-12s ", i == 0 ? "search" : "");
		print_entry(&run->list[i]);
		printf("%s\n", run->list[i].wide ? " (wider)" : "");
	}
	printf("%-12s %ld trajectories sampled, %ld of %ld costed (costs timed: fastest of %d); "
	       "budget %g s\n", "", sample < run->traj ? sample : run->traj, tune->ntraj,
	       run->traj, opts->repeats ? opts->repeats : 5, opts->budget);
	fflush(stdout);
}

/* A newton point's block, as text ("" for the other schemes). */
static const char *block_text(const picard_tune_point *p)
{
	static char text[32];

	if (!p->block)
		return "";
	snprintf(text, sizeof(text), " block=%d", p->block);
	return text;
}

/* One row per scheme and m tried: its fastest point meeting E*, or none. */
static void print_table(const struct tune_run *run)
{
	const struct candidate_search *search = &run->search;

	printf("\n%6s %4s %14s %9s %10s %10s  %s\n", "m", "K", "h", "windows", "E", "pred. ms",
	       "scheme");
	for (int i = 0; i < search->nrows; i++) {
		const picard_tune_point *p = &search->rows[i];
		const picard_scheme_type *type = picard_scheme_of(p->scheme);

		if (p->meets && type->lobatto_grid)
			printf("%6d %4s %14.6g %9ld %10.3g %10.4g  %s, window %.4g, iter-rtol %.2g%s\n",
			       p->m, "ad.", p->h, p->windows, p->error, p->seconds * 1e3,
			       type->name, (p->m - 1) * p->h, p->iter_rtol, block_text(p));
		else if (p->meets)
			printf("%6d %4d %14.6g %9ld %10.3g %10.4g  %s%s%s\n", p->m, p->K, p->h,
			       p->windows, p->error, p->seconds * 1e3, type->name,
			       p->layout != PICARD_LAYOUT_AUTO ? ", " : "",
			       p->layout != PICARD_LAYOUT_AUTO ? picard_layout_name(p->layout) : "");
		else
			printf("%6d %4s %14s %9s %10s %10s  %s: none meets E* or beats the fastest\n",
			       p->m, "-", "-", "-", "-", "-", type->name);
	}
	putchar('\n');
}

/* The winner and the search's cost. */
static void print_best(const struct tune_run *run)
{
	const picard_tune_point *best = &run->search.result.best;
	const long costed = run->search.tune.ntraj;

	if (picard_scheme_of(best->scheme)->lobatto_grid)
		printf("%-12s %s m=%d window=%.6g iter-rtol=%.2g%s (%ld window%s): E = %.3g, "
		       "%.4g ms predicted for %ld trajectories", "best",
		       picard_scheme_of(best->scheme)->name,
		       best->m, (best->m - 1) * best->h, best->iter_rtol, block_text(best),
		       best->windows, best->windows == 1 ? "" : "s", best->error,
		       best->seconds * 1e3, costed);
	else
		printf("%-12s m=%d K=%d h=%.6g (%ld window%s): E = %.3g, %.4g ms predicted for %ld "
		       "trajectories, %s",
		       "best", best->m, best->K, best->h, best->windows, best->windows == 1 ? "" : "s",
		       best->error, best->seconds * 1e3, costed, picard_scheme_of(best->scheme)->name);
	if (best->layout != PICARD_LAYOUT_AUTO)
		printf(", %s layout (%d per block)", picard_layout_name(best->layout),
		       best->traj_per_block);
	printf("\n");
}

/* The entries of the quick search's in the list (the wider one is last). */
static int quick_entries(const struct tune_run *run)
{
	int n = 0;

	for (int i = 0; i < run->nlist; i++)
		n += !run->list[i].wide;
	return n;
}

static void print_cost(const struct tune_run *run)
{
	const struct candidate_search *search = &run->search;

	printf("%-12s %ld points in %.3g s", "searched", search->result.points, search->seconds);
	if (search->result.points)
		printf("; reference error %.2g (the floor of measurable E)",
		       search->result.reference_error);
	printf("\n");
	if (search->stopped) {
		printf("%-12s %g s ran out with %d of the %d entries above searched whole%s\n",
		       "budget", run->opts.budget, search->finished, run->nlist,
		       search->result.best.meets ? ": the fastest configuration found so far wins" :
		       "");
		if (search->result.best.meets && search->finished < quick_entries(run))
			printf("%-12s not every candidate of picard-run's quick search was searched: "
			       "a larger --budget may find a faster one\n", "");
	}
	if (search->result.best.meets && search->times[0])
		printf("%-12s least predicted time of each: %s\n", "schemes", search->times);
	tuning_print_costs(&search->result);
}

/* The picard-run command line that finds the entry stored. */
static void print_run_command(const struct tune_run *run)
{
	const struct tune_cli_options *opts = &run->opts;
	const struct tuning_command command = {
		.model_arg = opts->model_name, .tol = opts->tol, .rtol = opts->rtol,
		.scheme_given = opts->scheme_given, .scheme = opts->scheme,
		.precision = opts->precision, .backend = opts->backend, .traj = opts->traj,
		.t0_given = opts->t0_given, .t0 = opts->t0, .t1_given = opts->t1_given, .t1 = opts->t1,
		.spread = opts->spread_given ? opts->spread : RUN_DEFAULT_SPREAD, .seed = opts->seed,
	};

	printf("%-12s ", "");
	tuning_print_command("picard-run", &command);
	printf(" uses it\n");
}

/* Store the winner; say where (or why not). */
static int store(const struct tune_run *run)
{
	const picard_tune_point *best = &run->search.result.best;
	picard_tune_point cached;
	char path[4096];
	int err;

	if (run->opts.no_cache) {
		printf("%-12s not stored (--no-cache)\n", "cache");
		return 0;
	}
	err = picard_tune_cache_path(path, sizeof(path));
	/* one entry per key: the other scheme's, when it is faster, stays */
	if (!err && picard_tune_cache_load(&run->key.key, &cached) == 0 &&
	    cached.scheme != best->scheme && cached.seconds < best->seconds) {
		printf("%-12s kept the %s entry of %s (%.4g ms predicted, faster)\n", "cache",
		       picard_scheme_of(cached.scheme)->name, path,
		       cached.seconds * 1e3);
		return 0;
	}
	if (!err)
		err = picard_tune_cache_store(&run->key.key, best);
	if (err) {
		cli_library_error(err);
		cli_hint("PICARD_CACHE_DIR=DIR names a writable directory for the cache");
		return err;
	}
	printf("%-12s stored in %s\n", "cache", path);
	print_run_command(run);
	return 0;
}

/* Close the CSV; EIO after a message when a row was lost. */
static int close_csv(struct tune_run *run)
{
	int failed;

	if (!run->csv)
		return 0;
	failed = run->progress.csv_failed | (fclose(run->csv) != 0);
	run->csv = NULL;
	if (failed)
		return cli_error(PICARD_EIO, "--csv %s: write failed", run->opts.csv_path);
	printf("%-12s %s\n", "csv", run->opts.csv_path);
	return 0;
}

/* Key, ensemble, CSV, search; 0 or the error that stopped it (reported). */
static int search(struct tune_run *run)
{
	int err = make_ensemble(run);
	double scale = 0;

	if (err)
		return err;
	/* --tol beyond float's reach: double, as picard-run decides */
	scale = cli_largest_abs(run->x0, run->traj * run->opts.model->dim);
	if (!run->opts.precision_given && run->opts.precision == PICARD_FLOAT &&
	    cli_tolerance_wants_double(run->opts.tol, run->opts.rtol, scale))
		run->opts.precision = PICARD_DOUBLE;
	err = tuning_key_init(&run->key, run->opts.model, run->opts.precision,
			      run->opts.backend, run->opts.tol, run->opts.rtol, run->opts.t0,
			      run->opts.t1, run->ensemble, run->traj);
	if (err) {
		cli_library_error(err);
		if (err == PICARD_ENODEV)
			cli_hint("--backend cpu runs on the host");
		return err;
	}
	if (run->opts.csv_path) {
		run->csv = fopen(run->opts.csv_path, "w");
		if (!run->csv)
			return cli_error(CLI_EUSAGE, "--csv %s: cannot create: %s",
					 run->opts.csv_path, strerror(errno));
	}
	make_search(run);
	tuning_progress_init(&run->progress, run->csv);
	run->progress.label = "picard-tune";
	run->progress.candidates = candidates_count(run->list, run->nlist);
	print_header(run);
	err = candidates_search(&run->search, run->list, run->nlist);
	tuning_progress_done(&run->progress);
	if (err == PICARD_EACCURACY && run->opts.rtol > 0)
		return cli_error(CLI_EUSAGE, "--tol %g --rtol %g: %s", run->opts.tol, run->opts.rtol,
				 picard_error_detail());
	if (err == PICARD_EACCURACY)
		return cli_error(CLI_EUSAGE, "--tol %g: %s", run->opts.tol, picard_error_detail());
	if (err && err != PICARD_ENOTFOUND)
		return cli_library_error(err);
	return err;
}

/* Nothing met E*: why, and exit 1. */
static int not_found(struct tune_run *run)
{
	print_cost(run);
	close_csv(run);
	if (run->search.stopped) {
		char best[64] = "";

		if (isfinite(run->search.result.best_error))
			snprintf(best, sizeof(best), " (the best E was %.3g)",
				 run->search.result.best_error);
		cli_error(PICARD_ENOTFOUND, "--budget %g: the search ran out of time before any "
			  "configuration met E* = %g%s; nothing stored", run->opts.budget,
			  run->opts.tol, best);
		cli_hint("a larger --budget searches further");
		return CLI_EXIT_FAILED;
	}
	tuning_report_not_found(&run->search.result, run->opts.tol, run->opts.precision, false);
	return CLI_EXIT_FAILED;
}

static int tune_main(struct tune_run *run)
{
	int err = search(run), status = CLI_EXIT_OK;

	if (err && err != PICARD_ENOTFOUND) {
		if (run->csv)
			fclose(run->csv);
		/* refused before any work: no --csv file either */
		if (run->csv && err == CLI_EUSAGE)
			remove(run->opts.csv_path);
		return err == CLI_EUSAGE ? CLI_EXIT_USAGE : CLI_EXIT_FAILED;
	}
	if (run->search.nrows)
		print_table(run);
	if (err == PICARD_ENOTFOUND)
		return not_found(run);
	print_best(run);
	print_cost(run);
	if (close_csv(run))
		status = CLI_EXIT_FAILED;
	if (store(run))
		status = CLI_EXIT_FAILED;
	return status;
}

int main(int argc, char **argv)
{
	static struct tune_run run; /* its search's table is large */
	int err, status;

	cli_set_program("picard-tune");
	err = parse_options(argc, argv, &run.opts);
	if (err)
		return err == CLI_DONE ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	if (run.opts.help) {
		usage(stdout);
		return CLI_EXIT_OK;
	}
	if (run.opts.list_schemes) {
		cli_list_schemes(stdout);
		return CLI_EXIT_OK;
	}
	status = tune_main(&run);
	free(run.x0);
	return status;
}
