/* team_lu.cuh - LU with partial pivoting of an n x n system, real or
 * complex, and its solves, by a team (team.cuh): one thread's is
 * small_lu's, in its registers or local memory; a warp's keeps the
 * matrix in shared memory and spreads each step over the lanes, columns
 * across lanes (row-major, so a row's entries are neighbours and its
 * lanes hit distinct banks), written once for real and complex entries.
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

/* A matrix's entries or a vector's, real or complex (real and imaginary
 * parts apart, as small_lu_complex's): what the warp's LU and solve are
 * written over, once. A complex value's size is |re| + |im| (the
 * pivot's measure, small_lu_complex's). */
template <typename real>
struct team_complex {
	real re, im;
};

template <typename real>
__host__ __device__ inline team_complex<real> operator*(team_complex<real> a,
							 team_complex<real> b)
{
	return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

template <typename real>
__host__ __device__ inline team_complex<real> operator-(team_complex<real> a,
							 team_complex<real> b)
{
	return {a.re - b.re, a.im - b.im};
}

template <typename real>
__host__ __device__ inline real team_size(real v) { return fabs(v); }
template <typename real>
__host__ __device__ inline real team_size(team_complex<real> v)
{
	return fabs(v.re) + fabs(v.im);
}

template <typename real>
__host__ __device__ inline real team_inverse(real v) { return (real)1 / v; }
template <typename real>
__host__ __device__ inline team_complex<real> team_inverse(team_complex<real> v)
{
	const real mod = v.re * v.re + v.im * v.im;

	return {v.re / mod, -v.im / mod};
}

/* Entries by index: one array of reals, or two (real, imaginary). */
template <typename real>
struct team_real_entries {
	typedef real value;
	real *a;
	__host__ __device__ value get(int i) const { return a[i]; }
	__host__ __device__ void set(int i, value v) const { a[i] = v; }
};

template <typename real>
struct team_complex_entries {
	typedef team_complex<real> value;
	real *re, *im;
	__host__ __device__ value get(int i) const { return {re[i], im[i]}; }
	__host__ __device__ void set(int i, value v) const
	{
		re[i] = v.re;
		im[i] = v.im;
	}
};

#ifdef __CUDA_ARCH__
__device__ inline float team_shfl(float v, int from) { return __shfl_sync(0xffffffffu, v, from); }
__device__ inline double team_shfl(double v, int from)
{
	return __shfl_sync(0xffffffffu, v, from);
}
template <typename real>
__device__ inline team_complex<real> team_shfl(team_complex<real> v, int from)
{
	return {team_shfl(v.re, from), team_shfl(v.im, from)};
}

/* The warp's LU of the entries a, lane l: per step the pivot's search and
 * the row swap (lanes over rows, then columns), the multipliers (over
 * rows), the trailing update (over columns, four rows at a time so that
 * their loads are in flight together). Not inlined: one copy serves
 * every stage. */
template <int n, class Entries>
__device__ __noinline__ bool warp_lu(int l, Entries a, int *piv)
{
	typedef typename Entries::value value;
	typedef decltype(team_size(a.get(0))) real;
	const unsigned all = 0xffffffffu;

	for (int k = 0; k < n; k++) {
		/* the largest entry i >= k of column k, the first of equals
		 * (small_lu's); (size, row) is a total order, so every lane
		 * ends with the same */
		real best = -1;
		int m = n;
		bool bad = false;

		for (int i = k + l; i < n; i += 32) {
			const real v = team_size(a.get(i * n + k));

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
				const value t = a.get(k * n + j);

				a.set(k * n + j, a.get(m * n + j));
				a.set(m * n + j, t);
			}
		__syncwarp();
		const value inv = team_inverse(a.get(k * n + k));

		for (int i = k + 1 + l; i < n; i += 32)
			a.set(i * n + k, a.get(i * n + k) * inv);
		__syncwarp();
		if (l == 0)
			a.set(k * n + k, inv); /* kept inverted: the solves multiply */
		for (int j = k + 1 + l; j < n; j += 32) {
			const value akj = a.get(k * n + j);
			int i = k + 1;

			for (; i + 4 <= n; i += 4) {
				const value l0 = a.get(i * n + k), l1 = a.get((i + 1) * n + k);
				const value l2 = a.get((i + 2) * n + k), l3 = a.get((i + 3) * n + k);
				const value x0 = a.get(i * n + j), x1 = a.get((i + 1) * n + j);
				const value x2 = a.get((i + 2) * n + j), x3 = a.get((i + 3) * n + j);

				a.set(i * n + j, x0 - l0 * akj);
				a.set((i + 1) * n + j, x1 - l1 * akj);
				a.set((i + 2) * n + j, x2 - l2 * akj);
				a.set((i + 3) * n + j, x3 - l3 * akj);
			}
			for (; i < n; i++)
				a.set(i * n + j, a.get(i * n + j) - a.get(i * n + k) * akj);
		}
		__syncwarp();
	}
	return true;
}

/* The warp's solve of the entries b, lane l: b's entries in registers,
 * entry i in lane i % 32's slot i / 32, each step's pivot and each
 * unknown passed by a shuffle: no shared memory written, no barrier,
 * until b is stored back. The steps unrolled, so every slot index is a
 * constant. */
template <int n, class Entries, class Vector>
__device__ __noinline__ void warp_lu_solve(int l, Entries a, const int *piv, Vector b)
{
	typedef typename Vector::value value;
	constexpr int S = (n + 31) / 32;
	value v[S];

#pragma unroll
	for (int s = 0; s < S; s++)
		v[s] = s * 32 + l < n ? b.get(s * 32 + l) : value{};
#pragma unroll
	for (int k = 0; k < n; k++) {
		const int m = piv[k]; /* >= k */
		value at_m = v[0];

#pragma unroll
		for (int s = 1; s < S; s++)
			if (m / 32 == s)
				at_m = v[s];
		const value bk = team_shfl(v[k / 32], k % 32);
		const value bm = team_shfl(at_m, m % 32);

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
				v[s] = v[s] - a.get(i * n + k) * bm;
		}
	}
#pragma unroll
	for (int i = n - 1; i >= 0; i--) {
		const value bi = team_shfl(v[i / 32], i % 32) * a.get(i * n + i);

		if (l == i % 32)
			v[i / 32] = bi;
#pragma unroll
		for (int s = 0; s < S; s++)
			if (s * 32 + l < i)
				v[s] = v[s] - a.get((s * 32 + l) * n + i) * bi;
	}
#pragma unroll
	for (int s = 0; s < S; s++)
		if (s * 32 + l < n)
			b.set(s * 32 + l, v[s]);
	__syncwarp();
}
#endif

/* false when a pivot is zero, or a column holds a value not finite (as
 * small_lu fails on a pivot not finite; all lanes agree). */
template <int n, typename real>
__host__ __device__ inline bool team_lu(const team_warp &T, real *a, int *piv)
{
#ifdef __CUDA_ARCH__
	return warp_lu<n>(T.lane(), team_real_entries<real>{a}, piv);
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
	warp_lu_solve<n>(T.lane(), team_real_entries<real>{const_cast<real *>(a)}, piv,
			 team_real_entries<real>{b});
#else
	(void)T, (void)a, (void)piv, (void)b;
#endif
}

/* The same in complex arithmetic, real and imaginary parts apart
 * (small_lu_complex's and its solve's contract). */
template <int n, typename real>
__host__ __device__ inline bool team_lu_complex(const team_one &, real *ar, real *ai, int *piv)
{
	return small_lu_complex<n>(ar, ai, piv);
}

template <int n, typename real>
__host__ __device__ inline void team_lu_solve_complex(const team_one &, const real *ar,
						      const real *ai, const int *piv, real *br,
						      real *bi)
{
	small_lu_solve_complex<n>(ar, ai, piv, br, bi);
}

template <int n, typename real>
__host__ __device__ inline bool team_lu_complex(const team_warp &T, real *ar, real *ai, int *piv)
{
#ifdef __CUDA_ARCH__
	return warp_lu<n>(T.lane(), team_complex_entries<real>{ar, ai}, piv);
#else
	(void)T, (void)ar, (void)ai, (void)piv;
	return false;
#endif
}

template <int n, typename real>
__host__ __device__ inline void team_lu_solve_complex(const team_warp &T, const real *ar,
						      const real *ai, const int *piv, real *br,
						      real *bi)
{
#ifdef __CUDA_ARCH__
	warp_lu_solve<n>(T.lane(),
			 team_complex_entries<real>{const_cast<real *>(ar), const_cast<real *>(ai)},
			 piv, team_complex_entries<real>{br, bi});
#else
	(void)T, (void)ar, (void)ai, (void)piv, (void)br, (void)bi;
#endif
}

} /* namespace picard */

#endif
