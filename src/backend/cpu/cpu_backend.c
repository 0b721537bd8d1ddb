/* cpu_backend.c - a scheme on the host, OpenMP across trajectories: what
 * picard_solve runs without a GPU, and the reference the GPU kernels are
 * tested against (same equations, same node layout, same order of
 * operations). Each scheme's part is its struct picard_cpu_scheme
 * (src/schemes/trapezoid/cpu_trapezoid.c, src/schemes/lobatto/cpu_lobatto.c), named by its table in
 * src/schemes/scheme.h. */
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "backend.h"
#include "errors.h"
#include "scheme.h"

/* The job's totals from its per-trajectory arrays. */
static void add_up(const struct picard_job *job)
{
	double sweeps = 0, windows_run = 0;
	long failed = 0;
	int most = 0;

#pragma omp parallel for reduction(+ : sweeps, windows_run, failed) reduction(max : most)
	for (long i = 0; i < job->ntraj; i++) {
		sweeps += job->sweeps[i];
		windows_run += picard_traj_stopped(job->status[i]) ? job->fail_window[i] + 1 :
								     job->grid->windows;
		most = job->sweeps_max[i] > most ? job->sweeps_max[i] : most;
		failed += picard_traj_failed(job->status[i]);
	}
	*job->totals = (struct picard_job_totals){
		.failed = failed, .sweeps = sweeps, .windows_run = windows_run, .sweeps_max = most,
	};
}

int picard_cpu_solve(const struct picard_job *job, double *seconds)
{
	const struct picard_cpu_scheme *cpu = picard_scheme_of(job->grid->scheme)->cpu;
	const bool dbl = job->precision == PICARD_DOUBLE;
	const size_t size = cpu->scratch_len(job) * (dbl ? sizeof(double) : sizeof(float));
	void *tables = NULL;
	int err = PICARD_OK;
	double start = omp_get_wtime();

	if (cpu->prepare)
		err = cpu->prepare(job, &tables);
	if (err)
		goto out;
#pragma omp parallel if (!cpu->across_windows || job->ntraj >= omp_get_max_threads())
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
			job->status[i] = cpu->trajectory[dbl](job, tables, i, scratch,
							      &job->fail_window[i]);
		}
		free(scratch);
	}
	if (err)
		err = picard_fail(err, "CPU backend: no memory for %zu bytes of scratch", size);
	else
		add_up(job);
out:
	*seconds = omp_get_wtime() - start;
	if (cpu->release)
		cpu->release(tables);
	return err;
}

void picard_note_failure(const struct picard_job *job, long traj, const char *fmt, ...)
{
	va_list args;

	if (!job->note)
		return;
	va_start(args, fmt);
#pragma omp critical(picard_note_failure)
	if (job->note->traj < 0 || traj < job->note->traj) {
		job->note->traj = traj;
		vsnprintf(job->note->message, sizeof(job->note->message), fmt, args);
	}
	va_end(args);
}
