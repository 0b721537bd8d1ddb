/* output.c - writing picard-run's results as CSV or .npy (see output.h for
 * the layouts). Both writers walk the same list of records: the saved
 * times of --save-every or --save-at, or just the final states. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "output.h"
#include "temp_files.h"

#define NPY_ALIGN 64 /* NumPy pads its header so the data starts aligned */

/* ---- the records written ------------------------------------------------ */

long output_records(const struct run_results *res)
{
	return res->times ? res->ntimes : 1;
}

/* 0-based window that holds record r: that of its time, or the last. */
static long record_window(const struct run_results *res, long r)
{
	if (!res->times)
		return res->grid->windows - 1;
	return picard_grid_window(res->grid, res->times[r]);
}

/* True when trajectory i had failed by record r: the final states, a
 * time in a later window than its failing one, or in that window after
 * the start of the step (or window) that failed. */
static bool failed_by(const struct run_results *res, long i, long r)
{
	const long w = record_window(res, r);

	if (res->span_grid && res->times) /* windows of its own span: its time tells */
		return res->fail_window[i] >= 0 && !(res->times[r] <= res->fail_time[2 * i]);
	if (res->fail_window[i] < 0 || w < res->fail_window[i])
		return false;
	if (!res->times && res->status[i] == PICARD_TRAJ_EVENT)
		return false; /* a terminal event's final state is the state there */
	return !res->times || w > res->fail_window[i] || !(res->times[r] <= res->fail_time[2 * i]);
}

/* Whether record r's time lies outside trajectory i's own span: its
 * state there is none (NaN, its status outside-span), not extrapolated. */
static bool outside_span(const struct run_results *res, long i, long r)
{
	if (!res->span_grid || !res->times)
		return false;
	return res->times[r] < (res->span_t0 ? res->span_t0[i] : res->grid->t0) ||
	       res->times[r] > (res->span_t1 ? res->span_t1[i] : res->grid->t1);
}

/* State of trajectory i at record r (dim values), or NULL once it failed
 * (a state that is not finite, such as a window scheme's at t0 in a
 * failing first window, is none either). */
static const double *record_state(const struct run_results *res, long r, long i)
{
	const int n = res->model->dim;
	const double *x;

	if (failed_by(res, i, r) || outside_span(res, i, r))
		return NULL;
	if (!res->times)
		return res->x_final + (size_t)i * n;
	x = res->saved + ((size_t)r * res->ntraj + i) * n;
	for (int k = 0; k < n; k++)
		if (!isfinite(x[k]) && res->fail_window[i] >= 0)
			return NULL;
	return x;
}

/* ---- CSV ------------------------------------------------------------------ */

/* Whether the per-trajectory error columns are written. */
static bool has_errors(const struct run_results *res)
{
	return res->err || res->err_est;
}

/* The status of trajectory i at a record whose state is x (NULL once it
 * failed): a finished trajectory over the tolerance, or far from the run's
 * promise, says so on every row. */
static picard_traj_status row_status(const struct run_results *res, long i, const double *x)
{
	if (!x || res->status[i] == PICARD_TRAJ_TOL_EXCEEDED ||
	    res->status[i] == PICARD_TRAJ_CHECK_FAILED ||
	    (!res->times && res->status[i] == PICARD_TRAJ_EVENT))
		return res->status[i];
	return PICARD_TRAJ_OK;
}

/* ",err,err_est" of trajectory i at at (room bytes), its length: nan
 * where there is none. */
static int error_fields(char *at, size_t room, const struct run_results *res, long i)
{
	return snprintf(at, room, ",%.6g,%.6g", res->err ? res->err[i] : NAN,
			res->err_est ? res->err_est[i] : NAN);
}

static void csv_header(FILE *f, const struct run_results *res)
{
	fputs(res->times ? "t,traj,status" : "traj,status", f);
	for (int k = 0; k < res->model->dim; k++)
		fprintf(f, ",x%d", k + 1);
	fputs(has_errors(res) ? ",err,err_est\n" : "\n", f);
}

/* The most bytes a CSV row takes: a %.17g value is at most 24 characters
 * and its comma, the time, index, status and errors within the rest. */
static size_t csv_row_max(const struct run_results *res)
{
	return 160 + 25 * (size_t)res->model->dim;
}

/* One row at line (csv_row_max bytes), its length: [t,] traj, status,
 * state (nan once failed)[, err, err_est]. */
static size_t csv_row(char *line, const struct run_results *res, long r, long i)
{
	const size_t room = csv_row_max(res);
	const double *x = record_state(res, r, i);
	size_t len = 0;

	if (res->times)
		len += snprintf(line + len, room - len, "%.17g,", res->times[r]);
	len += snprintf(line + len, room - len, "%ld,%s", res->first + i,
			outside_span(res, i, r) ? "outside-span" :
			picard_traj_status_name(row_status(res, i, x)));
	for (int k = 0; k < res->model->dim; k++)
		len += x ? snprintf(line + len, room - len, ",%.17g", x[k]) :
			   snprintf(line + len, room - len, ",nan");
	if (has_errors(res))
		len += error_fields(line + len, room - len, res, i);
	line[len++] = '\n';
	return len;
}

/* One row (of record r, or of the statuses, which have no r) at line, in
 * at most a row_max of room: its length. */
typedef size_t (*row_format)(char *line, const struct run_results *res, long r, long i);

/* The rows of record r. Formatting and writing take turns on two
 * buffers: while one thread writes a chunk of rows (ROWS_CHUNK_BYTES of
 * room), the others format the next one, in pieces of ROWS_PIECE rows
 * each formatted into its own part of the buffer and written in order:
 * the bytes are those of one thread, and the file is written while the
 * threads format (each alone would leave the other idle). PICARD_ENOMEM
 * where there is no room for the buffers. */
#define ROWS_CHUNK_BYTES ((size_t)8 << 20)
#define ROWS_PIECE 4096

/* A chunk of rows formatted: its pieces' bytes, in order. */
struct rows_chunk {
	char *buf;      /* room for the chunk's rows, row_max each */
	size_t *used;   /* bytes of each piece */
	long pieces;    /* pieces formatted into it, 0: none */
};

/* Write a formatted chunk's pieces in order. */
static void write_chunk(FILE *f, const struct rows_chunk *c, size_t row_max)
{
	for (long p = 0; p < c->pieces; p++)
		fwrite(c->buf + (size_t)p * ROWS_PIECE * row_max, 1, c->used[p], f);
}

static int write_rows(FILE *f, const struct run_results *res, long r, size_t row_max,
		      row_format row)
{
	const long pieces = (long)(ROWS_CHUNK_BYTES / (row_max * ROWS_PIECE)) + 1;
	const long chunk = pieces * ROWS_PIECE, chunks = (res->ntraj + chunk - 1) / chunk;
	struct rows_chunk c[2];
	int err = 0;

	for (int b = 0; b < 2; b++) {
		c[b].buf = malloc((size_t)chunk * row_max);
		c[b].used = calloc((size_t)pieces, sizeof(size_t));
		c[b].pieces = 0;
		err |= !c[b].buf || !c[b].used;
	}
	if (!err) {
#pragma omp parallel if (res->ntraj >= 1024)
		for (long k = 0; k <= chunks; k++) {
			struct rows_chunk *now = &c[k % 2], *last = &c[(k + 1) % 2];
			const long i0 = k * chunk, rows = k < chunks ?
				(res->ntraj - i0 < chunk ? res->ntraj - i0 : chunk) : 0;
			const long count = (rows + ROWS_PIECE - 1) / ROWS_PIECE;

			/* one thread writes the last chunk; the others format
			 * this one, and it joins them when done */
#pragma omp single nowait
			{
				write_chunk(f, last, row_max);
				last->pieces = 0;
			}
#pragma omp for schedule(dynamic, 1)
			for (long p = 0; p < count; p++) {
				const long a = i0 + p * ROWS_PIECE,
					   b = a + ROWS_PIECE < i0 + rows ? a + ROWS_PIECE : i0 + rows;
				char *at = now->buf + (size_t)p * ROWS_PIECE * row_max;
				size_t used = 0;

				for (long i = a; i < b; i++)
					used += row(at + used, res, r, i);
				now->used[p] = used;
			}
#pragma omp single
			now->pieces = count;
		}
	}
	for (int b = 0; b < 2; b++) {
		free(c[b].buf);
		free(c[b].used);
	}
	return err ? PICARD_ENOMEM : 0;
}

static int csv_record(FILE *f, const struct run_results *res, long r)
{
	return write_rows(f, res, r, csv_row_max(res), csv_row);
}

/* ---- NPY ------------------------------------------------------------------ */

/* The results' .npy preamble: float64, (records,) trajectories, n. */
static void npy_header(FILE *f, const struct run_results *res)
{
	char shape[64];

	if (res->times)
		snprintf(shape, sizeof(shape), "(%ld, %ld, %d)", res->ntimes,
			 res->total, res->model->dim);
	else
		snprintf(shape, sizeof(shape), "(%ld, %d)", res->total, res->model->dim);
	output_npy_preamble(f, "'<f8'", shape, 0);
}

void output_npy_preamble(FILE *f, const char *descr, const char *shape, int width)
{
	const int len = snprintf(NULL, 0, "{'descr': %s, 'fortran_order': False, 'shape': %s, }",
				 descr, shape);
	int padded = (len > width ? len : width) + 1;

	padded += (NPY_ALIGN - (10 + padded) % NPY_ALIGN) % NPY_ALIGN;
	fwrite("\x93NUMPY\x01\x00", 1, 8, f);
	fputc(padded & 0xff, f);
	fputc(padded >> 8, f);
	fprintf(f, "{'descr': %s, 'fortran_order': False, 'shape': %s, }%*s\n", descr, shape,
		padded - 1 - len, "");
}

void output_le_int64(unsigned char *bytes, int64_t value)
{
	const uint64_t bits = (uint64_t)value;

	for (int b = 0; b < 8; b++)
		bytes[b] = (unsigned char)(bits >> (8 * b));
}

void output_le_double(unsigned char *bytes, double value)
{
	int64_t bits;

	memcpy(&bits, &value, sizeof(bits));
	output_le_int64(bytes, bits);
}

/* Trajectory i's row of record r at line: n little-endian doubles, NaN
 * once it failed; its length. */
static size_t npy_row(char *line, const struct run_results *res, long r, long i)
{
	const int n = res->model->dim;
	const double *x = record_state(res, r, i);

	for (int k = 0; k < n; k++)
		output_le_double((unsigned char *)line + 8 * k, x ? x[k] : NAN);
	return 8 * (size_t)n;
}

/* The record's rows, formatted by the threads a piece at a time and
 * written with one fwrite per piece (a call per value took most of a
 * large ensemble's output time). */
static int npy_record(FILE *f, const struct run_results *res, long r)
{
	return write_rows(f, res, r, 8 * (size_t)res->model->dim, npy_row);
}

void output_header(FILE *f, enum output_format format, const struct run_results *res)
{
	if (format == OUTPUT_CSV)
		csv_header(f, res);
	else
		npy_header(f, res);
}

int output_record(FILE *f, enum output_format format, const struct run_results *res, long r)
{
	return format == OUTPUT_CSV ? csv_record(f, res, r) : npy_record(f, res, r);
}

/* ---- files ------------------------------------------------------------------ */

bool output_format_of(const char *path, enum output_format *format)
{
	const char *dot = strrchr(path, '.');

	if (!dot || strchr(dot, '/'))
		return false;
	if (strcasecmp(dot, ".csv") == 0)
		*format = OUTPUT_CSV;
	else if (strcasecmp(dot, ".npy") == 0)
		*format = OUTPUT_NPY;
	else
		return false;
	return true;
}

/* Give the temporary file the mode a new file of fopen() would have. */
void output_set_default_mode(int fd)
{
	mode_t mask = umask(0);

	umask(mask);
	fchmod(fd, 0666 & ~mask);
}

FILE *output_temp_create(const char *name, char **temp)
{
	int fd;
	FILE *f;

	*temp = malloc(strlen(name) + 8);
	if (!*temp) {
		errno = ENOMEM;
		return NULL;
	}
	sprintf(*temp, "%s.XXXXXX", name);
	fd = mkstemp(*temp);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		const int saved = errno;

		if (fd >= 0) {
			close(fd);
			unlink(*temp);
		}
		free(*temp);
		*temp = NULL;
		errno = saved;
		return NULL;
	}
	output_set_default_mode(fd);
	temp_files_track(*temp); /* a signal removes it */
	return f;
}

int output_open(struct output *out, const char *path)
{
	int fd, err = 0;

	memset(out, 0, sizeof(*out));
	out->path = path;
	if (!output_format_of(path, &out->format))
		return cli_error(CLI_EUSAGE, "--out %s: unknown extension, expected .csv or .npy", path);
	out->temp_path = malloc(strlen(path) + 8);
	if (!out->temp_path)
		return cli_error(CLI_EUSAGE, "--out %s: out of memory", path);
	sprintf(out->temp_path, "%s.XXXXXX", path);
	fd = mkstemp(out->temp_path);
	if (fd < 0) {
		err = cli_error(CLI_EUSAGE, "--out %s: cannot create: %s", path, strerror(errno));
		goto fail;
	}
	output_set_default_mode(fd);
	out->file = fdopen(fd, "wb");
	if (!out->file) {
		err = cli_error(CLI_EUSAGE, "--out %s: cannot open: %s", path, strerror(errno));
		close(fd);
		unlink(out->temp_path);
		goto fail;
	}
	/* a run killed by SIGINT or SIGTERM removes it */
	temp_files_track(out->temp_path);
	return 0;
fail:
	free(out->temp_path);
	out->temp_path = NULL;
	return err;
}

/* ---- the statuses beside a .npy ------------------------------------------------ */

char *output_status_path(const char *path)
{
	const size_t stem = strlen(path) - strlen(".npy");
	char *name = malloc(stem + sizeof(".status.csv"));

	if (name) {
		memcpy(name, path, stem);
		strcpy(name + stem, ".status.csv");
	}
	return name;
}

void output_status_header(FILE *f, const struct run_results *res)
{
	fputs(has_errors(res) ? "traj,status,err,err_est\n" : "traj,status\n", f);
}

/* "traj,status[,err,err_est]\n" of trajectory i at line (room for
 * STATUS_ROW_MAX bytes), its length: the index's digits by hand, as
 * fprintf's took most of the time of a status file of millions of rows. */
#define STATUS_ROW_MAX 128
static size_t status_row(char *line, const struct run_results *res, long r, long i)
{
	const char *name = picard_traj_status_name(res->status[i]);
	char digits[24];
	int nd = 0, len = 0;

	(void)r; /* one status per trajectory */
	for (unsigned long v = (unsigned long)(res->first + i); nd == 0 || v; v /= 10)
		digits[nd++] = (char)('0' + v % 10);
	while (nd)
		line[len++] = digits[--nd];
	line[len++] = ',';
	while (*name && len < STATUS_ROW_MAX / 2)
		line[len++] = *name++;
	if (has_errors(res))
		len += error_fields(line + len, STATUS_ROW_MAX - 1 - len, res, i);
	line[len++] = '\n';
	return (size_t)len;
}

int output_status_rows(FILE *f, const struct run_results *res)
{
	return write_rows(f, res, 0, STATUS_ROW_MAX, status_row);
}

/* Open the temporary status file beside a .npy and write its header. */
static int status_begin(struct output *out, const struct run_results *res)
{
	char name[PATH_MAX];

	snprintf(name, sizeof(name), "%s.status", out->path);
	out->status = output_temp_create(name, &out->status_temp);
	if (!out->status)
		return cli_error(PICARD_EIO, "--out %s: cannot create its status file: %s",
				 out->path, strerror(errno));
	output_status_header(out->status, res);
	return 0;
}

/* Close and remove a temporary file, if there is one. */
static void drop_temp(FILE **file, char **temp)
{
	if (*file)
		fclose(*file);
	*file = NULL;
	if (*temp) {
		unlink(*temp);
		temp_files_forget(*temp);
	}
	free(*temp);
	*temp = NULL;
}

int output_begin(struct output *out, const struct run_results *res)
{
	out->total = res->total;
	out->records = output_records(res);
	out->failed = 0;
	output_header(out->file, out->format, res);
	out->data_start = ftello(out->file);
	if (out->format == OUTPUT_NPY && status_begin(out, res))
		return PICARD_EIO;
	return 0;
}

/* A batch's statuses, on a thread of their own beside its states. */
struct status_writer {
	FILE *file;
	const struct run_results *res;
	int err;
};

static void *write_status_thread(void *arg)
{
	struct status_writer *w = arg;

	w->err = output_status_rows(w->file, w->res) || ferror(w->file);
	return NULL;
}

/* Record r of a batch: a .npy's at its place, the record's rows before
 * (total of them) and the batch's first; a CSV's where the last ended
 * (one record: batch after batch). */
static int append_record(struct output *out, const struct run_results *res, long r)
{
	if (out->format == OUTPUT_NPY) {
		const off_t row = 8 * (off_t)res->model->dim;

		if (fseeko(out->file, out->data_start + ((off_t)r * out->total + res->first) * row,
			   SEEK_SET) != 0)
			return PICARD_EIO;
	}
	return output_record(out->file, out->format, res, r);
}

int output_append(struct output *out, const struct run_results *res)
{
	struct status_writer status = {.file = out->status, .res = res};
	pthread_t thread;
	bool threaded = false;
	int err = 0;

	if (out->status)
		threaded = pthread_create(&thread, NULL, write_status_thread, &status) == 0;
	errno = 0;
	for (long r = 0; r < out->records && !err && !ferror(out->file); r++)
		err = append_record(out, res, r);
	if (err && !errno)
		errno = ENOMEM; /* no room to format the rows */
	if (err || ferror(out->file))
		out->write_errno = errno ? errno : EIO;
	if (threaded)
		pthread_join(thread, NULL);
	else if (out->status)
		write_status_thread(&status);
	if (status.err)
		out->status_failed = true;
	out->failed |= err || ferror(out->file) || status.err;
	return out->failed ? PICARD_EIO : 0;
}

/* Rename the status file beside FILE.npy into place. */
static int place_status_file(struct output *out)
{
	char *name = output_status_path(out->path);
	int err = 0;

	if (!name || rename(out->status_temp, name) != 0) {
		err = cli_error(PICARD_EIO, "--out %s: cannot place its status file: %s", out->path,
				name ? strerror(errno) : "out of memory");
		unlink(out->status_temp);
	}
	temp_files_forget(out->status_temp);
	free(name);
	free(out->status_temp);
	out->status_temp = NULL;
	return err;
}

int output_finish(struct output *out)
{
	const bool has_status = out->status_temp != NULL;
	int err = 0;

	if (out->status && fclose(out->status) != 0)
		out->status_failed = true;
	out->status = NULL;
	if (fclose(out->file) != 0 && !out->write_errno)
		out->write_errno = errno;
	out->file = NULL;
	/* a failed status file leaves neither file */
	if (out->status_failed) {
		err = cli_error(PICARD_EIO, "--out %s: writing its status file failed", out->path);
	} else if (out->write_errno || out->failed) {
		err = cli_error(PICARD_EIO, "--out %s: write failed: %s", out->path,
				out->write_errno ? strerror(out->write_errno) : "I/O error");
	} else if (has_status) {
		/* the status file placed first: a failure to place either
		 * leaves neither in place */
		err = place_status_file(out);
	}
	if (!err && rename(out->temp_path, out->path) != 0) {
		err = cli_error(PICARD_EIO, "--out %s: cannot rename %s into place: %s",
				out->path, out->temp_path, strerror(errno));
		if (has_status) {
			char *placed = output_status_path(out->path);

			if (placed)
				unlink(placed);
			free(placed);
		}
	}
	if (err) {
		drop_temp(&out->status, &out->status_temp);
		unlink(out->temp_path);
	} else if (has_status) {
		char *placed = output_status_path(out->path);

		printf("%-12s %s (status of each trajectory)\n", "statuses", placed ? placed : "");
		free(placed);
	}
	temp_files_forget(out->temp_path);
	free(out->temp_path);
	out->temp_path = NULL;
	return err;
}

int output_write(struct output *out, const struct run_results *res)
{
	if (output_begin(out, res)) {
		output_discard(out);
		return PICARD_EIO;
	}
	output_append(out, res);
	/* output_finish reports what failed, and leaves no file behind */
	return output_finish(out);
}

void output_discard(struct output *out)
{
	drop_temp(&out->status, &out->status_temp);
	if (out->file)
		fclose(out->file);
	out->file = NULL;
	if (out->temp_path) {
		unlink(out->temp_path);
		temp_files_forget(out->temp_path);
	}
	free(out->temp_path);
	out->temp_path = NULL;
}
