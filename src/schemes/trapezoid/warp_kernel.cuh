/* warp_kernel.cuh - the paper's trapezoid scheme without its block: a
 * warp-synchronous layout (a group of lanes per trajectory, lane = time
 * node) and a one-thread-per-trajectory layout (the window's nodes in
 * registers), for GitHub issue 8.
 *
 * Both run equations (4) and (5) of Korobitsyn & Frolova 2011 (DESIGN.md),
 * the convergence test of convergence.h and the statuses, failure windows,
 * sweep counts, records and warm start of kernels/paper_kernel.cuh, which
 * stays the reference layout. The states never leave registers; there is
 * no shared memory and no __syncthreads: a trajectory's lanes are one warp
 * (or part of one) and exchange values by shuffles. Global arrays are SoA,
 * x[k*ntraj + i], as for the paper's kernel.
 *
 * Warp layout, G = m rounded up to a power of two (m <= 32) lanes per
 * trajectory, 32/G trajectories per warp, traj_per_block per block:
 *   lane j holds x_j[n] and f_j[n];
 *   (4)  f_{j+1} from lane j+1 by __shfl_down_sync;
 *   (5)  x_{j+1} = x_w + s_0 + ... + s_j, either a Kogge-Stone inclusive
 *        scan over the group (log2 G shuffle steps; the additions in a tree
 *        order, so the results equal the paper kernel's to rounding) or the
 *        serial sum (m - 1 broadcast shuffles, every lane adding in node
 *        order: the CPU backend's additions exactly);
 *   convergence: the group's largest change by an xor-shuffle butterfly.
 * Lanes j >= m hold no node: they compute along (their increment is 0)
 * and are left out of the convergence test.
 *
 * Thread layout: one thread runs the window's m nodes one after the other,
 * states x[MAXM][n] in registers (MAXM a compile-time bound >= m, loops
 * unrolled over it so every index is a constant), sweeping node by node
 * with f_{j+1} evaluated from iterate i-1 before x_{j+1} is overwritten.
 */
#ifndef PICARD_WARP_KERNEL_CUH
#define PICARD_WARP_KERNEL_CUH

#include "compensated.h"
#include "convergence.h"
#include "launch.h"
#include "model_impl.h"
#include "paper_kernel.cuh" /* record_window_end, PICARD_FAIL_* */
#include "picard.h"

/* ---- device helpers ---------------------------------------------------------- */

/* Failure bits of a window-end state (the whole state: every lane of a
 * group holds the same one, so the verdict is uniform in the group). */
template <int n, typename real>
__device__ inline int window_end_failure(const real *xw, double bound)
{
	int failed = 0;

	for (int k = 0; k < n; k++) {
		if (!isfinite(xw[k]))
			failed |= PICARD_FAIL_NONFINITE;
		else if (fabs(xw[k]) > bound)
			failed |= PICARD_FAIL_DIVERGED;
	}
	return failed;
}

/* Per-trajectory results, written once at the end (as the paper's kernel). */
template <int n, typename real>
__device__ inline void write_trajectory(const picard_launch &L, long traj,
					const real *xw, int failed, long w,
					long unconverged_window, long sweeps,
					int sweeps_max)
{
	for (int k = 0; k < n; k++)
		((real *)L.x_final)[k * L.ntraj + traj] = xw[k];
	store_window_outcome(L, traj, failed, w, unconverged_window, sweeps, sweeps_max);
}

/* ---- kernels ------------------------------------------------------------------- */

/* Warp layout: group of L.group lanes per trajectory; parallel_scan picks
 * the Kogge-Stone scan or the serial sum for (5). */
template <class Model, typename real, bool parallel_scan, bool dense>
__global__ void picard_warp_kernel(const picard_launch L)
{
	constexpr int n = Model::dim;
	const int G = L.group, m = L.m;
	const int lane = threadIdx.x & 31;
	const int j = threadIdx.x & (G - 1); /* node of this lane */
	const long traj = (long)blockIdx.x * L.traj_per_block + threadIdx.x / G;

	if (traj >= L.ntraj || (int)threadIdx.x >= L.traj_per_block * G)
		return; /* a whole group: the partial last block */
	/* the group's lanes: G divides 32, groups are aligned in the warp */
	const unsigned mask = G == 32 ? 0xffffffffu : ((1u << G) - 1) << (lane & ~(G - 1));
	const real half_h = (real)(0.5 * L.h);
	const real h_ratio = picard_rounding_ratio<real>(0.5 * L.h); /* compensated.h */
	const bool is_node = j < m;
	long sweeps = 0, unconverged_window = -1, w;
	int sweeps_max = 0, failed = 0;

	real params[Model::nparams > 0 ? Model::nparams : 1];
	for (int q = 0; q < Model::nparams; q++)
		params[q] = ((const real *)L.params)[q * L.ntraj + traj];
	real xw[n], xw_lo[n], xw_prev[n], x[n], f[n];
	real window_sum[n]; /* lo + s_0 + ...: all of it (serial), or up to
			       this lane's node (the scan) */
	for (int k = 0; k < n; k++) {
		xw[k] = xw_prev[k] = x[k] = ((const real *)L.x0)[k * L.ntraj + traj];
		xw_lo[k] = 0;
	}

	for (w = 0; w < L.windows; w++) {
		const double tw = L.t0 + (double)w * (m - 1) * L.h;
		const real tj = (real)(tw + j * L.h);
		float prev_plain = INFINITY;
		int i, verdict = PICARD_SWEEP_GO_ON;

		/* x_j^0 = x_w, or warm: plus the previous window's increments */
		for (int k = 0; k < n; k++) {
			x[k] = L.warm_start && w > 0 ? xw[k] + (x[k] - xw_prev[k]) : xw[k];
			xw_prev[k] = xw[k];
		}
		for (i = 0; i < L.K && verdict == PICARD_SWEEP_GO_ON; i++) {
			const bool measured = picard_sweep_measured(i, L.K, L.adaptive);
			bool within = true;
			float plain = 0;

			Model::rhs(tj, x, params, f);
			for (int k = 0; k < n; k++) {
				/* (4): s_j = h/2 (f_j + f_{j+1}) */
				const real f_next = __shfl_down_sync(mask, f[k], 1, G);
				const real s = j < m - 1 ? half_h * (f[k] + f_next) : (real)0;
				real x_new;

				if (parallel_scan) {
					/* (5) as an inclusive scan of lo + s_0, s_1, ...:
					 * lane j ends with x_{j+1} - x_w */
					real v = j == 0 ? xw_lo[k] + s : s;
					for (int d = 1; d < G; d <<= 1) {
						const real u = __shfl_up_sync(mask, v, d, G);
						if (j >= d)
							v += u;
					}
					x_new = xw[k] + __shfl_up_sync(mask, v, 1, G);
					if (j == 0)
						x_new = xw[k];
					window_sum[k] = v;
				} else {
					/* (5) in node order, every lane adding along */
					real acc = xw_lo[k];
					x_new = xw[k];
					for (int jj = 0; jj < m - 1; jj++) {
						acc += __shfl_sync(mask, s, jj, G);
						if (jj + 1 == j)
							x_new = xw[k] + acc;
					}
					if (!is_node)
						x_new = xw[k] + acc;
					window_sum[k] = acc;
				}
				if (measured && is_node && j > 0) {
					within &= picard_change_within(x_new, x[k], (real)L.iter_atol,
								       (real)L.iter_rtol);
					plain = fmaxf(plain, (float)fabs(x_new - x[k]));
				}
				x[k] = x_new;
			}
			if (!measured)
				continue;
			/* the group's vote; its largest plain change, in every
			 * lane, only for a fixed K */
			within = __all_sync(mask, within);
			if (!L.adaptive)
				for (int d = G / 2; d >= 1; d >>= 1)
					plain = fmaxf(plain, __shfl_xor_sync(mask, plain, d, G));
			verdict = picard_sweep_verdict(i, L.K, L.adaptive, within, plain, prev_plain);
			prev_plain = plain;
		}
		count_window(i, verdict, w, sweeps, sweeps_max, unconverged_window);
		/* x_{m-1} = x_w + the window's sum, split into hi + lo; in
		 * double lane m-1's x_{m-1} is the same hi */
		for (int k = 0; k < n; k++)
			if constexpr (picard_compensated<real>)
				picard_window_advance(&xw[k], &xw_lo[k],
						      parallel_scan ?
							      __shfl_sync(mask, window_sum[k], m - 2, G) :
							      window_sum[k],
						      h_ratio);
			else
				xw[k] = __shfl_sync(mask, x[k], m - 1, G);
		failed = window_end_failure<n>(xw, L.bound);
		if (j == 0)
			for (int r = 0; r < L.nrecords; r++)
				for (int k = 0; k < n; k++)
					record_window_end(L.records[r], w, L.traj_offset + traj, k, n, xw[k]);
		/* dense output: linear between nodes q and q+1, from their
		 * lanes (every lane shuffles, lane 0 stores) */
		auto store = [&](const picard_device_record &rec, long row, double t) {
			double frac;
			const int q = picard_trapezoid_segment(t - tw, L.h, m, &frac);

			for (int k = 0; k < n; k++) {
				const real lo = __shfl_sync(mask, x[k], q, G);
				const real hi = __shfl_sync(mask, x[k], q + 1, G);

				if (j == 0)
					record_store(rec, row, L.traj_offset + traj, k, n,
						     picard_fma((real)frac, hi - lo, lo));
			}
		};
		if (dense)
			record_dense(L, false, w, L.traj_offset + traj, store);
		if (failed)
			break;
	}
	if (j == 0)
		write_trajectory<n>(L, traj, xw, failed, w, unconverged_window, sweeps, sweeps_max);
}

/* Thread layout: one thread per trajectory, at most MAXM nodes. */
template <class Model, typename real, int MAXM, bool dense>
__global__ void picard_thread_kernel(const picard_launch L)
{
	constexpr int n = Model::dim;
	const long traj = (long)blockIdx.x * blockDim.x + threadIdx.x;

	if (traj >= L.ntraj)
		return;
	const int m = L.m;
	const real half_h = (real)(0.5 * L.h);
	const real h_ratio = picard_rounding_ratio<real>(0.5 * L.h); /* compensated.h */
	long sweeps = 0, unconverged_window = -1, w;
	int sweeps_max = 0, failed = 0;

	real params[Model::nparams > 0 ? Model::nparams : 1];
	for (int q = 0; q < Model::nparams; q++)
		params[q] = ((const real *)L.params)[q * L.ntraj + traj];
	real xw[n], xw_lo[n], xw_prev[n]; /* window start hi, lo; the previous */
	real x[MAXM][n]; /* node j's iterate; x[0] is x_w */
	for (int k = 0; k < n; k++) {
		xw[k] = xw_prev[k] = ((const real *)L.x0)[k * L.ntraj + traj];
		xw_lo[k] = 0;
	}
#pragma unroll
	for (int j = 0; j < MAXM; j++)
		for (int k = 0; k < n; k++)
			x[j][k] = xw[k];

	for (w = 0; w < L.windows; w++) {
		const double tw = L.t0 + (double)w * (m - 1) * L.h;
		float prev_plain = INFINITY;
		int i, verdict = PICARD_SWEEP_GO_ON;
		real f0[n];    /* f at node 0: x_0 = x_w in every sweep */
		real window_sum[n]; /* x_{m-1} - x_w of the latest sweep, with lo */

#pragma unroll
		for (int j = 0; j < MAXM; j++)
			if (j < m)
				for (int k = 0; k < n; k++)
					x[j][k] = L.warm_start && w > 0 ?
						xw[k] + (x[j][k] - xw_prev[k]) : xw[k];
		for (int k = 0; k < n; k++)
			xw_prev[k] = xw[k];
		Model::rhs((real)tw, x[0], params, f0);
		for (i = 0; i < L.K && verdict == PICARD_SWEEP_GO_ON; i++) {
			const bool measured = picard_sweep_measured(i, L.K, L.adaptive);
			bool within = true;
			float plain = 0;
			real f_cur[n], acc[n];

			for (int k = 0; k < n; k++) {
				f_cur[k] = f0[k];
				acc[k] = xw_lo[k];
			}
#pragma unroll
			for (int j = 0; j < MAXM - 1; j++) {
				if (j >= m - 1)
					continue; /* not break: keeps the loop unrolled */
				real f_next[n];
				/* f_{j+1} from iterate i-1, before x_{j+1} is replaced */
				Model::rhs((real)(tw + (j + 1) * L.h), x[j + 1], params, f_next);
				for (int k = 0; k < n; k++) {
					acc[k] += half_h * (f_cur[k] + f_next[k]); /* (4), (5) */
					const real x_new = xw[k] + acc[k];
					if (measured) {
						within &= picard_change_within(
							x_new, x[j + 1][k], (real)L.iter_atol, (real)L.iter_rtol);
						plain = fmaxf(plain, (float)fabs(x_new - x[j + 1][k]));
					}
					x[j + 1][k] = x_new;
					f_cur[k] = f_next[k];
				}
			}
			for (int k = 0; k < n; k++)
				window_sum[k] = acc[k];
			if (!measured)
				continue;
			verdict = picard_sweep_verdict(i, L.K, L.adaptive, within, plain, prev_plain);
			prev_plain = plain;
		}
		count_window(i, verdict, w, sweeps, sweeps_max, unconverged_window);
		/* x_w <- x_{m-1} = x_w + the last sweep's sum, as hi + lo
		 * (x[m - 1] would be an index the compiler can only resolve in
		 * local memory) */
		for (int k = 0; k < n; k++)
			picard_window_advance(&xw[k], &xw_lo[k], window_sum[k], h_ratio);
		failed = window_end_failure<n>(xw, L.bound);
		for (int r = 0; r < L.nrecords; r++)
			for (int k = 0; k < n; k++)
				record_window_end(L.records[r], w, L.traj_offset + traj, k, n, xw[k]);
		/* dense output: linear between nodes q and q+1 (picked by an
		 * unrolled search: a register array takes constant indices) */
		auto store = [&](const picard_device_record &rec, long row, double t) {
			double frac;
			const int q = picard_trapezoid_segment(t - tw, L.h, m, &frac);

			for (int k = 0; k < n; k++) {
				real lo = x[0][k], hi = x[1][k];
#pragma unroll
				for (int jj = 1; jj < MAXM - 1; jj++)
					if (jj == q) {
						lo = x[jj][k];
						hi = x[jj + 1][k];
					}
				record_store(rec, row, L.traj_offset + traj, k, n,
					     picard_fma((real)frac, hi - lo, lo));
			}
		};
		if (dense)
			record_dense(L, false, w, L.traj_offset + traj, store);
		if (failed)
			break;
	}
	write_trajectory<n>(L, traj, xw, failed, w, unconverged_window, sweeps, sweeps_max);
}

#endif
