/* cuda_libs.h - cuSPARSE and cuBLAS, loaded when a solve first needs
 * them (the cusparse linear solver, the Krylov anchors), not when a
 * program starts: linked, they cost every picard process about 80 ms of
 * loading on an H100 host (bench/startup), cuBLAS alone 73 ms, though
 * most runs never call them. For the .cu files that call them: include
 * this instead of <cusparse.h> and <cublas_v2.h>; each call then goes
 * through a table made once by dlopen (src/backend/cuda/cuda_libs.cu), and returns
 * the library's NOT_INITIALIZED status where it cannot be loaded. */
#ifndef PICARD_CUDA_LIBS_H
#define PICARD_CUDA_LIBS_H

#include <cublas_v2.h>
#include <cusparse.h>

/* The functions called, by their exported names (cuBLAS's _v2: the
 * header's cublasCreate is a macro for cublasCreate_v2). */
#define PICARD_CUSPARSE_FUNCTIONS(X)                                                   \
	X(cusparseCreate) X(cusparseDestroy) X(cusparseSetStream) X(cusparseCreateCsr) \
	X(cusparseDestroySpMat) X(cusparseCreateDnVec) X(cusparseDestroyDnVec)         \
	X(cusparseSpMV_bufferSize) X(cusparseSpMV)                                     \
	X(cusparseDgtsv2StridedBatch_bufferSizeExt) X(cusparseDgtsv2StridedBatch)
#define PICARD_CUBLAS_FUNCTIONS(X)                                                  \
	X(cublasCreate_v2) X(cublasDestroy_v2) X(cublasDdot_v2) X(cublasDaxpy_v2)  \
	X(cublasDscal_v2) X(cublasDnrm2_v2) X(cublasDcopy_v2)

struct picard_cuda_libs {
#define PICARD_CUDA_LIBS_ENTRY(f) decltype(&::f) f;
	PICARD_CUSPARSE_FUNCTIONS(PICARD_CUDA_LIBS_ENTRY)
	PICARD_CUBLAS_FUNCTIONS(PICARD_CUDA_LIBS_ENTRY)
#undef PICARD_CUDA_LIBS_ENTRY
};

/* The table, loaded on the first call from any thread; NULL where either
 * library or one of its functions cannot be loaded. */
const struct picard_cuda_libs *picard_cuda_libs(void);

#ifndef PICARD_CUDA_LIBS_TABLE /* the callers' names go through it */
#define PICARD_CUSPARSE_CALL(f, ...) \
	(picard_cuda_libs() ? picard_cuda_libs()->f(__VA_ARGS__) : CUSPARSE_STATUS_NOT_INITIALIZED)
#define PICARD_CUBLAS_CALL(f, ...) \
	(picard_cuda_libs() ? picard_cuda_libs()->f(__VA_ARGS__) : CUBLAS_STATUS_NOT_INITIALIZED)
#define cusparseCreate(...) PICARD_CUSPARSE_CALL(cusparseCreate, __VA_ARGS__)
#define cusparseDestroy(...) PICARD_CUSPARSE_CALL(cusparseDestroy, __VA_ARGS__)
#define cusparseSetStream(...) PICARD_CUSPARSE_CALL(cusparseSetStream, __VA_ARGS__)
#define cusparseCreateCsr(...) PICARD_CUSPARSE_CALL(cusparseCreateCsr, __VA_ARGS__)
#define cusparseDestroySpMat(...) PICARD_CUSPARSE_CALL(cusparseDestroySpMat, __VA_ARGS__)
#define cusparseCreateDnVec(...) PICARD_CUSPARSE_CALL(cusparseCreateDnVec, __VA_ARGS__)
#define cusparseDestroyDnVec(...) PICARD_CUSPARSE_CALL(cusparseDestroyDnVec, __VA_ARGS__)
#define cusparseSpMV_bufferSize(...) PICARD_CUSPARSE_CALL(cusparseSpMV_bufferSize, __VA_ARGS__)
#define cusparseSpMV(...) PICARD_CUSPARSE_CALL(cusparseSpMV, __VA_ARGS__)
#define cusparseDgtsv2StridedBatch_bufferSizeExt(...) \
	PICARD_CUSPARSE_CALL(cusparseDgtsv2StridedBatch_bufferSizeExt, __VA_ARGS__)
#define cusparseDgtsv2StridedBatch(...) \
	PICARD_CUSPARSE_CALL(cusparseDgtsv2StridedBatch, __VA_ARGS__)
#define cublasCreate_v2(...) PICARD_CUBLAS_CALL(cublasCreate_v2, __VA_ARGS__)
#define cublasDestroy_v2(...) PICARD_CUBLAS_CALL(cublasDestroy_v2, __VA_ARGS__)
#define cublasDdot_v2(...) PICARD_CUBLAS_CALL(cublasDdot_v2, __VA_ARGS__)
#define cublasDaxpy_v2(...) PICARD_CUBLAS_CALL(cublasDaxpy_v2, __VA_ARGS__)
#define cublasDscal_v2(...) PICARD_CUBLAS_CALL(cublasDscal_v2, __VA_ARGS__)
#define cublasDnrm2_v2(...) PICARD_CUBLAS_CALL(cublasDnrm2_v2, __VA_ARGS__)
#define cublasDcopy_v2(...) PICARD_CUBLAS_CALL(cublasDcopy_v2, __VA_ARGS__)
#endif

#endif
