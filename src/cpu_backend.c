/* cpu_backend.c - the Picard trapezoid scheme on the host, OpenMP across
 * trajectories: what picard_solve runs without a GPU, and the reference the
 * GPU kernels are tested against (same equations, same node layout, same
 * order of operations: src/cpu_sweep.inc). */
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "backend.h"
#include "convergence.h"
#include "errors.h"
#include "model_impl.h"

/* Store component k of the state at the end of window w into a record if
 * it keeps that window and trajectory (layout: picard.h, picard_record). */
static void record_window_end(const struct picard_job *job,
			      const picard_record *rec, long w, long traj,
			      int k, double x)
{
	const int n = job->model->dim;
	long slots, r;

	if ((w + 1) % rec->every != 0 || traj % rec->traj_stride != 0)
		return;
	slots = picard_record_slots(job->ntraj, rec->traj_stride);
	r = (w + 1) / rec->every - 1;
	rec->states[(r * slots + traj / rec->traj_stride) * n + k] = x;
}

/* Reals of scratch one trajectory needs (see cpu_sweep.inc). */
static size_t picard_cpu_scratch_len(const struct picard_job *job)
{
	const int n = job->model->dim;

	return 2 * (size_t)job->grid->m * n + 4 * (size_t)n + job->model->nparams;
}

#define REAL float
#define SUFFIX float
#include "cpu_sweep.inc"
#undef REAL
#undef SUFFIX

#define REAL double
#define SUFFIX double
#include "cpu_sweep.inc"
#undef REAL
#undef SUFFIX

int picard_cpu_solve(const struct picard_job *job, double *seconds)
{
	const size_t len = picard_cpu_scratch_len(job);
	const size_t size = len * (job->precision == PICARD_DOUBLE ?
				   sizeof(double) : sizeof(float));
	int err = PICARD_OK;
	double start = omp_get_wtime();

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
			job->status[i] = job->precision == PICARD_DOUBLE ?
				integrate_trajectory_double(job, i, scratch, &job->fail_window[i]) :
				integrate_trajectory_float(job, i, scratch, &job->fail_window[i]);
		}
		free(scratch);
	}
	*seconds = omp_get_wtime() - start;
	if (err)
		return picard_fail(err, "CPU backend: no memory for %zu bytes of scratch", size);
	return PICARD_OK;
}
