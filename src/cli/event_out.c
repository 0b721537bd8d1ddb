/* event_out.c - picard-run's event log (event_out.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "event_out.h"
#include "output.h"
#include "shard.h"
#include "temp_files.h"

/* The file --events names, or the one beside --out: FILE.events.EXT of
 * FILE.EXT (malloc'd), or NULL when there is none to write. */
static char *events_path_of(const struct run_options *opts)
{
	const char *out = opts->out_path, *dot;
	char *path;

	if (opts->events_path)
		return strdup(opts->events_path);
	if (!out || !opts->model->events)
		return NULL;
	dot = strrchr(out, '.'); /* output_open has checked there is one */
	path = malloc(strlen(out) + sizeof(".events"));
	if (path)
		sprintf(path, "%.*s.events%s", (int)(dot - out), out, dot);
	return path;
}

/* The .npy's header for rows entries of n components: a record of member,
 * event (int64), time, the state before and after (float64), its width
 * that of the largest count, so the header is rewritten in place once
 * the rows are known. */
static void npy_events_header(FILE *f, int n, long rows)
{
	char descr[192], shape[32], widest[32];

	snprintf(descr, sizeof(descr), "[('member', '<i8'), ('event', '<i8'), ('time', '<f8'), "
		 "('before', '<f8', (%d,)), ('after', '<f8', (%d,))]", n, n);
	snprintf(shape, sizeof(shape), "(%ld,)", rows);
	snprintf(widest, sizeof(widest), "(%ld,)", LONG_MAX);
	output_npy_preamble(f, descr, shape, (int)(strlen(descr) + strlen(widest)) + 48);
}

static void csv_events_header(FILE *f, int n)
{
	fprintf(f, "member,event,name,time");
	for (int k = 0; k < n; k++)
		fprintf(f, ",before_x%d", k + 1);
	for (int k = 0; k < n; k++)
		fprintf(f, ",after_x%d", k + 1);
	fputc('\n', f);
}

int events_out_open(struct run *run)
{
	const char *flag = run->opts.events_path ? "--events" : "--out";
	char part[PATH_MAX];

	run->events_path = events_path_of(&run->opts);
	if (!run->events_path)
		return run->opts.out_path && run->model->events ?
		       cli_error(CLI_EUSAGE, "%s: out of memory", flag) : 0;
	output_format_of(run->events_path, &run->events_format); /* validate.c checked it */
	/* alone, the file itself under a temporary name; under mpirun each
	 * rank's part beside it, placed together at the end */
	snprintf(part, sizeof(part), run->shard.size > 1 ? "%s.rank%d" : "%s",
		 run->events_path, run->shard.rank);
	run->events_file = output_temp_create(part, &run->events_temp);
	if (!run->events_file)
		return cli_error(CLI_EUSAGE, "%s %s: cannot create: %s", flag, run->events_path,
				 strerror(errno));
	if (run->shard.rank == 0 && run->events_format == OUTPUT_CSV)
		csv_events_header(run->events_file, run->model->dim);
	else if (run->shard.rank == 0) /* its count written at the end */
		npy_events_header(run->events_file, run->model->dim, 0);
	return 0;
}

/* Entry at of log as a .npy record of n components. */
static void npy_event_row(FILE *f, const picard_event_log *log, size_t at, long member, int n)
{
	enum { per = 64 }; /* components a piece of row holds */
	unsigned char row[8 * per];

	output_le_int64(row, member);
	output_le_int64(row + 8, log->index[at]);
	output_le_double(row + 16, log->time[at]);
	fwrite(row, 1, 24, f);
	for (int side = 0; side < 2; side++) {
		const double *x = (side ? log->after : log->before) + at * (size_t)n;

		for (int k0 = 0; k0 < n; k0 += per) {
			const int m = n - k0 < per ? n - k0 : per;

			for (int k = 0; k < m; k++)
				output_le_double(row + 8 * k, x[k0 + k]);
			fwrite(row, 1, 8 * (size_t)m, f);
		}
	}
}

static void csv_event_row(FILE *f, const picard_event_log *log, size_t at, long member,
			  const picard_events *ev, int n)
{
	fprintf(f, "%ld,%d,%s,%.17g", member, log->index[at], ev->names[log->index[at]],
		log->time[at]);
	for (int k = 0; k < n; k++)
		fprintf(f, ",%.17g", log->before[at * n + k]);
	for (int k = 0; k < n; k++)
		fprintf(f, ",%.17g", log->after[at * n + k]);
	fputc('\n', f);
}

void events_out_take(struct run *run)
{
	const picard_event_log *log = picard_solver_event_log(run->solver);
	const int n = run->model->dim;

	if (!log)
		return;
	run->events_capacity = log->capacity;
	for (long i = 0; i < log->ntraj; i++) {
		const long member = run->shard.first + run->batch_first + i;
		const int kept = log->count[i] < log->capacity ? log->count[i] : log->capacity;

		run->events_total += log->count[i];
		run->events_kept += kept;
		if (log->count[i] > log->capacity) {
			const size_t used = strlen(run->events_overflow);

			if (run->events_overflowed++ < 8)
				snprintf(run->events_overflow + used, sizeof(run->events_overflow) - used,
					 "%s%ld (%d events)", used ? ", " : "", member, log->count[i]);
		}
		for (int j = 0; run->events_file && j < kept; j++) {
			const size_t at = (size_t)i * (size_t)log->capacity + (size_t)j;

			if (run->events_format == OUTPUT_CSV)
				csv_event_row(run->events_file, log, at, member, run->model->events, n);
			else
				npy_event_row(run->events_file, log, at, member, n);
		}
	}
}

void events_out_report(const struct run *run)
{
	long sums[3] = {run->events_total, run->events_kept, run->events_overflowed};

	if (!run->model->events)
		return;
	shard_sum(&run->shard, sums, 3); /* the job's: rank 0 prints them */
	printf("%-12s %ld (%ld in the log, %d kept per member)\n", "events", sums[0], sums[1],
	       run->events_capacity);
	if (sums[2])
		fprintf(stderr, "picard-run: warning: %ld member%s had more events than the log "
			"keeps (%d; --event-log N keeps more): %s%s\n", sums[2],
			sums[2] == 1 ? "" : "s", run->events_capacity,
			run->events_overflowed ? run->events_overflow : "the first on other ranks",
			run->events_overflowed > 8 || sums[2] > run->events_overflowed ? ", ..." : "");
}

int events_out_finish(struct run *run)
{
	const char *path = run->events_path, *flag = run->opts.events_path ? "--events" : "--out";
	long rows = run->events_kept;
	bool wrote;
	int err = 0;

	if (!path)
		return 0;
	shard_sum(&run->shard, &rows, 1);
	if (run->shard.rank == 0 && run->events_format == OUTPUT_NPY) { /* the count */
		fflush(run->events_file);
		rewind(run->events_file);
		npy_events_header(run->events_file, run->model->dim, rows);
	}
	wrote = !ferror(run->events_file);
	if ((fclose(run->events_file) != 0) | !wrote)
		err = cli_error(PICARD_EIO, "%s %s: write failed: %s", flag, path, strerror(errno));
	run->events_file = NULL;
	temp_files_forget(run->events_temp);
	if (shard_agree(&run->shard, err, &run->out) == 0) /* every rank wrote its part */
		err = shard_concat(&run->shard, flag, path, run->events_temp);
	else
		unlink(run->events_temp);
	if (!err && shard_is_root(&run->shard))
		printf("%-12s %s (the event log)\n", "event log", path);
	free(run->events_temp);
	run->events_temp = NULL;
	return err;
}

void events_out_discard(struct run *run)
{
	if (run->events_file) {
		fclose(run->events_file);
		run->events_file = NULL;
		unlink(run->events_temp);
		temp_files_forget(run->events_temp);
	}
	free(run->events_temp);
	run->events_temp = NULL;
	free(run->events_path);
	run->events_path = NULL;
}
