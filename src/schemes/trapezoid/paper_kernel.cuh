/* paper_kernel.cuh - the paper's Picard kernel: one block per trajectory,
 * m*n threads, thread (j, k) = (time node, component), the two shared
 * arrays of states p[m][n] and right-hand sides s[m][n], K trapezoidal
 * sweeps per window with the serial prefix sum (5), windows one after the
 * other inside one launch.
 *
 * Korobitsyn & Frolova, Omsk Univ. Bulletin 2011 No. 4, pp. 157-163,
 * equations (4)-(5); ../shared/DESIGN.md. src/cpu_backend.c runs the same
 * operations in the same order on the host.
 *
 * Also here, shared by every kernel: records (window ends, and dense
 * output at a record's times, src/dense_output.h). Each kernel has an
 * instance with dense output and one without (its template flag `dense`),
 * so that the code of dense output costs the solves that do not use it no
 * registers (ptxas: the lobatto kernels would go from 48-64 registers to
 * 80-98, some spilling).
 */
#ifndef PICARD_PAPER_KERNEL_CUH
#define PICARD_PAPER_KERNEL_CUH

#include "compensated.h"
#include "convergence.h"
#include "dense_output.h"
#include "launch.h"
#include "model_impl.h"
#include "picard.h"

/* Bits of the block's failure flag. */
#define PICARD_FAIL_NONFINITE 1
#define PICARD_FAIL_DIVERGED 2

/* The fused multiply-add of each precision, as fma/fmaf on the host (the
 * CPU backend's FMA). */
__device__ inline float picard_fma(float a, float b, float c)
{
	return fmaf(a, b, c);
}

__device__ inline double picard_fma(double a, double b, double c)
{
	return fma(a, b, c);
}

/* After window w's i sweeps and the last one's verdict: a trajectory's
 * sweep counts, and the first window that did not converge. */
__device__ inline void count_window(int i, int verdict, long w, long &sweeps, int &sweeps_max,
				    long &unconverged_window)
{
	sweeps += i;
	sweeps_max = max(sweeps_max, i);
	if (verdict == PICARD_SWEEP_NOT_CONVERGED && unconverged_window < 0)
		unconverged_window = w;
}

/* A trajectory's status, failing window (w where it failed, else the
 * first that did not converge) and sweep counts into L's per-trajectory
 * arrays, once at the end. */
__device__ inline void store_window_outcome(const picard_launch &L, long traj, int failed, long w,
					    long unconverged_window, long sweeps, int sweeps_max)
{
	L.status[traj] = failed & PICARD_FAIL_NONFINITE ? PICARD_TRAJ_NONFINITE :
			 failed ? PICARD_TRAJ_DIVERGED :
			 unconverged_window >= 0 ? PICARD_TRAJ_NOT_CONVERGED :
			 PICARD_TRAJ_OK;
	L.fail_window[traj] = failed ? w : unconverged_window;
	L.sweeps[traj] = sweeps;
	L.sweeps_max[traj] = sweeps_max;
}

/* Store component k of row r of a record for a trajectory (global index)
 * it keeps. */
template <typename real>
__device__ inline void record_store(const picard_device_record &rec, long r, long traj,
				    int k, int n, real x)
{
	const long slot = traj / rec.traj_stride - rec.first_slot;

	((real *)rec.states)[(r * rec.slots + slot) * n + k] = x;
}

/* Store the window-end state of component k into a record if it keeps
 * window ends, window w (0-based) among them, and the trajectory (global
 * index). */
template <typename real>
__device__ inline void record_window_end(const picard_device_record &rec,
					 long w, long traj, int k, int n,
					 real x)
{
	if (rec.times || (w + 1) % rec.every != 0 || traj % rec.traj_stride != 0)
		return;
	record_store(rec, (w + 1) / rec.every - 1, traj, k, n, x);
}

/* Dense output after window w of the lobatto or the trapezoid scheme:
 * for each record of times, each of its times that w holds
 * (src/dense_output.h) calls store(rec, row, t). The first such time is
 * found by bisection, not carried from window to window: nothing stays
 * live across windows, so solves without dense output keep their
 * registers. Uniform over the threads of a trajectory, so the warp
 * layouts may shuffle inside store. */
template <typename Store>
__device__ inline void record_dense(const picard_launch &L, bool lobatto, long w, long traj,
				    Store store)
{
#pragma unroll
	for (int r = 0; r < PICARD_MAX_RECORDS; r++) {
		if (r >= L.nrecords)
			break;
		const picard_device_record &rec = L.records[r];

		if (!rec.times || traj % rec.traj_stride != 0)
			continue;
		const double first = w > 0 ? picard_window_last_time(lobatto, L.t0, L.m, L.h,
								     L.window, w - 1, L.windows) :
					     -(double)INFINITY;
		const double last = picard_window_last_time(lobatto, L.t0, L.m, L.h, L.window, w,
							    L.windows);
		long lo = 0, hi = rec.ntimes; /* the first time > first */

		while (lo < hi) {
			const long mid = lo + (hi - lo) / 2;

			if (rec.times[mid] > first)
				hi = mid;
			else
				lo = mid + 1;
		}
		for (; lo < rec.ntimes && rec.times[lo] <= last; lo++)
			store(rec, lo, rec.times[lo]);
	}
}

/* ---- kernel ---------------------------------------------------------------- */

template <class Model, typename real, bool dense>
__global__ void picard_paper_kernel(const picard_launch L)
{
	constexpr int n = Model::dim;
	extern __shared__ __align__(16) unsigned char shared_raw[];
	real *states = (real *)shared_raw;  /* p[j][k]: iterate i at node j */
	real *slopes = states + L.m * n;    /* s[j][k]: f, then increments (4) */
	__shared__ int failed;              /* PICARD_FAIL_* bits of the block */
	__shared__ unsigned change_bits[2][2]; /* fixed K, [sweep parity]:
						  [0] some change not within
						  the tolerance, [1] largest
						  plain change, float bits */

	const long traj = blockIdx.x;
	const int j = threadIdx.x / n, k = threadIdx.x % n;
	const int m = L.m;
	const real half_h = (real)(0.5 * L.h);
	const real h_ratio = picard_rounding_ratio<real>(0.5 * L.h); /* compensated.h */
	long sweeps = 0, unconverged_window = -1;
	int sweeps_max = 0;

	real params[Model::nparams > 0 ? Model::nparams : 1];
	for (int q = 0; q < Model::nparams; q++)
		params[q] = ((const real *)L.params)[q * L.ntraj + traj];

	real xw = ((const real *)L.x0)[k * L.ntraj + traj]; /* window start */
	real xw_lo = 0;                     /* its lo, thread j = 0's
					       (src/compensated.h) */
	real xw_prev = xw;                  /* the previous window's start */
	if (threadIdx.x == 0)
		failed = 0;

	long w;
	for (w = 0; w < L.windows; w++) {
		const double tw = L.t0 + (double)w * (m - 1) * L.h;
		const real tj = (real)(tw + j * L.h);
		int i, verdict = PICARD_SWEEP_GO_ON;
		real window_sum = 0;        /* lo + s_0 + ... + s_{m-2}, j = 0 */

		/* x_j^0 = x_w, or warm: x_w plus the previous window's
		 * increments, still in states (each thread its own node) */
		states[j * n + k] = L.warm_start && w > 0 ?
			xw + (states[j * n + k] - xw_prev) : xw;
		xw_prev = xw;
		if (threadIdx.x == 0)
			change_bits[0][0] = change_bits[0][1] = change_bits[1][0] =
				change_bits[1][1] = 0;
		__syncthreads();
		for (i = 0; i < L.K && verdict == PICARD_SWEEP_GO_ON; i++) {
			real x[n], f[n];
			for (int c = 0; c < n; c++)
				x[c] = states[j * n + c];
			Model::rhs(tj, x, params, f);
			slopes[j * n + k] = f[k];
			__syncthreads();
			/* (4): s_j = h/2 (f_j + f_{j+1}), from iterate i-1 only */
			real incr = j < m - 1 ?
				half_h * (slopes[j * n + k] + slopes[(j + 1) * n + k]) : (real)0;
			__syncthreads();
			slopes[j * n + k] = incr;
			__syncthreads();
			/* (5): x_0 = x_w, x_{j+1} = x_w + (lo + s_0 + ... + s_j),
			 * one thread per component */
			if (j == 0) {
				real acc = xw_lo;
				for (int jj = 0; jj < m - 1; jj++) {
					acc += slopes[jj * n + k];
					states[(jj + 1) * n + k] = xw + acc;
				}
				window_sum = acc;
			}
			__syncthreads();
			if (!picard_sweep_measured(i, L.K, L.adaptive))
				continue;
			const real x_new = states[j * n + k];
			const bool within = picard_change_within(x_new, x[k], (real)L.iter_atol,
								 (real)L.iter_rtol);
			/* adaptive: the block's vote decides now, in the barrier
			 * itself */
			if (L.adaptive) {
				verdict = picard_sweep_verdict(i, L.K, true,
							       __syncthreads_and(within), 0, 0);
				continue;
			}
			/* a fixed K needs no barrier here: thread 0 judges its
			 * last two sweeps after the window's closing barrier
			 * (non-negative floats order like their bits) */
			if (!within)
				atomicOr(&change_bits[i & 1][0], 1u);
			atomicMax(&change_bits[i & 1][1], __float_as_uint((float)fabs(x_new - x[k])));
		}
		count_window(i, verdict, w, sweeps, sweeps_max, unconverged_window);
		/* x_{m-1}: in float thread j = 0 splits it into hi + lo, the
		 * others read hi, which is fl(x_w + window_sum) as well; in
		 * double all read it (no sum kept across the sweeps: duffing
		 * at m*n = 1024 threads needs the kernel within 64 registers) */
		if (picard_compensated<real> && j == 0)
			picard_window_advance(&xw, &xw_lo, window_sum, h_ratio);
		else
			xw = states[(m - 1) * n + k];

		if (!isfinite(xw))
			atomicOr(&failed, PICARD_FAIL_NONFINITE);
		else if (fabs(xw) > L.bound)
			atomicOr(&failed, PICARD_FAIL_DIVERGED);
		if (j == 0) {
			for (int r = 0; r < L.nrecords; r++)
				record_window_end(L.records[r], w, L.traj_offset + traj, k, n, xw);
			/* dense output: linear between the nodes around t */
			auto store = [&](const picard_device_record &rec, long row, double t) {
				double frac;
				const int q = picard_trapezoid_segment(t - tw, L.h, m, &frac);
				const real lo = states[q * n + k];
				const real hi = states[(q + 1) * n + k];

				record_store(rec, row, L.traj_offset + traj, k, n,
					     picard_fma((real)frac, hi - lo, lo));
			};
			if (dense)
				record_dense(L, false, w, L.traj_offset + traj, store);
		}
		__syncthreads(); /* failed is final; states free for reuse */
		if (!L.adaptive && threadIdx.x == 0 &&
		    picard_sweep_verdict(L.K - 1, L.K, false,
					 change_bits[(L.K - 1) & 1][0] == 0,
					 __uint_as_float(change_bits[(L.K - 1) & 1][1]),
					 L.K > 1 ? __uint_as_float(change_bits[L.K & 1][1]) : INFINITY) ==
			    PICARD_SWEEP_NOT_CONVERGED && unconverged_window < 0)
			unconverged_window = w;
		if (failed)
			break;
	}

	if (j == 0)
		((real *)L.x_final)[k * L.ntraj + traj] = xw;
	if (threadIdx.x == 0)
		store_window_outcome(L, traj, failed, w, unconverged_window, sweeps, sweeps_max);
}

#endif
