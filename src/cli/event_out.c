/* event_out.c - picard-run's event log (event_out.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "event_out.h"
#include "output.h"
#include "temp_files.h"

int events_out_open(struct run *run)
{
	const char *path = run->opts.events_path;
	const int n = run->model->dim;

	if (!path)
		return 0;
	if (run->shard.size > 1)
		return cli_error(CLI_EUSAGE, "--events %s: not yet under mpirun (one process writes "
				 "the log)", path);
	run->events_file = output_temp_create(path, &run->events_temp);
	if (!run->events_file)
		return cli_error(CLI_EUSAGE, "--events %s: cannot create: %s", path, strerror(errno));
	fprintf(run->events_file, "member,event,name,time");
	for (int k = 0; k < n; k++)
		fprintf(run->events_file, ",before_x%d", k + 1);
	for (int k = 0; k < n; k++)
		fprintf(run->events_file, ",after_x%d", k + 1);
	fputc('\n', run->events_file);
	return 0;
}

void events_out_take(struct run *run)
{
	const picard_event_log *log = picard_solver_event_log(run->solver);
	const picard_events *ev = run->model->events;
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

			fprintf(run->events_file, "%ld,%d,%s,%.17g", member, log->index[at],
				ev->names[log->index[at]], log->time[at]);
			for (int k = 0; k < n; k++)
				fprintf(run->events_file, ",%.17g", log->before[at * n + k]);
			for (int k = 0; k < n; k++)
				fprintf(run->events_file, ",%.17g", log->after[at * n + k]);
			fputc('\n', run->events_file);
		}
	}
}

void events_out_report(const struct run *run)
{
	if (!run->model->events)
		return;
	printf("%-12s %ld (%ld in the log, %d kept per member)\n", "events", run->events_total,
	       run->events_kept, run->events_capacity);
	if (run->events_overflowed)
		fprintf(stderr, "picard-run: warning: %ld member%s had more events than the log "
			"keeps (%d; --event-log N keeps more): %s%s\n", run->events_overflowed,
			run->events_overflowed == 1 ? "" : "s", run->events_capacity,
			run->events_overflow, run->events_overflowed > 8 ? ", ..." : "");
}

int events_out_finish(struct run *run)
{
	const char *path = run->opts.events_path;
	const bool wrote = run->events_file && !ferror(run->events_file);
	int err = 0;

	if (!run->events_file)
		return 0;
	if (fclose(run->events_file) != 0 || !wrote)
		err = cli_error(PICARD_EIO, "--events %s: write failed: %s", path, strerror(errno));
	else if (rename(run->events_temp, path) != 0)
		err = cli_error(PICARD_EIO, "--events %s: cannot rename %s into place: %s", path,
				run->events_temp, strerror(errno));
	run->events_file = NULL;
	if (err)
		unlink(run->events_temp);
	temp_files_forget(run->events_temp);
	free(run->events_temp);
	run->events_temp = NULL;
	return err;
}

void events_out_discard(struct run *run)
{
	if (!run->events_file)
		return;
	fclose(run->events_file);
	run->events_file = NULL;
	unlink(run->events_temp);
	temp_files_forget(run->events_temp);
	free(run->events_temp);
	run->events_temp = NULL;
}
