/* cpu_lobatto.c - the lobatto scheme (src/schemes/lobatto/lobatto.h) on the CPU backend:
 * the solve's tables, then src/schemes/lobatto/cpu_lobatto.inc per trajectory, in float and
 * in double. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compensated.h"
#include "convergence.h"
#include "cpu_lobatto.h"
#include "cpu_records.h"
#include "errors.h"
#include "host_events.h"
#include "lobatto.h"
#include "model_impl.h"
#include "scheme.h"

/* Build the tables of the job's grid into *tables. */
int picard_cpu_lobatto_prepare(const struct picard_job *job, void **tables)
{
	struct picard_cpu_lobatto_tables *tab = calloc(1, sizeof(*tab));
	const int m = job->grid->m;
	const size_t real_size = job->precision == PICARD_DOUBLE ? sizeof(double) : sizeof(float);
	struct picard_lobatto *lob;
	int err;

	*tables = tab;
	if (!tab)
		return picard_fail(PICARD_ENOMEM, "CPU backend: lobatto tables");
	lob = tab->lob = malloc(sizeof(*lob));
	tab->A = malloc(m * m * real_size);
	tab->X = malloc(m * m * real_size);
	tab->offset = malloc(m * sizeof(double));
	if (!lob || !tab->A || !tab->X || !tab->offset)
		return picard_fail(PICARD_ENOMEM, "CPU backend: lobatto tables");
	err = picard_scheme_of(job->grid->scheme)->collocation(m, lob);
	if (!err)
		picard_lobatto_tables(lob, job->grid->window, job->precision == PICARD_DOUBLE,
				      m, false, tab->A, tab->X, tab->offset);
	for (int r = 0; !err && r < job->nrecords; r++) {
		const picard_record *rec = &job->records[r];

		if (!rec->times)
			continue;
		tab->dense_weights[r] = malloc((size_t)rec->ntimes * m * real_size);
		if (!tab->dense_weights[r])
			err = picard_fail(PICARD_ENOMEM, "CPU backend: dense output weights of %ld times",
					  rec->ntimes);
		else
			picard_lobatto_dense_weights(lob, job->grid, rec->times, rec->ntimes,
						     job->precision == PICARD_DOUBLE,
						     tab->dense_weights[r]);
	}
	return err;
}

void picard_cpu_lobatto_release(void *tables)
{
	struct picard_cpu_lobatto_tables *tab = tables;

	if (!tab)
		return;
	free(tab->A);
	free(tab->X);
	free(tab->offset);
	free(tab->lob);
	for (int r = 0; r < PICARD_MAX_RECORDS; r++)
		free(tab->dense_weights[r]);
	free(tab);
}

#define CPU_SCHEME_INC "cpu_lobatto.inc"
#include "cpu_precisions.inc"

/* Reals of scratch one trajectory needs (cpu_lobatto.inc). */
static size_t scratch_len(const struct picard_job *job)
{
	const int n = job->model->dim;
	const size_t m = job->grid->m;

	const size_t P = job->grid->block;

	if (P > 1) /* windows in flight: lobatto_time_trajectory's */
		return 2 * P * m * n + 5 * P * n + 3 * (size_t)n + job->model->nparams;
	/* and with events, the tables of a window cut short (m * m) */
	return 3 * m * n + 3 * (size_t)n + job->model->nparams + (job->model->events ? m * m : 0);
}

static picard_traj_status trajectory_float(const struct picard_job *job, const void *tables,
					   long traj, void *scratch, long *fail_window)
{
	return job->grid->block > 1 ?
		lobatto_time_trajectory_float(job, tables, traj, scratch, fail_window) :
		lobatto_trajectory_float(job, tables, traj, scratch, fail_window);
}

static picard_traj_status trajectory_double(const struct picard_job *job, const void *tables,
					    long traj, void *scratch, long *fail_window)
{
	return job->grid->block > 1 ?
		lobatto_time_trajectory_double(job, tables, traj, scratch, fail_window) :
		lobatto_trajectory_double(job, tables, traj, scratch, fail_window);
}

const struct picard_cpu_scheme picard_cpu_lobatto = {
	.scratch_len = scratch_len,
	.prepare = picard_cpu_lobatto_prepare,
	.trajectory = { trajectory_float, trajectory_double },
	.release = picard_cpu_lobatto_release,
};
