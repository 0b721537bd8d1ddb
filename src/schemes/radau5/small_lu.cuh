/* small_lu.cuh - LU with partial pivoting of a small n x n system (n a
 * compile-time constant), real or complex, and its solves: one thread's
 * linear algebra, device and host alike (radau5_integrate.cuh; bench/
 * stiff's Rodas5P baseline). Every loop is unrolled and every index a
 * constant, the pivot's row chosen by comparison, so on the device the
 * matrices stay in registers: an index known only at run time would put
 * them in local memory. The diagonal of U is kept inverted, so the solves
 * multiply. */
#ifndef PICARD_SMALL_LU_CUH
#define PICARD_SMALL_LU_CUH

#include <math.h>

#include "portable.h"
#include "rk_integrate.cuh" /* RK_UNROLL */

namespace picard {

/* LU of the row-major a in place, the row swaps in piv; false when a
 * pivot is zero (or not finite). As LINPACK's dgefa and Hairer's decsol.f
 * DEC: step k swaps rows k and piv[k] from column k on, leaving the
 * multipliers of earlier steps where they were made, which is what
 * small_lu_solve's step-by-step swaps of b expect. Swapping whole rows
 * (as LAPACK does, whose solve permutes b first) moved an earlier step's
 * multipliers to another row whenever a later pivot was a row already
 * swapped, and the solve then paired them with the wrong entries of b:
 * on h2o2's E1 (a row ~1e10 beside rows ~1e2) a residual as large as b,
 * radau5's Newton iteration contracting at 0.7-1.4 at any step, 30 times
 * its iterations, rodas5p failing (tests/schemes/test_small_lu.c). */
template <int n, typename real>
__host__ __device__ inline bool small_lu(real *a, int *piv)
{
RK_UNROLL
	for (int k = 0; k < n; k++) {
		int m = k;
		real best = fabs(a[k * n + k]);

RK_UNROLL
		for (int i = k + 1; i < n; i++)
			if (fabs(a[i * n + k]) > best) {
				m = i;
				best = fabs(a[i * n + k]);
			}
		piv[k] = m;
		if (!(best > 0) || !isfinite(best))
			return false;
RK_UNROLL
		for (int i = k + 1; i < n; i++)
			if (i == m)
RK_UNROLL
				for (int j = k; j < n; j++) {
					const real t = a[k * n + j];

					a[k * n + j] = a[i * n + j];
					a[i * n + j] = t;
				}
		const real inv = (real)1 / a[k * n + k];

		a[k * n + k] = inv; /* kept inverted: the solves multiply */
RK_UNROLL
		for (int i = k + 1; i < n; i++) {
			const real l = a[i * n + k] * inv;

			a[i * n + k] = l;
RK_UNROLL
			for (int j = k + 1; j < n; j++)
				a[i * n + j] -= l * a[k * n + j];
		}
	}
	return true;
}

template <int n, typename real>
__host__ __device__ inline void small_lu_solve(const real *a, const int *piv, real *b)
{
RK_UNROLL
	for (int k = 0; k < n; k++) {
RK_UNROLL
		for (int i = k + 1; i < n; i++)
			if (i == piv[k]) {
				const real t = b[k];

				b[k] = b[i];
				b[i] = t;
			}
RK_UNROLL
		for (int i = k + 1; i < n; i++)
			b[i] -= a[i * n + k] * b[k];
	}
RK_UNROLL
	for (int i = n - 1; i >= 0; i--) {
		real s = b[i];

RK_UNROLL
		for (int j = i + 1; j < n; j++)
			s -= a[i * n + j] * b[j];
		b[i] = s * a[i * n + i];
	}
}

/* The same in complex arithmetic, real and imaginary parts apart (rows
 * swapped from column k on, as small_lu). */
template <int n, typename real>
__host__ __device__ inline bool small_lu_complex(real *ar, real *ai, int *piv)
{
RK_UNROLL
	for (int k = 0; k < n; k++) {
		int m = k;
		real best = fabs(ar[k * n + k]) + fabs(ai[k * n + k]);

RK_UNROLL
		for (int i = k + 1; i < n; i++)
			if (fabs(ar[i * n + k]) + fabs(ai[i * n + k]) > best) {
				m = i;
				best = fabs(ar[i * n + k]) + fabs(ai[i * n + k]);
			}
		piv[k] = m;
		if (!(best > 0) || !isfinite(best))
			return false;
RK_UNROLL
		for (int i = k + 1; i < n; i++)
			if (i == m)
RK_UNROLL
				for (int j = k; j < n; j++) {
					const real tr = ar[k * n + j], ti = ai[k * n + j];

					ar[k * n + j] = ar[i * n + j];
					ai[k * n + j] = ai[i * n + j];
					ar[i * n + j] = tr;
					ai[i * n + j] = ti;
				}
		const real pr = ar[k * n + k], pi = ai[k * n + k], mod = pr * pr + pi * pi;
		const real ir = pr / mod, ii = -pi / mod; /* 1 / pivot */

		ar[k * n + k] = ir; /* kept inverted: the solves multiply */
		ai[k * n + k] = ii;

RK_UNROLL
		for (int i = k + 1; i < n; i++) {
			const real lr = ar[i * n + k] * ir - ai[i * n + k] * ii;
			const real li = ar[i * n + k] * ii + ai[i * n + k] * ir;

			ar[i * n + k] = lr;
			ai[i * n + k] = li;
RK_UNROLL
			for (int j = k + 1; j < n; j++) {
				ar[i * n + j] -= lr * ar[k * n + j] - li * ai[k * n + j];
				ai[i * n + j] -= lr * ai[k * n + j] + li * ar[k * n + j];
			}
		}
	}
	return true;
}

template <int n, typename real>
__host__ __device__ inline void small_lu_solve_complex(const real *ar, const real *ai,
						       const int *piv, real *br, real *bi)
{
RK_UNROLL
	for (int k = 0; k < n; k++) {
RK_UNROLL
		for (int i = k + 1; i < n; i++)
			if (i == piv[k]) {
				real t = br[k];

				br[k] = br[i];
				br[i] = t;
				t = bi[k];
				bi[k] = bi[i];
				bi[i] = t;
			}
RK_UNROLL
		for (int i = k + 1; i < n; i++) {
			br[i] -= ar[i * n + k] * br[k] - ai[i * n + k] * bi[k];
			bi[i] -= ar[i * n + k] * bi[k] + ai[i * n + k] * br[k];
		}
	}
RK_UNROLL
	for (int i = n - 1; i >= 0; i--) {
		real sr = br[i], si = bi[i];

RK_UNROLL
		for (int j = i + 1; j < n; j++) {
			sr -= ar[i * n + j] * br[j] - ai[i * n + j] * bi[j];
			si -= ar[i * n + j] * bi[j] + ai[i * n + j] * br[j];
		}
		const real dr = ar[i * n + i], di = ai[i * n + i]; /* 1 / pivot */

		br[i] = sr * dr - si * di;
		bi[i] = sr * di + si * dr;
	}
}

} /* namespace picard */

#endif
