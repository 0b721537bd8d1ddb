/* nvrtc-time.c - how long NVRTC takes to compile each named kernel instance
 * of a model file, one at a time (issue 35: which kernels a first run
 * waits for). No GPU needed:
 *
 *	gcc -Iinclude bench/jit/nvrtc-time.c -Llib -lpicard -Wl,-rpath,$PWD/lib \
 *		-o bin/nvrtc-time
 *	PICARD_JIT_ARCH=90 PICARD_JIT_CACHE_DIR=$(mktemp -d) OMP_NUM_THREADS=1 \
 *		bin/nvrtc-time MODEL.cu 'picard_thread_kernel<NAME, double, 8, false>' ...
 *
 * The names are those picard-run prints ("compiling ... with NVRTC"); a
 * fresh cache directory each run, or the second compile is a cache hit.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <time.h>

#include "picard.h"

/* src/model/jit.h: compile the named instances into the kernel cache */
int picard_jit_precompile(const picard_model *model, const char *const *expressions, int count);

int main(int argc, char **argv)
{
	const picard_model *model;

	if (argc < 3) {
		fprintf(stderr, "usage: nvrtc-time MODEL.cu KERNEL...\n");
		return 2;
	}
	if (picard_model_load(argv[1], &model)) {
		fprintf(stderr, "nvrtc-time: %s\n", picard_error_detail());
		return 1;
	}
	for (int i = 2; i < argc; i++) {
		const char *name = argv[i];
		struct timespec a, b;
		int err;

		clock_gettime(CLOCK_MONOTONIC, &a);
		err = picard_jit_precompile(model, &name, 1);
		clock_gettime(CLOCK_MONOTONIC, &b);
		printf("%6.2f s %s%s\n",
		       (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec),
		       name, err ? " (failed)" : "");
		fflush(stdout);
	}
	return 0;
}
