/* lobatto_kernel.cuh - Picard iteration on Gauss-Lobatto-Legendre
 * collocation windows, warp-synchronous: a group of G lanes per trajectory.
 *
 * The scheme (src/lobatto.h, src/lobatto.c). A window [t_w, t_w + H] holds
 * m nodes t_j = t_w + (tau_j + 1) H/2, tau_j the Gauss-Lobatto-Legendre
 * points on [-1, 1] (the ends and the roots of P'_{m-1}), m = 2..32. One
 * sweep, for all nodes at once from the previous iterate:
 *
 *	x_j = x_w + sum_l A_jl f(t_l, x_l),   A = (H/2) S,
 *	S_jl = int_{-1}^{tau_j} L_l(s) ds     (L_l: Lagrange basis of node l),
 *
 * x_0 = x_w. Its fixed point is the Lobatto IIIA collocation solution,
 * order 2m-2 at the window ends (E. Hairer, G. Wanner, Solving Ordinary
 * Differential Equations II, 2nd ed., Springer 1996, section IV.5; m = 2 is
 * the trapezoidal rule). Picard iteration on spectral collocation nodes is
 * also X. Bai, J. L. Junkins, "Modified Chebyshev-Picard iteration methods
 * for orbit propagation", J. Astronaut. Sci. 58 (2011) 583-613 (Chebyshev
 * nodes there). Each sweep raises the order of the iterate by one, up to
 * 2m-2; sweeps stop when every change is within the tolerance, |dx| <=
 * atol + rtol |x| (src/convergence.h, as the paper's kernel: a vote of the
 * group, no division, no reduction) or after K.
 * Warm start: the first iterate is the previous window's interpolating
 * polynomial extrapolated to the new nodes, x_j = x_w + sum_l E_jl (x_l -
 * x_w), E_jl = L_l(tau_j + 2) (the polynomial cut to degree 11 in
 * double, 5 in float, first: src/lobatto.c).
 *
 * GPU mapping. G = m rounded up to a power of two (<= 32) lanes per
 * trajectory, 32/G trajectories per warp (1 for an ensemble too small to
 * fill the device: cuda_backend.cu), block_threads/32 warps per block. Lane
 * j holds node j's state x_j[n] and f_j[n] in registers (lanes j >= m idle
 * in the right-hand side); the mat-vec gets f_l from lane l by
 * __shfl_sync within the group, A^T and E^T [l][j] sit in shared memory
 * (loaded once per block: lanes read consecutive words, no bank
 * conflicts), the convergence test is a max-reduction by xor shuffles, the
 * window end is lane m-1's state broadcast by a shuffle. The only
 * __syncthreads is after loading the tables; groups of a warp go their own
 * ways (each has its own shuffle mask), so a tail group past ntraj just
 * returns. Global arrays are SoA x[k*ntraj + i]; records, x_final, status,
 * fail_window and the sweep counts as the paper's kernel writes them.
 * src/cpu_lobatto.inc runs the same operations in the same order on the
 * host (mat-vec with explicit fused multiply-adds on both sides, summed
 * from l = 0 into a sum that starts at 0 and is then added to x_w).
 * Dense output (src/dense_output.h) evaluates the window's collocation
 * polynomial at a record's times from the last sweep's f_l, kept in
 * registers: no right-hand side evaluation.
 *
 * Float: the state is x_w + (one window's integral), never a running sum
 * over nodes, so rounding grows with the windows only. Measured on the CPU
 * backend (same operations, 2026-11-23; tests/test_lobatto.c): lotka
 * (x ~ 50), m = 8, H = 1, 100 windows, default iteration tolerances, 16
 * trajectories against GSL rk8pd: E = 2.4e-5 (relative 6.9e-7) in float,
 * 8.7e-12 in double. Float reaches a few 1e-5 absolute, ~1e-6 relative,
 * there, set by float rounding of x_w and f and by the iteration
 * tolerance float can meet (iter_rtol 1e-6; 1e-7 no longer converges),
 * not by the scheme.
 */
#ifndef PICARD_LOBATTO_KERNEL_CUH
#define PICARD_LOBATTO_KERNEL_CUH

#include "compensated.h"
#include "convergence.h"
#include "launch.h"
#include "paper_kernel.cuh"
#include "picard.h"

/* Largest of v over the G lanes of a group (every lane gets it). */
template <int G>
__device__ inline float group_max(unsigned mask, float v)
{
#pragma unroll
	for (int offset = G / 2; offset > 0; offset /= 2)
		v = fmaxf(v, __shfl_xor_sync(mask, v, offset, G));
	return v;
}

/* Copy the tables of a launch (picard_launch.lobatto_tables: A^T and E^T
 * with rows of G, the node offsets) into the block's shared arrays (E^T
 * not where X_t is NULL: a kernel that never extrapolates); the block
 * synchronises. */
template <typename real>
__device__ inline void load_lobatto_tables(const picard_launch &L, int G, real *A_t, real *X_t,
					   double *offset)
{
	const real *tables = (const real *)L.lobatto_tables;

	for (int e = threadIdx.x; e < G * G; e += blockDim.x) {
		A_t[e] = tables[e];
		if (X_t)
			X_t[e] = tables[G * G + e];
	}
	for (int e = threadIdx.x; e < G; e += blockDim.x)
		offset[e] = ((const double *)(tables + 2 * G * G))[e];
	__syncthreads();
}

/* One sweep of a group over its window from x_w (+ lo) at node j's time
 * tj: f_j = f(t_j, x_j), then x_j = x_w + (lo + sum_l A_jl f_l) for j > 0
 * (x_0 = x_w), window_sum = that sum. Measured: whether every change of
 * the group was within the tolerance (its vote), *plain this lane's
 * largest plain change; else true. */
template <class Model, typename real, int G>
__device__ inline bool lobatto_group_sweep(const picard_launch &L, const real *A_t, real tj, int j,
					   int m, unsigned mask, bool measured, const real *params,
					   const real *xw, const real *xw_lo, real *x, real *f,
					   real *window_sum, float *plain)
{
	constexpr int n = Model::dim;
	const bool node = j < m;
	real acc[n];
	bool within = true;

	if (node)
		Model::rhs(tj, x, params, f);
#pragma unroll
	for (int k = 0; k < n; k++) {
		if (!node)
			f[k] = 0;
		acc[k] = xw_lo[k];
	}
	/* sum_l A_jl f_l, f_l from lane l, over all G lanes: A and f are
	 * zero past m, and a loop with no bound known only at run time has
	 * no branch between its shuffles (with one, the compiler checked the
	 * group's convergence before each: MATCH.ANY, REDUX, VOTE and a
	 * branch per node, in an Nsight Compute profile on an H200,
	 * 2026-11-23) */
#pragma unroll
	for (int l = 0; l < G; l++) {
		const real a = A_t[l * G + j];
#pragma unroll
		for (int k = 0; k < n; k++)
			acc[k] = picard_fma(a, __shfl_sync(mask, f[k], l, G), acc[k]);
	}
#pragma unroll
	for (int k = 0; k < n; k++) {
		const real x_new = j > 0 && node ? xw[k] + acc[k] : xw[k];

		if (measured && j > 0 && node) {
			within &= picard_change_within(x_new, x[k], (real)L.iter_atol,
						       (real)L.iter_rtol);
			*plain = fmaxf(*plain, (float)fabs(x_new - x[k]));
		}
		x[k] = x_new;
		window_sum[k] = acc[k];
	}
	return measured ? __all_sync(mask, within) : true;
}

/* Window w's output from a group that has converged it: the records'
 * window ends (xw, its end, in every lane) and, with dense output, the
 * collocation polynomial at the records' times in it, x_w + sum_l b_l f_l
 * with the solve's weights b_l = (H/2) int_{-1}^{tau} L_l
 * (picard_lobatto_dense_weights) from lane l and the last sweep's f_l;
 * x_w is node 0's state, lane 0's x. Lane j of the group holds node j
 * (mask: the group's lanes). */
template <int n, typename real, int G, bool dense>
__device__ inline void lobatto_group_output(const picard_launch &L, long w, long traj, int m,
					    int j, unsigned mask, const real *xw, const real *x,
					    const real *f)
{
	const bool node = j < m;

#pragma unroll
	for (int k = 0; k < n; k++)
		if (k % G == j)
			for (int r = 0; r < L.nrecords; r++)
				record_window_end(L.records[r], w, L.traj_offset + traj, k, n, xw[k]);
	auto store = [&](const picard_device_record &rec, long row, double) {
		const real b = node ? ((const real *)rec.weights)[row * m + j] : (real)0;
		real acc[n];

#pragma unroll
		for (int k = 0; k < n; k++)
			acc[k] = 0;
		/* l outside: one b_l live at a time; all G lanes, b and f
		 * are zero past m (as in the mat-vec) */
#pragma unroll
		for (int l = 0; l < G; l++) {
			const real b_l = __shfl_sync(mask, b, l, G);

#pragma unroll
			for (int k = 0; k < n; k++)
				acc[k] = picard_fma(b_l, __shfl_sync(mask, f[k], l, G), acc[k]);
		}
#pragma unroll
		for (int k = 0; k < n; k++) {
			const real start = __shfl_sync(mask, x[k], 0, G);

			if (k % G == j)
				record_store(rec, row, L.traj_offset + traj, k, n, start + acc[k]);
		}
	};
	if (dense)
		record_dense(L, true, w, L.traj_offset + traj, store);
}

/* ---- kernel ---------------------------------------------------------------- */

template <class Model, typename real, int G, bool dense>
__global__ void __launch_bounds__(256)
picard_lobatto_kernel(const picard_launch L)
{
	constexpr int n = Model::dim;
	__shared__ real A_t[G * G];     /* (H/2) S, [l][j] */
	__shared__ real X_t[G * G];     /* extrapolation E, [l][j] */
	__shared__ double offset[G];    /* t_j - t_w */

	load_lobatto_tables(L, G, A_t, X_t, offset);
	const int m = L.m;
	const int j = threadIdx.x % G;                /* node of this lane */
	const bool node = j < m;                      /* lanes m..G-1 idle */
	const int group_in_warp = (threadIdx.x % 32) / G;
	const long warp = ((long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
	const long traj = warp * L.groups_per_warp + group_in_warp;
	if (group_in_warp >= L.groups_per_warp || traj >= L.ntraj)
		return;                               /* idle lanes, a tail group */
	const unsigned mask = G == 32 ? 0xffffffffu :
		((1u << G) - 1) << ((threadIdx.x % 32) & ~(G - 1));

	real params[Model::nparams > 0 ? Model::nparams : 1];
#pragma unroll
	for (int q = 0; q < Model::nparams; q++)
		params[q] = ((const real *)L.params)[q * L.ntraj + traj];
	real xw[n], x[n];                  /* window start; this node's iterate */
	real xw_lo[n];                     /* the start's lo (src/compensated.h) */
	real window_sum[n];                /* x_j - x_w of the latest sweep */
	real f[n];                         /* f_j of the latest sweep's iterate */
#pragma unroll
	for (int k = 0; k < n; k++) {
		x[k] = xw[k] = ((const real *)L.x0)[k * L.ntraj + traj];
		xw_lo[k] = 0;
	}

	long sweeps = 0, unconverged_window = -1, w;
	int sweeps_max = 0, failed = 0;
	for (w = 0; w < L.windows; w++) {
		const double tw = L.t0 + (double)w * L.window;
		const real tj = (real)(tw + offset[node ? j : 0]);
		float prev_plain = INFINITY;
		int i, verdict = PICARD_SWEEP_GO_ON;

		/* x_j^0 = x_w, or warm: x_w + sum_l E_jl (x_l - x_w) with the
		 * previous window's iterate x_l, still in the registers */
		if (L.warm_start && w > 0) {
			real delta[n], acc[n];
#pragma unroll
			for (int k = 0; k < n; k++) {
				delta[k] = x[k] - xw[k];
				acc[k] = 0;
			}
#pragma unroll
			for (int l = 0; l < G; l++) { /* E is zero past m */
				const real e = X_t[l * G + j];
#pragma unroll
				for (int k = 0; k < n; k++)
					acc[k] = picard_fma(e, __shfl_sync(mask, delta[k], l, G), acc[k]);
			}
#pragma unroll
			for (int k = 0; k < n; k++)
				x[k] = j > 0 && node ? xw[k] + acc[k] : xw[k];
		} else {
#pragma unroll
			for (int k = 0; k < n; k++)
				x[k] = xw[k];
		}

		for (i = 0; i < L.K && verdict == PICARD_SWEEP_GO_ON; i++) {
			const bool measured = picard_sweep_measured(i, L.K, L.adaptive);
			float plain = 0;
			const bool within = lobatto_group_sweep<Model, real, G>(
				L, A_t, tj, j, m, mask, measured, params, xw, xw_lo, x, f, window_sum,
				&plain);

			if (!measured)
				continue;
			/* the plain change only for a fixed K */
			if (!L.adaptive)
				plain = group_max<G>(mask, plain);
			verdict = picard_sweep_verdict(i, L.K, L.adaptive, within, plain, prev_plain);
			prev_plain = plain;
		}
		count_window(i, verdict, w, sweeps, sweeps_max, unconverged_window);

		/* the window end: node m-1's, x_w + its sum, to every lane
		 * as hi + lo */
#pragma unroll
		for (int k = 0; k < n; k++) {
			if constexpr (picard_compensated<real>)
				picard_window_advance(&xw[k], &xw_lo[k],
						      __shfl_sync(mask, window_sum[k], m - 1, G), 0);
			else /* the same hi, no sum kept */
				xw[k] = __shfl_sync(mask, x[k], m - 1, G);
			if (!isfinite(xw[k]))
				failed |= PICARD_FAIL_NONFINITE;
			else if (fabs(xw[k]) > L.bound)
				failed |= PICARD_FAIL_DIVERGED;
		}
		lobatto_group_output<n, real, G, dense>(L, w, traj, m, j, mask, xw, x, f);
		if (failed)
			break;
	}

#pragma unroll
	for (int k = 0; k < n; k++)
		if (k % G == j)
			((real *)L.x_final)[k * L.ntraj + traj] = xw[k];
	if (j == 0)
		store_window_outcome(L, traj, failed, w, unconverged_window, sweeps, sweeps_max);
}

#endif
