/* checkerboard.cu - launchers of the checkerboard Thomas solvers, the
 * workspace in global memory and in shared memory (checkerboard.cuh). */
#include "tridiag/checkerboard.cuh"
#include "device_counts.h"

#define GLOBAL_BLOCK 128
/* Shared memory a block of the shared variant may take: two blocks fit an
 * H100 multiprocessor (228 KB). */
#define SHARED_BYTES_MAX (100 * 1024)
#define SHARED_BLOCK_MAX 128
/* Doubles of shared workspace per row of a part in phases 1 and 3. */
#define REDUCE_COLUMNS 3
#define SOLVE_COLUMNS 1

/* Whether the shared variant's kernels may take SHARED_BYTES_MAX (set for
 * the current device; one device a process). */
static bool shared_set;

static struct checkerboard_split split_of(const struct tridiag_batch *batch)
{
	return checkerboard_split_of(batch->n, batch->parts > 0 ? batch->parts : TRIDIAG_DEFAULT_PARTS);
}

/* The ends of every part, then the interface system's modified upper
 * diagonal. */
static size_t interface_doubles(const struct tridiag_batch *batch)
{
	return (size_t)batch->batch * split_of(batch).count * (END_VALUES + 1);
}

static size_t global_work_doubles(const struct tridiag_batch *batch)
{
	return 2 * (size_t)batch->batch * batch->n + interface_doubles(batch);
}

static size_t shared_work_doubles(const struct tridiag_batch *batch)
{
	return interface_doubles(batch);
}

/* Threads a block of the shared variant: as many parts as fit in
 * SHARED_BYTES_MAX with phase 1's workspace, 0 if not one does. */
static int shared_block(struct checkerboard_split split)
{
	long fit = SHARED_BYTES_MAX / ((long)REDUCE_COLUMNS * split.rows * sizeof(double));

	if (fit >= 32)
		fit -= fit % 32; /* whole warps */
	return (int)(fit < SHARED_BLOCK_MAX ? fit : SHARED_BLOCK_MAX);
}

/* The three phases, enqueued on stream. */
template <bool SHARED>
static int checkerboard_solve(const struct tridiag_batch *batch, double *work, cudaStream_t stream)
{
	struct checkerboard_split split = split_of(batch);
	long parts = batch->batch * split.count;
	int block = SHARED ? shared_block(split) : GLOBAL_BLOCK;
	size_t reduce_bytes = SHARED ? (size_t)REDUCE_COLUMNS * split.rows * block * sizeof(double) : 0;
	size_t solve_bytes = SHARED ? (size_t)SOLVE_COLUMNS * split.rows * block * sizeof(double) : 0;
	double *upper_mod = work, *rhs_v = work + (size_t)batch->batch * batch->n;
	double *ends = SHARED ? work : rhs_v + (size_t)batch->batch * batch->n;
	double *interface_upper = ends + (size_t)batch->batch * split.count * END_VALUES;
	int err;

	if (block == 0)
		return TRIDIAG_EUNSUPPORTED;
	/* once, for SHARED_BYTES_MAX, so that no timed solve pays for it */
	if (SHARED && !shared_set) {
		err = cudaFuncSetAttribute(checkerboard_reduce_kernel<SHARED>,
					   cudaFuncAttributeMaxDynamicSharedMemorySize, SHARED_BYTES_MAX);
		if (err == cudaSuccess)
			err = cudaFuncSetAttribute(checkerboard_solve_kernel<SHARED>,
						   cudaFuncAttributeMaxDynamicSharedMemorySize,
						   SHARED_BYTES_MAX);
		if (err != cudaSuccess)
			return err;
		shared_set = true;
	}
	err = cudaMemsetAsync(batch->status, 0, batch->batch * sizeof(int), stream);
	if (err != cudaSuccess)
		return err;
	long blocks = (parts + block - 1) / block;
	checkerboard_reduce_kernel<SHARED>
		<<<picard_counted(blocks), block, reduce_bytes, stream>>>(*batch, split, upper_mod, rhs_v, ends);
	if (split.count > 1)
		checkerboard_interface_kernel<<<picard_counted((batch->batch + GLOBAL_BLOCK - 1) / GLOBAL_BLOCK),
						GLOBAL_BLOCK, 0, stream>>>(*batch, split, ends,
									   interface_upper);
	checkerboard_solve_kernel<SHARED><<<picard_counted(blocks), block, solve_bytes, stream>>>(*batch, split, upper_mod);
	return cudaGetLastError();
}

static int global_solve(const struct tridiag_batch *batch, double *work, cudaStream_t stream)
{
	return checkerboard_solve<false>(batch, work, stream);
}

static int shared_solve(const struct tridiag_batch *batch, double *work, cudaStream_t stream)
{
	return checkerboard_solve<true>(batch, work, stream);
}

extern "C" const struct tridiag_solver tridiag_checkerboard_global = {
	"checkerboard-global", 0, 1, 1, tridiag_any_layout, global_work_doubles, global_solve,
};

extern "C" const struct tridiag_solver tridiag_checkerboard_shared = {
	"checkerboard-shared", 0, 1, 1, tridiag_any_layout, shared_work_doubles, shared_solve,
};
