/* cpu_backend.c - the Picard schemes on the host, OpenMP across
 * trajectories: what picard_solve runs without a GPU, and the reference the
 * GPU kernels are tested against (same equations, same node layout, same
 * order of operations: src/cpu_sweep.inc for the paper's trapezoid scheme,
 * src/cpu_lobatto.inc for the lobatto scheme). */
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "backend.h"
#include "compensated.h"
#include "convergence.h"
#include "dense_output.h"
#include "errors.h"
#include "lobatto.h"
#include "model_impl.h"

/* Store component k of row r of a record for trajectory traj (layout:
 * picard.h, picard_record). */
static void record_store(const struct picard_job *job, const picard_record *rec,
			 long r, long traj, int k, double x)
{
	const long slots = picard_record_slots(job->ntraj, rec->traj_stride);

	rec->states[(r * slots + traj / rec->traj_stride) * job->model->dim + k] = x;
}

/* Store component k of the state at the end of window w into a record if
 * it keeps that window and trajectory. */
static void record_window_end(const struct picard_job *job,
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
static long dense_row(const struct picard_job *job, const picard_record *rec,
		      long w, long traj, long *next)
{
	const picard_grid *g = job->grid;

	if (!rec->times || traj % rec->traj_stride != 0 || *next >= rec->ntimes ||
	    rec->times[*next] > picard_window_last_time(g->scheme == PICARD_SCHEME_LOBATTO,
							g->t0, g->m, g->h, g->window, w,
							g->windows))
		return -1;
	return (*next)++;
}

/* Reals of scratch one trajectory needs (see cpu_sweep.inc and
 * cpu_lobatto.inc; the larger of the two). */
static size_t picard_cpu_scratch_len(const struct picard_job *job)
{
	const int n = job->model->dim;

	return 3 * (size_t)job->grid->m * n + 6 * (size_t)n + job->model->nparams;
}

/* The lobatto scheme's tables of one solve, in its precision, [j][l]
 * (picard_lobatto_tables), shared read-only by the threads. */
struct cpu_lobatto_tables {
	void *A;        /* (H/2) S, m*m reals */
	void *X;        /* extrapolation E, m*m reals */
	double *offset; /* node times from the window start */
	/* dense output's weights for each record of times (ntimes * m
	 * reals, picard_lobatto_dense_weights), else NULL */
	void *dense_weights[PICARD_MAX_RECORDS];
};

#define REAL float
#define SUFFIX float
#define FMA fmaf
#include "cpu_sweep.inc"
#include "cpu_lobatto.inc"
#undef REAL
#undef SUFFIX
#undef FMA

#define REAL double
#define SUFFIX double
#define FMA fma
#include "cpu_sweep.inc"
#include "cpu_lobatto.inc"
#undef REAL
#undef SUFFIX
#undef FMA

/* Build the lobatto tables of the job's grid (for the trapezoid scheme:
 * nothing). */
static int make_lobatto_tables(const struct picard_job *job,
			       struct cpu_lobatto_tables *tab)
{
	const int m = job->grid->m;
	const size_t real_size = job->precision == PICARD_DOUBLE ? sizeof(double) : sizeof(float);
	struct picard_lobatto *lob;
	int err;

	if (job->grid->scheme != PICARD_SCHEME_LOBATTO)
		return PICARD_OK;
	lob = malloc(sizeof(*lob));
	tab->A = malloc(m * m * real_size);
	tab->X = malloc(m * m * real_size);
	tab->offset = malloc(m * sizeof(double));
	if (!lob || !tab->A || !tab->X || !tab->offset) {
		free(lob);
		return picard_fail(PICARD_ENOMEM, "CPU backend: lobatto tables");
	}
	err = picard_lobatto_build(m, lob);
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
	free(lob);
	return err;
}

/* One trajectory of either scheme in either precision. */
static picard_traj_status cpu_trajectory(const struct picard_job *job,
					 const struct cpu_lobatto_tables *tab,
					 long i, void *scratch)
{
	const bool dbl = job->precision == PICARD_DOUBLE;

	if (job->grid->scheme == PICARD_SCHEME_LOBATTO)
		return dbl ? lobatto_trajectory_double(job, tab, i, scratch, &job->fail_window[i]) :
			     lobatto_trajectory_float(job, tab, i, scratch, &job->fail_window[i]);
	return dbl ? integrate_trajectory_double(job, i, scratch, &job->fail_window[i]) :
		     integrate_trajectory_float(job, i, scratch, &job->fail_window[i]);
}

int picard_cpu_solve(const struct picard_job *job, double *seconds)
{
	const size_t len = picard_cpu_scratch_len(job);
	const size_t size = len * (job->precision == PICARD_DOUBLE ?
				   sizeof(double) : sizeof(float));
	struct cpu_lobatto_tables tab = { 0 };
	int err = PICARD_OK;
	double start = omp_get_wtime();

	err = make_lobatto_tables(job, &tab);
	if (err)
		goto out;
#pragma omp parallel
	{
		void *scratch = malloc(size);

		if (!scratch) {
#pragma omp atomic write
			err = PICARD_ENOMEM;
		}
#pragma omp for schedule(dynamic, 16)
		for (long i = 0; i < job->ntraj; i++) {
			if (!scratch)
				continue;
			job->status[i] = cpu_trajectory(job, &tab, i, scratch);
		}
		free(scratch);
	}
	if (err)
		err = picard_fail(err, "CPU backend: no memory for %zu bytes of scratch", size);
out:
	*seconds = omp_get_wtime() - start;
	free(tab.A);
	free(tab.X);
	free(tab.offset);
	for (int r = 0; r < PICARD_MAX_RECORDS; r++)
		free(tab.dense_weights[r]);
	return err;
}
