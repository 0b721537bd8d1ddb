/* run.h - what one picard-run holds, shared by picard_run.c (set up,
 * solve, report, write) and promise.c (the per-trajectory promise). */
#ifndef PICARD_CLI_RUN_H
#define PICARD_CLI_RUN_H

#include <time.h>

#include "init_file.h"
#include "options.h"
#include "output.h"
#include "phases.h"
#include "picard.h"
#include "shard.h"

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
	long ntraj;                     /* ensemble size (this rank's share
					   under mpirun; shard.total the job's) */
	struct init_data init;          /* --init contents (x0 NULL without) */
	struct output out;              /* --out file (path NULL without) */
	picard_solver *solver;          /* the solver, created once */
	const picard_grid *grid;        /* its fitted grid */
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
	picard_check_result checked;    /* the check of the first solve */
	bool checked_done;              /* checked holds a result */
	long retried;                   /* trajectories solved again */
	char solve_detail[512];         /* picard_error_detail() of a solve
					   whose trajectories failed (which
					   linear solve, and why), or "" */
};

#endif
