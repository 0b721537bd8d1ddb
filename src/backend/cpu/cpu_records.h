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

/* The row of the next time of a record of times that window w holds, the
 * cursor *next moved past it; -1 when there is none (or the record keeps
 * window ends, or not this trajectory). Rule: src/dense_output.h. */
static inline long dense_row(const struct picard_job *job, const picard_record *rec,
		      long w, long traj, long *next)
{
	const picard_grid *g = job->grid;

	if (!rec->times || traj % rec->traj_stride != 0 || *next >= rec->ntimes ||
	    rec->times[*next] > picard_window_last_time(job->lobatto_grid,
							g->t0, g->m, g->h, g->window, w,
							g->windows))
		return -1;
	return (*next)++;
}

#endif
