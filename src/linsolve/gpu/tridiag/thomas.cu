/* thomas.cu - launcher of the one-thread-per-system Thomas solver. */
#include "tridiag/thomas.cuh"
#include "device_counts.h"

#define THOMAS_BLOCK 128

static size_t thomas_work_doubles(const struct tridiag_batch *batch)
{
	return (size_t)batch->batch * batch->n;
}

static int thomas_solve(const struct tridiag_batch *batch, double *work, cudaStream_t stream)
{
	long blocks = (batch->batch + THOMAS_BLOCK - 1) / THOMAS_BLOCK;

	tridiag_thomas_kernel<<<picard_counted(blocks), THOMAS_BLOCK, 0, stream>>>(*batch, work);
	return cudaGetLastError();
}

extern "C" const struct tridiag_solver tridiag_thomas = {
	"thomas", 0, 1, 0, tridiag_any_layout, thomas_work_doubles, thomas_solve,
};
