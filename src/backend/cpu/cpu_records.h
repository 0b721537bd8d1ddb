/* cpu_records.h - what the CPU backend's schemes store into the caller's
 * records (picard.h, picard_record): window ends, and dense output at a
 * record's times (src/dense_output.h). */
#ifndef PICARD_CPU_RECORDS_H
#define PICARD_CPU_RECORDS_H

#include "backend.h"
#include "dense_output.h"

/* Store component k of row r of a record for trajectory traj (layout:
 * picard.h, picard_record). */
static inline void record_store(const struct picard_job *job, const picard_record *rec,
			 long r, long traj, int k, double x)
{
	const long slots = picard_record_slots(job->ntraj, rec->traj_stride);

	rec->states[(r * slots + traj / rec->traj_stride) * job->model->dim + k] = x;
}

/* Store component k of the state at the end of window w into a record if
 * it keeps that window and trajectory. */
static inline void record_window_end(const struct picard_job *job,
			      const picard_record *rec, long w, long traj,
			      int k, double x)
{
	if (rec->times || (w + 1) % rec->every != 0 || traj % rec->traj_stride != 0)
		return;
	record_store(job, rec, (w + 1) / rec->every - 1, traj, k, x);
}

/* The nth event of trajectory traj (event k at t, its n components
 * before and after the actions) into the job's log, while it has room. */
static inline void record_event(const struct picard_event_store *log, long traj, int nth, int k,
				double t, const double *before, const double *after, int n)
{
	if (!log || nth >= log->capacity)
		return;
	const size_t at = (size_t)traj * (size_t)log->capacity + (size_t)nth;
	log->index[at] = k;
	log->time[at] = t;
	for (int i = 0; i < n; i++) {
		log->before[at * n + i] = before[i];
		log->after[at * n + i] = after[i];
	}
}

/* The row of the next time up to t_max of a record of times that window
 * w holds, the cursor *next moved past it; -1 when there is none (or the
 * record keeps window ends, or not this trajectory). Rule:
 * src/dense_output.h. A window cut at an event stores the times up to it. */
static inline long dense_row_until(const struct picard_job *job, const picard_record *rec,
				   long w, long traj, long *next, double t_max)
{
	const picard_grid *g = job->grid;

	if (!rec->times || traj % rec->traj_stride != 0 || *next >= rec->ntimes ||
	    rec->times[*next] > picard_window_last_time(job->lobatto_grid,
							g->t0, g->m, g->h, g->window, w,
							g->windows) ||
	    rec->times[*next] > t_max)
		return -1;
	return (*next)++;
}

/* The same for every time window w holds. */
static inline long dense_row(const struct picard_job *job, const picard_record *rec,
		      long w, long traj, long *next)
{
	return dense_row_until(job, rec, w, traj, next, (double)INFINITY);
}

#endif
