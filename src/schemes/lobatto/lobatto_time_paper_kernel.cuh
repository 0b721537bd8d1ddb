/* lobatto_time_paper_kernel.cuh - windows in flight (lobatto_time_kernel.cuh)
 * in the paper's layout: a thread per node and component, W = G n threads
 * a window, P windows a block of P W threads (--layout paper --block P).
 *
 * Why: the group layout's block has P G threads, 4 warps for 8 windows of
 * 16 nodes, one per scheduler, and each lane's step is a chain of some 500
 * dependent instructions (the mat-vec on all n components, their change
 * tests): latency with nothing to hide it. Here each thread's mat-vec and
 * test are on one component, and there are n times the warps.
 *
 * Lanes: slot = threadIdx.x / W, and within the window r = k G + j, so the
 * G nodes of component k are G consecutive lanes of one warp (the mat-vec's
 * shuffles stay within them, as the group layout's do). W must be a
 * multiple of 32 (cuda_lobatto.c checks): a warp then holds whole
 * components of one window, every node of it.
 *
 * A step, as lobatto_time_kernel.cuh's, with the same operations in the same
 * order per component (so the CPU backend's answers, bit for bit):
 * - every thread holds its node's whole state (its node's right-hand side
 *   needs it) and evaluates f there, each of a node's n threads alike;
 * - its component's sum over the nodes, x_j,k = x_w,k + (lo + sum_l A_jl
 *   f_l,k), then its change test;
 * - it publishes x_j,k in shared memory (by the step's parity), node m-1's
 *   threads the window's end and sum; each warp its vote and its largest
 *   plain change;
 * - one barrier; then every thread reads the front's and the next front's
 *   votes, so the verdict and the flags of "within on the sweep before"
 *   (a bit per slot, the same in every thread) are uniform, and gathers
 *   its node's new state.
 * The front's output is written by its component-0 threads, a group of G
 * lanes that hold every node's state and f, as the group layout's.
 */
#ifndef PICARD_LOBATTO_TIME_PAPER_KERNEL_CUH
#define PICARD_LOBATTO_TIME_PAPER_KERNEL_CUH

#include "lobatto_time_kernel.cuh"

/* a[k], k known only at run time, without indexing a register array (which
 * would put it in local memory): a select per component. */
template <int n, typename real>
__device__ inline real paper_component(const real (&a)[n], int k)
{
	real v = a[0];

#pragma unroll
	for (int c = 1; c < n; c++)
		v = c == k ? a[c] : v;
	return v;
}

/* Whether every warp of slot's window voted within ([P][warps] votes). */
__device__ inline bool paper_window_within(const int *votes, int slot, int warps)
{
	bool all = true;

	for (int v = 0; v < warps; v++)
		all &= votes[slot * warps + v] != 0;
	return all;
}

template <class Model, typename real, int G, bool dense>
__global__ void __launch_bounds__(512) picard_lobatto_time_paper_kernel(const picard_launch L)
{
	constexpr int n = Model::dim, W = G * n, warps = W / 32 > 0 ? W / 32 : 1;
	__shared__ real A_t[G * G];  /* (H/2) S, [l][j] */
	__shared__ double offset[G]; /* t_j - t_w */
	extern __shared__ __align__(16) unsigned char time_shared[];

	load_lobatto_tables(L, G, A_t, (real *)nullptr, offset);
	const int P = L.block, slot = threadIdx.x / W, r = threadIdx.x % W;
	const int k = r / G, j = r % G, warp_in_window = r / 32;
	const long traj = blockIdx.x;
	const int m = L.m;
	const bool node = j < m;
	/* by the step's parity: the windows' ends and sums [2][P][n], their
	 * states [2][P][n][G], the warps' votes [2][P][warps] and largest
	 * plain changes [2][P][warps] */
	real *ends = (real *)time_shared, *sums = ends + 2 * P * n;
	real *states = sums + 2 * P * n;
	int *votes = (int *)(states + 2 * P * W);
	float *plains = (float *)(votes + 2 * P * warps);
	const unsigned mask = G == 32 ? 0xffffffffu : ((1u << G) - 1) << ((threadIdx.x % 32) & ~(G - 1));

	real params[Model::nparams > 0 ? Model::nparams : 1];
	real front[n], front_lo[n]; /* the converged start (every thread's copy) */
	real x[n], f[n];            /* this node's state and slope */
	time_load_member<Model>(L, traj, params, front, front_lo, x);
#pragma unroll
	for (int c = 0; c < n; c++)
		f[c] = 0;
	real x_own = paper_component(x, k); /* this thread's component of x */
	for (int e = threadIdx.x; e < P * n; e += blockDim.x)
		ends[P * n + e] = front[e % n]; /* step -1's: every window from x0 */
	__syncthreads();

	/* this node's row of A (its column of A_t), in registers */
	real a[G];
#pragma unroll
	for (int l = 0; l < G; l++)
		a[l] = A_t[l * G + j];

	long sweeps = 0, unconverged_window = -1, w_front = 0;
	int sweeps_max = 0, failed = 0, front_sweeps = 0;
	/* the front's slot, w_front mod P, kept as w_front moves (no 64-bit
	 * division a step) */
	int front_slot = 0;
	/* this slot's window and its node's time, kept until the slot takes
	 * the window P on */
	long w_slot = -1;
	real tj = 0;
	float prev_plain = INFINITY;
	/* bit s: slot s's window was within on its sweep before (the front's
	 * and the next front's are measured); the same in every thread */
	unsigned within_before = 0;
	for (int now = 0; w_front < L.windows; now ^= 1) { /* now: the step's parity */
		const int before = now ^ 1;
		const int next_slot = front_slot + 1 < P ? front_slot + 1 : 0;
		const int depth = slot >= front_slot ? slot - front_slot : slot - front_slot + P;
		const long w = w_front + depth;
		const bool is_front = depth == 0, active = w < L.windows;
		const int pred = slot > 0 ? slot - 1 : P - 1;
		const bool front_measured = picard_sweep_measured(front_sweeps, L.K, L.adaptive);
		const bool next_measured = L.adaptive && w_front + 1 < L.windows;
		const bool measured = is_front ? front_measured : L.adaptive && slot == next_slot;
		real start[n];

#pragma unroll
		for (int c = 0; c < n; c++) {
			start[c] = is_front ? front[c] : ends[(before * P + pred) * n + c];
			if (j == 0) /* node 0 is the start, as it now stands */
				x[c] = start[c];
		}
		if (j == 0)
			x_own = paper_component(start, k);
		if (active) {
			if (w != w_slot) {
				w_slot = w;
				tj = (real)(L.t0 + (double)w * L.window + offset[node ? j : 0]);
			}
			real acc = is_front ? paper_component(front_lo, k) : (real)0;
			bool within = true;
			float plain = 0;

			if (node)
				Model::rhs(tj, x, params, f);
			const real f_own = node ? paper_component(f, k) : (real)0;
			/* sum_l A_jl f_l,k over all G lanes (zero past m), from l = 0 */
#pragma unroll
			for (int l = 0; l < G; l++)
				acc = picard_fma(a[l], __shfl_sync(mask, f_own, l, G), acc);
			const real start_own = paper_component(start, k);
			const real x_new = j > 0 && node ? start_own + acc : start_own;

			if (measured && j > 0 && node) {
				within = picard_change_within(x_new, x_own, (real)L.iter_atol,
							      (real)L.iter_rtol);
				plain = (float)fabs(x_new - x_own);
			}
			x_own = x_new;
			states[((now * P + slot) * n + k) * G + j] = x_new;
			if (j == m - 1) {
				ends[(now * P + slot) * n + k] = x_new;
				sums[(now * P + slot) * n + k] = acc;
			}
			if (measured) {
				const bool all = __all_sync(0xffffffffu, within);
				float most = plain;

				if (!L.adaptive)
#pragma unroll
					for (int offset_ = 16; offset_ > 0; offset_ /= 2)
						most = fmaxf(most, __shfl_xor_sync(0xffffffffu, most,
										   offset_));
				if (threadIdx.x % 32 == 0) {
					votes[(now * P + slot) * warps + warp_in_window] = all;
					plains[(now * P + slot) * warps + warp_in_window] = most;
				}
			}
		}
		__syncthreads();

		/* the verdict, and the flags of the sweep before, from the votes:
		 * every thread alike */
		int verdict = PICARD_SWEEP_GO_ON;
		const int *voted = votes + now * P * warps;
		const bool front_within = front_measured &&
					  paper_window_within(voted, front_slot, warps);
		if (front_measured) {
			float plain = 0;

			if (!L.adaptive)
				for (int v = 0; v < warps; v++)
					plain = fmaxf(plain, plains[(now * P + front_slot) * warps + v]);
			const bool settled = picard_front_within(L.K, L.adaptive, front_within,
								 (within_before >> front_slot) & 1u);
			verdict = picard_sweep_verdict(front_sweeps, L.K, L.adaptive, settled, plain,
						       prev_plain);
			prev_plain = plain;
		}
		within_before = front_within ? 1u << front_slot : 0u;
		if (next_measured && next_slot != front_slot &&
		    paper_window_within(voted, next_slot, warps))
			within_before |= 1u << next_slot;
		/* this node's new state, every component */
		if (active)
#pragma unroll
			for (int c = 0; c < n; c++)
				x[c] = states[((now * P + slot) * n + c) * G + j];

		front_sweeps++;
		if (verdict == PICARD_SWEEP_GO_ON)
			continue;
		time_front_passes<n>(L, ends, sums, (now * P + front_slot) * n, front, front_lo,
				     &failed);
		time_count_front(L, P, front_sweeps, verdict, w_front, sweeps, sweeps_max,
				 unconverged_window);
		if (is_front) {
			if (k == 0)
				lobatto_group_output<n, real, G, dense>(L, w_front, traj, m, j, mask,
									front, x, f);
			/* the last in flight now: from the end of the one before it */
#pragma unroll
			for (int c = 0; c < n; c++)
				x[c] = ends[(now * P + pred) * n + c];
			x_own = paper_component(x, k);
			within_before &= ~(1u << front_slot);
		}
		/* the next front starts over from its start where its iterate,
		 * swept from a start that was not yet right, went non-finite: a
		 * warp holds every node of its window */
		if (slot == next_slot && time_restart_if_nonfinite<n>(0xffffffffu, front, x)) {
			x_own = paper_component(x, k);
			within_before &= ~(1u << next_slot);
		}
		front_sweeps = 0;
		prev_plain = INFINITY;
		if (failed)
			break;
		w_front++;
		front_slot = next_slot;
	}

	time_store_member<n>(L, traj, front, failed, w_front, unconverged_window, sweeps, sweeps_max);
}

#endif
