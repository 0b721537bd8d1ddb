/* rk_kernel.cuh - a per-thread Runge-Kutta scheme for one model, the CUDA
 * kernel: one thread per trajectory, state and stages in registers, SoA
 * x[k*ntraj + i]. It runs rk_integrate.cuh's rk_trajectory, as the CPU
 * backend does (rk_host.h), so the two backends do the same operations in
 * the same order. */
#ifndef PICARD_RK_KERNEL_CUH
#define PICARD_RK_KERNEL_CUH

#include "launch.h"
#include "model_impl.h"
#include "paper_kernel.cuh"
#include "radau5_integrate.cuh"
#include "rk_integrate.cuh"
#include "rosenbrock_integrate.cuh"
#include "team.cuh"
#include "warp_kernel.cuh"

namespace picard {

/* The device's window ends and dense output, into L's records. Which
 * records keep this trajectory's window ends is settled once, a bit each;
 * a window end's row follows from its index, so nothing else is carried
 * from one window to the next (registers are what a per-thread kernel
 * runs short of). Window indices fit int: the scheme's resolve
 * (src/scheme_rk.c) refuses 2^31 output intervals or more. */
template <int n, typename real, bool with_dense, class Team = team_one>
struct rk_device_out {
	static constexpr bool dense = with_dense;
	const picard_launch &L;
	long traj; /* global index */
	rk_dense_cursors cursors;
	unsigned keeps; /* bit r: record r keeps this trajectory's window ends */
	Team T;         /* who writes a state: its lanes split the components
			   (each lane keeps the cursors alike) */

	/* run: the trajectory's; spans: it is the member's own (a kernel of
	 * its own, so a solve without spans carries none of this) */
	template <bool spans>
	__device__ void start(const rk_run &run)
	{
		if constexpr (spans)
			cursors.start_at(L.records, L.nrecords, traj, run.t0);
		keeps = 0;
#pragma unroll
		for (int r = 0; r < PICARD_MAX_RECORDS; r++)
			if (r < L.nrecords && !L.records[r].times && traj % L.records[r].traj_stride == 0)
				keeps |= 1u << r;
	}
	__device__ void window_end(long w, const real *x)
	{
		if (!keeps)
			return;
#pragma unroll
		for (int r = 0; r < PICARD_MAX_RECORDS; r++) {
			/* every 1, the usual, spares the division */
			const int every = (int)L.records[r].every, ends = (int)w + 1;
			const int row = every == 1 ? (int)w : ends % every ? -1 : ends / every - 1;

			if ((keeps >> r & 1u) && row >= 0)
				for (int k = T.lane(); k < n; k += T.lanes)
					record_store(L.records[r], row, traj, k, n, x[k]);
		}
	}
	/* The nth event of the trajectory (event k at t) into the chunk's
	 * log, while it has room; its count counts them all. One thread's
	 * (the thread layouts alone locate events: events_step.cuh). */
	__device__ void event(int nth, int k, double t, const real *before, const real *after)
	{
		const picard_device_events &e = L.events;
		const long i = traj - L.traj_offset;

		e.count[i] = nth + 1;
		if (nth >= e.capacity)
			return;
		const long at = i * e.capacity + nth;
		e.index[at] = k;
		e.time[at] = t;
		for (int c = 0; c < n; c++) {
			e.before[at * n + c] = (double)before[c];
			e.after[at * n + c] = (double)after[c];
		}
	}
	__device__ double due(double t) { return cursors.due(L.records, L.nrecords, traj, t); }
	__device__ void store(const real *x)
	{
		cursors.take(L.records, L.nrecords, traj, [&](int r, long row) {
			for (int k = T.lane(); k < n; k += T.lanes)
				record_store(L.records[r], row, traj, k, n, x[k]);
		});
	}
};

/* Trajectory traj's (of the chunk) integration settings: the launch's,
 * on the member's own span in the kernels for spans. Without them t0, t1
 * and the window are the launch's for every thread: uniform values, where
 * per-thread ones cost registers and moves in every step
 * (bench/results/h200-2026-11-29-issue39-merged). */
template <bool spans>
__device__ inline rk_run rk_run_of_launch(const picard_launch &L, long traj)
{
	const rk_run run = rk_run_of(L.t0, L.t1, L.window, L.windows, L.adaptive, L.K, L.iter_atol,
				     L.iter_rtol, L.bound);

	if constexpr (spans)
		return rk_run_spanning(run, L.span_t0[traj], L.span_t1[traj]);
	else
		return run;
}

/* A trajectory's outcome into L's per-trajectory arrays. */
__device__ inline void rk_store_outcome(const picard_launch &L, long traj, const rk_outcome &o)
{
	L.status[traj] = o.status;
	L.fail_window[traj] = o.fail_window;
	L.fail_time[2 * traj] = o.fail_start;
	L.fail_time[2 * traj + 1] = o.fail_end;
	L.sweeps[traj] = o.steps;
	L.sweeps_max[traj] = o.steps_max;
}

/* One thread per trajectory; fixed and adaptive steps are kernels of their
 * own, so the fixed one holds no registers for the controller. */
template <class Model, class Tab, typename real, bool dense, bool adaptive, bool spans>
__global__ void picard_rk_kernel(const picard_launch L)
{
	constexpr int n = Model::dim, np = Model::nparams;
	const long traj = (long)blockIdx.x * blockDim.x + threadIdx.x;

	if (traj >= L.ntraj)
		return;
	real x[n], p[np > 0 ? np : 1];
	for (int k = 0; k < n; k++)
		x[k] = ((const real *)L.x0)[k * L.ntraj + traj];
	for (int q = 0; q < np; q++)
		p[q] = ((const real *)L.params)[q * L.ntraj + traj];
	const rk_run run = rk_run_of_launch<spans>(L, traj);
	rk_device_out<n, real, dense> out = {L, L.traj_offset + traj, {{0}, 0}, 0, team_one()};
	out.template start<spans>(run);
	rk_outcome o;

	if constexpr (rk_is_implicit<Tab>::value) /* radau5: run.steps tells */
		o = radau5_trajectory<Model, real>(run, x, p, out);
	else if constexpr (rk_is_rosenbrock<Tab>::value) /* likewise */
		o = rosenbrock_trajectory<Model, Tab, real>(run, x, p, out);
	else
		o = adaptive ? rk_adaptive<Model, Tab, real>(run, x, p, out) :
			       rk_fixed<Model, Tab, real>(run, x, p, out);

	for (int k = 0; k < n; k++)
		((real *)L.x_final)[k * L.ntraj + traj] = x[k];
	rk_store_outcome(L, traj, o);
}

} /* namespace picard */

#endif
