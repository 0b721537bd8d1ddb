/* stiff_common.h - what the stiff baselines of issue 18 (bin/bench-rodas,
 * bin/bench-cvode) share so that they measure alike: the command line, the
 * ensemble (picard-run's: picard_ensemble_model with --spread,
 * --spread-param and --seed, or an --init file), the output times, the
 * reference of a sample (GSL msbdf with the model's Jacobian), the errors
 * against it and the CSV row. Plain C; callable from CUDA (extern "C").
 */
#ifndef BENCH_STIFF_COMMON_H
#define BENCH_STIFF_COMMON_H

#include <stdbool.h>
#include <stdio.h>

#include "picard.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STIFF_MAX_OUT 16      /* output times (RODAS_MAX_OUT) */
#define STIFF_MAX_PARAMS 16   /* parameters a --spread-param can name */
#define STIFF_REF_RTOL 1e-12  /* the reference's rtol; atol: 1e-4 the run's */
#define STIFF_FLOOR_TRAJ 8    /* trajectories of the reference-floor estimate */

/* A run's settings; stiff_parse fills them from the command line. */
typedef struct stiff_opts {
	const char *model_name;   /* MODEL */
	const picard_model *model; /* its registry entry */
	long ntraj;               /* trajectories (8192; --init: the file's) */
	double spread;            /* initial states x0 (1 + S (2u - 1)), as picard-run */
	double param_spread[STIFF_MAX_PARAMS]; /* per parameter, 0: the default */
	unsigned long long seed;  /* Philox seed, as picard-run (1) */
	const char *init_path;    /* --init FILE, else NULL */
	double t1;                /* end (0: the model's) */
	int nout;                 /* output times: decades ending at t1 (8) */
	double rtol, atol;        /* tolerances of the integration */
	long sample;              /* trajectories compared with the reference (256) */
	int repeats;              /* timed solves (5) */
	int threads;              /* CPU threads (0: all) */
	long max_steps;           /* steps per trajectory before failing (1e6) */
	int block;                /* GPU threads per block (64) */
	bool host;                /* bench-rodas --backend host */
	const char *csv;          /* append here, else stdout */
} stiff_opts;

/* The ensemble and what it is integrated over. */
typedef struct stiff_problem {
	long ntraj;               /* trajectories */
	int dim, nparams;         /* the model's */
	double *x0;               /* ntraj * dim, row per trajectory */
	double *params;           /* ntraj * nparams, row per trajectory (the
				     defaults where not spread) */
	double t0;                /* start */
	double tout[STIFF_MAX_OUT]; /* output times, increasing, last = end */
	int nout;                 /* how many */
} stiff_problem;

/* The reference at the output times for an evenly spaced sample. */
typedef struct stiff_sample {
	long n;                   /* trajectories compared */
	long *traj;               /* their indices: traj[s] = s * ntraj / n */
	double *ref;              /* n * nout * dim: [s][o][k] */
	double floor;             /* max scaled |ref - tighter ref| over the
				     first STIFF_FLOOR_TRAJ sampled trajectories */
} stiff_sample;

/* The errors of a solve against the sample. */
typedef struct stiff_errors {
	double scaled;    /* max over sample, outputs, components of
			     |x - ref| / (atol + rtol |ref|) */
	double scaled_t1; /* the same at t1 alone */
	double rel;       /* max |x_k - ref_k| / |ref_k| over components with
			     |ref_k| > atol */
	double abs;       /* max |x - ref| */
} stiff_errors;

/* Parse argv into o (program: for messages; gpu: --block and --backend
 * are accepted). Dies with a usage message on an error. */
void stiff_parse(int argc, char **argv, const char *program, bool gpu, stiff_opts *o);
/* Make the ensemble and output times; dies on error. */
void stiff_problem_make(const stiff_opts *o, const char *program, stiff_problem *pb);
void stiff_problem_free(stiff_problem *pb);

/* GSL msbdf (rtol STIFF_REF_RTOL, atol 1e-4 atol, the model's Jacobian)
 * for one trajectory from x0 through the output times into out (nout *
 * dim). 0 or -1. */
int stiff_reference(const picard_model *model, const double *params, const double *x0,
		    double t0, const double *tout, int nout, double rtol, double atol,
		    double *out);
/* The reference of min(ntraj, o->sample) evenly spaced trajectories,
 * threaded, and its floor; dies on error. */
void stiff_sample_make(const stiff_opts *o, const stiff_problem *pb, stiff_sample *s);
void stiff_sample_free(stiff_sample *s);

/* Errors of xout (ntraj * nout * dim, [i][o][k]) on the sample; a failed
 * sampled trajectory (status non-zero) or non-finite state makes them Inf. */
stiff_errors stiff_errors_of(const stiff_opts *o, const stiff_problem *pb,
			     const stiff_sample *s, const double *xout, const int *status);

/* Per-trajectory counters of a solve, summarised. */
typedef struct stiff_counts {
	double steps_mean, rejected_mean, evals_mean, jacs_mean;
	long steps_max;   /* accepted steps, the most any trajectory took */
	long failed;      /* trajectories with non-zero status */
} stiff_counts;
stiff_counts stiff_counts_of(long ntraj, const int *status, const long *accepted,
			     const long *rejected, const long *evals, const long *jacs);

/* '#' lines (program, command, build, device, ensemble, outputs,
 * reference and floor) and, for a new file, the column names. */
void stiff_csv_header(FILE *f, int argc, char **argv, const char *program,
		      const char *device, const stiff_opts *o, const stiff_problem *pb,
		      const stiff_sample *s, bool columns);
/* One row. */
void stiff_csv_row(FILE *f, const char *device, const char *driver, const stiff_opts *o,
		   const stiff_problem *pb, const char *method, const char *config,
		   const double *times, int repeats, const stiff_counts *c,
		   const stiff_errors *e, long error_traj);

#define STIFF_CSV_COLUMNS                                                       \
	"device,driver,date,model,ntraj,method,precision,config,rtol,atol,nout,"  \
	"time_median_us,time_min_us,repeats,steps_mean,steps_max,rejected_mean,"  \
	"rhs_evals_mean,jac_evals_mean,failed,err_scaled,err_scaled_t1,err_rel,"  \
	"err_abs,error_traj"

#ifdef __cplusplus
}
#endif

#endif
