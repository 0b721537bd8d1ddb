/* lobatto_thread_kernel.cuh - the lobatto scheme (kernels/
 * lobatto_kernel.cuh, src/lobatto.h) with one thread per trajectory: the
 * thread layout, for ensembles that fill the GPU by themselves.
 *
 * The group layout gives each trajectory G lanes and pays, every sweep,
 * the shuffles of the mat-vec (m per lane and component), a vote and its
 * idle lanes (G - m); once the ensemble alone fills the device, that is
 * work the thread layout does not do: one thread evaluates the m nodes'
 * right-hand sides and the m x m mat-vec from registers, the tables read
 * from shared memory (every thread of a block reads the same word at
 * once: a broadcast). It is src/cpu_lobatto.inc's loop, operation for
 * operation (nodes' slopes from the previous iterate first, then x_j =
 * x_w + sum_l A_jl f_l with fused multiply-adds from l = 0, the same test),
 * as the trapezoid's thread layout is the CPU backend's.
 *
 * Registers: the iterate x[MAXM][n] and its slopes f[MAXM][n], loops
 * unrolled over MAXM (a compile-time bound >= m, 8 or 16) so every index is
 * a constant. m is at most 16 here (PICARD_LOBATTO_THREAD_MAX_M): past
 * that the two arrays alone outgrow the registers.
 */
#ifndef PICARD_LOBATTO_THREAD_KERNEL_CUH
#define PICARD_LOBATTO_THREAD_KERNEL_CUH

#include "compensated.h"
#include "convergence.h"
#include "launch.h"
#include "picard.h"
#include "lobatto_kernel.cuh" /* load_lobatto_tables */
#include "warp_kernel.cuh" /* window_end_failure, write_trajectory */

template <class Model, typename real, int MAXM, bool dense>
__global__ void picard_lobatto_thread_kernel(const picard_launch L)
{
	constexpr int n = Model::dim;
	__shared__ real A_t[MAXM * MAXM];  /* (H/2) S, [l][j], row stride G */
	__shared__ real X_t[MAXM * MAXM];  /* extrapolation E, likewise */
	__shared__ double offset[MAXM];    /* t_j - t_w */

	/* the tables as the group layout's (L.group = G >= m, zero past m) */
	const int G = L.group;
	load_lobatto_tables(L, G, A_t, X_t, offset);

	const long traj = (long)blockIdx.x * blockDim.x + threadIdx.x;
	if (traj >= L.ntraj)
		return;
	const int m = L.m;
	long sweeps = 0, unconverged_window = -1, w;
	int sweeps_max = 0, failed = 0;

	real params[Model::nparams > 0 ? Model::nparams : 1];
	for (int q = 0; q < Model::nparams; q++)
		params[q] = ((const real *)L.params)[q * L.ntraj + traj];
	real xw[n];         /* window start */
	real x[MAXM][n];    /* node j's iterate; x[0] is x_w */
	real f[MAXM][n];    /* its slopes, of the previous iterate */
	for (int k = 0; k < n; k++)
		xw[k] = ((const real *)L.x0)[k * L.ntraj + traj];
	real xw_lo[n];      /* the start's lo (src/compensated.h) */
	for (int k = 0; k < n; k++)
		xw_lo[k] = 0;
#pragma unroll
	for (int j = 0; j < MAXM; j++)
		for (int k = 0; k < n; k++)
			x[j][k] = xw[k];

	for (w = 0; w < L.windows; w++) {
		const double tw = L.t0 + (double)w * L.window;
		float prev_plain = INFINITY;
		int i, verdict = PICARD_SWEEP_GO_ON;

		/* x_j^0 = x_w, or warm: x_w + sum_l E_jl (x_l - x_w), the
		 * previous window's iterate x_l (x_w is its x_{m-1} by now) */
		if (L.warm_start && w > 0) {
			real delta[MAXM][n];

#pragma unroll
			for (int l = 0; l < MAXM; l++)
				for (int k = 0; k < n; k++)
					delta[l][k] = x[l][k] - xw[k];
#pragma unroll
			for (int j = 1; j < MAXM; j++) {
				if (j >= m)
					continue; /* not break: keeps the loop unrolled */
				for (int k = 0; k < n; k++) {
					real acc = 0;

#pragma unroll
					for (int l = 0; l < MAXM; l++)
						if (l < m)
							acc = picard_fma(X_t[l * G + j], delta[l][k], acc);
					x[j][k] = xw[k] + acc;
				}
			}
		} else {
#pragma unroll
			for (int j = 1; j < MAXM; j++)
				for (int k = 0; k < n; k++)
					x[j][k] = xw[k];
		}
		for (int k = 0; k < n; k++)
			x[0][k] = xw[k];

		real window_sum[n]; /* x_{m-1} - x_w of the latest sweep, with lo */
		for (i = 0; i < L.K && verdict == PICARD_SWEEP_GO_ON; i++) {
			const bool measured = picard_sweep_measured(i, L.K, L.adaptive);
			bool within = true;
			float plain = 0;

#pragma unroll
			for (int j = 0; j < MAXM; j++)
				if (j < m)
					Model::rhs((real)(tw + offset[j]), x[j], params, f[j]);
			/* x_j = x_w + sum_l A_jl f_l; x_0 = x_w stays */
#pragma unroll
			for (int j = 1; j < MAXM; j++) {
				if (j >= m)
					continue;
				for (int k = 0; k < n; k++) {
					real acc = xw_lo[k];

#pragma unroll
					for (int l = 0; l < MAXM; l++)
						if (l < m)
							acc = picard_fma(A_t[l * G + j], f[l][k], acc);
					const real x_new = xw[k] + acc;

					if (measured) {
						within &= picard_change_within(x_new, x[j][k], (real)L.iter_atol,
									       (real)L.iter_rtol);
						plain = fmaxf(plain, (float)fabs(x_new - x[j][k]));
					}
					x[j][k] = x_new;
					if (j == m - 1)
						window_sum[k] = acc;
				}
			}
			if (!measured)
				continue;
			verdict = picard_sweep_verdict(i, L.K, L.adaptive, within, plain, prev_plain);
			prev_plain = plain;
		}
		count_window(i, verdict, w, sweeps, sweeps_max, unconverged_window);

		/* the window end x_{m-1} = x_w + its sum, as hi + lo; in
		 * double x_{m-1} itself, picked by an unrolled search (a
		 * register array takes constant indices) */
		if constexpr (picard_compensated<real>) {
			for (int k = 0; k < n; k++)
				picard_window_advance(&xw[k], &xw_lo[k], window_sum[k], 0);
		} else {
#pragma unroll
			for (int j = 1; j < MAXM; j++)
				if (j == m - 1)
					for (int k = 0; k < n; k++)
						xw[k] = x[j][k];
		}
		failed = window_end_failure<n>(xw, L.bound);
		for (int r = 0; r < L.nrecords; r++)
			for (int k = 0; k < n; k++)
				record_window_end(L.records[r], w, L.traj_offset + traj, k, n, xw[k]);
		/* dense output: the collocation polynomial, x(t) = x_0 + sum_l
		 * b_l f_l, the solve's weights b_l = (H/2) int_{-1}^{tau} L_l
		 * and the last sweep's slopes */
		auto store = [&](const picard_device_record &rec, long row, double) {
			const real *b_row = (const real *)rec.weights + row * m;
			real acc[n];

			for (int k = 0; k < n; k++)
				acc[k] = 0;
#pragma unroll
			for (int l = 0; l < MAXM; l++) {
				if (l >= m)
					continue;
				const real b = b_row[l];

				for (int k = 0; k < n; k++)
					acc[k] = picard_fma(b, f[l][k], acc[k]);
			}
			for (int k = 0; k < n; k++)
				record_store(rec, row, L.traj_offset + traj, k, n, x[0][k] + acc[k]);
		};
		if (dense)
			record_dense(L, true, w, L.traj_offset + traj, store);
		if (failed)
			break;
	}
	write_trajectory<n>(L, traj, xw, failed, w, unconverged_window, sweeps, sweeps_max);
}

#endif
