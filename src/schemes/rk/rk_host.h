/* rk_host.h - a per-thread Runge-Kutta scheme for one model on the host:
 * the CPU backend's trajectory, rk_integrate.cuh's rk_trajectory as the
 * kernel runs it (rk_kernel.cuh), so the two backends do the same
 * operations in the same order. Instantiated in each model's host side
 * (picard_model.cuh). */
#ifndef PICARD_RK_HOST_H
#define PICARD_RK_HOST_H

#include "backend.h"
#include "cpu_records.h"
#include "radau5_integrate.cuh"
#include "rk_integrate.cuh"
#include "rosenbrock_integrate.cuh"

namespace picard {

/* The host's window ends and dense output, into the job's records (doubles). */
template <int n, typename real>
struct rk_host_out {
	static constexpr bool dense = true;
	const struct picard_job *job;
	long traj;
	rk_dense_cursors cursors;

	void window_end(long w, const real *x)
	{
		for (int r = 0; r < job->nrecords; r++)
			for (int k = 0; k < n; k++)
				record_window_end(job, &job->records[r], w, traj, k, (double)x[k]);
	}
	double due(double t) { return cursors.due(job->records, job->nrecords, traj, t); }
	void store(const real *x)
	{
		cursors.take(job->records, job->nrecords, traj, [&](int r, long row) {
			for (int k = 0; k < n; k++)
				record_store(job, &job->records[r], row, traj, k, (double)x[k]);
		});
	}
	/* The nth event of the trajectory (event k at t) into the job's log,
	 * while it has room; events counts them all. */
	void event(int nth, int k, double t, const real *before, const real *after)
	{
		double b[n], a[n];

		events = nth + 1;
		for (int i = 0; i < n; i++) {
			b[i] = (double)before[i];
			a[i] = (double)after[i];
		}
		record_event(job->events, traj, nth, k, t, b, a, n);
	}
	int events; /* events the trajectory had */
};

/* Trajectory traj of the job on the host: its status, the failing window
 * into *fail_window and the failing step's times into the job's
 * fail_time, its step counts into the job's sweep arrays. */
template <class Model, class Tab, typename real>
picard_traj_status picard_rk_host(const struct picard_job *job, long traj, long *fail_window)
{
	constexpr int n = Model::dim, np = Model::nparams;
	const picard_grid *g = job->grid;
	real x[n], p[np > 0 ? np : 1];

	for (int k = 0; k < n; k++)
		x[k] = (real)job->x0[traj * n + k];
	for (int q = 0; q < np; q++)
		p[q] = (real)job->params[traj * job->param_stride + q];
	const rk_run grid_run = rk_run_of(g->t0, g->t1, g->window, g->windows, g->adaptive, g->K,
					  g->iter_atol, g->iter_rtol, job->bound);
	const rk_run run = job->span_t0 ?
		rk_run_spanning(grid_run, job->span_t0[traj], job->span_t1[traj]) : grid_run;
	rk_host_out<n, real> out = {job, traj, {{0}, 0}, 0};

	if (job->span_t0)
		out.cursors.start_at(job->records, job->nrecords, traj, run.t0);
	const rk_outcome o = rk_trajectory<Model, Tab, real>(run, x, p, out);

	if (job->events)
		job->events->count[traj] = out.events;
	if (job->x_final)
		for (int k = 0; k < n; k++)
			job->x_final[traj * n + k] = (double)x[k];
	*fail_window = o.fail_window;
	job->fail_time[2 * traj] = o.fail_start;
	job->fail_time[2 * traj + 1] = o.fail_end;
	job->sweeps[traj] = o.steps;
	job->sweeps_max[traj] = o.steps_max;
	return o.status;
}

} /* namespace picard */

/* The model's host integrations for the RK scheme Tab, float then double. */
#define PICARD_RK_HOST(Model, Tab)                                             \
	{ picard::picard_rk_host<Model, Tab, float>,                            \
	  picard::picard_rk_host<Model, Tab, double> }

#endif
