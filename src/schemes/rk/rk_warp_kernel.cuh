/* rk_warp_kernel.cuh - the stiff per-thread schemes' warp layout (the
 * Rosenbrock schemes, radau5): a warp per trajectory, for models too
 * large for one thread (a chemistry mechanism of tens of species). The
 * scheme's integrator over team_warp (rosenbrock_integrate.cuh,
 * radau5_integrate.cuh: the per-thread layout's own code) with its work
 * (the step's matrices, stages and vectors) in the block's shared memory,
 * the LUs, solves and every vector split over the lanes, the model's
 * functions evaluated by the leader (radau5's three stages by lanes 0-2).
 * A block is traj_per_block warps, each with its slice of the block's
 * shared memory: the work, then the state, which the scheme's CUDA part
 * sizes (cuda_rosenbrock.c, cuda_radau5.c) and the kernel checks. */
#ifndef PICARD_RK_WARP_KERNEL_CUH
#define PICARD_RK_WARP_KERNEL_CUH

#include "launch.h"
#include "radau5_integrate.cuh"
#include "rk_kernel.cuh"
#include "rosenbrock_integrate.cuh"
#include "team.cuh"

namespace picard {

/* The scheme's work, J not kept beside W for the Rosenbrock schemes (a
 * matrix fewer, twice the trajectories an SM holds); radau5's work and
 * its vectors, one after the other. */
template <class Model, class Tab, typename real, bool implicit = rk_is_implicit<Tab>::value>
struct rk_warp_work {
	static_assert(Tab::stages <= PICARD_ROS_MAX_STAGES, "the host sizes 8 stages");
	ros::work<Model::dim, real, Tab::stages, false> W;
};
template <class Model, class Tab, typename real>
struct rk_warp_work<Model, Tab, real, true> {
	radau::work<Model::dim, real> W;
	radau::vectors<Model::dim, real> V;
	radau::polynomial<Model::dim, real> P;
};

/* 255 registers a thread, as the per-thread kernels (a block of up to 8
 * warps). */
template <class Model, class Tab, typename real, bool dense, bool adaptive, bool spans>
__global__ void __launch_bounds__(256) picard_rk_warp_kernel(const picard_launch L)
{
	constexpr int n = Model::dim, np = Model::nparams;
	typedef rk_warp_work<Model, Tab, real> Work;
	extern __shared__ __align__(16) unsigned char rk_warp_shared[];
	const int warps = blockDim.x / 32, warp = threadIdx.x / 32;
	const long traj = (long)blockIdx.x * warps + warp;
	const team_warp T = {(int)(threadIdx.x % 32)};
	unsigned shared_bytes;

	(void)adaptive; /* run.steps tells, as the per-thread kernel's */
	asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(shared_bytes));
	const unsigned slice = shared_bytes / warps;
	if (sizeof(Work) + n * sizeof(real) > slice || slice % 16)
		__trap(); /* the host's size is not the work's: a defect, never a wrong answer */
	if (traj >= L.ntraj)
		return;
	Work &Wk = *reinterpret_cast<Work *>(rk_warp_shared + (size_t)warp * slice);
	real *x = reinterpret_cast<real *>(rk_warp_shared + (size_t)warp * slice + sizeof(Work));
	real p[np > 0 ? np : 1];
	for (int k = T.lane(); k < n; k += T.lanes)
		x[k] = ((const real *)L.x0)[k * L.ntraj + traj];
	for (int q = 0; q < np; q++)
		p[q] = ((const real *)L.params)[q * L.ntraj + traj];
	T.sync();
	const rk_run run = rk_run_of_launch<spans>(L, traj);
	rk_device_out<n, real, dense, team_warp> out = {L, L.traj_offset + traj, {{0}, 0}, 0, T};
	out.template start<spans>(run);
	rk_outcome o;

	if constexpr (rk_is_implicit<Tab>::value)
		o = radau::run<Model, real>(T, Wk.W, Wk.V, Wk.P, run, x, p, out, nullptr);
	else
		o = ros::run<Model, Tab, real>(T, Wk.W, run, x, p, out);
	T.sync();
	for (int k = T.lane(); k < n; k += T.lanes)
		((real *)L.x_final)[k * L.ntraj + traj] = x[k];
	if (T.leader())
		rk_store_outcome(L, traj, o);
}

} /* namespace picard */

#endif
