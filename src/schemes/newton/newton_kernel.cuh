/* newton_kernel.cuh - the newton scheme on the GPU (src/newton.h): the
 * windows of a trajectory's block spread over threads, so that a few
 * trajectories fill the device. One kernel, three phases, launched by the
 * host loop of kernels/cuda_backend.cu (newton_run):
 *
 *   0  start: one thread per trajectory sets its block up;
 *   1  linearise: one warp per window of every trajectory's block (new
 *      windows filled from the state before them first): f and J at the m
 *      nodes (a lane each), the window's linear system for the nodes'
 *      step, M dY = B dx_w - R, in shared memory, and its solution dY =
 *      P dx_w + q by LU, lanes over rows (src/newton.c writes the same
 *      equations);
 *   2  step: one block per trajectory. The window maps x_{w+1} = A_w x_w +
 *      b_w (P's and q's last block rows) are composed across the block by
 *      a scan: each thread composes a chunk of consecutive windows, a
 *      Hillis-Steele scan in shared memory composes the chunks, and each
 *      thread places its chunk's nodes from its start. Then the rules of
 *      src/newton_rules.h (on thread 0) move the block, and the windows
 *      converged from its start on are final: records, statuses.
 *
 * Double only (the scheme's resolve). */
#ifndef PICARD_NEWTON_KERNEL_CUH
#define PICARD_NEWTON_KERNEL_CUH

#include "jacobian.cuh"
#include "launch.h"
#include "newton_rules.h"
#include "window_plausible.h"
#include "paper_kernel.cuh" /* record_window_end, record_dense, PICARD_FAIL_* */
#include "picard.h"
#include "warp_kernel.cuh"  /* window_end_failure */

/* A final window whose converged nodes are no solution's (beside
 * paper_kernel.cuh's PICARD_FAIL_NONFINITE and _DIVERGED). */
#define PICARD_FAIL_IMPLAUSIBLE 4

namespace picard {
namespace newton {

/* The lobatto tables of the launch: A_jl = (H/2) S_jl and node offsets. */
__device__ inline double table_A(const picard_launch &L, int j, int l)
{
	return ((const double *)L.lobatto_tables)[l * L.group + j];
}

__device__ inline double node_offset(const picard_launch &L, int j)
{
	return ((const double *)L.lobatto_tables)[2 * L.group * L.group + j];
}

/* Window w's slot in trajectory traj's ring, as an index of the ring's
 * per-window arrays. */
__device__ inline long slot(const picard_newton_workspace &ws, long traj, long w)
{
	return traj * ws.B + w % ws.B;
}

template <class Model>
__device__ inline void load_params(const picard_launch &L, long traj, double *p)
{
	for (int q = 0; q < Model::nparams; q++)
		p[q] = ((const double *)L.params)[q * L.ntraj + traj];
}

/* The window afresh from x: every node x, trusted when it is the block's
 * first (its start exact). */
template <int n>
__device__ inline void fill(const picard_newton_workspace &ws, int m, long s, const double *x,
			    bool trusted)
{
	double *X = ws.X + s * m * n;

	for (int l = 0; l < m; l++)
		for (int k = 0; k < n; k++)
			X[l * n + k] = x[k];
	ws.trusted[s] = trusted;
}

/* Phase 0: trajectory traj's block from x0. */
template <class Model>
__device__ void start(const picard_launch &L, const picard_newton_workspace &ws, long traj)
{
	constexpr int n = Model::dim;
	picard_newton_control c = {};

	for (int k = 0; k < n; k++)
		ws.start[traj * n + k] = ((const double *)L.x0)[k * L.ntraj + traj];
	c.span = ws.B;
	c.last_lead = INFINITY;
	c.status = PICARD_TRAJ_OK;
	c.fail_window = -1;
	c.next = c.span < L.windows ? c.span : L.windows;
	c.reached = c.next;
	ws.ctl[traj] = c;
}

/* The linearly implicit Euler step's change from node 0, (I - H J_0)^-1 H
 * f_0, into dx (NaN when singular), by one thread: the predictor a stiff
 * scheme's roots are checked against (src/newton_rules.h). a: n (n + 1)
 * reals of scratch. Loops, not unrolled: n may be large, and this runs
 * once per window and iteration beside the (m-1) n system. */
template <int n>
__device__ inline void predict(const double *J0, const double *f0, double H, double *a,
			       double *dx)
{
	constexpr int LD = n + 1;

	for (int i = 0; i < n; i++) {
		for (int k = 0; k < n; k++)
			a[i * LD + k] = (i == k) - H * J0[i * n + k];
		a[i * LD + n] = H * f0[i];
	}
#pragma unroll 1
	for (int c = 0; c < n; c++) {
		int p = c;

		for (int r = c + 1; r < n; r++)
			if (fabs(a[r * LD + c]) > fabs(a[p * LD + c]))
				p = r;
		if (!(fabs(a[p * LD + c]) > 0) || !isfinite(a[p * LD + c])) {
			for (int k = 0; k < n; k++)
				dx[k] = NAN;
			return;
		}
		for (int k = c; k <= n; k++) {
			const double t = a[c * LD + k];

			a[c * LD + k] = a[p * LD + k];
			a[p * LD + k] = t;
		}
		for (int r = c + 1; r < n; r++) {
			const double l = a[r * LD + c] / a[c * LD + c];

			for (int k = c + 1; k <= n; k++)
				a[r * LD + k] -= l * a[c * LD + k];
		}
	}
#pragma unroll 1
	for (int c = n - 1; c >= 0; c--) {
		double s = a[c * LD + n];

		for (int k = c + 1; k < n; k++)
			s -= a[c * LD + k] * dx[k];
		dx[c] = s / a[c * LD + c];
	}
}

/* Whether window s's untrusted root X counts (src/newton_rules.h). */
template <int n>
__device__ inline bool plausible(const picard_launch &L, const picard_newton_workspace &ws,
				 long s, const double *X)
{
	return picard_newton_plausible(X, n, L.m, L.iter_atol, L.iter_rtol) &&
	       (!ws.predicted || picard_newton_near_predictor(X, ws.predicted + s * n, n, L.m,
							      L.iter_atol, L.iter_rtol));
}

/* Phase 1: window w0 + i of trajectory traj, by one warp: filled if new,
 * then its affine map. The warp's shared memory (newton_window_reals)
 * holds M (N x N, rows LD = N + 1 apart against bank conflicts), [B | -R]
 * (N x (n+1)), and J_l and v_l = f_l of each node (src/newton.c: the
 * step's system). */
template <class Model>
__device__ void linearise(const picard_launch &L, const picard_newton_workspace &ws, long traj,
			  long i, double *sh)
{
	constexpr int n = Model::dim;
	picard_newton_control *ctl = &ws.ctl[traj];
	const long w = ctl->w0 + i;
	const int m = L.m, N = ws.N, LD = N + 1, lane = threadIdx.x & 31;

	if (ctl->done || w >= ctl->next)
		return; /* the whole warp: w is the warp's */
	const long s = slot(ws, traj, w);
	double *X = ws.X + s * m * n;
	double *M = sh, *rhs = M + N * LD, *J = rhs + N * (n + 1), *v = J + m * n * n;

	if (w >= ctl->fresh) {
		/* from the state before it: the start, or the window before's
		 * end (not new, so not written in this phase) */
		const double *from = ctl->fresh == ctl->w0 ?
				     ws.start + traj * n :
				     ws.X + slot(ws, traj, ctl->fresh - 1) * m * n + (m - 1) * n;

		for (int e = lane; e < m * n; e += 32)
			X[e] = from[e % n];
		if (lane == 0) {
			ws.trusted[s] = w == ctl->w0;
			ws.age[s] = 0;
			if (w >= ctl->filled)
				ws.linearised[s] = 0;
			ws.change[s] = INFINITY;
		}
		__syncwarp();
	}
	if (lane == 0)
		ws.linearised[s]++;
	/* f and J at the nodes, a node per lane */
	const double tw = L.t0 + (double)w * L.window;
	for (int l = lane; l < m; l += 32) {
		double p[Model::nparams > 0 ? Model::nparams : 1], f[n], Jl[n * n];
		const double *Xl = X + l * n;

		load_params<Model>(L, traj, p);
		if constexpr (has_jacobian<Model>::value) {
			Model::rhs(tw + node_offset(L, l), Xl, p, f);
			Model::template jacobian<double>(tw + node_offset(L, l), Xl, p, Jl);
		} else {
			jacobian_ad<Model, double>(tw + node_offset(L, l), Xl, p, f, Jl);
		}
		for (int q = 0; q < n; q++) {
			for (int k = 0; k < n; k++)
				J[(l * n + q) * n + k] = Jl[q * n + k];
			v[l * n + q] = f[q];
		}
	}
	__syncwarp();
	if (lane == 0) /* the root's slopes, for its plausibility when final */
		ws.slope[s] = picard_window_slope(v, n, m);
	if (ws.predicted) { /* in M's space, before the system is built there */
		if (lane == 0)
			predict<n>(J, v, L.window, M, ws.predicted + s * n);
		__syncwarp();
	}
	/* M = I - [A_jl J_l] (j, l >= 1); B_j = I + A_j0 J_0, and the step's
	 * -R_j = X_0 + sum_l A_jl f_l - X_j: row r = (j-1) n + q */
	for (int e = lane; e < N * N; e += 32) {
		const int r = e / N, c = e % N, j = r / n + 1, q = r % n, l = c / n + 1, k = c % n;

		M[r * LD + c] = (r == c) - table_A(L, j, l) * J[(l * n + q) * n + k];
	}
	for (int e = lane; e < N * (n + 1); e += 32) {
		const int r = e / (n + 1), k = e % (n + 1), j = r / n + 1, q = r % n;
		double b;

		if (k < n) {
			b = (q == k) + table_A(L, j, 0) * J[q * n + k];
		} else {
			b = 0;
			for (int l = 0; l < m; l++)
				b += table_A(L, j, l) * v[l * n + q];
			b += X[q] - X[j * n + q];
		}
		rhs[e] = b;
	}
	__syncwarp();
	/* LU with partial pivoting, lanes over rows; then the n + 1 right-hand
	 * sides, lanes over rows again */
	bool singular = false;

	for (int c = 0; c < N; c++) {
		double best = -1;
		int p = c;

		for (int r = c + lane; r < N; r += 32)
			if (fabs(M[r * LD + c]) > best)
				best = fabs(M[r * LD + c]), p = r;
		for (int d = 16; d > 0; d >>= 1) {
			const double ob = __shfl_xor_sync(0xffffffffu, best, d);
			const int op = __shfl_xor_sync(0xffffffffu, p, d);

			if (ob > best || (ob == best && op < p))
				best = ob, p = op;
		}
		if (!(best > 0) || !isfinite(best)) {
			singular = true;
			break;
		}
		if (p != c) {
			for (int k = lane; k < N; k += 32) {
				const double t = M[c * LD + k];

				M[c * LD + k] = M[p * LD + k];
				M[p * LD + k] = t;
			}
			for (int k = lane; k <= n; k += 32) {
				const double t = rhs[c * (n + 1) + k];

				rhs[c * (n + 1) + k] = rhs[p * (n + 1) + k];
				rhs[p * (n + 1) + k] = t;
			}
			__syncwarp();
		}
		const double inv = 1 / M[c * LD + c];

		for (int r = c + 1 + lane; r < N; r += 32) {
			const double l = M[r * LD + c] * inv;

			for (int k = c + 1; k < N; k++)
				M[r * LD + k] -= l * M[c * LD + k];
			for (int k = 0; k <= n; k++)
				rhs[r * (n + 1) + k] -= l * rhs[c * (n + 1) + k];
		}
		__syncwarp();
	}
	if (singular) {
		if (lane == 0)
			atomicMin((unsigned long long *)&ctl->reached, (unsigned long long)w);
		return;
	}
	for (int c = N - 1; c >= 0; c--) {
		const double inv = 1 / M[c * LD + c];

		for (int k = lane; k <= n; k += 32)
			rhs[c * (n + 1) + k] *= inv;
		__syncwarp();
		for (int r = lane; r < c; r += 32)
			for (int k = 0; k <= n; k++)
				rhs[r * (n + 1) + k] -= M[r * LD + c] * rhs[c * (n + 1) + k];
		__syncwarp();
	}
	double *R = ws.R + s * N * (n + 1);

	for (int e = lane; e < N * (n + 1); e += 32)
		R[e] = rhs[e];
}

/* C = A o B for maps x -> A x + b: (A_a A_b, A_a b_b + b_a), n x n then n. */
template <int n>
__device__ inline void compose(const double *a, const double *b, double *c)
{
	for (int i = 0; i < n; i++) {
		for (int k = 0; k < n; k++) {
			double s = 0;

			for (int j = 0; j < n; j++)
				s += a[i * n + j] * b[j * n + k];
			c[i * n + k] = s;
		}
		double s = a[n * n + i];

		for (int j = 0; j < n; j++)
			s += a[i * n + j] * b[n * n + j];
		c[n * n + i] = s;
	}
}

/* Window w's map of its start to its end, x -> P_e x + (Y_e + q_e - P_e
 * X_0) with P's and q's last block row, into a (n x n, then n). */
template <int n>
__device__ inline void window_map(const picard_launch &L, const picard_newton_workspace &ws,
				  long s, double *a)
{
	const double *rhs = ws.R + s * ws.N * (n + 1) + (ws.N - n) * (n + 1);
	const double *X = ws.X + s * L.m * n;

	for (int i = 0; i < n; i++) {
		double b = X[(L.m - 1) * n + i] + rhs[i * (n + 1) + n];

		for (int k = 0; k < n; k++) {
			a[i * n + k] = rhs[i * (n + 1) + k];
			b -= rhs[i * (n + 1) + k] * X[k];
		}
		a[n * n + i] = b;
	}
}

/* Window s's nodes from its start x: X_0 = x, and each node Y moved by its
 * Newton step q + P (x - the old X_0), as the host does (src/newton.c's
 * place: the rounding of a converged window stays at its residual's). The
 * largest scaled change. */
template <int n>
__device__ inline double place(const picard_launch &L, const picard_newton_workspace &ws, long s,
			       const double *x)
{
	double *X = ws.X + s * L.m * n;
	const double *rhs = ws.R + s * ws.N * (n + 1);
	double worst = 0, dx[n];

	for (int k = 0; k < n; k++) {
		dx[k] = x[k] - X[k];
		X[k] = x[k];
		const double scaled = fabs(dx[k]) / (L.iter_atol + L.iter_rtol * fabs(x[k]));

		worst = scaled > worst || isnan(scaled) ? scaled : worst;
	}
	for (int r = 0; r < ws.N; r++) {
		double step = rhs[r * (n + 1) + n];

		for (int k = 0; k < n; k++)
			step += rhs[r * (n + 1) + k] * dx[k];
		const double v = X[r + n] + step;
		const double scaled = fabs(step) / (L.iter_atol + L.iter_rtol * fabs(v));

		worst = scaled > worst || isnan(scaled) ? scaled : worst;
		X[r + n] = v;
	}
	return worst;
}

/* Phase 2: trajectory traj's iteration after its linearisation, by the
 * block's threads. */
template <class Model, bool dense>
__device__ void step(const picard_launch &L, const picard_newton_workspace &ws, long traj)
{
	constexpr int n = Model::dim, map = n * n + n;
	extern __shared__ double picard_newton_shared[];
	double *maps = picard_newton_shared; /* [2][threads][map]: the scan's */
	__shared__ picard_newton_control c;
	__shared__ unsigned long long first_open, first_failed;
	__shared__ int most_linearised;
	const int T = blockDim.x, t = threadIdx.x, m = L.m;
	picard_newton_control *ctl = &ws.ctl[traj];
	double *start = ws.start + traj * n;

	if (t == 0) {
		c = *ctl;
		c.filled = c.filled > c.next ? c.filled : c.next;
		first_open = ~0ull;
		first_failed = ~0ull;
		most_linearised = 0;
	}
	__syncthreads();
	if (c.done)
		return;
	/* a failed linearisation ends the reach there; at the block's
	 * first, from its exact start, the state is not finite; else that
	 * window starts afresh, alone */
	bool skip = false;

	if (c.reached == c.w0) {
		if (ws.age[slot(ws, traj, c.w0)] == 0) {
			if (t == 0) {
				c.status = PICARD_TRAJ_NONFINITE;
				c.fail_window = c.w0;
				c.done = 1;
			}
		}
		skip = true;
		if (t == 0 && !c.done) {
			c.next = c.w0;
			c.span = 1;
		}
	} else if (c.reached < c.next && t == 0) {
		c.next = c.reached;
		c.span = (int)(c.reached - c.w0 > 1 ? (c.reached - c.w0) / 2 : 1);
	}
	__syncthreads();
	if (!skip) {
		const long w0 = c.w0, count = c.next - c.w0;
		const long chunk = (count + T - 1) / T;
		const long from = w0 + t * chunk, to = from + chunk < c.next ? from + chunk : c.next;
		double *mine = maps + t * map, *other = maps + (T + t) * map;
		double a[map], acc[map], x[n];

		/* this thread's chunk composed: identity if empty */
		for (int e = 0; e < map; e++)
			acc[e] = e < n * n && e % (n + 1) == 0;
		for (long w = from; w < to; w++) {
			window_map<n>(L, ws, slot(ws, traj, w), a);
			compose<n>(a, acc, mine);
			for (int e = 0; e < map; e++)
				acc[e] = mine[e];
		}
		for (int e = 0; e < map; e++)
			mine[e] = acc[e];
		__syncthreads();
		/* inclusive scan over the threads' chunks: later o earlier */
		for (int d = 1; d < T; d <<= 1) {
			if (t >= d)
				compose<n>(mine, maps + (t - d) * map, other);
			else
				for (int e = 0; e < map; e++)
					other[e] = mine[e];
			__syncthreads();
			for (int e = 0; e < map; e++)
				mine[e] = other[e];
			__syncthreads();
		}
		/* the chunk's start: the maps before it applied to the start */
		for (int i = 0; i < n; i++) {
			if (t == 0) {
				x[i] = start[i];
				continue;
			}
			const double *before = maps + (t - 1) * map;
			double s = before[n * n + i];

			for (int k = 0; k < n; k++)
				s += before[i * n + k] * start[k];
			x[i] = s;
		}
		/* its nodes, window by window; the first window not converged */
		long open = -1;

		for (long w = from; w < to; w++) {
			const long s = slot(ws, traj, w);
			const double change = place<n>(L, ws, s, x);
			const double *X = ws.X + s * m * n;

			ws.change[s] = change;
			ws.age[s]++;
			for (int k = 0; k < n; k++)
				x[k] = X[(m - 1) * n + k];
			if (open < 0 && !(change <= 1 && (ws.trusted[s] || plausible<n>(L, ws, s, X))))
				open = w;
		}
		if (open >= 0)
			atomicMin(&first_open, (unsigned long long)open);
		__syncthreads();
		if (t == 0) {
			const long w0s = slot(ws, traj, w0);
			long converged = first_open < (unsigned long long)c.next ? (long)first_open :
									       c.next;
			const double lead = converged < c.next ? ws.change[slot(ws, traj, converged)] :
								 INFINITY;
			const bool implausible = converged < c.next && lead <= 1;

			c.iterations++;
			c.linearisations += count;
			/* the reach as a trust region (src/newton.c) */
			if (converged > w0) {
				c.span = c.span < ws.B / 2 ? 2 * c.span : ws.B;
			} else if (!(lead < c.last_lead)) {
				c.span = c.span > 1 ? c.span / 2 : 1;
				c.next = c.next < w0 + c.span ? c.next : w0 + c.span;
			}
			c.last_lead = converged > w0 ? INFINITY : lead;
			if (converged == w0 &&
			    (implausible || (ws.age[w0s] == PICARD_NEWTON_STUCK_AGE &&
					     L.K > PICARD_NEWTON_STUCK_AGE))) {
				fill<n>(ws, m, w0s, start, true);
				c.next = w0 + 1;
				c.span = 1;
				c.last_lead = INFINITY;
			}
			/* a window at the limit goes as it is: not converged */
			if (converged == w0 && ws.age[w0s] >= L.K) {
				if (c.status == PICARD_TRAJ_OK) {
					c.status = PICARD_TRAJ_NOT_CONVERGED;
					c.fail_window = w0;
				}
				converged = w0 + 1;
				c.last_lead = INFINITY;
			}
			if (converged > w0 && ws.age[w0s] > c.iterations_max)
				c.iterations_max = ws.age[w0s];
			c.reached = converged; /* here: the windows now final */
		}
		__syncthreads();
		/* the final windows: the first that failed, its end or its nodes
		 * (src/window_plausible.h) */
		for (long w = w0 + t; w < c.reached; w += T) {
			const long s = slot(ws, traj, w);
			const double *X = ws.X + s * m * n;
			int bits = window_end_failure<n>(X + (m - 1) * n, L.bound);

			if (!bits && !picard_window_plausible(L.window, ws.slope[s], X, n, m, L.iter_atol,
						     L.iter_rtol))
				bits = PICARD_FAIL_IMPLAUSIBLE;
			atomicMax(&most_linearised, ws.linearised[s]);
			if (bits)
				atomicMin(&first_failed, (unsigned long long)w);
		}
		__syncthreads();
		const long last = first_failed < (unsigned long long)c.reached ? (long)first_failed :
										 c.reached - 1;
		/* records up to the failure */
		for (long w = w0 + t; w <= last; w += T) {
			const long s = slot(ws, traj, w);
			const double *X = ws.X + s * m * n;

			for (int r = 0; r < L.nrecords; r++)
				for (int k = 0; k < n; k++)
					record_window_end(L.records[r], w, L.traj_offset + traj, k, n,
							  X[(m - 1) * n + k]);
			if constexpr (dense) {
				/* the collocation polynomial: x_w + sum_l b_l f_l */
				const double tw = L.t0 + (double)w * L.window;
				double p[Model::nparams > 0 ? Model::nparams : 1];

				load_params<Model>(L, traj, p);
				auto store = [&](const picard_device_record &rec, long row, double) {
					const double *b = (const double *)rec.weights + row * m;
					double f[n], acc[n];

					for (int k = 0; k < n; k++)
						acc[k] = 0;
					for (int l = 0; l < m; l++) {
						Model::rhs(tw + node_offset(L, l), X + l * n, p, f);
						for (int k = 0; k < n; k++)
							acc[k] = picard_fma(b[l], f[k], acc[k]);
					}
					for (int k = 0; k < n; k++)
						record_store(rec, row, L.traj_offset + traj, k, n,
							     X[k] + acc[k]);
				};
				record_dense(L, true, w, L.traj_offset + traj, store);
			}
		}
		__syncthreads();
		if (t == 0) {
			const long converged = c.reached;

			if (most_linearised > c.linearisations_max)
				c.linearisations_max = most_linearised;
			if (first_failed < (unsigned long long)converged) {
				const double *end = ws.X + slot(ws, traj, (long)first_failed) * m * n +
						    (m - 1) * n;
				/* the first failed window's own failure: its end's,
				 * else its nodes' */
				const int bits = window_end_failure<n>(end, L.bound);

				/* an implausible window past one that did not
				 * converge stops the trajectory, whose first
				 * failure that was (src/newton.c) */
				if (bits || c.status != PICARD_TRAJ_NOT_CONVERGED) {
					c.status = bits & PICARD_FAIL_NONFINITE ? PICARD_TRAJ_NONFINITE :
						   bits & PICARD_FAIL_DIVERGED ? PICARD_TRAJ_DIVERGED :
										 PICARD_TRAJ_IMPLAUSIBLE;
					c.fail_window = (long)first_failed;
				}
				for (int k = 0; k < n; k++) /* x_final: the state that failed */
					start[k] = end[k];
				c.done = 1;
			}
			if (!c.done && converged > w0) {
				const double *end = ws.X + slot(ws, traj, converged - 1) * m * n +
						    (m - 1) * n;

				for (int k = 0; k < n; k++)
					start[k] = end[k];
				if (converged < c.next) {
					const long s = slot(ws, traj, converged);

					ws.age[s] = 0;
					if (!(ws.change[s] <= PICARD_NEWTON_FAR_CHANGE)) {
						fill<n>(ws, m, s, start, true);
						c.next = converged + 1;
					}
				}
			}
			if (!c.done) {
				c.w0 = converged;
				c.done = converged >= L.windows;
			}
		}
	}
	__syncthreads();
	if (t == 0) {
		/* the next iteration's reach: new windows from next on */
		if (!c.done) {
			const long reach = c.w0 + c.span < L.windows ? c.w0 + c.span : L.windows;

			c.fresh = c.next;
			c.next = c.next > reach ? c.next : reach;
			c.reached = c.next;
		} else {
			/* the last final window's end, or (stopped) the state that
			 * failed, there since */
			const double *x = start;

			for (int k = 0; k < n; k++)
				((double *)L.x_final)[k * L.ntraj + traj] = x[k];
			L.status[traj] = c.status;
			L.fail_window[traj] = c.fail_window;
			L.sweeps[traj] = c.linearisations;
			L.sweeps_max[traj] = c.linearisations_max;
			atomicAdd(ws.ndone, 1);
		}
		*ctl = c;
	}
}

} /* namespace newton */

/* The three phases (above): phase 1's blocks hold linearise_warps warps,
 * a window each, over B windows of each trajectory. */
template <class Model, bool dense>
__global__ void picard_newton_kernel(const picard_launch L, const picard_newton_workspace ws,
				     int phase)
{
	extern __shared__ double picard_newton_shared[];

	if (phase == 0) {
		const long traj = (long)blockIdx.x * blockDim.x + threadIdx.x;

		if (traj < L.ntraj)
			newton::start<Model>(L, ws, traj);
	} else if (phase == 1) {
		const int warps = ws.linearise_warps, warp = threadIdx.x / 32;
		const long per_traj = (ws.B + warps - 1) / warps;
		const long traj = blockIdx.x / per_traj;
		const long i = (blockIdx.x % per_traj) * warps + warp;

		if (traj < L.ntraj && i < ws.B)
			newton::linearise<Model>(L, ws, traj, i,
						 picard_newton_shared +
						 warp * picard_newton_window_reals(ws.N, Model::dim, L.m));
	} else {
		newton::step<Model, dense>(L, ws, blockIdx.x);
	}
}

} /* namespace picard */

#endif
