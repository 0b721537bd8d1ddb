/* run.h - what one picard-run holds, shared by picard_run.c (set up,
 * solve, report, write) and promise.c (the per-trajectory promise). */
#ifndef PICARD_CLI_RUN_H
#define PICARD_CLI_RUN_H

#include <pthread.h>
#include <stdbool.h>
#include <time.h>

#include "backend.h"
#include "init_file.h"
#include "options.h"
#include "output.h"
#include "phases.h"
#include "picard.h"
#include "shard.h"

#define FAILURES_SHOWN 5 /* failed trajectories named on stderr */
#define MEMBERS_SHOWN 5  /* trajectories named in the promise's messages */

/* What the batches of a run add up to, for the reports after the last
 * (one batch, the whole share, unless the ensemble is solved in
 * batches). Counts are this process's; the reports add up the ranks'. */
struct run_tally {
	long failed;                    /* failed outright */
	struct shard_failure first[FAILURES_SHOWN]; /* the first of them */
	long shown;                     /* entries of first */
	unsigned seen;                  /* bit s: some member ended with status s */
	long ok, exceeded;              /* ok; tol-exceeded */
	long ok_checked, ok_estimated;  /* ok by its check; by its estimate */
	long check_failed;              /* check-failed */
	char named_exceeded[512];       /* the first tol-exceeded (name_members) */
	long nnamed_exceeded;
	char named_check_failed[512];   /* the first check-failed */
	long nnamed_check_failed;
	long verified, verified_ok;     /* over by estimate alone, checked; ok */
	char ref_failed[384];           /* the first failed reference's words */
	char *lines;                    /* the retry lines, printed after the
					   summary (open_memstream) */
	size_t lines_len;
	FILE *lines_file;
};

/* The arrays a batch's results are written from: a second set lets the
 * next batch be solved while a writer thread writes the last. */
struct batch_set {
	double *x_final;
	picard_traj_status *status;
	long *fail_window;
	double *fail_time;
	double *saved;       /* save.states */
	double *err, *err_est;
};

/* Everything one run holds; run_free() releases it. */
struct run {
	int argc;                       /* the command line, as main got it */
	char **argv;
	struct run_options opts;        /* the command line, parsed */
	struct shard shard;             /* this process's share of the job
					   (all of it without mpirun) */
	struct shard_job job;           /* the job's spread over ranks */
	struct timespec start;          /* start of main, for the total */
	struct phases phases;           /* where the time went (--verbose) */
	const picard_model *model;      /* opts.model */
	long share;                     /* this process's trajectories (the
					   job's alone; shard.total the job's) */
	long batch;                     /* trajectories solved at once */
	long batches;                   /* batches every rank runs (under
					   mpirun some ranks' last is empty) */
	long batch_first;               /* the batch being solved: its
					   first, of the share */
	long ntraj;                     /* the batch's trajectories: the
					   arrays below hold this many */
	struct init_data init;          /* --init contents (x0 NULL without) */
	struct output out;              /* --out file (path NULL without) */
	picard_solver *solver;          /* the solver, created once */
	const picard_grid *grid;        /* its fitted grid */
	struct picard_draw draw;        /* the members, drawn where they are
					   solved (members.h), or draw.start
					   NULL: drawn on the host into x0 */
	bool rows_on_demand;            /* the batch's rows of x0 and params
					   are drawn as the host reads them
					   (members_at_hand) */
	double *x0;                     /* ntraj*dim initial states */
	double *params;                 /* ntraj*nparams (--init's columns or
					   --spread-param), NULL: the defaults */
	double *x_final;                /* ntraj*dim final states */
	picard_traj_status *status;     /* ntraj outcomes */
	long *fail_window;              /* ntraj failing windows, -1: none */
	double *fail_time;              /* 2 ntraj: where each failed, from
					   to (picard_solver_fail_times),
					   NaN: it did not */
	double *save_times;             /* --save-every/--save-at times, or NULL */
	picard_record save;             /* their record (states NULL without) */
	picard_record check;            /* --check record (states NULL without) */
	picard_stats stats;             /* what the solve reports (the first
					   of --repeat's: its solve_seconds) */
	double solve_median, solve_min; /* of --repeat's solve times */
	/* the per-trajectory promise (promise.h) */
	double *err;                    /* ntraj scaled errors against rk8pd
					   (under the tolerance; absolute
					   without one), NaN: not checked */
	double *err_est;                /* ntraj estimates, NaN: none */
	unsigned char *ref_failed;      /* ntraj: the reference itself failed
					   (the solution blows up) */
	picard_check_result checked;    /* the check of the first solve, its
					   batches' merged */
	bool checked_done;              /* checked holds a result */
	long retried;                   /* trajectories solved again */
	struct run_tally tally;         /* the batches added up */
	struct batch_set spare;         /* --out in batches: the set not in
					   use, being written or free */
	pthread_t writer;               /* writing a batch's rows */
	bool writing;                   /* writer runs, to be joined */
	struct run_results written;     /* what it writes */
	/* a model with events: the log of every batch (--events FILE, or
	   beside --out) */
	char *events_path;              /* the log's file, or NULL: none */
	enum output_format events_format; /* CSV or .npy, by its extension */
	FILE *events_file;              /* this process's part of it (alone:
					   a temporary beside it), or NULL */
	char *events_temp;              /* the part's name */
	long events_total;              /* events the members had */
	long events_kept;               /* of them, in the log */
	int events_capacity;            /* log entries kept per member */
	long events_overflowed;         /* members with more than that */
	char events_overflow[512];      /* the first few, "member (events)" */
	char solve_detail[512];         /* picard_error_detail() of a solve
					   whose trajectories failed (which
					   linear solve, and why), or "" */
};

/* The batch's members' own span ends, of run->init's t0 or t1 column
 * (ends), or NULL where --init has none: the grid's. */
static inline const double *run_batch_span(const struct run *run, const double *ends)
{
	return ends ? ends + run->batch_first : NULL;
}

#endif
