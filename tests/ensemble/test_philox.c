/* test_philox.c - src/ensemble/philox.h's uniforms are cuRAND's host generator's
 * (CURAND_RNG_PSEUDO_PHILOX4_32_10, curandGenerateUniformDouble), bit for
 * bit, for generations of 2^16 values (src/ensemble/ensemble.c's pieces) at offsets
 * from 0 past 2^44 (counters whose high words are in use) and seeds with
 * and without a high word; and picard-run's CPU draws follow from them
 * (suite philox, no GPU needed: cuRAND's host generator runs on the CPU).
 */
#include <criterion/criterion.h>
#include <curand.h>
#include <stdlib.h>

#include "ensemble_range.h"
#include "philox.h"
#include "picard.h"

#define PIECE (1 << 16)

static void generate(curandGenerator_t gen, unsigned long long seed, unsigned long long offset,
		     double *u, size_t n)
{
	cr_assert_eq(curandSetPseudoRandomGeneratorSeed(gen, seed), CURAND_STATUS_SUCCESS);
	cr_assert_eq(curandSetGeneratorOffset(gen, offset), CURAND_STATUS_SUCCESS);
	cr_assert_eq(curandGenerateUniformDouble(gen, u, n), CURAND_STATUS_SUCCESS);
}

Test(philox, values_are_curands_host_generators)
{
	static const unsigned long long seeds[] = {0, 1, 2, 0xFFFFFFFFull, 1234567890123ull,
						   0xFFFFFFFFFFFFFFFFull};
	curandGenerator_t gen;
	double *u = malloc(PIECE * sizeof(double));
	long compared = 0;

	cr_assert_not_null(u);
	cr_assert_eq(curandCreateGeneratorHost(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10),
		     CURAND_STATUS_SUCCESS);
	for (size_t s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++)
		/* offsets not multiples of 4, across the 2^18 values of one
		 * round of the generator's threads, and far past 2^32 */
		for (unsigned long long offset = 0; offset < (1ull << 46); offset = offset * 7 + 12345) {
			generate(gen, seeds[s], offset, u, PIECE);
			for (long i = 0; i < PIECE; i++, compared++)
				if (u[i] != picard_philox_uniform(offset + i, seeds[s]))
					cr_assert_fail("seed %llu, value %llu: cuRAND %.17g, philox.h %.17g",
						       seeds[s], offset + i, u[i],
						       picard_philox_uniform(offset + i, seeds[s]));
		}
	cr_assert_gt(compared, 1000000, "compared %ld values", compared);
	curandDestroyGenerator(gen);
	free(u);
}

/* The CPU backend's ensemble: spread x0 (1 + s (2u - 1)) with u the
 * generator's values at the member's index times dim, whatever range is
 * drawn (past cuRAND's 2^16 pieces, across a piece's edge, from an odd
 * value to an odd end: half of a Philox block at each end). */
Test(philox, cpu_draws_are_the_generators_values)
{
	static const long ranges[][2] = {{70000, 30000}, {70001, 30001}, {0, 1}, {5, 1}};
	const double center[3] = {1, -2, 0.5};
	const unsigned long long seed = 42;
	curandGenerator_t gen;

	cr_assert_eq(curandCreateGeneratorHost(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10),
		     CURAND_STATUS_SUCCESS);
	for (size_t c = 0; c < sizeof(ranges) / sizeof(ranges[0]); c++) {
		const long first = ranges[c][0], ntraj = ranges[c][1];
		double *x0 = malloc(ntraj * 3 * sizeof(double)), *u = malloc(ntraj * 3 * sizeof(double));

		cr_assert(x0 && u);
		cr_assert_eq(picard_ensemble_spread_range(3, center, first, ntraj, 0.25, seed,
							  PICARD_BACKEND_CPU, x0), PICARD_OK);
		for (long done = 0; done < ntraj * 3; done += PIECE)
			generate(gen, seed, first * 3 + done, u + done,
				 ntraj * 3 - done < PIECE ? ntraj * 3 - done : PIECE);
		for (long i = 0; i < ntraj * 3; i++)
			cr_assert_eq(x0[i], center[i % 3] * (1 + 0.25 * (2 * u[i] - 1)),
				     "members from %ld: member %ld, x[%ld]: %.17g", first,
				     first + i / 3, i % 3, x0[i]);
		free(x0);
		free(u);
	}
	curandDestroyGenerator(gen);
}
