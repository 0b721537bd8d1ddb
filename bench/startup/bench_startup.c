/* bench_startup.c - where a GPU process's start and end go, step by step:
 * the CUDA libraries picard links (each dlopen'ed alone, its load and
 * relocations), the driver's start (cuInit), the device's primary
 * context, the runtime over it; then what a large run's end costs: its
 * host arrays given back (1.75 GiB touched, as a 2^24-member lotka run
 * holds) and the context torn down with 2 GiB of device memory in it.
 * Prints one line per step, in milliseconds, from a process that links
 * only the driver and the static runtime. The floor of `picard-run` on a
 * machine is the sum, plus the program's own start.
 *
 * Build: make bin/bench-startup. Run: bin/bench-startup [library ...]. */
#define _POSIX_C_SOURCE 200809L
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static void step(const char *what, double *last)
{
	const double t = now_ms();

	printf("%-40s %8.1f ms\n", what, t - *last);
	*last = t;
}

int main(int argc, char **argv)
{
	static const char *const linked[] = {"libcurand.so", "libcusparse.so", "libcublas.so",
					     "libnvrtc.so", NULL};
	const char *const *libs = argc > 1 ? (const char *const *)argv + 1 : linked;
	double last = now_ms(), start = last;
	CUdevice dev;
	CUcontext ctx;
	void *p = NULL;
	char what[256];

	for (int i = 0; libs[i]; i++) {
		void *h = dlopen(libs[i], RTLD_NOW | RTLD_GLOBAL);

		snprintf(what, sizeof(what), "dlopen %s%s", libs[i], h ? "" : " (not found)");
		step(what, &last);
	}
	if (cuInit(0) != CUDA_SUCCESS)
		return fprintf(stderr, "cuInit failed\n"), 1;
	step("cuInit", &last);
	if (cuDeviceGet(&dev, 0) != CUDA_SUCCESS || cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS ||
	    cuCtxSetCurrent(ctx) != CUDA_SUCCESS)
		return fprintf(stderr, "no context\n"), 1;
	step("primary context", &last);
	cudaFree(0);
	step("runtime on it (cudaFree(0))", &last);
	cudaMalloc(&p, (size_t)1 << 30);
	cudaFree(p);
	step("cudaMalloc + cudaFree 1 GiB", &last);
	printf("%-40s %8.1f ms\n", "start, total", now_ms() - start);

	const size_t host_bytes = (size_t)7 << 28; /* 1.75 GiB */
	char *host = malloc(host_bytes);

	cudaMalloc(&p, (size_t)2 << 30);
	if (host) { /* touched, and read back, so that no store is dropped */
		memset(host, 1, host_bytes);
		printf("%-40s %8d\n", "(a byte of the host array)", ((volatile char *)host)[12345]);
	}
	last = now_ms();
	free(host);
	step("free 1.75 GiB of touched host memory", &last);
	cudaDeviceReset();
	step("context torn down, 2 GiB in it", &last);
	return 0;
}
