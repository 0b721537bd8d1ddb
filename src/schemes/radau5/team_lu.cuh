/* team_lu.cuh - LU with partial pivoting of an n x n system and its
 * solves, by a team (team.cuh): one thread's is small_lu's, in its
 * registers or local memory; a warp's keeps the matrix in shared memory
 * and spreads each step over the lanes, columns across lanes (row-major,
 * so a row's entries are neighbours and its lanes hit distinct banks).
 * Both keep LINPACK's order (small_lu.cuh says why): step k swaps rows k
 * and piv[k] from column k on, the multipliers stay where they were made,
 * U's diagonal is kept inverted; the warp's back substitution runs by
 * columns, so it adds in another order than small_lu_solve's rows. */
#ifndef PICARD_TEAM_LU_CUH
#define PICARD_TEAM_LU_CUH

#include <math.h>

#include "small_lu.cuh"
#include "team.cuh"

namespace picard {

template <int n, typename real>
__host__ __device__ inline bool team_lu(const team_one &, real *a, int *piv)
{
	return small_lu<n>(a, piv);
}

template <int n, typename real>
__host__ __device__ inline void team_lu_solve(const team_one &, const real *a, const int *piv,
					      real *b)
{
	small_lu_solve<n>(a, piv, b);
}

#ifdef __CUDA_ARCH__
/* The warp's LU, lane l: per step the pivot's search and the row swap
 * (lanes over rows, then columns), the multipliers (over rows), the
 * trailing update (over columns, four rows at a time so that their loads
 * are in flight together). Not inlined: one copy serves every stage. */
template <int n, typename real>
__device__ __noinline__ bool warp_lu(int l, real *a, int *piv)
{
	const unsigned all = 0xffffffffu;

	for (int k = 0; k < n; k++) {
		/* the largest |a_ik|, i >= k, the first of equals (small_lu's);
		 * (value, row) is a total order, so every lane ends with the
		 * same */
		real best = -1;
		int m = n;
		bool bad = false;

		for (int i = k + l; i < n; i += 32) {
			const real v = fabs(a[i * n + k]);

			bad |= !isfinite(v);
			if (v > best) {
				best = v;
				m = i;
			}
		}
		for (int o = 16; o > 0; o >>= 1) {
			const real ob = __shfl_xor_sync(all, best, o);
			const int om = __shfl_xor_sync(all, m, o);

			if (ob > best || (ob == best && om < m)) {
				best = ob;
				m = om;
			}
		}
		if (__any_sync(all, bad) || !(best > 0))
			return false;
		if (l == 0)
			piv[k] = m;
		if (m != k)
			for (int j = k + l; j < n; j += 32) {
				const real t = a[k * n + j];

				a[k * n + j] = a[m * n + j];
				a[m * n + j] = t;
			}
		__syncwarp();
		const real inv = (real)1 / a[k * n + k];

		for (int i = k + 1 + l; i < n; i += 32)
			a[i * n + k] *= inv;
		__syncwarp();
		if (l == 0)
			a[k * n + k] = inv; /* kept inverted: the solves multiply */
		for (int j = k + 1 + l; j < n; j += 32) {
			const real akj = a[k * n + j];
			int i = k + 1;

			for (; i + 4 <= n; i += 4) {
				const real l0 = a[i * n + k], l1 = a[(i + 1) * n + k];
				const real l2 = a[(i + 2) * n + k], l3 = a[(i + 3) * n + k];
				const real x0 = a[i * n + j], x1 = a[(i + 1) * n + j];
				const real x2 = a[(i + 2) * n + j], x3 = a[(i + 3) * n + j];

				a[i * n + j] = x0 - l0 * akj;
				a[(i + 1) * n + j] = x1 - l1 * akj;
				a[(i + 2) * n + j] = x2 - l2 * akj;
				a[(i + 3) * n + j] = x3 - l3 * akj;
			}
			for (; i < n; i++)
				a[i * n + j] -= a[i * n + k] * akj;
		}
		__syncwarp();
	}
	return true;
}

/* The warp's solve, lane l: b's entries in registers, entry i in lane i %
 * 32's slot i / 32, each step's pivot and each unknown passed by a
 * shuffle: no shared memory written, no barrier, until b is stored back.
 * The steps unrolled, so every slot index is a constant. */
template <int n, typename real>
__device__ __noinline__ void warp_lu_solve(int l, const real *a, const int *piv, real *b)
{
	constexpr int S = (n + 31) / 32;
	const unsigned all = 0xffffffffu;
	real v[S];

#pragma unroll
	for (int s = 0; s < S; s++)
		v[s] = s * 32 + l < n ? b[s * 32 + l] : (real)0;
#pragma unroll
	for (int k = 0; k < n; k++) {
		const int m = piv[k]; /* >= k */
		real at_m = v[0];

#pragma unroll
		for (int s = 1; s < S; s++)
			if (m / 32 == s)
				at_m = v[s];
		const real bk = __shfl_sync(all, v[k / 32], k % 32);
		const real bm = __shfl_sync(all, at_m, m % 32);

		if (l == k % 32)
			v[k / 32] = bm;
#pragma unroll
		for (int s = 0; s < S; s++)
			if (m / 32 == s && l == m % 32)
				v[s] = bk;
#pragma unroll
		for (int s = 0; s < S; s++) {
			const int i = s * 32 + l;

			if (i > k && i < n)
				v[s] -= a[i * n + k] * bm;
		}
	}
#pragma unroll
	for (int i = n - 1; i >= 0; i--) {
		const real bi = __shfl_sync(all, v[i / 32], i % 32) * a[i * n + i];

		if (l == i % 32)
			v[i / 32] = bi;
#pragma unroll
		for (int s = 0; s < S; s++)
			if (s * 32 + l < i)
				v[s] -= a[(s * 32 + l) * n + i] * bi;
	}
#pragma unroll
	for (int s = 0; s < S; s++)
		if (s * 32 + l < n)
			b[s * 32 + l] = v[s];
	__syncwarp();
}
#endif

/* false when a pivot is zero, or a column holds a value not finite (as
 * small_lu fails on a pivot not finite; all lanes agree). */
template <int n, typename real>
__host__ __device__ inline bool team_lu(const team_warp &T, real *a, int *piv)
{
#ifdef __CUDA_ARCH__
	return warp_lu<n>(T.lane(), a, piv);
#else
	(void)T, (void)a, (void)piv;
	return false;
#endif
}

/* b (shared) in place; every lane returns with it solved. */
template <int n, typename real>
__host__ __device__ inline void team_lu_solve(const team_warp &T, const real *a, const int *piv,
					      real *b)
{
#ifdef __CUDA_ARCH__
	warp_lu_solve<n>(T.lane(), a, piv, b);
#else
	(void)T, (void)a, (void)piv, (void)b;
#endif
}

} /* namespace picard */

#endif
