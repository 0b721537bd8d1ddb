/* bench_common.h - what bench-rk (GPU per-thread Runge-Kutta) and bench-cpu
 * (GSL, Euler) share, so both measure the same way: the ensemble, the
 * reference sample and the error at t1, the search for the cheapest
 * setting that meets a target error, timing statistics and the CSV row.
 * Plain C; callable from the CUDA program (extern "C").
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <stdbool.h>
#include <stdio.h>

#include "picard.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BENCH_DEFAULT_TRAJ 8192
#define BENCH_DEFAULT_SPREAD 0.1   /* as picard-run (src/cli/options.h) */
#define BENCH_DEFAULT_SEED 1ULL    /* as picard-run */
#define BENCH_DEFAULT_SAMPLE 1024  /* trajectories compared with the reference */
#define BENCH_DEFAULT_REPEATS 5    /* timed solves, median and min */
#define BENCH_FLOOR_TRAJ 8         /* trajectories of the reference-floor estimate */

/* The reference at t1 for an evenly spaced sample of the ensemble. */
typedef struct bench_sample {
	long n;          /* trajectories compared */
	long *traj;      /* their indices: traj[s] = s * ntraj / n */
	double *ref;     /* n * dim reference states at t1 */
	const char *ref_name; /* what ref is: picard_reference, or for kepler
			    the closed-form two-body solution */
	double floor;    /* max |ref - other| over the first BENCH_FLOOR_TRAJ
			    sampled trajectories: how well the reference
			    itself is known */
	const char *floor_name; /* other: GSL rk8pd at 1e-14 (kepler: rk8pd at
			    1e-12, picard_reference) */
} bench_sample;

/* x0: ntraj * dim initial states (row per trajectory). Integrates the
 * reference (picard_reference: GSL rk8pd, rtol = atol = 1e-12) of
 * min(ntraj, max_sample) evenly spaced trajectories from t0 to t1,
 * threaded, and estimates its floor. For kepler the reference is the
 * closed-form two-body solution instead: over its 100 orbits rk8pd at
 * 1e-12 is off by ~1e-8, above the errors to be measured. Returns 0 or a
 * PICARD_E... code. */
int bench_sample_make(const picard_model *model, const double *x0, long ntraj,
		      long max_sample, double t0, double t1, bench_sample *sample);
void bench_sample_free(bench_sample *sample);
/* What bench_sample_make uses as the reference of model, in words. */
const char *bench_reference_name(const picard_model *model);

/* The error of a solve: max over sampled trajectories s and components of
 * |x1[traj_s] - ref_s|, x1 row per trajectory (ntraj * dim, or sample->n *
 * dim when packed is true: row s is sampled trajectory s). A sampled
 * trajectory whose status is non-zero or whose state is not finite makes
 * the error +Inf. status may be NULL. */
double bench_error(const bench_sample *sample, int dim, const double *x1,
		   const int *status, bool packed);

/* How far the solve moved the model's invariants (kepler's energy and
 * angular momentum, ...): max over sampled trajectories and invariants of
 * |I(x1) - I(x0)| / |I(x0)| at the default parameters (an absolute change
 * where I(x0) is 0); NAN for a model without invariants, +Inf where a
 * sampled state is not finite. x0, x1: row per trajectory. */
double bench_invariant_drift(const picard_model *model, const bench_sample *sample,
			     const double *x0, const double *x1);

/* One measured point of a search. */
typedef struct bench_probe {
	double error;      /* bench_error */
	long failed;       /* trajectories that failed in the run */
	double evals_mean; /* right-hand side evaluations per trajectory */
	long evals_max;
} bench_probe;

/* Run one solve with steps (fixed methods) or tol (adaptive ones) and
 * measure it. Returns 0 or a negative error (the search then stops). */
typedef int (*bench_probe_fn)(void *ctx, long steps, double tol,
			      bench_probe *out);

/* A probe meets target when nothing failed and error <= target. */
bool bench_meets(const bench_probe *probe, double target);

/* Fewest steps in [1, max_steps] whose measured error meets target: double
 * from start until it is met (halve while start already meets), then bisect
 * between the last failing and the first meeting count to within 1%. Every
 * probe is logged as a '#' line to log. Returns 0 with *steps, or
 * PICARD_ENOTFOUND (the smallest error seen in *best). */
int bench_search_steps(bench_probe_fn fn, void *ctx, double target, long start,
		       long max_steps, long *steps, bench_probe *best, FILE *log);

/* Largest tolerance (rtol = atol) in [min_tol, 0.1] whose measured error
 * meets target: decades from start up or down to a bracket, then
 * bisection on log tol to a ratio of 1.2. Same logging and returns. */
int bench_search_tol(bench_probe_fn fn, void *ctx, double target, double start,
		     double min_tol, double *tol, bench_probe *best, FILE *log);

/* Median and minimum of n values (sorts v). */
double bench_median(double *v, int n);
double bench_min(const double *v, int n);

/* One CSV row: the columns of BENCH_CSV_COLUMNS. */
typedef struct bench_row {
	char device[256];     /* GPU name or "CPU: model name" */
	char driver[32];      /* CUDA driver version, or "-" */
	char date[32];        /* UTC, ISO 8601 */
	const char *model;    /* model name */
	long ntraj;           /* trajectories in the ensemble */
	const char *method;   /* euler, rk4, dp5, dp8, dp5-adaptive, ...,
				 gsl-rk8pd, gsl-rkf45 */
	const char *precision; /* float or double */
	char config[32];      /* "block=128" (GPU) or "threads=N" (CPU) */
	long steps;           /* fixed step count (0: adaptive) */
	double tol;           /* adaptive rtol = atol (0: fixed) */
	double error;         /* bench_error */
	long error_traj;      /* trajectories the error is measured on */
	double time_median_us, time_min_us; /* of the timed solves */
	int repeats;          /* timed solves */
	double evals_mean;    /* right-hand side evaluations per trajectory */
	long evals_max;       /* the most any trajectory needed */
	long failed;          /* trajectories that failed (non-finite, step
				 underflow, too many steps) */
	double drift;         /* bench_invariant_drift (NAN: no invariants;
				 an empty field) */
} bench_row;

#define BENCH_CSV_COLUMNS                                                      \
	"device,driver,date,model,ntraj,method,precision,config,steps,tol,error," \
	"error_traj,time_median_us,time_min_us,repeats,rhs_evals_mean,"           \
	"rhs_evals_max,failed,invariant_drift"

/* '#' lines (program, command line, build flags, picard build, device,
 * driver, reference and its floor), then the column names if columns. */
void bench_csv_header(FILE *f, int argc, char **argv, const char *program,
		      const char *device, const char *driver,
		      const char *build_flags, const bench_sample *sample,
		      double spread, unsigned long long seed, bool columns);
void bench_csv_row(FILE *f, const bench_row *row);

/* UTC now as 2026-11-23T12:34:56Z. */
void bench_date(char *buf, size_t len);
/* A monotonic clock in microseconds, for wall-clock timings. */
double bench_now_us(void);
/* "CPU: <model name from /proc/cpuinfo>". */
void bench_cpu_name(char *buf, size_t len);

/* A non-negative number / integer from the command line, or exit(2) with
 * a message naming flag. */
double bench_arg_double(const char *program, const char *flag, const char *v);
long bench_arg_long(const char *program, const char *flag, const char *v);
/* Where the CSV goes: stdout without a path, else the file opened for
 * appending (exit(1) if it cannot be); *new_file says whether it was
 * empty, so the column names are written once. */
FILE *bench_csv_open(const char *program, const char *path, bool *new_file);

/* Print to stderr and exit(2) / exit(1): the programs' way to die. */
void bench_die_usage(const char *program, const char *fmt, ...);
/* --version: picard's version and build, the CUDA runtime and driver
 * (the picard programs' text). */
void bench_print_version(const char *program);
void bench_die(const char *program, const char *fmt, ...);

#ifdef __cplusplus
}
#endif

#endif
