/* host-draw.c - the CPU backend's ensemble draw, before and after issue
 * 36: cuRAND's host Philox generator (in pieces of 2^16 values, as
 * src/ensemble/ensemble.c drew them) against the library's draw now
 * (picard_ensemble_spread_range on the CPU backend: src/ensemble/philox.h's values
 * computed directly), one thread and all (OpenMP), side by side; min and
 * median of REPEATS, ns per value, and whether the spread states agree
 * bit for bit (spread 1 around 1: x = 2u).
 *
 *	gcc -O2 -fopenmp -Iinclude -Isrc -I$CUDA_HOME/include bench/draw/host-draw.c \
 *		-Llib -lpicard -L$CUDA_HOME/lib64 -lcurand \
 *		-Wl,-rpath,$PWD/lib:$CUDA_HOME/lib64 -o bin/host-draw
 *	bin/host-draw [VALUES]   (default 2^23: lotka's 2^22 members)
 */
#define _POSIX_C_SOURCE 200809L
#include <curand.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ensemble_range.h"
#include "picard.h"

#define PIECE ((size_t)1 << 16)
#define REPEATS 5
#define SEED 1ull

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void by_curand(double *u, size_t n)
{
	curandGenerator_t gen;

	curandCreateGeneratorHost(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10);
	curandSetPseudoRandomGeneratorSeed(gen, SEED);
	for (size_t done = 0; done < n; done += PIECE) {
		curandSetGeneratorOffset(gen, done);
		curandGenerateUniformDouble(gen, u + done, n - done < PIECE ? n - done : PIECE);
	}
	curandDestroyGenerator(gen);
	for (size_t i = 0; i < n; i++)
		u[i] = 1 * (1 + 1 * (2 * u[i] - 1));
}

static void by_library(double *u, size_t n)
{
	const double one = 1;

	picard_ensemble_spread_range(1, &one, 0, (long)n, 1, SEED, PICARD_BACKEND_CPU, u);
}

static int compare(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void timed(const char *what, void (*draw)(double *, size_t), double *u, size_t n)
{
	double t[REPEATS];

	for (int r = 0; r < REPEATS; r++) {
		const double start = now();

		draw(u, n);
		t[r] = now() - start;
	}
	qsort(t, REPEATS, sizeof(double), compare);
	printf("%-28s min %8.3f s  median %8.3f s  (%6.1f ns a value)\n", what, t[0],
	       t[REPEATS / 2], 1e9 * t[0] / (double)n);
}

int main(int argc, char **argv)
{
	const size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : (size_t)1 << 23;
	double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
	const int threads = omp_get_max_threads();

	if (!a || !b)
		return 1;
	printf("%zu values, seed %llu, %d threads\n", n, SEED, threads);
	timed("cuRAND host generator", by_curand, a, n);
	omp_set_num_threads(1);
	timed("library (philox.h), 1 thread", by_library, b, n);
	omp_set_num_threads(threads);
	timed("library (philox.h), all", by_library, b, n);
	printf("bit-identical: %s\n", memcmp(a, b, n * sizeof(double)) ? "NO" : "yes");
	free(a);
	free(b);
	return 0;
}
