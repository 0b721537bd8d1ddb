/* group_reduce.cuh - reductions over a group of G lanes of a warp (one
 * trajectory's nodes in the warp and lobatto kernels), by xor shuffles of
 * width G: every lane of the group gets the result.
 *
 * Why not __all_sync(mask, v) for the convergence vote: with a mask of part
 * of a warp, nvcc 13 compiles it to a loop of WARPSYNC.EXCLUSIVE and
 * VOTE.ALL that runs once per group in the warp even when the groups are
 * converged. In the lobatto kernel (lotka, double, m = 8: four groups a
 * warp, 8192 trajectories; Nsight Compute on the H100, 2026-11-23) that
 * was 3.9 VOTE.ALL per sweep and 19% of the stall samples. The shuffles
 * below run once for the whole warp when its groups are converged.
 */
#ifndef PICARD_GROUP_REDUCE_CUH
#define PICARD_GROUP_REDUCE_CUH

#include <cuda_runtime.h>

/* Largest of v over the group's G lanes (G a power of two <= 32). */
__device__ __forceinline__ float group_max(unsigned mask, float v, int G)
{
	for (int offset = G / 2; offset > 0; offset /= 2)
		v = fmaxf(v, __shfl_xor_sync(mask, v, offset, G));
	return v;
}

/* Whether v holds in every one of the group's G lanes. */
__device__ __forceinline__ bool group_all(unsigned mask, bool v, int G)
{
	int all = v;

	for (int offset = G / 2; offset > 0; offset /= 2)
		all &= __shfl_xor_sync(mask, all, offset, G);
	return all;
}

#endif
