/* output.h - picard-run --out FILE: the results of a solve as CSV or NumPy
 * .npy, chosen by the file's extension.
 *
 * Final states only (no --save-every or --save-at):
 *   .csv  header "traj,status,x1,...,xn", one row per trajectory;
 *   .npy  float64 array of shape (ntraj, n).
 * With saved times (--save-every DT: t0, t0+DT, ..., t1; --save-at: the
 * times given), the states at each, interpolated in the window that holds
 * it (picard_grid_window):
 *   .csv  header "t,traj,status,x1,...,xn", one row per time and
 *         trajectory, time by time;
 *   .npy  float64 array of shape (ntimes, ntraj, n).
 * status is a picard_traj_status_name: ok, nonfinite, diverged,
 * not-converged, implausible, tol-exceeded, check-failed, ... With --check
 * or --tol, CSV rows end in err,err_est: the trajectory's error against
 * rk8pd and its estimate, in units of the tolerance (<= 1 meets it;
 * without one, of the iteration tolerance), nan where there is none. A .npy's
 * statuses (and errors) go to FILE.status.csv beside it, rows traj,status
 * [,err,err_est]. A trajectory that failed has NaN for every state after
 * the start of the step that failed (a per-thread scheme's:
 * picard_solver_fail_times) or of its failing window (the others'), and
 * its states before keep their values (in CSV its status says why; a .npy
 * holds states only, so NaN is the mark there). A member a terminal
 * event stopped (status event) has its state at the event as its final
 * state, and NaN at the saved times after it. Values are written with
 * 17 significant digits: they read back to the same doubles.
 */
#ifndef PICARD_CLI_OUTPUT_H
#define PICARD_CLI_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "picard.h"

enum output_format {
	OUTPUT_CSV, /* text, one state per row */
	OUTPUT_NPY, /* NumPy format 1.0, little-endian float64 */
};

/* An output file, opened before the solve so that a bad path fails early.
 * It is written under a temporary name beside FILE and renamed to FILE once
 * complete: a failed run leaves an existing FILE as it was. */
struct output {
	const char *path;          /* --out FILE */
	enum output_format format; /* from the extension */
	char *temp_path;           /* FILE.XXXXXX being written, or NULL */
	FILE *file;                /* open for writing, NULL once closed */
	/* written a batch at a time (output_begin): */
	long total;                /* trajectories of the whole file */
	long records;              /* records (output_records) */
	off_t data_start;          /* bytes of the header */
	FILE *status;              /* a .npy's status file being written */
	char *status_temp;         /* its temporary name, or NULL */
	bool failed;               /* a write failed: finish reports it */
	bool status_failed;        /* the status file's */
	int write_errno;           /* why the states' failed, or 0 */
};

/* A solve's results, as the writers read them. */
struct run_results {
	const picard_model *model;        /* for the component count */
	const picard_grid *grid;          /* windows and times of records */
	long ntraj;                       /* trajectories here */
	long first;                       /* global index of the first (a
					     rank's under mpirun, else 0) */
	long total;                       /* trajectories of the whole file */
	const double *x_final;            /* ntraj*dim final states */
	const picard_traj_status *status; /* ntraj outcomes */
	const long *fail_window;          /* ntraj failing windows, -1: none */
	const double *fail_time;          /* 2 ntraj: where each failed, from
					     to (picard_solver_fail_times) */
	const double *times;              /* ntimes saved times, or NULL: final
					     states only */
	long ntimes;                      /* number of times */
	const double *saved;              /* picard_record states at times,
					     traj_stride=1, or NULL */
	const double *span_t0, *span_t1;  /* ntraj each: the members' own
					     spans (--init's columns), or
					     NULL: the grid's end */
	bool span_grid;                   /* either is given: a time outside
					     a member's span is marked */
	const double *err;                /* ntraj checked errors (scaled by
					     the tolerance; nan: unchecked),
					     or NULL: no err column */
	const double *err_est;            /* ntraj error estimates, likewise */
};

/* Check path's extension and open it. Returns 0, or CLI_EUSAGE after a
 * message (unknown extension, cannot create). */
int output_open(struct output *out, const char *path);
/* Write res, close, and rename into place. Returns 0, or PICARD_EIO after
 * a message. */
int output_write(struct output *out, const struct run_results *res);
/* The same a batch of trajectories at a time, the batches in order, so
 * that no more than a batch is held: begin writes the header (and a .npy's
 * status file's) for res's total and records; append writes one batch's
 * rows (res->first, res->ntraj; a .npy's records each at its place; a
 * CSV's one record only, as a CSV with several records is written time by
 * time); finish closes both and renames them into place. begin returns 0
 * or PICARD_EIO after a message (output_discard() then); append returns 0
 * or PICARD_EIO, reported by finish, which returns 0 or PICARD_EIO after a
 * message and leaves no file behind. */
int output_begin(struct output *out, const struct run_results *res);
int output_append(struct output *out, const struct run_results *res);
int output_finish(struct output *out);
/* Close and remove the temporary file if results were not written (the run
 * failed); nothing once output_write() has run. */
void output_discard(struct output *out);

/* The pieces of a file, for writers that place them themselves (each MPI
 * rank its rows, output_mpi.c): the header (rank 0's), the rows of
 * record r (0 .. output_records() - 1) of res's trajectories, and those of
 * a .npy's status file beside it, FILE.status.csv (output_status_path(),
 * malloc'd or NULL). output_record and output_status_rows return
 * PICARD_ENOMEM where they had no room to format the rows (CSV), else 0. */
long output_records(const struct run_results *res);
void output_header(FILE *f, enum output_format format, const struct run_results *res);
int output_record(FILE *f, enum output_format format, const struct run_results *res, long r);
char *output_status_path(const char *path);
void output_status_header(FILE *f, const struct run_results *res);
int output_status_rows(FILE *f, const struct run_results *res);
/* The format path's extension names (.csv, .npy), or false. */
bool output_format_of(const char *path, enum output_format *format);
/* A .npy's preamble (format 1.0): magic, header length and the header
 * dictionary for descr and shape (their Python text), padded with blanks
 * to at least width characters and then to NumPy's alignment. */
void output_npy_preamble(FILE *f, const char *descr, const char *shape, int width);
/* value as 8 little-endian bytes, whatever the host's byte order. */
void output_le_int64(unsigned char *bytes, int64_t value);
void output_le_double(unsigned char *bytes, double value);
/* Give fd the mode a new file of fopen() would have (mkstemp's is 0600). */
void output_set_default_mode(int fd);
/* A temporary file NAME.XXXXXX beside NAME, open for writing with a new
 * file's mode and removed if a signal ends the run; its name into *temp
 * (malloc'd). NULL, errno set and nothing left, when it cannot be made. */
FILE *output_temp_create(const char *name, char **temp);

#endif
