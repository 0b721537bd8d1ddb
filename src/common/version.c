/* version.c - what --version reports: picard's version, and the CUDA
 * runtime and driver it finds (the build is picard_build_id, the tuning
 * cache's key). */
#include <cuda_runtime_api.h>

#include "picard.h"

const char *picard_version(void)
{
	return PICARD_VERSION;
}

void picard_cuda_versions(int *runtime, int *driver)
{
	*runtime = *driver = 0;
	if (cudaRuntimeGetVersion(runtime) != cudaSuccess)
		*runtime = 0;
	if (cudaDriverGetVersion(driver) != cudaSuccess)
		*driver = 0;
}
