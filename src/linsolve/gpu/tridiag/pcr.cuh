/* pcr.cuh - parallel cyclic reduction (Hockney; on the GPU Zhang, Cohen
 * and Owens 2010) in shared memory, one block a system: each of log2 n
 * steps eliminates every row's couplings to the rows stride away, doubling
 * the stride, until every row stands alone. The 2016 paper's PCR solver
 * follows Wei et al. in shared memory alike. */
#ifndef PICARD_TRIDIAG_PCR_CUH
#define PICARD_TRIDIAG_PCR_CUH

#include "tridiag/rows.cuh"

/* Threads a block at most, and rows a thread holds between a step's reads
 * and its writes: n <= 4096. */
#define PCR_BLOCK_MAX 1024
#define PCR_ROWS_PER_THREAD 4

/* The worse of two statuses (TRIDIAG_NONFINITE_PIVOT over ZERO over OK). */
__device__ inline int tridiag_worse(int status, int other)
{
	return other > status ? other : status;
}

/* One system a block; 4 n doubles of dynamic shared memory. The launch
 * bound holds the registers to the 64 a thread of a full block may have
 * (unbounded it takes more, and a block of 1024 would not launch). */
__global__ void __launch_bounds__(PCR_BLOCK_MAX) tridiag_pcr_kernel(struct tridiag_batch batch)
{
	extern __shared__ double pcr_shared[];
	__shared__ int block_status;
	int n = batch.n;
	double *a = pcr_shared, *b = a + n, *c = b + n, *d = c + n;
	long first, step;
	int status = TRIDIAG_OK;

	tridiag_system_at(batch, blockIdx.x, &first, &step);
	if (threadIdx.x == 0)
		block_status = TRIDIAG_OK;
	for (int i = threadIdx.x; i < n; i += blockDim.x) {
		long at = first + i * step;

		a[i] = i > 0 ? batch.lower[at] : 0.0;
		b[i] = batch.diag[at];
		c[i] = i < n - 1 ? batch.upper[at] : 0.0;
		d[i] = batch.rhs[at];
	}
	__syncthreads();
	for (int stride = 1; stride < n; stride *= 2) {
		double new_a[PCR_ROWS_PER_THREAD], new_b[PCR_ROWS_PER_THREAD];
		double new_c[PCR_ROWS_PER_THREAD], new_d[PCR_ROWS_PER_THREAD];

#pragma unroll
		for (int r = 0; r < PCR_ROWS_PER_THREAD; r++) {
			int i = threadIdx.x + r * blockDim.x;
			int up = i - stride, down = i + stride;

			if (i >= n)
				break;
			new_a[r] = 0.0;
			new_b[r] = b[i];
			new_c[r] = 0.0;
			new_d[r] = d[i];
			if (up >= 0) {
				double alpha = -a[i] / b[up];

				status = tridiag_worse(status, tridiag_pivot_status(b[up]));
				new_a[r] = alpha * a[up];
				new_b[r] += alpha * c[up];
				new_d[r] += alpha * d[up];
			}
			if (down < n) {
				double gamma = -c[i] / b[down];

				status = tridiag_worse(status, tridiag_pivot_status(b[down]));
				new_c[r] = gamma * c[down];
				new_b[r] += gamma * a[down];
				new_d[r] += gamma * d[down];
			}
		}
		__syncthreads();
#pragma unroll
		for (int r = 0; r < PCR_ROWS_PER_THREAD; r++) {
			int i = threadIdx.x + r * blockDim.x;

			if (i >= n)
				break;
			a[i] = new_a[r];
			b[i] = new_b[r];
			c[i] = new_c[r];
			d[i] = new_d[r];
		}
		__syncthreads();
	}
	for (int i = threadIdx.x; i < n; i += blockDim.x) {
		status = tridiag_worse(status, tridiag_pivot_status(b[i]));
		batch.x[first + i * step] = d[i] / b[i];
	}
	if (status != TRIDIAG_OK)
		atomicMax(&block_status, status);
	__syncthreads();
	if (threadIdx.x == 0)
		batch.status[blockIdx.x] = block_status;
}

#endif
