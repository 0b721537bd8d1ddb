/* pcr.cu - launcher of the shared-memory PCR solver (pcr.cuh). */
#include "tridiag/pcr.cuh"
#include "device_counts.h"

#define PCR_MAX_N (PCR_BLOCK_MAX * PCR_ROWS_PER_THREAD)

/* Whether the kernel may take 4 PCR_MAX_N doubles of shared memory (set
 * for the current device; one device a process). */
static bool shared_set;

static size_t pcr_work_doubles(const struct tridiag_batch *batch)
{
	(void)batch;
	return 0;
}

static int pcr_solve(const struct tridiag_batch *batch, double *work, cudaStream_t stream)
{
	int block = (batch->n + 31) / 32 * 32;
	size_t bytes = 4 * (size_t)batch->n * sizeof(double);
	int err;

	(void)work;
	if (batch->n > PCR_MAX_N)
		return TRIDIAG_EUNSUPPORTED;
	if (block > PCR_BLOCK_MAX)
		block = PCR_BLOCK_MAX;
	/* once, for the largest n, so that no timed solve pays for it */
	if (!shared_set) {
		err = cudaFuncSetAttribute(tridiag_pcr_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
					   (int)(4 * PCR_MAX_N * sizeof(double)));
		if (err != cudaSuccess)
			return err;
		shared_set = true;
	}
	tridiag_pcr_kernel<<<picard_counted(batch->batch), block, bytes, stream>>>(*batch);
	return cudaGetLastError();
}

extern "C" const struct tridiag_solver tridiag_pcr_shared = {
	"pcr-shared", PCR_MAX_N, 1, 0, tridiag_any_layout, pcr_work_doubles, pcr_solve,
};
