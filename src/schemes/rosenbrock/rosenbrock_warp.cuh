/* rosenbrock_warp.cuh - the Rosenbrock schemes' warp layout: a warp per
 * trajectory, for models too large for one thread (a chemistry mechanism
 * of tens of species): the step's W, stages and vectors in the block's
 * shared memory, W's LU and solves and every vector split over the
 * lanes, f, J and f_t evaluated by the leader (rosenbrock_integrate.cuh's
 * integrator over team_warp, the per-thread layout's own code). A block
 * is traj_per_block warps, each with its slice of the block's shared
 * memory, which cuda_rosenbrock.c sizes as the sum of ros::work's arrays
 * for PICARD_ROS_MAX_STAGES stages and the state. */
#ifndef PICARD_ROSENBROCK_WARP_CUH
#define PICARD_ROSENBROCK_WARP_CUH

#include "launch.h"
#include "rk_kernel.cuh"
#include "rosenbrock_integrate.cuh"
#include "team.cuh"

namespace picard {

/* 255 registers a thread, as the per-thread kernels (a block of up to 8
 * warps). */
template <class Model, class Tab, typename real, bool dense, bool adaptive>
__global__ void __launch_bounds__(256) picard_ros_warp_kernel(const picard_launch L)
{
	constexpr int n = Model::dim, np = Model::nparams;
	typedef ros::work<n, real, Tab::stages, false> Work;
	static_assert(Tab::stages <= PICARD_ROS_MAX_STAGES, "the host sizes 8 stages");
	extern __shared__ __align__(16) unsigned char ros_warp_shared[];
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
	Work &Wk = *reinterpret_cast<Work *>(ros_warp_shared + (size_t)warp * slice);
	real *x = reinterpret_cast<real *>(ros_warp_shared + (size_t)warp * slice + sizeof(Work));
	real p[np > 0 ? np : 1];
	for (int k = T.lane(); k < n; k += T.lanes)
		x[k] = ((const real *)L.x0)[k * L.ntraj + traj];
	for (int q = 0; q < np; q++)
		p[q] = ((const real *)L.params)[q * L.ntraj + traj];
	T.sync();
	const rk_run run = rk_run_of(L.t0, L.t1, L.window, L.windows, L.adaptive, L.K, L.iter_atol,
				     L.iter_rtol, L.bound);
	rk_device_out<n, real, dense, team_warp> out = {L, L.traj_offset + traj, {{0}, 0}, 0, T};
	out.start();
	const rk_outcome o = ros::run<Model, Tab, real>(T, Wk, run, x, p, out);

	T.sync();
	for (int k = T.lane(); k < n; k += T.lanes)
		((real *)L.x_final)[k * L.ntraj + traj] = x[k];
	if (!T.leader())
		return;
	L.status[traj] = o.status;
	L.fail_window[traj] = o.fail_window;
	L.fail_time[2 * traj] = o.fail_start;
	L.fail_time[2 * traj + 1] = o.fail_end;
	L.sweeps[traj] = o.steps;
	L.sweeps_max[traj] = o.steps_max;
}

} /* namespace picard */

#endif
