/* options.h - the command line of picard-run, parsed into a plain struct.
 * Every value is checked on the way (strict numbers, ranges, known names),
 * so the rest of the program sees only sensible options. options.c reads
 * it in four steps, one file each in options/: flags, defaults, validate,
 * resolve. */
#ifndef PICARD_CLI_OPTIONS_H
#define PICARD_CLI_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "picard.h"

#define RUN_DEFAULT_TRAJ 8192L     /* the paper's ensemble size */
#define RUN_DEFAULT_M 8            /* Table 1 of the paper, E* = 1e-3 ... */
#define RUN_DEFAULT_K 2
#define RUN_DEFAULT_H 0.06         /* ... m = 8, K = 2, h = 0.06 */
#define RUN_DEFAULT_SPREAD 0.1     /* +-10% around the model's x0 */
#define RUN_DEFAULT_SEED 1ULL
#define RUN_DEFAULT_CHECK_TRAJ 1024L
#define RUN_DEFAULT_BOUND 1e12
#define RUN_REPEAT_MAX 1000     /* --repeat at most */
/* Host memory one batch's arrays may take where --batch is not given (or
 * an eighth of the machine's, if less): larger ensembles are solved and
 * written a batch at a time. */
#define RUN_BATCH_GIB 2
#define RUN_BATCH_BYTES ((size_t)RUN_BATCH_GIB << 30)
#define RUN_MAX_SPREAD_PARAMS 16   /* --spread-param flags, and --param flags */

/* --spread-param NAME=S: parameter NAME spread by S; --param NAME=V: its
 * value V instead of the model's default. */
struct param_arg {
	const char *arg;  /* NAME=S or NAME=V as given */
	int index;        /* the parameter's index in the model */
	double value;     /* S or V */
};

/* What picard-run was asked to do. */
struct run_options {
	const char *model_name;      /* MODEL, the positional argument */
	const picard_model *model;   /* that model, or NULL (--list, --help) */
	long traj;                   /* --traj: ensemble size */
	bool traj_given;             /* --traj was on the command line */
	picard_scheme scheme;        /* --scheme trapezoid|lobatto */
	bool scheme_given;           /* --scheme was on the command line (else
					--tol may pick either) */
	double window;               /* --window: lobatto window length H (0 =
					the library's default, span/200) */
	bool window_given;           /* --window was on the command line */
	int m;                       /* --m: nodes per window */
	int K;                       /* --K: Picard sweeps per window */
	int K_max;                   /* --K-max: adaptive sweeps, 0 = fixed K */
	bool warm_start;             /* --warm-start */
	bool verbose;                /* --verbose: also how the solve was split */
	double iter_rtol, iter_atol; /* --iter-rtol/--iter-atol: window convergence
					(0 = the library's default) */
	double h;                    /* --h: requested node spacing */
	bool m_given, K_given, h_given; /* --m / --K / --h were on the command
					   line (they win over --tol's tuning) */
	double t0, t1;               /* --t0, --t1: time span (model's if absent) */
	bool t0_given, t1_given;     /* --t0 / --t1 were on the command line */
	picard_precision precision;  /* --precision float|double */
	bool precision_given;        /* --precision was given */
	bool precision_for_tol;      /* double, not the default float: --tol
					asked for more than float reaches */
	picard_backend backend;      /* --backend auto|cuda|cpu */
	picard_layout layout;        /* --layout auto|paper|warp|thread */
	bool layout_given;           /* --layout was on the command line (wins
					over the tuning cache's) */
	int traj_per_block;          /* --traj-per-block N, 0 = the layout's */
	int block;                   /* --block N: newton's windows iterated
					together, 0 = its default */
	picard_scan scan;            /* --scan auto|parallel|serial */
	double spread;               /* --spread: relative uniform spread of x0 */
	bool spread_given;           /* --spread was on the command line */
	unsigned long long seed;     /* --seed: cuRAND Philox seed */
	bool seed_given;             /* --seed was on the command line */
	struct param_arg spread_params[RUN_MAX_SPREAD_PARAMS]; /* --spread-param */
	int nspread_params;
	struct param_arg set_params[RUN_MAX_SPREAD_PARAMS]; /* --param */
	int nset_params;
	const char *init_path;       /* --init FILE, or NULL */
	bool spans;                  /* its t0 or t1 columns: each member on
					its own span (picard_solver_set_spans),
					a scheme that takes them, searched and
					checked on them, no error estimate (its
					companion solves on the grid's span) */
	const char *out_path;        /* --out FILE, or NULL */
	const char *events_path;     /* --events FILE (CSV): the event log, or NULL */
	int event_log;               /* --event-log N: entries kept per member
					(0: the library's default) */
	double save_every;           /* --save-every DT: a time step, 0 = none */
	const char *save_at;         /* --save-at T1,T2,...: as given, or NULL */
	long nsave;                  /* times either of them asks for (0: the
					final states only) */
	bool check;                  /* --check (also implied by --tol) */
	long check_traj;             /* --check-traj N: at most N checked, 0 = all */
	bool tol_given;              /* --tol, --atol or --rtol was on the
					command line: a tolerance to meet */
	double tol;                  /* the absolute part of the tolerance:
					--tol E (the paper's E*, rtol 0) or
					--atol A; m, K, h not given are tuned
					for it */
	double rtol;                 /* --rtol R: its relative part (0: none) */
	bool tuned;                  /* the grid came from tuning (the cache or
					a quick search), not the command line:
					picard-run may tighten it */
	bool tuned_closest;          /* the quick search found no grid meeting
					the tolerance on every sampled member:
					the closest runs, its misses are
					tol-exceeded and not solved again */
	double bound;                /* --bound B: |x| > B is divergence */
	double max_work;             /* --max-work W: the grid's work per
					trajectory at most (0: the library's
					default) */
	int repeat;                  /* --repeat N: solves timed (1) */
	long batch;                  /* --batch N: trajectories solved and
					written at once (0: all that fit
					RUN_BATCH_BYTES of host memory) */
	bool list;                   /* --list: show the models and stop */
	bool list_schemes;           /* --list-schemes: show the schemes and stop */
	bool clear_cache;            /* --clear-cache: empty the caches and stop */
	bool describe;               /* --describe: show MODEL's description */
	bool precompile;             /* --precompile: compile MODEL's kernels and stop */
	bool help;                   /* --help / -h: show usage and stop */
	/* the imex schemes' linear solves */
	picard_linsolver linsolve;   /* --linsolve NAME (AUTO: by the operator) */
	picard_preconditioner precond; /* --precond NAME (AUTO: jacobi) */
	double linsolve_rtol;        /* --linsolve-rtol R (0: the default) */
	int linsolve_maxit;          /* --linsolve-maxit N (0: the default) */
	char linsolve_flag[64];      /* the first of those given, as given
					("--precond jacobi"), for messages;
					"" when none was */
};

/* Parse argv into opts: the flags read, the defaults applied, the values
 * checked together, then what they name resolved against the model and the
 * span (options.c). Returns 0, CLI_DONE after --version, or CLI_EUSAGE
 * after printing one line naming the offending flag and value. */
int options_parse(int argc, char **argv, struct run_options *opts);

/* The usage text: every flag with its default (options/flags.c). */
void options_usage(FILE *f);

/* The nsave times --save-every or --save-at ask for, in order, into
 * times (options_parse has checked them): --save-every DT gives t0, t0 +
 * DT, ... short of t1 by more than rounding, then t1 (options/resolve.c). */
void options_save_times(const struct run_options *opts, double *times);

/* Whether the run's scheme takes --h (else --window) for its grid. */
bool options_by_h(const struct run_options *opts);

/* Trajectories the check compares: the record stride that keeps at most
 * check_traj of ntraj (0 = all), evenly spaced. */
int options_check_stride(const struct run_options *opts, long ntraj);

/* The solver options the command line asks for (--tol: with error
 * estimates scaled by its tolerance). */
picard_options options_solver(const struct run_options *opts);

#endif
