/* cusparse.cu - the library anchors (krylov.h): cuSPARSE's generic
 * cusparseSpMV over the batch as one block-diagonal matrix, and a CG on
 * cusparseSpMV and cuBLAS for one system, written as NVIDIA's
 * conjugateGradient sample writes it (host pointer mode: each dot product
 * returns its value to the host). */
#include <limits.h>
#include <stdlib.h>

#include "cuda_libs.h"

#include "krylov/krylov.h"
#include "device_counts.h"

struct krylov_cusparse_spmv {
	cusparseHandle_t handle;
	cusparseSpMatDescr_t matrix;
	int n, batch;
	long values;       /* per member */
	int *row_start;    /* device: the pattern's */
	int *big_start;    /* device: the block-diagonal matrix's, n B + 1 */
	int *big_col;
	double *big_val;
	void *buffer;
	size_t buffer_bytes;
};

#define CUSPARSE_TRY(call)                                  \
	do {                                                \
		if ((call) != CUSPARSE_STATUS_SUCCESS) {    \
			err = KRYLOV_ELIBRARY;              \
			goto fail;                          \
		}                                           \
	} while (0)

extern "C" void krylov_cusparse_spmv_free(struct krylov_cusparse_spmv *a)
{
	if (!a)
		return;
	if (a->matrix)
		cusparseDestroySpMat(a->matrix);
	if (a->handle)
		cusparseDestroy(a->handle);
	cudaFree(a->row_start);
	cudaFree(a->big_start);
	cudaFree(a->big_col);
	cudaFree(a->big_val);
	cudaFree(a->buffer);
	free(a);
}

extern "C" int krylov_cusparse_spmv_create(const struct krylov_pattern *pattern, int batch,
					   struct krylov_cusparse_spmv **out)
{
	struct krylov_cusparse_spmv *a;
	int *start = NULL, *col = NULL, n, err = 0;
	long values, rows, total, pos = 0;

	*out = NULL;
	if (!pattern || pattern->n < 1 || batch < 1)
		return KRYLOV_EBADINPUT;
	if (pattern->format != KRYLOV_CSR)
		return KRYLOV_EUNSUPPORTED;
	n = pattern->n;
	values = krylov_pattern_values(pattern);
	rows = (long)n * batch, total = values * batch;
	if (rows >= INT_MAX || total >= INT_MAX)
		return KRYLOV_EUNSUPPORTED;
	a = (struct krylov_cusparse_spmv *)calloc(1, sizeof(*a));
	start = (int *)malloc(sizeof(int) * (rows + 1));
	col = (int *)malloc(sizeof(int) * (total ? total : 1));
	if (!a || !start || !col) {
		free(start);
		free(col);
		free(a);
		return KRYLOV_ENOMEM;
	}
	a->n = n, a->batch = batch, a->values = values;
	/* row i of member m is row i B + m, its columns col B + m */
	for (int i = 0; i < n; i++)
		for (int m = 0; m < batch; m++) {
			start[(long)i * batch + m] = (int)pos;
			for (int k = pattern->row_start[i]; k < pattern->row_start[i + 1]; k++)
				col[pos++] = pattern->col[k] * batch + m;
		}
	start[rows] = (int)pos;
	if ((err = cudaMalloc(&a->row_start, sizeof(int) * (n + 1))) ||
	    (err = picard_memcpy(a->row_start, pattern->row_start, sizeof(int) * (n + 1),
			      cudaMemcpyHostToDevice)) ||
	    (err = cudaMalloc(&a->big_start, sizeof(int) * (rows + 1))) ||
	    (err = picard_memcpy(a->big_start, start, sizeof(int) * (rows + 1),
			      cudaMemcpyHostToDevice)) ||
	    (err = cudaMalloc(&a->big_col, sizeof(int) * (total ? total : 1))) ||
	    (err = picard_memcpy(a->big_col, col, sizeof(int) * total, cudaMemcpyHostToDevice)) ||
	    (err = cudaMalloc(&a->big_val, sizeof(double) * (total ? total : 1))) ||
	    (err = cudaMemset(a->big_val, 0, sizeof(double) * total)))
		goto fail;
	CUSPARSE_TRY(cusparseCreate(&a->handle));
	CUSPARSE_TRY(cusparseCreateCsr(&a->matrix, rows, rows, total, a->big_start, a->big_col,
				       a->big_val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
				       CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
	free(start);
	free(col);
	*out = a;
	return 0;
fail:
	free(start);
	free(col);
	krylov_cusparse_spmv_free(a);
	return err;
}

/* Big row r = i B + m takes member m's row i, in the pattern's order. */
__global__ void krylov_gather_kernel(const int *row_start, const int *big_start, const double *val,
				     double *big_val, int n, int batch)
{
	long r = (long)blockIdx.x * blockDim.x + threadIdx.x;

	if (r < (long)n * batch) {
		long i = r / batch;
		int m = (int)(r - i * batch), first = row_start[i], len = row_start[i + 1] - first;

		for (int j = 0; j < len; j++)
			big_val[big_start[r] + j] = val[(long)(first + j) * batch + m];
	}
}

extern "C" int krylov_cusparse_spmv_set_values(struct krylov_cusparse_spmv *a, const double *val,
					       cudaStream_t stream)
{
	long rows = (long)a->n * a->batch;

	if (!val)
		return KRYLOV_EBADINPUT;
	if (a->batch == 1)
		return cudaMemcpyAsync(a->big_val, val, sizeof(double) * a->values,
				       cudaMemcpyDeviceToDevice, stream);
	krylov_gather_kernel<<<picard_counted((rows + 255) / 256), 256, 0, stream>>>(a->row_start, a->big_start, val,
								     a->big_val, a->n, a->batch);
	return cudaGetLastError();
}

/* y = alpha A x + beta y with the library's default algorithm. */
static int cusparse_multiply(cusparseHandle_t handle, cusparseSpMatDescr_t matrix, long rows,
			     double alpha, const double *x, double beta, double *y, void **buffer,
			     size_t *buffer_bytes)
{
	cusparseDnVecDescr_t vx = NULL, vy = NULL;
	size_t need = 0;
	int err = 0;

	CUSPARSE_TRY(cusparseCreateDnVec(&vx, rows, (void *)x, CUDA_R_64F));
	CUSPARSE_TRY(cusparseCreateDnVec(&vy, rows, y, CUDA_R_64F));
	CUSPARSE_TRY(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matrix,
					     vx, &beta, vy, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT,
					     &need));
	if (need > *buffer_bytes) {
		cudaFree(*buffer);
		*buffer_bytes = 0;
		if ((err = cudaMalloc(buffer, need)))
			goto fail;
		*buffer_bytes = need;
	}
	CUSPARSE_TRY(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matrix, vx, &beta,
				  vy, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, *buffer));
fail:
	if (vx)
		cusparseDestroyDnVec(vx);
	if (vy)
		cusparseDestroyDnVec(vy);
	return err;
}

extern "C" int krylov_cusparse_spmv_apply(struct krylov_cusparse_spmv *a, const double *x,
					  double *y, cudaStream_t stream)
{
	if (!x || !y)
		return KRYLOV_EBADINPUT;
	if (cusparseSetStream(a->handle, stream) != CUSPARSE_STATUS_SUCCESS)
		return KRYLOV_ELIBRARY;
	return cusparse_multiply(a->handle, a->matrix, (long)a->n * a->batch, 1.0, x, 0.0, y,
				 &a->buffer, &a->buffer_bytes);
}

/* ---- CG on cuSPARSE and cuBLAS ------------------------------------------------ */

struct krylov_cusparse_cg {
	cusparseHandle_t sparse;
	cublasHandle_t blas;
	int n;
	long values;
	int *row_start, *col;  /* device */
	double *r, *p, *ap;    /* device, n each */
	void *buffer;
	size_t buffer_bytes;
};

extern "C" void krylov_cusparse_cg_free(struct krylov_cusparse_cg *cg)
{
	if (!cg)
		return;
	if (cg->sparse)
		cusparseDestroy(cg->sparse);
	if (cg->blas)
		cublasDestroy(cg->blas);
	cudaFree(cg->row_start);
	cudaFree(cg->col);
	cudaFree(cg->r);
	cudaFree(cg->p);
	cudaFree(cg->ap);
	cudaFree(cg->buffer);
	free(cg);
}

extern "C" int krylov_cusparse_cg_create(const struct krylov_pattern *pattern,
					 struct krylov_cusparse_cg **out)
{
	struct krylov_cusparse_cg *cg;
	int err = 0, n;
	size_t vector;

	*out = NULL;
	if (!pattern || pattern->n < 1)
		return KRYLOV_EBADINPUT;
	if (pattern->format != KRYLOV_CSR)
		return KRYLOV_EUNSUPPORTED;
	cg = (struct krylov_cusparse_cg *)calloc(1, sizeof(*cg));
	if (!cg)
		return KRYLOV_ENOMEM;
	n = cg->n = pattern->n;
	cg->values = krylov_pattern_values(pattern);
	vector = sizeof(double) * n;
	if ((err = cudaMalloc(&cg->row_start, sizeof(int) * (n + 1))) ||
	    (err = picard_memcpy(cg->row_start, pattern->row_start, sizeof(int) * (n + 1),
			      cudaMemcpyHostToDevice)) ||
	    (err = cudaMalloc(&cg->col, sizeof(int) * (cg->values ? cg->values : 1))) ||
	    (err = picard_memcpy(cg->col, pattern->col, sizeof(int) * cg->values,
			      cudaMemcpyHostToDevice)) ||
	    (err = cudaMalloc(&cg->r, vector)) || (err = cudaMalloc(&cg->p, vector)) ||
	    (err = cudaMalloc(&cg->ap, vector)))
		goto fail;
	CUSPARSE_TRY(cusparseCreate(&cg->sparse));
	if (cublasCreate(&cg->blas) != CUBLAS_STATUS_SUCCESS) {
		err = KRYLOV_ELIBRARY;
		goto fail;
	}
	*out = cg;
	return 0;
fail:
	krylov_cusparse_cg_free(cg);
	return err;
}

#define CUBLAS_TRY(call)                                 \
	do {                                             \
		if ((call) != CUBLAS_STATUS_SUCCESS) {   \
			err = KRYLOV_ELIBRARY;           \
			goto fail;                       \
		}                                        \
	} while (0)

extern "C" int krylov_cusparse_cg_solve(struct krylov_cusparse_cg *cg, const double *val,
					const double *b, double *x, double rtol, int max_iters,
					int *iters)
{
	cusparseSpMatDescr_t matrix = NULL;
	int n = cg->n, k = 0, err = 0;
	double r0 = 0, r1, b_norm, dot, one = 1;

	if (!val || !b || !x || rtol < 0 || max_iters < 0)
		return KRYLOV_EBADINPUT;
	CUSPARSE_TRY(cusparseCreateCsr(&matrix, n, n, cg->values, cg->row_start, cg->col,
				       (void *)val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
				       CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
	/* r = b - A x */
	if ((err = picard_memcpy(cg->r, b, sizeof(double) * n, cudaMemcpyDeviceToDevice)) ||
	    (err = cusparse_multiply(cg->sparse, matrix, n, -1.0, x, 1.0, cg->r, &cg->buffer,
				     &cg->buffer_bytes)))
		goto fail;
	CUBLAS_TRY(cublasDdot(cg->blas, n, cg->r, 1, cg->r, 1, &r1));
	CUBLAS_TRY(cublasDnrm2(cg->blas, n, b, 1, &b_norm));
	while (k < max_iters && !(rtol > 0 && sqrt(r1) <= rtol * b_norm)) {
		double alpha, beta;

		if (k > 0) {
			beta = r1 / r0;
			CUBLAS_TRY(cublasDscal(cg->blas, n, &beta, cg->p, 1));
			CUBLAS_TRY(cublasDaxpy(cg->blas, n, &one, cg->r, 1, cg->p, 1));
		} else {
			CUBLAS_TRY(cublasDcopy(cg->blas, n, cg->r, 1, cg->p, 1));
		}
		if ((err = cusparse_multiply(cg->sparse, matrix, n, 1.0, cg->p, 0.0, cg->ap,
					     &cg->buffer, &cg->buffer_bytes)))
			goto fail;
		CUBLAS_TRY(cublasDdot(cg->blas, n, cg->p, 1, cg->ap, 1, &dot));
		alpha = r1 / dot;
		CUBLAS_TRY(cublasDaxpy(cg->blas, n, &alpha, cg->p, 1, x, 1));
		alpha = -alpha;
		CUBLAS_TRY(cublasDaxpy(cg->blas, n, &alpha, cg->ap, 1, cg->r, 1));
		r0 = r1;
		CUBLAS_TRY(cublasDdot(cg->blas, n, cg->r, 1, cg->r, 1, &r1));
		k++;
	}
	err = picard_device_wait();
fail:
	if (matrix)
		cusparseDestroySpMat(matrix);
	if (iters)
		*iters = k;
	return err;
}
