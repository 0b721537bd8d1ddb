/* lobatto_time_kernel.cuh - the lobatto scheme parallel in time: a block
 * per trajectory, its P = L.block windows in flight at once, a group of G
 * lanes each (as the lobatto kernel's, 32/G to a warp).
 *
 * The group layout (lobatto_kernel.cuh) solves one window after the other:
 * K sweeps of window w, then window w+1 from w's end. A few trajectories
 * (kepler's 64 orbits) leave the GPU idle, and the time is the chain of
 * every window's sweeps. Here the P windows after the last converged one
 * sweep together, each from its predecessor's end of the step before (the
 * front, the oldest, from the converged end): window w+1 is already near
 * its fixed point when w converges, and converges a sweep or two later
 * (a pipeline over time, as waveform relaxation's). The chain is then
 * about two sweeps a window, not K; the price is P windows' work a step.
 *
 * A step: every window sweeps (lobatto_group_sweep) from its start; the
 * lane of node m-1 publishes the window's end and its sum in shared
 * memory, double-buffered by the step's parity so one barrier a step
 * suffices; the front's warp publishes its verdict. After the barrier,
 * when the front has converged (adaptive: its change within on this sweep
 * and its window's sweep before, as the front or behind it,
 * picard_front_within) or run out of its K sweeps as the front,
 * every thread advances its copy of the converged start by the front's sum
 * (hi + lo, as the group layout does), the front's warp writes the
 * window's output and becomes the last window in flight, from the end of
 * the one before it; the next front starts over from its start if its
 * iterate went non-finite on the way. The verdicts and the failure tests
 * read the same shared values in every thread, so the block's loop stays
 * uniform.
 *
 * Sweeps count every window's (the work); sweeps_max the most sweeps a
 * window took as the front. src/schemes/lobatto/cpu_lobatto.inc runs the
 * same steps on the host (lobatto_time_trajectory).
 */
#ifndef PICARD_LOBATTO_TIME_KERNEL_CUH
#define PICARD_LOBATTO_TIME_KERNEL_CUH

#include "lobatto_kernel.cuh"

/* The front converged (or is done trying): every thread moves its copy of
 * the converged start past it, by the front's sum (hi + lo, as the group
 * layout does) or to its end (at: the front's [n] in the step's ends and
 * sums), and flags a start gone non-finite or past the bound. Both
 * layouts of windows in flight. */
template <int n, typename real>
__device__ inline void time_front_passes(const picard_launch &L, const real *ends,
					 const real *sums, int at, real *front, real *front_lo,
					 int *failed)
{
#pragma unroll
	for (int k = 0; k < n; k++) {
		if constexpr (picard_compensated<real>)
			picard_window_advance(&front[k], &front_lo[k], sums[at + k], 0);
		else
			front[k] = ends[at + k];
		if (!isfinite(front[k]))
			*failed |= PICARD_FAIL_NONFINITE;
		else if (fabs(front[k]) > L.bound)
			*failed |= PICARD_FAIL_DIVERGED;
	}
}

/* The front's window done after steps steps as the front: the work is
 * every window in flight swept each step (P, fewer near the end), counted
 * here once a window rather than a step at a time; the most steps and the
 * first window not converged as count_window keeps them. */
__device__ inline void time_count_front(const picard_launch &L, int P, int steps, int verdict,
					long w_front, long &sweeps, int &sweeps_max,
					long &unconverged_window)
{
	const long in_flight = min((long)P, L.windows - w_front);

	count_window(steps, verdict, w_front, sweeps, sweeps_max, unconverged_window);
	sweeps += steps * (in_flight - 1);
}

/* A trajectory's parameters and start, every thread's copies: the
 * converged start front (+ front_lo) and the node's iterate x, from x0. */
template <class Model, typename real>
__device__ inline void time_load_member(const picard_launch &L, long traj, real *params,
					real *front, real *front_lo, real *x)
{
#pragma unroll
	for (int q = 0; q < Model::nparams; q++)
		params[q] = ((const real *)L.params)[q * L.ntraj + traj];
#pragma unroll
	for (int k = 0; k < Model::dim; k++) {
		front[k] = x[k] = ((const real *)L.x0)[k * L.ntraj + traj];
		front_lo[k] = 0;
	}
}

/* The next front's iterate, swept from a start that was not yet right,
 * went non-finite at some lane of mask (every node of its window): it
 * starts over from the new front's start. Whether it did. */
template <int n, typename real>
__device__ inline bool time_restart_if_nonfinite(unsigned mask, const real *front, real *x)
{
	bool bad = false;

#pragma unroll
	for (int k = 0; k < n; k++)
		bad |= !isfinite(x[k]);
	if (!__any_sync(mask, bad))
		return false;
#pragma unroll
	for (int k = 0; k < n; k++)
		x[k] = front[k];
	return true;
}

/* After the last window: the converged start as x_final, and the
 * trajectory's outcome. */
template <int n, typename real>
__device__ inline void time_store_member(const picard_launch &L, long traj, const real *front,
					 int failed, long w_front, long unconverged_window,
					 long sweeps, int sweeps_max)
{
	if (threadIdx.x < n)
		((real *)L.x_final)[threadIdx.x * L.ntraj + traj] = front[threadIdx.x];
	if (threadIdx.x == 0)
		store_window_outcome(L, traj, failed, w_front, unconverged_window, sweeps, sweeps_max);
}

template <class Model, typename real, int G, bool dense>
__global__ void __launch_bounds__(512) picard_lobatto_time_kernel(const picard_launch L)
{
	constexpr int n = Model::dim;
	__shared__ real A_t[G * G];  /* (H/2) S, [l][j] */
	__shared__ double offset[G]; /* t_j - t_w */
	extern __shared__ __align__(16) unsigned char time_shared[];

	load_lobatto_tables(L, G, A_t, (real *)nullptr, offset);
	/* 32/G windows a warp (the lobatto kernel's groups); the block's
	 * threads past P groups (P G < 32) only keep the barriers */
	const int P = L.block, slot = threadIdx.x / G, j = threadIdx.x % G;
	const long traj = blockIdx.x;
	const int m = L.m;
	/* [2][P][n] each: the windows' ends and sums, by the step's parity */
	real *ends = (real *)time_shared, *sums = ends + 2 * P * n;
	int *verdicts = (int *)(sums + 2 * P * n); /* [2]: the front's */
	const unsigned mask = G == 32 ? 0xffffffffu : ((1u << G) - 1) << ((threadIdx.x % 32) & ~(G - 1));
	const bool lane = slot < P; /* of a window's group; the others wait */

	real params[Model::nparams > 0 ? Model::nparams : 1];
	real front[n], front_lo[n]; /* the converged start (every thread's copy) */
	real x[n], f[n], window_sum[n], zero[n];
	time_load_member<Model>(L, traj, params, front, front_lo, x);
#pragma unroll
	for (int k = 0; k < n; k++)
		zero[k] = f[k] = window_sum[k] = 0;
	for (int e = threadIdx.x; e < P * n; e += blockDim.x)
		ends[P * n + e] = front[e % n]; /* step -1's: every window from x0 */
	__syncthreads();

	long sweeps = 0, unconverged_window = -1, w_front = 0;
	int sweeps_max = 0, failed = 0, front_sweeps = 0;
	/* the front's slot, w_front mod P, kept as w_front moves (no 64-bit
	 * division a step) */
	int front_slot = 0;
	float prev_plain = INFINITY;
	/* this slot's window's sweep before was within (the front's and the
	 * next front's are measured) */
	bool within_before = false;
	for (int now = 0; w_front < L.windows; now ^= 1) { /* now: the step's parity */
		const int before = now ^ 1;
		const int next_slot = front_slot + 1 < P ? front_slot + 1 : 0;
		const int depth = slot >= front_slot ? slot - front_slot : slot - front_slot + P;
		const long w = w_front + depth;
		const bool is_front = depth == 0, active = w < L.windows;
		const int pred = slot > 0 && slot < P ? slot - 1 : P - 1; /* (slots past P: unused) */
		real start[n];

#pragma unroll
		for (int k = 0; k < n; k++) {
			start[k] = is_front ? front[k] : ends[(before * P + pred) * n + k];
			if (j == 0) /* node 0 is the start, as it now stands */
				x[k] = start[k];
		}
		if (active && lane) {
			/* adaptive: the front's change and the next front's (its
			 * within_before); a fixed K: the front's last two */
			const bool measured = is_front ? picard_sweep_measured(front_sweeps, L.K,
									       L.adaptive) :
							 L.adaptive && slot == next_slot;
			const real tj = (real)(L.t0 + (double)w * L.window + offset[j < m ? j : 0]);
			float plain = 0;
			const bool within = lobatto_group_sweep<Model, real, G>(
				L, A_t, tj, j, m, mask, measured, params, start,
				is_front ? front_lo : zero, x, f, window_sum, &plain);

			if (j == m - 1)
#pragma unroll
				for (int k = 0; k < n; k++) {
					ends[(now * P + slot) * n + k] = x[k];
					sums[(now * P + slot) * n + k] = window_sum[k];
				}
			if (is_front) {
				if (measured && !L.adaptive)
					plain = group_max<G>(mask, plain);
				const bool settled = picard_front_within(L.K, L.adaptive, within,
									 within_before);
				const int verdict = measured ?
					picard_sweep_verdict(front_sweeps, L.K, L.adaptive, settled,
							     plain, prev_plain) :
					PICARD_SWEEP_GO_ON;

				if (measured)
					prev_plain = plain;
				if (j == 0)
					verdicts[now] = verdict;
			}
			within_before = measured && within;
		}
		__syncthreads();
		const int verdict = verdicts[now];

		front_sweeps++;
		if (verdict == PICARD_SWEEP_GO_ON)
			continue;
		time_front_passes<n>(L, ends, sums, (now * P + front_slot) * n, front, front_lo,
				     &failed);
		time_count_front(L, P, front_sweeps, verdict, w_front, sweeps, sweeps_max,
				 unconverged_window);
		if (is_front && lane) {
			lobatto_group_output<n, real, G, dense>(L, w_front, traj, m, j, mask, front, x,
								f);
			/* the last in flight now: from the end of the one before */
#pragma unroll
			for (int k = 0; k < n; k++)
				x[k] = ends[(now * P + pred) * n + k];
			within_before = false;
		}
		/* the next front starts over from its start where its iterate,
		 * swept from a start that was not yet right, went non-finite */
		if (slot == next_slot && lane && time_restart_if_nonfinite<n>(mask, front, x))
			within_before = false;
		front_sweeps = 0;
		prev_plain = INFINITY;
		if (failed)
			break;
		w_front++;
		front_slot = next_slot;
	}

	time_store_member<n>(L, traj, front, failed, w_front, unconverged_window, sweeps, sweeps_max);
}

#endif
