/* philox.h - the uniforms of cuRAND's Philox4x32-10 generator
 * (CURAND_RNG_PSEUDO_PHILOX4_32_10, curandGenerateUniformDouble), computed
 * directly: value g of a seed's sequence depends on g and the seed alone,
 * so any range is drawn in parallel, bit-identical to cuRAND's host and
 * device generators for a generation of at most 2^16 values at any offset
 * (how src/ensemble/ensemble.c asks for them; tests/ensemble/test_philox.c holds it against
 * the host generator). Its functions run on the device too
 * (src/backend/cuda/device_io.cu draws the ensemble where it is solved), with the
 * host's rounding.
 *
 * The generator's layout, found by comparing with it: value g = 4 q + j is
 * Philox4x32-10 (Salmon et al., SC'11) of key (seed's low and high words)
 * and counter (block, 0, thread, 0) with thread = q mod 2^16 and block =
 * q / 2^16 + j / 2, its words (0, 1) for even j and (2, 3) for odd j, made
 * a double in (0, 1] as cuRAND's _curand_uniform_double_hq does.
 */
#ifndef PICARD_PHILOX_H
#define PICARD_PHILOX_H

#include <stdint.h>

#include "portable.h"

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u
#define PHILOX_THREADS_LOG2 16 /* the generator's threads: 2^16 */

/* Philox4x32-10 of counter c under key (k0, k1) into out. */
static inline __host__ __device__ void picard_philox4x32_10(const uint32_t c[4], uint32_t k0,
							    uint32_t k1, uint32_t out[4])
{
	uint32_t x0 = c[0], x1 = c[1], x2 = c[2], x3 = c[3];

	for (int round = 0; round < 10; round++) {
		const uint64_t p0 = (uint64_t)PHILOX_M0 * x0, p1 = (uint64_t)PHILOX_M1 * x2;
		const uint32_t y0 = (uint32_t)(p1 >> 32) ^ x1 ^ k0, y2 = (uint32_t)(p0 >> 32) ^ x3 ^ k1;

		x1 = (uint32_t)p1;
		x3 = (uint32_t)p0;
		x0 = y0;
		x2 = y2;
		k0 += PHILOX_W0;
		k1 += PHILOX_W1;
	}
	out[0] = x0;
	out[1] = x1;
	out[2] = x2;
	out[3] = x3;
}

/* Two words made a double in (0, 1], 53 bits: cuRAND's
 * _curand_uniform_double_hq. */
static inline __host__ __device__ double picard_philox_double(uint32_t lo, uint32_t hi)
{
	const double two_m53 = 1.0 / 9007199254740992.0;
	const uint64_t z = (uint64_t)lo ^ ((uint64_t)hi << (53 - 32));

	return PICARD_ADD_RN(PICARD_MUL_RN((double)z, two_m53), two_m53 / 2);
}

/* Values 2p and 2p + 1 of seed's sequence (above), which share a block. */
static inline __host__ __device__ void picard_philox_pair(uint64_t p, uint64_t seed,
							  double out[2])
{
	const uint64_t q = p >> 1, block = (q >> PHILOX_THREADS_LOG2) + (p & 1);
	const uint64_t thread = q & ((1u << PHILOX_THREADS_LOG2) - 1);
	const uint32_t c[4] = {(uint32_t)block, (uint32_t)(block >> 32), (uint32_t)thread, 0};
	uint32_t w[4];

	picard_philox4x32_10(c, (uint32_t)seed, (uint32_t)(seed >> 32), w);
	out[0] = picard_philox_double(w[0], w[1]);
	out[1] = picard_philox_double(w[2], w[3]);
}

/* Value g of seed's sequence. */
static inline __host__ __device__ double picard_philox_uniform(uint64_t g, uint64_t seed)
{
	double pair[2];

	picard_philox_pair(g >> 1, seed, pair);
	return pair[g & 1];
}

/* A member's value: center moved by spread times a uniform u in (0, 1]
 * made one in (-1, 1]: center (1 + spread (2u - 1)). */
static inline __host__ __device__ double picard_spread_value(double center, double spread,
							     double u)
{
	const double shift = PICARD_ADD_RN(PICARD_MUL_RN(2, u), -1);

	return PICARD_MUL_RN(center, PICARD_ADD_RN(1, PICARD_MUL_RN(spread, shift)));
}

#endif
