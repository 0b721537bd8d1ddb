/* rk_kernel.cuh - a per-thread Runge-Kutta scheme for one model: the CUDA
 * kernel (one thread per trajectory, state and stages in registers, SoA
 * x[k*ntraj + i]) and the host integration the CPU backend runs, both
 * rk_integrate.cuh's rk_trajectory, so the two backends do the same
 * operations in the same order. */
#ifndef PICARD_RK_KERNEL_CUH
#define PICARD_RK_KERNEL_CUH

#include <cuda_runtime.h>
#include <math.h>

#include "backend.h"
#include "cpu_records.h"
#include "launch.h"
#include "model_impl.h"
#include "paper_kernel.cuh"
#include "rk_integrate.cuh"
#include "warp_kernel.cuh"

namespace picard {

/* The integration's settings from a grid's: K steps per window, or
 * adaptive with K steps tried at most over the span and the iteration
 * tolerances as the local error's scale (src/scheme_rk.c). */
__host__ __device__ inline rk_run rk_run_of(double t0, double t1, double window, long windows,
					    bool adaptive, int K, double atol, double rtol,
					    double bound)
{
	rk_run run = {t0, t1, window, windows, adaptive ? 0 : K, adaptive ? (long)K : 0, atol,
		      rtol, bound};
	return run;
}

/* Which record times are due: each record of times that keeps the
 * trajectory has a cursor; the smallest pending time is due first, and
 * every record holding it gets the state. Device and host alike. */
struct rk_dense_cursors {
	long next[PICARD_MAX_RECORDS];
	double pending;

	template <class Records>
	__host__ __device__ double due(const Records &recs, int nrecords, long traj, double t)
	{
		pending = NAN;
		for (int r = 0; r < nrecords; r++) {
			const double *times = recs[r].times;

			if (times && traj % recs[r].traj_stride == 0 && next[r] < recs[r].ntimes &&
			    times[next[r]] <= t && !(times[next[r]] >= pending))
				pending = times[next[r]];
		}
		return pending;
	}

	/* Calls put(r, row) for each record whose next time is the pending
	 * one, and moves past it. */
#pragma nv_exec_check_disable
	template <class Records, class Put>
	__host__ __device__ void take(const Records &recs, int nrecords, long traj, Put put)
	{
		for (int r = 0; r < nrecords; r++)
			if (recs[r].times && traj % recs[r].traj_stride == 0 &&
			    next[r] < recs[r].ntimes && recs[r].times[next[r]] == pending)
				put(r, next[r]++);
	}
};

/* The device's window ends and dense output, into L's records. Which
 * records keep this trajectory's window ends is settled once, a bit each;
 * a window end's row follows from its index, so nothing else is carried
 * from one window to the next (registers are what a per-thread kernel
 * runs short of). Window indices fit int: the scheme's resolve
 * (src/scheme_rk.c) refuses 2^31 output intervals or more. */
template <int n, typename real, bool with_dense>
struct rk_device_out {
	static constexpr bool dense = with_dense;
	const picard_launch &L;
	long traj; /* global index */
	rk_dense_cursors cursors;
	unsigned keeps; /* bit r: record r keeps this trajectory's window ends */

	__device__ void start()
	{
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
				for (int k = 0; k < n; k++)
					record_store(L.records[r], row, traj, k, n, x[k]);
		}
	}
	__device__ double due(double t) { return cursors.due(L.records, L.nrecords, traj, t); }
	__device__ void store(const real *x)
	{
		cursors.take(L.records, L.nrecords, traj, [&](int r, long row) {
			for (int k = 0; k < n; k++)
				record_store(L.records[r], row, traj, k, n, x[k]);
		});
	}
};

/* One thread per trajectory; fixed and adaptive steps are kernels of their
 * own, so the fixed one holds no registers for the controller. */
template <class Model, class Tab, typename real, bool dense, bool adaptive>
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
	const rk_run run = rk_run_of(L.t0, L.t1, L.window, L.windows, L.adaptive, L.K, L.iter_atol,
				     L.iter_rtol, L.bound);
	rk_device_out<n, real, dense> out = {L, L.traj_offset + traj, {{0}, 0}, 0};
	out.start();
	const rk_outcome o = adaptive ? rk_adaptive<Model, Tab, real>(run, x, p, out) :
					rk_fixed<Model, Tab, real>(run, x, p, out);

	for (int k = 0; k < n; k++)
		((real *)L.x_final)[k * L.ntraj + traj] = x[k];
	L.status[traj] = o.status;
	L.fail_window[traj] = o.fail_window;
	L.sweeps[traj] = o.steps;
	L.sweeps_max[traj] = o.steps_max;
}

template <class Model, class Tab, typename real>
static void (*picard_rk_kernel_for(const picard_launch *L))(const picard_launch)
{
	if (L->adaptive)
		return L->dense ? picard_rk_kernel<Model, Tab, real, true, true> :
				  picard_rk_kernel<Model, Tab, real, false, true>;
	return L->dense ? picard_rk_kernel<Model, Tab, real, true, false> :
			  picard_rk_kernel<Model, Tab, real, false, false>;
}

/* Launch it: traj_per_block threads per block. Limits were checked by the
 * caller. */
template <class Model, class Tab, typename real>
int picard_rk_launch(const picard_launch *L)
{
	picard_rk_kernel_for<Model, Tab, real>(L)
		<<<picard_layout_blocks(L), L->traj_per_block, 0, (cudaStream_t)L->stream>>>(*L);
	return (int)cudaGetLastError();
}

template <class Model, class Tab, typename real>
int picard_rk_prepare(const picard_launch *L, picard_kernel_info *info)
{
	return picard_describe_kernel(picard_rk_kernel_for<Model, Tab, real>(L), info);
}

/* ---- the host: the CPU backend's trajectory --------------------------------- */

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
};

/* Trajectory traj of the job on the host: its status, the failing window
 * into *fail_window, its step counts into the job's sweep arrays. */
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
	const rk_run run = rk_run_of(g->t0, g->t1, g->window, g->windows, g->adaptive, g->K,
				     g->iter_atol, g->iter_rtol, job->bound);
	rk_host_out<n, real> out = {job, traj, {{0}, 0}};
	const rk_outcome o = rk_trajectory<Model, Tab, real>(run, x, p, out);

	if (job->x_final)
		for (int k = 0; k < n; k++)
			job->x_final[traj * n + k] = (double)x[k];
	*fail_window = o.fail_window;
	job->sweeps[traj] = o.steps;
	job->sweeps_max[traj] = o.steps_max;
	return o.status;
}

} /* namespace picard */

/* The model's entry for the RK scheme Tab: host integration and kernels,
 * float then double. */
#define PICARD_RK_IMPL(Model, Tab)                                             \
	{ { picard::picard_rk_host<Model, Tab, float>,                          \
	    picard::picard_rk_host<Model, Tab, double> },                       \
	  { { picard::picard_rk_launch<Model, Tab, float>,                      \
	      picard::picard_rk_prepare<Model, Tab, float> },                   \
	    { picard::picard_rk_launch<Model, Tab, double>,                     \
	      picard::picard_rk_prepare<Model, Tab, double> } } }

#endif
