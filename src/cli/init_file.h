/* init_file.h - initial states (and optionally parameters) of an ensemble
 * from a file, for picard-run --init FILE.
 *
 * Text (any name not ending in .bin): one trajectory per row, fields
 * separated by commas and/or blanks; either n columns (the model's state)
 * or n + nparams columns (the state, then the parameters in the model's
 * order). '#' starts a comment; blank lines are skipped; the first row may
 * be a header of names if its first field is not a number. Every row has the
 * same number of columns and every value is a finite number. Columns the
 * header names t0 and t1 (either, both, anywhere) are each member's own
 * time span (picard_solver_set_spans), not counted among the state's and
 * parameters'; every row then has the header's number of columns.
 *
 * Binary (name ending in .bin): raw little-endian float64, n per
 * trajectory (states only), no header; the size is a multiple of 8n. It
 * must be a regular file.
 */
#ifndef PICARD_CLI_INIT_FILE_H
#define PICARD_CLI_INIT_FILE_H

#include <stdbool.h>
#include <stdio.h>

#include "picard.h"

/* What an --init file holds. */
struct init_data {
	long ntraj;     /* trajectories: rows (text) or records (binary) */
	double *x0;     /* ntraj*dim initial states, row per trajectory */
	double *params; /* ntraj*nparams parameters, or NULL: the model's */
	double *t0, *t1; /* ntraj each: the header's t0 and t1 columns, or
			    NULL: the run's */
	long *lines;    /* ntraj: each row's line, with t0 or t1 (messages) */
};

/* Read path for model into data (freed with init_data_free()). Returns 0,
 * or CLI_EUSAGE after printing "picard-run: FILE:LINE: what is wrong". */
int init_file_read(const char *path, const picard_model *model,
		   struct init_data *data);
/* The same from an open stream: binary (raw float64) or text, path only
 * named in the messages. Reads memory through fmemopen() in the fuzz target
 * (tests/fuzz/fuzz_init_file.c), so it never touches the file system. */
int init_stream_read(const char *path, FILE *file, bool binary,
		     const picard_model *model, struct init_data *data);
/* Under mpirun each rank reads its own trajectories of a binary file:
 * init_file_binary_count() gives the file's trajectories from its size
 * (checked as init_file_read() checks it), or -1 for a text file, which
 * is read whole; init_file_read_range() reads trajectories first ..
 * first+count-1, its messages counting from the file's start. Both return
 * 0 or CLI_EUSAGE after a message. */
int init_file_binary_count(const char *path, const picard_model *model, long *count);
int init_file_read_range(const char *path, const picard_model *model, long first, long count,
			 struct init_data *data);
void init_data_free(struct init_data *data);
/* Each row's span, its missing end the run's (t0, t1), finite with t1 > t0:
 * 0, or CLI_EUSAGE after "picard-run: FILE:LINE: t1 = ... is not after
 * t0 = ...". */
int init_data_check_spans(const char *path, const struct init_data *data, double t0, double t1);

#endif
