/* tuning.h - what picard-tune and picard-run share about the tolerance
 * search (picard_tune) and its cache: the progress of a search (a CSV row
 * per point, one updating line on a terminal); the report when no
 * configuration meets E*; and what picard-run --tol says of the choice
 * picard_choose makes (include/picard_choose.h). The cache key is
 * src/tune/tune_key.h's.
 */
#ifndef PICARD_CLI_TUNING_H
#define PICARD_CLI_TUNING_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "options.h"
#include "picard.h"
#include "tune_key.h"

/* The ensemble's name in a tuning key, into id: "default" for picard-tune's
 * own (drawn around the model's start, parameters at their defaults, no
 * --init: drawn_plain, at the default spread and seed), else a hash of its
 * states and parameters, so an entry tuned on one ensemble never serves
 * another. picard-run and picard-tune name an ensemble alike. */
void tuning_ensemble_id(const picard_model *model, bool drawn_plain, double spread,
			unsigned long long seed, const double *x0, const double *params,
			long ntraj, char *id, size_t len);

/* What picard_tune's on_point and on_candidate callbacks feed. */
struct tuning_progress {
	FILE *csv;        /* CSV of every point (header written), or NULL */
	bool csv_failed;  /* a row could not be written */
	bool tty;         /* stderr is a terminal: show one updating line */
	int shown;        /* characters of the line on the terminal now */
	long points;      /* points evaluated so far */
	const char *label; /* set: one line per candidate on stderr, starting
			      "label: ", where stderr is no terminal */
	int candidates;   /* (scheme, m) candidates listed (0: not counted) */
	int done;         /* of those, searched */
	struct timespec start; /* when the progress started */
};

/* Start progress reporting (csv: open file or NULL; the header is written
 * here). */
void tuning_progress_init(struct tuning_progress *progress, FILE *csv);
/* The on_point callback: ctx is a struct tuning_progress. */
void tuning_on_point(const picard_tune_point *point, void *ctx);
/* The on_candidate callback: ctx is a struct tuning_progress. */
void tuning_on_candidate(const picard_tune_point *fastest, void *ctx);
/* The progress line of a candidate (scheme, m) not searched, and why;
 * ctx a struct tuning_progress, as tuning_on_candidate's. */
void tuning_on_skipped(const char *scheme, int m, const char *why, void *ctx);
/* Blank the terminal line, if one is shown. */
void tuning_progress_done(struct tuning_progress *progress);

/* Report picard_tune's PICARD_ENOTFOUND: an error line with the best E
 * reached and why it may fall short, a hint; returns PICARD_ENOTFOUND. */
int tuning_report_not_found(const picard_tune_result *result, double tol,
			    picard_precision precision, bool quick);

/* The line that says where the predicted times came from: costs per
 * evaluation timed by this search (and whether kept) or cached; none when
 * nothing met E*. */
void tuning_print_costs(const picard_tune_result *result);

/* The flags a tuning-cache entry is keyed by, for a command line that
 * finds or makes it. */
struct tuning_command {
	const char *model_arg;       /* MODEL as given: a name or a file's path */
	double tol, rtol;            /* --tol, --rtol (0: not printed) */
	bool scheme_given;           /* --scheme printed */
	picard_scheme scheme;
	picard_precision precision;  /* --precision, printed unless float */
	picard_backend backend;      /* --backend, printed unless auto */
	long traj;                   /* --traj (0: not printed) */
	bool t0_given, t1_given;     /* --t0, --t1 printed */
	double t0, t1;
	double spread;               /* --spread, printed unless the default */
	unsigned long long seed;     /* --seed, printed unless the default
					(0: the default) */
};

/* "PROGRAM MODEL --tol E [flags]" on stdout, without a newline. */
void tuning_print_command(const char *program, const struct tuning_command *command);

/* picard-run --tol: when not all of --m, --K, --h were given, set the
 * others as picard_choose() chooses them (the tuning cache entry for this
 * ensemble, else a quick search's decision kept for the same command,
 * else a quick search on the run's own ensemble: x0, params, ntraj rows
 * as the run will solve them, params NULL for the defaults), and say
 * which on stdout, with its progress on stderr. ensemble_id: "default"
 * when the ensemble is picard-tune's (spread 0.1 around the model's start,
 * seed 1, no parameter spread), else picard_ensemble_id() of x0 and
 * params. Returns 0, or an error already reported (PICARD_ENOTFOUND when
 * no configuration met --tol). */
int tuning_for_run(struct run_options *opts, long ntraj, const double *x0,
		   const double *params, const char *ensemble_id);

#endif
