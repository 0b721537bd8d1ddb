/* team.cuh - who works on one trajectory: one thread (the per-thread
 * layouts, and the host), or the 32 lanes of a warp (the stiff schemes'
 * warp layout, rk_warp_kernel.cuh). Code written over a team
 * splits a vector's components over its lanes (for q = T.lane(); q < n;
 * q += T.lanes), runs what only one may (a model's rhs or Jacobian, whose
 * outputs the others then read) on the leader, and takes every decision
 * from values all lanes hold alike, so a warp's lanes never part on
 * control: a sum is the leader's, broadcast. A team of one compiles to
 * the per-thread code, the same operations in the same order. */
#ifndef PICARD_TEAM_CUH
#define PICARD_TEAM_CUH

#include <math.h>

#include "portable.h"

namespace picard {

/* One thread. */
struct team_one {
	static constexpr int lanes = 1;
	__host__ __device__ int lane() const { return 0; }
	__host__ __device__ bool leader() const { return true; }
	__host__ __device__ void sync() const {}
	__host__ __device__ double sum(double v) const { return v; }
	__host__ __device__ bool all(bool v) const { return v; }
};

/* The 32 lanes of a warp, lane l of them. */
struct team_warp {
	static constexpr int lanes = 32;
	int l;
	__host__ __device__ int lane() const { return l; }
	__host__ __device__ bool leader() const { return l == 0; }
	__host__ __device__ void sync() const
	{
#ifdef __CUDA_ARCH__
		__syncwarp();
#endif
	}
	/* The lanes' v summed; the leader's sum on every lane (a butterfly
	 * adds in another order on each, which could part them by a
	 * rounding). */
	__host__ __device__ double sum(double v) const
	{
#ifdef __CUDA_ARCH__
		for (int o = 16; o > 0; o >>= 1)
			v += __shfl_xor_sync(0xffffffffu, v, o);
		v = __shfl_sync(0xffffffffu, v, 0);
#endif
		return v;
	}
	__host__ __device__ bool all(bool v) const
	{
#ifdef __CUDA_ARCH__
		return __all_sync(0xffffffffu, v);
#else
		return v;
#endif
	}
};

/* f = f(t, x) by the leader, for the team. */
template <class Model, class Team, typename real>
__host__ __device__ inline void team_rhs(const Team &T, real t, const real *x, const real *p,
					 real *f)
{
	if (T.leader())
		Model::rhs(t, x, p, f);
	T.sync();
}

/* Whether every one of count values is finite (the team's verdict). */
template <int count, class Team, typename real>
__host__ __device__ inline bool team_finite(const Team &T, const real *v)
{
	bool ok = true;

	for (int i = T.lane(); i < count; i += T.lanes)
		ok &= (bool)isfinite(v[i]);
	return T.all(ok);
}

/* Whether every |x_k| of n is within lim (rk_state_ok, by the team). */
template <int n, class Team, typename real>
__host__ __device__ inline bool team_within(const Team &T, const real *x, real lim)
{
	bool ok = true;

	for (int i = T.lane(); i < n; i += T.lanes)
		ok &= fabs(x[i]) <= lim;
	return T.all(ok);
}

} /* namespace picard */

#endif
