/* cuda_libs.cu - cuSPARSE and cuBLAS loaded on first use (src/backend/cuda/cuda_libs.h),
 * by the sonames of the headers this was built with, found through the
 * library's RPATH like its other CUDA libraries. */
#include <dlfcn.h>
#include <pthread.h>

#define PICARD_CUDA_LIBS_TABLE
#include "cuda_libs.h"

#define PICARD_STRINGIFY_(x) #x
#define PICARD_STRINGIFY(x) PICARD_STRINGIFY_(x)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct picard_cuda_libs table;
static bool loaded;

/* Every function of one library into the table; false where one is
 * missing. */
static bool load(void)
{
	void *sparse = dlopen("libcusparse.so." PICARD_STRINGIFY(CUSPARSE_VER_MAJOR),
			      RTLD_NOW | RTLD_LOCAL);
	void *blas = dlopen("libcublas.so." PICARD_STRINGIFY(CUBLAS_VER_MAJOR),
			    RTLD_NOW | RTLD_LOCAL);
	bool all = sparse && blas;

#define PICARD_LOAD_FROM(lib, f) \
	all = all && (table.f = (decltype(table.f))dlsym(lib, #f)) != NULL;
#define PICARD_LOAD_SPARSE(f) PICARD_LOAD_FROM(sparse, f)
#define PICARD_LOAD_BLAS(f) PICARD_LOAD_FROM(blas, f)
	PICARD_CUSPARSE_FUNCTIONS(PICARD_LOAD_SPARSE)
	PICARD_CUBLAS_FUNCTIONS(PICARD_LOAD_BLAS)
	return all;
}

static void load_once(void)
{
	loaded = load();
}

const struct picard_cuda_libs *picard_cuda_libs(void)
{
	pthread_once(&once, load_once);
	return loaded ? &table : NULL;
}
