/* thomas.cuh - the Thomas algorithm with one thread per system (the
 * papers' baseline), its modified upper diagonal in global memory in the
 * systems' own layout. */
#ifndef PICARD_TRIDIAG_THOMAS_CUH
#define PICARD_TRIDIAG_THOMAS_CUH

#include "tridiag/rows.cuh"

__global__ void tridiag_thomas_kernel(struct tridiag_batch batch, double *scratch)
{
	long s = blockIdx.x * (long)blockDim.x + threadIdx.x;
	long first, step;

	if (s >= batch.batch)
		return;
	tridiag_system_at(batch, s, &first, &step);
	struct tridiag_rows rows = tridiag_rows_of(batch, first, step, 0, batch.n);
	batch.status[s] = tridiag_thomas_sweep(rows, batch.n, {scratch, first, step},
					       {batch.x, first, step});
}

#endif
