/* spmv.cuh - the batched SpMV kernels y = A x over the interleaved layout
 * (krylov.h): one row of one member is an item, item = i * B + m. Two
 * kinds, each a family of candidates for the tuner (Mossaiby 2013's
 * tunable SpMV, whose parameters are the work per thread and the work
 * group size):
 * - thread: a thread computes R items, blockDim apart (coalesced in the
 *   interleaved layout: neighbouring threads take neighbouring members of
 *   a row, or neighbouring rows when B = 1);
 * - group: T threads (a power of 2 within a warp) share one item, each
 *   taking every T-th entry of the row, summed by warp shuffles (a long
 *   row of one large system: the CSR "vector" kernel). */
#ifndef PICARD_KRYLOV_SPMV_CUH
#define PICARD_KRYLOV_SPMV_CUH

#include "krylov/krylov.h"

/* A pattern on the device, CSR and MSR alike: row i's stored entries are
 * k in [start[i], start[i+1]) in column col[k] (MSR: start = col = bindx),
 * and MSR keeps the diagonal apart in val[i]. */
struct krylov_dpattern {
	const int *start;
	const int *col;
	int n;     /* rows */
	int batch; /* members */
	bool msr;  /* the diagonal apart */
};

/* (A_m x_m)_i */
__device__ __forceinline__ double krylov_row_product(const krylov_dpattern &p,
						     const double *__restrict__ val,
						     const double *__restrict__ x, long i, int m)
{
	long batch = p.batch;
	double dot = p.msr ? val[i * batch + m] * x[i * batch + m] : 0.0;
	int end = __ldg(p.start + i + 1);

	for (int k = __ldg(p.start + i); k < end; k++)
		dot += val[k * batch + m] * x[__ldg(p.col + k) * batch + m];
	return dot;
}

template <int R>
__global__ void krylov_spmv_thread_kernel(krylov_dpattern p, const double *__restrict__ val,
					  const double *__restrict__ x, double *__restrict__ y,
					  long items)
{
	long base = (long)blockIdx.x * R * blockDim.x + threadIdx.x;

#pragma unroll
	for (int j = 0; j < R; j++) {
		long item = base + (long)j * blockDim.x;

		if (item < items) {
			long i = item / p.batch;

			y[item] = krylov_row_product(p, val, x, i, (int)(item - i * p.batch));
		}
	}
}

/* T divides 32 and blockDim.x is a multiple of 32: a group never spans
 * two warps, and every lane reaches the shuffles. */
template <int T>
__global__ void krylov_spmv_group_kernel(krylov_dpattern p, const double *__restrict__ val,
					 const double *__restrict__ x, double *__restrict__ y,
					 long items)
{
	long thread = (long)blockIdx.x * blockDim.x + threadIdx.x;
	long item = thread / T;
	int lane = (int)(thread % T);
	double dot = 0.0;

	if (item < items) {
		long batch = p.batch, i = item / batch;
		int m = (int)(item - i * batch), end = __ldg(p.start + i + 1);

		if (p.msr && lane == 0)
			dot = val[i * batch + m] * x[i * batch + m];
		for (int k = __ldg(p.start + i) + lane; k < end; k += T)
			dot += val[k * batch + m] * x[__ldg(p.col + k) * batch + m];
	}
#pragma unroll
	for (int offset = T / 2; offset > 0; offset /= 2)
		dot += __shfl_down_sync(0xffffffffu, dot, offset, T);
	if (item < items && lane == 0)
		y[item] = dot;
}

#endif
