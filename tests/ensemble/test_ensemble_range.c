/* test_ensemble_range.c - a rank's members of an ensemble are those of the
 * whole (suite ensemble): picard_ensemble_spread_range from any first
 * member gives the rows the whole ensemble's draw gives there, past the
 * size where cuRAND's Philox changes its layout (2^18 doubles; src/
 * ensemble/ensemble.c draws in pieces below it). */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdlib.h>
#include <string.h>

#include "ensemble_range.h"
#include "picard.h"
#include "support.h"

/* Rows first .. first+n-1 of an ensemble of total members (dim 2) drawn
 * alone, against the whole draw's; the count of rows that differ. */
static long rows_differing(picard_backend backend, long total, long first, long n)
{
	const double center[2] = {10, 5};
	double *whole = malloc((size_t)total * 2 * sizeof(double));
	double *part = malloc((size_t)n * 2 * sizeof(double));
	long differ = 0;

	cr_assert(whole && part);
	cr_assert_eq(picard_ensemble_spread(2, center, total, 0.1, 7, backend, whole), 0, "%s",
		     picard_error_detail());
	cr_assert_eq(picard_ensemble_spread_range(2, center, first, n, 0.1, 7, backend, part), 0,
		     "%s", picard_error_detail());
	for (long i = 0; i < n; i++)
		differ += memcmp(part + i * 2, whole + (first + i) * 2, 2 * sizeof(double)) != 0;
	free(whole), free(part);
	return differ;
}

/* 2^21 members (2^22 doubles), split as 2 and 3 ranks would, and odd
 * ranges across a piece's edge. */
Test(ensemble, a_range_draws_the_whole_ensembles_rows, .timeout = 120)
{
	const long total = 1L << 21;
	static const long ranges[][2] = {
		{1L << 20, 1L << 20}, {0, 699051}, {699051, 699051}, {1398102, 699050},
		{32767, 3}, {131071, 5}, {1000003, 77777},
	};

	for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
		const long differ = rows_differing(PICARD_BACKEND_CPU, total, ranges[i][0],
						   ranges[i][1]);

		cr_expect_eq(differ, 0, "members %ld .. %ld: %ld rows differ from the whole draw's",
			     ranges[i][0], ranges[i][0] + ranges[i][1] - 1, differ);
	}
}

/* The same on the device, where each rank draws its members (picard-run
 * under mpirun, one GPU a rank). */
Test(gpu, ensemble_range_draws_the_whole_ensembles_rows, .timeout = 120)
{
	require_gpu();
	cr_expect_eq(rows_differing(PICARD_BACKEND_CUDA, 1L << 21, 1L << 20, 1L << 20), 0);
	cr_expect_eq(rows_differing(PICARD_BACKEND_CUDA, 1L << 21, 1000003, 77777), 0);
}
