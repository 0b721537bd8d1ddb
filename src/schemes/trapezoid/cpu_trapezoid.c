/* cpu_trapezoid.c - the paper's trapezoid scheme on the CPU backend:
 * src/schemes/trapezoid/cpu_sweep.inc per trajectory, in float and in double. */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "compensated.h"
#include "convergence.h"
#include "cpu_records.h"
#include "host_events.h"
#include "model_impl.h"

#define CPU_SCHEME_INC "cpu_sweep.inc"
#include "cpu_precisions.inc"

/* Reals of scratch one trajectory needs (cpu_sweep.inc). */
static size_t scratch_len(const struct picard_job *job)
{
	const int n = job->model->dim;

	return 2 * (size_t)job->grid->m * n + 6 * (size_t)n + job->model->nparams;
}

static picard_traj_status trajectory_float(const struct picard_job *job, const void *tables,
					   long traj, void *scratch, long *fail_window)
{
	(void)tables;
	return integrate_trajectory_float(job, traj, scratch, fail_window);
}

static picard_traj_status trajectory_double(const struct picard_job *job, const void *tables,
					    long traj, void *scratch, long *fail_window)
{
	(void)tables;
	return integrate_trajectory_double(job, traj, scratch, fail_window);
}

const struct picard_cpu_scheme picard_cpu_trapezoid = {
	.scratch_len = scratch_len,
	.trajectory = { trajectory_float, trajectory_double },
};
