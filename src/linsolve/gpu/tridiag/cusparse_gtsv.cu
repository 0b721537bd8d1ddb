/* cusparse_gtsv.cu - the library anchor: cuSPARSE's gtsv2StridedBatch
 * (contiguous layout only, n >= 3). It solves in place and reports no
 * pivot, so the solve copies rhs into x first and a kernel after it sets
 * status from whether each system's x is finite. Its handle and buffer
 * are made on first use and kept for the process (not thread-safe). */
#include <limits.h>

#include "cuda_libs.h"

#include "tridiag/rows.cuh"
#include "device_counts.h"

#define STATUS_BLOCK 128

static cusparseHandle_t handle;
static void *buffer;
static size_t buffer_bytes;

/* TRIDIAG_NONFINITE_PIVOT for a system whose solution is not finite. */
__global__ void tridiag_finite_status_kernel(struct tridiag_batch batch)
{
	long s = blockIdx.x * (long)blockDim.x + threadIdx.x;
	long first, step;
	int status = TRIDIAG_OK;

	if (s >= batch.batch)
		return;
	tridiag_system_at(batch, s, &first, &step);
	for (int i = 0; i < batch.n; i++)
		if (!isfinite(batch.x[first + i * step]))
			status = TRIDIAG_NONFINITE_PIVOT;
	batch.status[s] = status;
}

static int contiguous_only(enum tridiag_layout layout)
{
	return layout == TRIDIAG_CONTIGUOUS;
}

static size_t cusparse_work_doubles(const struct tridiag_batch *batch)
{
	(void)batch;
	return 0;
}

static int cusparse_solve(const struct tridiag_batch *batch, double *work, cudaStream_t stream)
{
	size_t bytes = (size_t)batch->batch * batch->n * sizeof(double);
	size_t need = 0;
	int err;

	(void)work;
	if (batch->layout != TRIDIAG_CONTIGUOUS || batch->n < 3 || batch->batch > INT_MAX)
		return TRIDIAG_EUNSUPPORTED;
	if (!handle && cusparseCreate(&handle) != CUSPARSE_STATUS_SUCCESS)
		return TRIDIAG_ELIBRARY;
	if (cusparseSetStream(handle, stream) != CUSPARSE_STATUS_SUCCESS)
		return TRIDIAG_ELIBRARY;
	err = cudaMemcpyAsync(batch->x, batch->rhs, bytes, cudaMemcpyDeviceToDevice, stream);
	if (err != cudaSuccess)
		return err;
	if (cusparseDgtsv2StridedBatch_bufferSizeExt(handle, batch->n, batch->lower, batch->diag,
						     batch->upper, batch->x, (int)batch->batch,
						     batch->n, &need) != CUSPARSE_STATUS_SUCCESS)
		return TRIDIAG_ELIBRARY;
	if (need > buffer_bytes) {
		cudaFree(buffer);
		buffer_bytes = 0;
		err = cudaMalloc(&buffer, need);
		if (err != cudaSuccess)
			return err;
		buffer_bytes = need;
	}
	if (cusparseDgtsv2StridedBatch(handle, batch->n, batch->lower, batch->diag, batch->upper,
				       batch->x, (int)batch->batch, batch->n,
				       buffer) != CUSPARSE_STATUS_SUCCESS)
		return TRIDIAG_ELIBRARY;
	tridiag_finite_status_kernel<<<picard_counted((batch->batch + STATUS_BLOCK - 1) / STATUS_BLOCK), STATUS_BLOCK,
				       0, stream>>>(*batch);
	return cudaGetLastError();
}

extern "C" const struct tridiag_solver tridiag_cusparse = {
	"cusparse-gtsv2", 0, 3, 0, contiguous_only, cusparse_work_doubles, cusparse_solve,
};
