/* engine.cu - the imex schemes on the GPU (imex.h): the host loop over
 * windows, sweeps, steps and stages, and the kernels it launches beside
 * the run-time compiled one (src/schemes/imex/imex_kernel.cuh).
 *
 * Layouts. A member's state is contiguous (element k of member i at i n +
 * k), in the window start y, the stage values Y and g at them G (step j,
 * stage q: ((j s + q) N + i) n + k), and the stage's right-hand side r,
 * so that the model's functions take pointers into them. The tridiagonal
 * batches are in their method's layout (src/linsolve/gpu/tridiag/tridiag.h):
 * system i (1D), system j N + i for the x line j of member i and i' N +
 * i for the y line i' (2D), so that under the interleaved layout
 * consecutive members' rows lie together. The Krylov solvers' vectors and
 * values are interleaved over the chunk (src/linsolve/gpu/krylov/krylov.h: row k of
 * member i at k chunk + i).
 *
 * The numerics are the CPU backend's (src/schemes/imex/cpu_imex.c, src/schemes/imex/imex.h), in the
 * same order of operations where it matters: per sweep, g at every stage
 * of every step from the previous sweep's values (the window's start, or
 * warm: the previous window's shape, in the first sweep), then for each
 * step j and stage q
 *     (I - gamma h A) Y_q = y_j + gamma h G_q + carry_q (Y_{q-1} - y_j),
 * y_{j+1} = Y_{s-1}, the solve starting from the previous sweep's Y_q
 * (ADI); the sweep's change is tested as every iterated scheme's
 * (src/schemes/convergence.h) over all stage values. ADI is src/linsolve/adi.c's:
 * the same couplings, cycle of parameters and stopping rule. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convergence.h"
#include "cuda_solver.h"
#include "dense_output.h"
#include "errors.h"
#include "imex/imex_gpu.h"
#include "imex_launch.h"
#include "krylov/krylov.h"
#include "linsolve/implicit.h"
#include "linsolve/linsolve.h"
#include "linsolve/sparse.h"
#include "paper_kernel.cuh" /* the records' helpers */
#include "tridiag/tridiag.h"
#include "device_counts.h"

#define BLOCK 128

/* One member's state across the launches. */
struct imex_member {
	int active;          /* integrating: not failed */
	int sweeping;        /* its window still sweeps */
	int within;          /* every change of this sweep within the tolerance */
	unsigned plain;      /* this sweep's largest plain change, float bits */
	float prev_plain;    /* the sweep before's (+Inf: none) */
	int broken;          /* a stage's right-hand side was not finite */
	int lin_code;        /* picard_linsolve_code of its failed solve, or 0 */
	int lin_step, lin_stage; /* where it failed */
	int solving;         /* ADI: the stage's solve goes on */
	int iterations;      /* ADI: the stage's iterations so far */
	int zero_guess;      /* ADI: the guess was not finite: start from 0 */
	int zeroed;          /* ADI: it did, this solve */
	double res2, r2;     /* ADI: sum of squares of the residual and r */
	double alpha, beta;  /* ADI: the bounds of its parameters' cycle */
	int nrho;            /* ADI: parameters in the cycle */
	int status;          /* picard_traj_status once it failed */
	long fail_window;    /* the window it failed in */
	long unconverged;    /* first window that did not converge, or -1 */
	long sweeps;         /* over all windows */
	int sweeps_max;      /* in one window */
};

/* One batch of lines: its bands, fixed for the solve. */
struct imex_lines {
	double *lower, *diag, *upper;
	long systems;
	int rows;
};

struct imex_gpu {
	const picard_model *model;
	picard_grid grid;
	struct imex_gpu_tableau tab;
	struct imex_gpu_linsolve lin;
	const picard_operator *op;
	int n;                 /* unknowns of a member */
	long chunk;            /* members the buffers hold */
	double *y, *Y, *G, *r, *u; /* device, member-contiguous (above) */
	double *y_prev;        /* the previous window's start (warm start) */
	double *kx, *ky;       /* device, k faces per member */
	long kx_len, ky_len;
	struct imex_lines line[2]; /* 1D: [0]; 2D: x lines, y lines */
	int nlines;
	double *rhs, *x, *work; /* the batches' right-hand sides, solutions,
				   the method's workspace */
	int *tstatus;          /* per system */
	/* Krylov: the solver, its pattern (host), the members' values, b and
	 * x (device, interleaved over the chunk), statuses and iterations */
	struct krylov_solver *krylov;
	picard_sparse pattern;
	double *kry_val, *kry_b, *kry_x;
	long nnz;
	int *kstatus, *kiters;  /* host, chunk */
	int *kstatus_dev;       /* device, chunk */
	struct imex_member *ctl;
	int *count;            /* device: members still going */
};

static unsigned blocks_of(long threads)
{
	return (unsigned)((threads + BLOCK - 1) / BLOCK);
}

/* ---- kernels -------------------------------------------------------------------- */

/* Row `row` of system `system` of a batch of `systems` systems of `rows`. */
__device__ inline long batch_at(int layout, long systems, int rows, long system, int row)
{
	return layout == TRIDIAG_INTERLEAVED ? (long)row * systems + system :
					       system * rows + row;
}

/* The members' start from the backend's SoA x0 [k][N]; their control. */
__global__ void imex_start_kernel(long N, int n, const double *x0, double *y,
				  struct imex_member *ctl)
{
	const long at = (long)blockIdx.x * blockDim.x + threadIdx.x;
	const long i = at % N;
	const int k = (int)(at / N);

	if (at >= N * n)
		return;
	y[i * n + k] = x0[(long)k * N + i];
	if (k == 0) {
		struct imex_member c;

		memset(&c, 0, sizeof(c));
		c.active = 1;
		c.prev_plain = INFINITY;
		c.status = PICARD_TRAJ_OK;
		c.fail_window = -1;
		c.unconverged = -1;
		ctl[i] = c;
	}
}

/* Every stage value of window w from its start (the first sweep's
 * previous values; warm: plus the previous window's increments), for the
 * members still integrating. */
__global__ void imex_window_kernel(long N, int n, int E, long w, int warm, const double *y,
				   const double *y_prev, double *Y, struct imex_member *ctl)
{
	const long at = (long)blockIdx.x * blockDim.x + threadIdx.x;
	const int k = (int)(at % n);
	const long i = at / n % N, e = at / n / N;

	if (e >= E)
		return;
	if (e == 0 && k == 0) {
		ctl[i].sweeping = ctl[i].active;
		ctl[i].within = 1;
		ctl[i].plain = 0;
		ctl[i].prev_plain = INFINITY;
	}
	if (!ctl[i].active)
		return;
	const long at_Y = (e * N + i) * n + k;

	Y[at_Y] = warm && w > 0 ? y[i * n + k] + (Y[at_Y] - y_prev[i * n + k]) : y[i * n + k];
}

/* What a stage's kernels share. */
struct imex_stage_args {
	long N;
	int n, s, j, q;
	double carry, gh; /* carry_q, gamma h */
	const double *y, *G;
	double *Y;
	double *r;      /* member-contiguous */
	double *rhs;    /* the 1D batch's or Krylov's b, or NULL */
	int layout;     /* of rhs and of the solution the store reads */
	long systems;   /* their systems: N (1D), the chunk (Krylov) */
	struct imex_member *ctl;
};

/* Whether member i's stage chain goes on: sweeping, nothing failed. */
__device__ inline bool chain_on(const struct imex_member &c)
{
	return c.sweeping && !c.broken && !c.lin_code;
}

/* The stage's right-hand side r = y_j + gamma h G_q + carry_q (Y_{q-1} -
 * y_j), y_j the window's start or the previous step's last stage (this
 * sweep's); one not finite breaks the member. */
__global__ void imex_rhs_kernel(struct imex_stage_args A)
{
	const long at = (long)blockIdx.x * blockDim.x + threadIdx.x;
	const int k = (int)(at % A.n);
	const long i = at / A.n;

	if (i >= A.N || !chain_on(A.ctl[i]))
		return;
	const double ys = A.j == 0 ? A.y[i * A.n + k] :
		A.Y[(((long)(A.j - 1) * A.s + A.s - 1) * A.N + i) * A.n + k];
	const long e = ((long)A.j * A.s + A.q) * A.N + i;
	const double v = ys + A.gh * A.G[e * A.n + k] +
			 (A.q > 0 ? A.carry * (A.Y[(e - A.N) * A.n + k] - ys) : 0);

	A.r[i * A.n + k] = v;
	if (A.rhs)
		A.rhs[batch_at(A.layout, A.systems, A.n, i, k)] = v;
	if (!isfinite(v))
		A.ctl[i].broken = 1;
}

/* The stage's solution into Y_q (from the 1D batch's x, or from u), and
 * its change against the previous sweep's value into the member's test. */
__global__ void imex_store_kernel(struct imex_stage_args A, const double *x, const double *u,
				  double atol, double rtol)
{
	const long at = (long)blockIdx.x * blockDim.x + threadIdx.x;
	const int k = (int)(at % A.n);
	const long i = at / A.n;

	if (i >= A.N || !chain_on(A.ctl[i]))
		return;
	const long e = ((long)A.j * A.s + A.q) * A.N + i;
	const double value = x ? x[batch_at(A.layout, A.systems, A.n, i, k)] : u[i * A.n + k];
	const double old = A.Y[e * A.n + k];

	A.Y[e * A.n + k] = value;
	if (!picard_change_within(value, old, atol, rtol))
		A.ctl[i].within = 0;
	atomicMax(&A.ctl[i].plain, __float_as_uint((float)fabs(value - old)));
}

/* A failed tridiagonal system fails its member's solve (1D: a member
 * whose chain goes on; ADI: one still solving), at step j, stage q. */
__global__ void imex_line_status_kernel(long systems, long N, const int *status, int adi, int j,
					int q, struct imex_member *ctl)
{
	const long b = (long)blockIdx.x * blockDim.x + threadIdx.x;

	if (b >= systems || status[b] == TRIDIAG_OK)
		return;
	struct imex_member &c = ctl[b % N];

	if (!chain_on(c) || (adi && !c.solving))
		return;
	if (atomicCAS(&c.lin_code, 0, status[b] == TRIDIAG_ZERO_PIVOT ? PICARD_LINSOLVE_ZERO_PIVOT :
									  PICARD_LINSOLVE_NONFINITE) == 0) {
		c.lin_step = j;
		c.lin_stage = q;
	}
}

/* After sweep i of window w: each sweeping member's verdict; the ones
 * still sweeping counted. A failed one stops, its failed sweep counted
 * in its sweeps but not in its most in a window (the CPU backend's). */
__global__ void imex_verdict_kernel(long N, int i, int K, int adaptive, long w,
				    struct imex_member *ctl, int *count)
{
	const long m = (long)blockIdx.x * blockDim.x + threadIdx.x;

	if (m >= N || !ctl[m].sweeping)
		return;
	struct imex_member &c = ctl[m];
	const float plain = __uint_as_float(c.plain);
	const bool failed = c.broken || c.lin_code;
	const int verdict = failed ? PICARD_SWEEP_GO_ON :
			    picard_sweep_verdict(i, K, adaptive, c.within, plain, c.prev_plain);

	if (failed || verdict != PICARD_SWEEP_GO_ON || i + 1 >= K) {
		c.sweeping = 0;
		c.sweeps += i + 1;
		c.sweeps_max = max(c.sweeps_max, failed ? i : i + 1);
		if (verdict == PICARD_SWEEP_NOT_CONVERGED && c.unconverged < 0)
			c.unconverged = w;
	} else {
		atomicAdd(count, 1);
	}
	c.prev_plain = plain;
	c.within = 1;
	c.plain = 0;
}

/* What the end of a window needs. */
struct imex_end_args {
	struct picard_launch L; /* the solve's: records, grid */
	int n, s, steps;
	long w;
	double *y, *y_prev;
	const double *Y;
	struct imex_member *ctl;
};

/* The end of window w, a thread per member: a failed one stops (a failed
 * solve leaves NaN, a non-finite right-hand side the window's start);
 * else the window-end records and dense output (linear between the step
 * ends, the trapezoid's, with paper_kernel.cuh's record helpers), the
 * window's last stage as the next start, and its test (non-finite, past
 * the bound). */
__global__ void imex_window_end_kernel(struct imex_end_args A)
{
	const long N = A.L.ntraj, i = (long)blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= N || !A.ctl[i].active)
		return;
	struct imex_member &c = A.ctl[i];
	const long traj = A.L.traj_offset + i;
	const int n = A.n, s = A.s;
	double *y = A.y + i * n;
	/* step end q (0: the window's start) */
	auto node = [&](int q, int k) {
		return q == 0 ? y[k] : A.Y[(((long)(q - 1) * s + s - 1) * N + i) * n + k];
	};

	if (c.broken || c.lin_code) {
		c.active = 0;
		c.status = c.broken ? PICARD_TRAJ_NONFINITE : PICARD_TRAJ_LINSOLVE_FAILED;
		c.fail_window = A.w;
		if (!c.broken)
			for (int k = 0; k < n; k++)
				y[k] = NAN;
		return;
	}
	const double tw = picard_window_start(false, A.L.t0, A.L.m, A.L.h, 0, A.w);
	auto store = [&](const picard_device_record &rec, long row, double t) {
		double frac;
		const int q = picard_trapezoid_segment(t - tw, A.L.h, A.L.m, &frac);

		for (int k = 0; k < n; k++) {
			const double from = node(q, k), to = node(q + 1, k);

			record_store(rec, row, traj, k, n, fma(frac, to - from, from));
		}
	};
	record_dense(A.L, false, A.w, traj, store);
	for (int r = 0; r < A.L.nrecords; r++)
		for (int k = 0; k < n; k++)
			record_window_end(A.L.records[r], A.w, traj, k, n, node(A.steps, k));
	int status = PICARD_TRAJ_OK;
	for (int k = 0; k < n; k++) {
		const double v = node(A.steps, k);

		A.y_prev[i * n + k] = y[k];
		y[k] = v;
		if (!isfinite(v))
			status = PICARD_TRAJ_NONFINITE;
		else if (fabs(v) > A.L.bound && status == PICARD_TRAJ_OK)
			status = PICARD_TRAJ_DIVERGED;
	}
	if (status != PICARD_TRAJ_OK) {
		c.active = 0;
		c.status = status;
		c.fail_window = A.w;
	}
}

/* The members' results into the backend's arrays (x_final SoA). */
__global__ void imex_finish_kernel(long N, int n, const double *y, const struct imex_member *ctl,
				   double *x_final, int *status, long *fail_window, long *sweeps,
				   int *sweeps_max)
{
	const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= N)
		return;
	const struct imex_member &c = ctl[i];

	for (int k = 0; k < n; k++)
		x_final[(long)k * N + i] = y[i * n + k];
	status[i] = c.status != PICARD_TRAJ_OK ? c.status :
		    c.unconverged >= 0 ? PICARD_TRAJ_NOT_CONVERGED : PICARD_TRAJ_OK;
	fail_window[i] = c.status != PICARD_TRAJ_OK ? c.fail_window : c.unconverged;
	sweeps[i] = c.sweeps;
	sweeps_max[i] = c.sweeps_max;
}

/* ---- the operator's lines -------------------------------------------------------------- */

/* 1D, a thread per member: the bands of M = I - gamma h A, src/linsolve/
 * implicit.c's (scale = gamma h / dx^2; A's row i is (k_{i+1} (u_{i+1} -
 * u_i) - k_i (u_i - u_{i-1})) / dx^2). 2D: the lines' fixed bands, minus
 * the couplings across x (x lines) and across y (y lines); their
 * diagonals follow each iteration's parameter (imex_adi_x_kernel); and
 * the member's cycle of parameters, adi.c's: [alpha, beta] bound the
 * spectra of I/2 + Px and I/2 + Py, alpha = 1/2 + gamma h k_min min(4/d^2
 * sin^2(pi / (2 (len + 1)))) over both directions (k_min >= 0), beta =
 * 1/2 + the largest Gershgorin row sum 2 max(w + e, s + n), parameters a
 * ratio of 4 apart. */
__global__ void imex_lines_kernel(long N, int nx, int ny, double gh, double dx, double dy,
				  const double *kx_all, const double *ky_all, long kx_len,
				  long ky_len, int layout, struct imex_lines xl,
				  struct imex_lines yl, struct imex_member *ctl)
{
	const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= N)
		return;
	const double *kx = kx_all + i * kx_len, *ky = ky_all + i * ky_len;

	if (ny == 1) {
		const double scale = gh / (dx * dx);

		for (int p = 0; p < nx; p++) {
			const long at = batch_at(layout, N, nx, i, p);

			xl.lower[at] = p > 0 ? -scale * kx[p] : 0.0;
			xl.upper[at] = p < nx - 1 ? -scale * kx[p + 1] : 0.0;
			xl.diag[at] = 1 + scale * (kx[p] + kx[p + 1]);
		}
		return;
	}
	const double sx = gh / (dx * dx), sy = gh / (dy * dy);
	double kmin = INFINITY, beta = 0;

	for (long f = 0; f < (long)(nx + 1) * ny; f++)
		kmin = fmin(kmin, kx[f]);
	for (long f = 0; f < (long)nx * (ny + 1); f++)
		kmin = fmin(kmin, ky[f]);
	kmin = fmax(kmin, 0.0);
	for (int j = 0; j < ny; j++)
		for (int ix = 0; ix < nx; ix++) {
			const double west = sx * kx[ix + (nx + 1) * j];
			const double east = sx * kx[ix + 1 + (nx + 1) * j];
			const double south = sy * ky[ix + nx * j];
			const double north = sy * ky[ix + nx * (j + 1)];
			const long ax = batch_at(layout, xl.systems, nx, (long)j * N + i, ix);
			const long ay = batch_at(layout, yl.systems, ny, (long)ix * N + i, j);

			xl.lower[ax] = ix > 0 ? -west : 0.0;
			xl.upper[ax] = ix < nx - 1 ? -east : 0.0;
			yl.lower[ay] = j > 0 ? -south : 0.0;
			yl.upper[ay] = j < ny - 1 ? -north : 0.0;
			beta = fmax(beta, 2 * fmax(west + east, south + north));
		}
	const double sx_pi = sin(M_PI / (2.0 * (nx + 1))), sy_pi = sin(M_PI / (2.0 * (ny + 1)));
	const double alpha = 0.5 + gh * kmin * fmin(4 / (dx * dx) * (sx_pi * sx_pi),
						   4 / (dy * dy) * (sy_pi * sy_pi));
	int nrho;

	beta += 0.5;
	nrho = (int)ceil(log(beta / alpha) / log(4.0));
	ctl[i].alpha = alpha;
	ctl[i].beta = beta;
	ctl[i].nrho = nrho < 1 ? 1 : nrho > 64 ? 64 : nrho;
}

/* ---- ADI --------------------------------------------------------------------------------- */

/* What the ADI kernels share: the grid, the members' k faces, gamma h. */
struct imex_adi_args {
	long N;
	int nx, ny;
	double sx, sy;  /* gamma h / dx^2, gamma h / dy^2 */
	const double *kx, *ky;
	long kx_len, ky_len;
	int layout;
	struct imex_member *ctl;
};

/* Px y (across_x) or Py y at (ix, j) of member i, y read through at(ix,
 * j): (b + a) y_p - b y_before - a y_after (adi.c's couplings). */
template <class At>
__device__ inline double coupling(const imex_adi_args &A, long i, bool across_x, int ix, int j,
				  At at)
{
	const double *kx = A.kx + i * A.kx_len, *ky = A.ky + i * A.ky_len;
	const double before = across_x ? A.sx * kx[ix + (A.nx + 1) * j] : A.sy * ky[ix + A.nx * j];
	const double after = across_x ? A.sx * kx[ix + 1 + (A.nx + 1) * j] :
					A.sy * ky[ix + A.nx * (j + 1)];
	const int along = across_x ? ix : j, len = across_x ? A.nx : A.ny;
	double v = (before + after) * at(ix, j);

	if (along > 0)
		v -= before * (across_x ? at(ix - 1, j) : at(ix, j - 1));
	if (along < len - 1)
		v -= after * (across_x ? at(ix + 1, j) : at(ix, j + 1));
	return v;
}

/* Iteration `iterations`' parameter of member c: alpha (beta /
 * alpha)^((j + 1/2) / nrho), j = iterations mod nrho. */
__device__ inline double adi_rho(const struct imex_member &c)
{
	return c.alpha * pow(c.beta / c.alpha, (c.iterations % c.nrho + 0.5) / c.nrho);
}

/* Whether member i's half steps run in this iteration. */
__device__ inline bool adi_stepping(const struct imex_member &c)
{
	return c.solving && !c.zero_guess && !c.lin_code;
}

/* The first half step: (I/2 + rho + Px) y' = r - (1/2 - rho) y - Py y,
 * the x lines' right-hand sides and diagonals. */
__global__ void imex_adi_x_kernel(struct imex_adi_args A, const double *r, const double *u,
				  double *rhs, double *diag, long systems)
{
	const long at = (long)blockIdx.x * blockDim.x + threadIdx.x;
	const int n = A.nx * A.ny;
	const long i = at % A.N;
	const int p = (int)(at / A.N), ix = p % A.nx, j = p / A.nx;

	if (p >= n || !adi_stepping(A.ctl[i]))
		return;
	const double *ui = u + i * n;
	auto U = [&](int x, int y) { return ui[x + A.nx * y]; };
	const double rho = adi_rho(A.ctl[i]);
	const double *kx = A.kx + i * A.kx_len;
	const long b = batch_at(A.layout, systems, A.nx, (long)j * A.N + i, ix);

	rhs[b] = r[i * n + p] - (0.5 - rho) * ui[p] - coupling(A, i, false, ix, j, U);
	diag[b] = 0.5 + rho + A.sx * kx[ix + (A.nx + 1) * j] + A.sx * kx[ix + 1 + (A.nx + 1) * j];
}

/* The second: (I/2 + rho + Py) y = r - (1/2 - rho) y' - Px y', y' the x
 * lines' solution. */
__global__ void imex_adi_y_kernel(struct imex_adi_args A, const double *r, const double *xsol,
				  long xsystems, double *rhs, double *diag, long systems)
{
	const long at = (long)blockIdx.x * blockDim.x + threadIdx.x;
	const int n = A.nx * A.ny;
	const long i = at % A.N;
	const int p = (int)(at / A.N), ix = p % A.nx, j = p / A.nx;

	if (p >= n || !adi_stepping(A.ctl[i]))
		return;
	auto U = [&](int x, int y) {
		return xsol[batch_at(A.layout, xsystems, A.nx, (long)y * A.N + i, x)];
	};
	const double rho = adi_rho(A.ctl[i]);
	const double *ky = A.ky + i * A.ky_len;
	const long b = batch_at(A.layout, systems, A.ny, (long)ix * A.N + i, j);

	rhs[b] = r[i * n + p] - (0.5 - rho) * U(ix, j) - coupling(A, i, true, ix, j, U);
	diag[b] = 0.5 + rho + A.sy * ky[ix + A.nx * j] + A.sy * ky[ix + A.nx * (j + 1)];
}

/* u = the y lines' solution (or 0 for a guess that was not finite). */
__global__ void imex_adi_take_kernel(struct imex_adi_args A, const double *ysol, long systems,
				     double *u)
{
	const long at = (long)blockIdx.x * blockDim.x + threadIdx.x;
	const int n = A.nx * A.ny;
	const long i = at % A.N;
	const int p = (int)(at / A.N), ix = p % A.nx, j = p / A.nx;

	if (p >= n || !A.ctl[i].solving || A.ctl[i].lin_code)
		return;
	u[i * n + p] = A.ctl[i].zero_guess ?
		0.0 : ysol[batch_at(A.layout, systems, A.ny, (long)ix * A.N + i, j)];
}

/* After the take: the iteration counted, or the zero guess taken. */
__global__ void imex_adi_advance_kernel(long N, struct imex_member *ctl)
{
	const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= N || !ctl[i].solving || ctl[i].lin_code)
		return;
	if (ctl[i].zero_guess)
		ctl[i].zero_guess = 0;
	else
		ctl[i].iterations++;
}

/* The true residual r - M u, M u = u + Px u + Py u: its sum of squares
 * and r's per member. */
__global__ void imex_adi_residual_kernel(struct imex_adi_args A, const double *r, const double *u)
{
	const long at = (long)blockIdx.x * blockDim.x + threadIdx.x;
	const int n = A.nx * A.ny;
	const long i = at % A.N;
	const int p = (int)(at / A.N), ix = p % A.nx, j = p / A.nx;

	if (p >= n || !A.ctl[i].solving || A.ctl[i].lin_code)
		return;
	const double *ui = u + i * n;
	auto U = [&](int x, int y) { return ui[x + A.nx * y]; };
	const double Mu = coupling(A, i, true, ix, j, U) + (ui[p] + coupling(A, i, false, ix, j, U));
	const double res = r[i * n + p] - Mu, rp = r[i * n + p];

	atomicAdd(&A.ctl[i].res2, res * res);
	atomicAdd(&A.ctl[i].r2, rp * rp);
}

/* After the residual: adi.c's rule. ||r - M u|| / ||r|| (2-norms; ||r -
 * M u|| where r = 0) within rtol stops; a guess not finite restarts from
 * 0 once; not finite after that, or maxit iterations, fails. The rest
 * are counted. */
__global__ void imex_adi_check_kernel(long N, int j, int q, int maxit, double rtol,
				      struct imex_member *ctl, int *count)
{
	const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= N || !ctl[i].solving)
		return;
	struct imex_member &c = ctl[i];
	const double residual = c.r2 > 0 ? sqrt(c.res2 / c.r2) : sqrt(c.res2);

	c.res2 = 0;
	c.r2 = 0;
	if (c.lin_code) {
		c.solving = 0;
		return;
	}
	if (!isfinite(residual) && c.iterations == 0 && !c.zeroed) {
		c.zeroed = 1;
		c.zero_guess = 1;
	} else if (residual <= rtol) {
		c.solving = 0;
		return;
	} else if (c.iterations >= maxit || !isfinite(residual)) {
		c.solving = 0;
		c.lin_code = c.iterations >= maxit ? PICARD_LINSOLVE_NOT_CONVERGED :
						     PICARD_LINSOLVE_NONFINITE;
		c.lin_step = j;
		c.lin_stage = q;
		return;
	}
	atomicAdd(count, 1);
}

/* The start of a stage's ADI solve: the members whose chain goes on
 * solve, from the previous sweep's stage value. */
__global__ void imex_adi_begin_kernel(struct imex_stage_args S, double *u)
{
	const long at = (long)blockIdx.x * blockDim.x + threadIdx.x;
	const int k = (int)(at % S.n);
	const long i = at / S.n;

	if (i >= S.N)
		return;
	if (k == 0) {
		S.ctl[i].solving = chain_on(S.ctl[i]);
		S.ctl[i].iterations = 0;
		S.ctl[i].zero_guess = 0;
		S.ctl[i].zeroed = 0;
		S.ctl[i].res2 = 0;
		S.ctl[i].r2 = 0;
	}
	if (chain_on(S.ctl[i]))
		u[i * S.n + k] = S.Y[(((long)S.j * S.s + S.q) * S.N + i) * S.n + k];
}

/* ---- Krylov ------------------------------------------------------------------------------- */

/* The guess of a stage's Krylov solve: the previous sweep's Y_q, for the
 * members whose chain goes on (the others keep their last b and x, a
 * solved pair that ends at once). */
__global__ void imex_krylov_guess_kernel(struct imex_stage_args S, double *x)
{
	const long at = (long)blockIdx.x * blockDim.x + threadIdx.x;
	const int k = (int)(at % S.n);
	const long i = at / S.n;

	if (i >= S.N || !chain_on(S.ctl[i]))
		return;
	x[batch_at(TRIDIAG_INTERLEAVED, S.systems, S.n, i, k)] =
		S.Y[(((long)S.j * S.s + S.q) * S.N + i) * S.n + k];
}

/* A member's failed Krylov solve fails its chain, at step j, stage q. */
__global__ void imex_krylov_status_kernel(long N, const int *status, int j, int q,
					  struct imex_member *ctl)
{
	const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= N || status[i] == PICARD_LINSOLVE_OK || !chain_on(ctl[i]))
		return;
	ctl[i].lin_code = status[i];
	ctl[i].lin_step = j;
	ctl[i].lin_stage = q;
}

/* ---- the host side ------------------------------------------------------------------- */

/* Krylov: the values of M a member at most (a stencil's 5 a row, a CSR
 * operator's and its diagonal; the model's nnz is not known here) and
 * the solver's vectors (krylov/solver.h: 8, the inverse diagonal, work,
 * b, x and the guess). */
#define KRYLOV_VALUES_PER_ROW 16
#define KRYLOV_VECTORS_PER_ROW 14

extern "C" size_t imex_gpu_member_bytes(int dim, const picard_grid *grid, int stages, int krylov)
{
	const size_t n = dim, E = (size_t)(grid->m - 1) * stages;
	const size_t kry = krylov ? (size_t)(KRYLOV_VALUES_PER_ROW + KRYLOV_VECTORS_PER_ROW) * n *
				    sizeof(double) : 0;

	/* y, y_prev, r, u, Y, G; two batches' bands, rhs, x, the method's
	 * work (the checkerboard's: 2 n and its interface, 7 reals a part);
	 * the faces (at most 4 n: 2 nx ny + nx + ny in 2D); statuses; the
	 * control */
	return (n * (4 + 2 * E) + 6 * n + 2 * n + 3 * n + 4 * n) * sizeof(double) +
	       n * sizeof(int) + sizeof(struct imex_member) + kry + 2 * sizeof(int);
}

extern "C" void imex_gpu_free(struct imex_gpu *g)
{
	if (!g)
		return;
	cudaFree(g->y), cudaFree(g->y_prev), cudaFree(g->Y), cudaFree(g->G), cudaFree(g->r);
	cudaFree(g->u), cudaFree(g->kx), cudaFree(g->ky);
	for (int l = 0; l < 2; l++)
		cudaFree(g->line[l].lower), cudaFree(g->line[l].diag), cudaFree(g->line[l].upper);
	cudaFree(g->rhs), cudaFree(g->x), cudaFree(g->work), cudaFree(g->tstatus);
	cudaFree(g->ctl), cudaFree(g->count);
	krylov_solver_free(g->krylov);
	picard_sparse_free(&g->pattern);
	cudaFree(g->kry_val), cudaFree(g->kry_b), cudaFree(g->kry_x), cudaFree(g->kstatus_dev);
	free(g->kstatus), free(g->kiters);
	free(g);
}

/* Line batch l over its bands, rhs and x, for N members. */
static struct tridiag_batch lines_batch(const struct imex_gpu *g, int l, long N)
{
	struct tridiag_batch b;

	memset(&b, 0, sizeof(b));
	b.lower = g->line[l].lower;
	b.diag = g->line[l].diag;
	b.upper = g->line[l].upper;
	b.rhs = g->rhs;
	b.x = g->x;
	b.status = g->tstatus;
	b.batch = g->line[l].systems / g->chunk * N;
	b.n = g->line[l].rows;
	b.layout = g->lin.tridiag->layout;
	return b;
}

/* The Krylov side for chunk members: the pattern of M (the model's
 * defaults', every member's the same, checked at each run), the solver
 * (its SpMV tuned for the pattern and the chunk), the arrays; b and x
 * zero, so that members past a short chunk's end end at once. */
static int krylov_create(struct imex_gpu *g, long chunk)
{
	const double gh = g->tab.gamma * g->grid.h;
	struct krylov_options opt;
	struct krylov_pattern pattern;
	size_t vec = (size_t)chunk * g->n * sizeof(double);
	picard_linsolve_code code;
	int err = PICARD_OK, kerr;

	if (chunk > 0x7fffffffL)
		return picard_fail(PICARD_EINVAL, "imex: %ld members in one Krylov batch", chunk);
	code = picard_implicit_assemble(g->op, g->model->param_defaults, gh, &g->pattern);
	if (code != PICARD_LINSOLVE_OK)
		return picard_fail(PICARD_EINVAL, "model %s: assembling I - gamma h A: %s",
				   g->model->name, picard_linsolve_strerror(code));
	g->nnz = g->pattern.row_start[g->pattern.n];
	memset(&opt, 0, sizeof(opt));
	opt.rtol = g->lin.rtol;
	opt.max_iters = g->lin.maxit;
	pattern = {KRYLOV_CSR, g->pattern.n, g->pattern.row_start, g->pattern.col, NULL};
	kerr = krylov_solver_create(&pattern, (int)chunk, g->lin.krylov, g->lin.precond, &opt,
				    &g->krylov);
	if (kerr)
		return picard_fail(kerr == KRYLOV_ENOMEM || kerr == cudaErrorMemoryAllocation ?
				   PICARD_ENOMEM : PICARD_ECUDA, "imex: --linsolve %s: %s",
				   g->lin.krylov->name, krylov_strerror(kerr));
	g->kstatus = (int *)malloc(chunk * sizeof(int));
	g->kiters = (int *)malloc(chunk * sizeof(int));
	if (!g->kstatus || !g->kiters)
		return picard_fail(PICARD_ENOMEM, "imex: host memory");
	CUDA_TRY(cudaMalloc(&g->kry_val, (size_t)g->nnz * chunk * sizeof(double)), "imex: device memory");
	CUDA_TRY(cudaMalloc(&g->kry_b, vec), "imex: device memory");
	CUDA_TRY(cudaMalloc(&g->kry_x, vec), "imex: device memory");
	CUDA_TRY(cudaMemset(g->kry_b, 0, vec), "imex: cudaMemset");
	CUDA_TRY(cudaMemset(g->kry_x, 0, vec), "imex: cudaMemset");
	CUDA_TRY(cudaMalloc(&g->kstatus_dev, chunk * sizeof(int)), "imex: device memory");
	CUDA_TRY(cudaMalloc(&g->y, vec), "imex: device memory");
	CUDA_TRY(cudaMalloc(&g->y_prev, vec), "imex: device memory");
	CUDA_TRY(cudaMalloc(&g->Y, vec * (g->grid.m - 1) * g->tab.stages), "imex: device memory");
	CUDA_TRY(cudaMalloc(&g->G, vec * (g->grid.m - 1) * g->tab.stages), "imex: device memory");
	CUDA_TRY(cudaMalloc(&g->r, vec), "imex: device memory");
	CUDA_TRY(cudaMalloc(&g->ctl, chunk * sizeof(struct imex_member)), "imex: device memory");
	CUDA_TRY(cudaMalloc(&g->count, sizeof(int)), "imex: device memory");
	/* k faces: none to compute (the host assembles M), one real a member */
	g->kx_len = g->ky_len = 1;
	CUDA_TRY(cudaMalloc(&g->kx, chunk * sizeof(double)), "imex: device memory");
	CUDA_TRY(cudaMalloc(&g->ky, chunk * sizeof(double)), "imex: device memory");
out:
	return err;
}

/* The members' M values, interleaved over the chunk (members past N take
 * the first's, a matrix that solves), from their parameters (L's, on the
 * device): assembled on the host as the CPU backend assembles them. */
static int krylov_values(struct imex_gpu *g, const struct picard_launch *L)
{
	const picard_model *model = g->model;
	const long N = L->ntraj, chunk = g->chunk, nnz = g->nnz;
	const int np = model->nparams;
	const double gh = g->tab.gamma * g->grid.h;
	double *soa = (double *)malloc((np ? N * np : 1) * sizeof(double));
	double *val = (double *)malloc((size_t)nnz * chunk * sizeof(double));
	double p[64];
	int err = PICARD_OK;
	cudaError_t e;

	if (!soa || !val || np > 64) {
		err = picard_fail(PICARD_ENOMEM, "imex: host memory for the members' matrices");
		goto out;
	}
	if (np && (e = picard_memcpy(soa, L->params, N * np * sizeof(double),
				  cudaMemcpyDeviceToHost)) != cudaSuccess) {
		err = picard_cuda_fail(e, "imex: the members' parameters");
		goto out;
	}
	for (long i = 0; i < N && !err; i++) {
		picard_sparse m;
		picard_linsolve_code code;

		memset(&m, 0, sizeof(m));
		for (int q = 0; q < np; q++)
			p[q] = soa[q * N + i];
		code = picard_implicit_assemble(g->op, p, gh, &m);
		if (code != PICARD_LINSOLVE_OK)
			err = picard_fail(PICARD_EINVAL, "model %s, trajectory %ld: assembling I - "
					  "gamma h A: %s", model->name, L->traj_offset + i,
					  picard_linsolve_strerror(code));
		else if (m.row_start[m.n] != nnz ||
			 memcmp(m.row_start, g->pattern.row_start, (m.n + 1) * sizeof(int)) ||
			 memcmp(m.col, g->pattern.col, nnz * sizeof(int)))
			err = picard_fail(PICARD_EINVAL, "model %s, trajectory %ld: I - gamma h A "
					  "has another sparsity pattern than at the defaults: the "
					  "GPU's Krylov solvers take one for all members (--backend "
					  "cpu)", model->name, L->traj_offset + i);
		for (long k = 0; k < nnz && !err; k++)
			val[k * chunk + i] = m.val[k];
		picard_sparse_free(&m);
	}
	for (long i = N; i < chunk && !err; i++)
		for (long k = 0; k < nnz; k++)
			val[k * chunk + i] = val[k * chunk];
	if (!err && (e = picard_memcpy(g->kry_val, val, (size_t)nnz * chunk * sizeof(double),
				    cudaMemcpyHostToDevice)) != cudaSuccess)
		err = picard_cuda_fail(e, "imex: the members' matrices");
out:
	free(soa);
	free(val);
	return err;
}

/* The stage's systems by the Krylov method for every member at once, from
 * the previous sweep's Y_q; a member's failure fails its chain. */
static int krylov_solve(struct imex_gpu *g, const struct imex_stage_args *S, cudaStream_t stream)
{
	const long N = S->N;
	cudaError_t e;
	int kerr;

	imex_krylov_guess_kernel<<<picard_counted(blocks_of(N * g->n)), BLOCK, 0, stream>>>(*S, g->kry_x);
	kerr = krylov_solver_solve(g->krylov, g->kry_val, g->kry_b, g->kry_x, g->kstatus, g->kiters, NULL,
				   stream);
	if (kerr)
		return picard_fail(kerr > 0 ? PICARD_ECUDA : PICARD_EINVAL, "imex: --linsolve %s: %s",
				   g->lin.krylov->name, krylov_strerror(kerr));
	e = cudaMemcpyAsync(g->kstatus_dev, g->kstatus, N * sizeof(int), cudaMemcpyHostToDevice,
			    stream);
	if (e != cudaSuccess)
		return picard_cuda_fail(e, "imex: Krylov statuses");
	imex_krylov_status_kernel<<<picard_counted(blocks_of(N)), BLOCK, 0, stream>>>(N, g->kstatus_dev, S->j, S->q,
								       g->ctl);
	/* the host array is the copy's source until the stream gets there */
	e = picard_stream_wait(stream);
	return e == cudaSuccess ? PICARD_OK : picard_cuda_fail(e, "imex: Krylov statuses");
}

extern "C" int imex_gpu_create(struct imex_gpu **out, const picard_model *model,
			       const picard_grid *grid, const struct imex_gpu_tableau *tab,
			       const struct imex_gpu_linsolve *lin, long chunk)
{
	const picard_operator *op = model->op;
	struct imex_gpu *g;
	size_t state, work = 0;
	int err = PICARD_OK;

	*out = NULL;
	if (!op || op->kind == PICARD_OP_NONE)
		return picard_fail(PICARD_EINVAL, "model %s declares no linear operator", model->name);
	if (!lin->tridiag && !lin->krylov)
		return picard_fail(PICARD_EINVAL, "the imex schemes on the GPU: no linear solver");
	if (lin->tridiag && op->kind == PICARD_OP_CSR)
		return picard_fail(PICARD_EINVAL, "--linsolve %s: a tridiagonal method; model %s's "
				   "operator is a CSR matrix: cg or bicgstab", lin->tridiag->name,
				   model->name);
	g = (struct imex_gpu *)calloc(1, sizeof(*g));
	if (!g)
		return picard_fail(PICARD_ENOMEM, "imex: host memory");
	g->model = model;
	g->grid = *grid;
	g->tab = *tab;
	g->lin = *lin;
	g->op = op;
	g->n = model->dim;
	g->chunk = chunk;
	if (lin->krylov) {
		err = krylov_create(g, chunk);
		if (err)
			goto out;
		*out = g;
		return PICARD_OK;
	}
	g->nlines = op->kind == PICARD_OP_STENCIL_2D ? 2 : 1;
	g->line[0] = {NULL, NULL, NULL, chunk * (g->nlines == 2 ? op->ny : 1), op->nx};
	g->line[1] = {NULL, NULL, NULL, chunk * op->nx, op->ny};
	for (int l = 0; l < g->nlines; l++) {
		struct tridiag_batch b = lines_batch(g, l, chunk);
		const struct tridiag_solver *solver = lin->tridiag->solver;

		if (!tridiag_solver_takes(solver, &b)) {
			err = solver->max_n ?
				picard_fail(PICARD_EINVAL, "--linsolve %s takes lines of %d to %d "
					    "rows: model %s's have %d", lin->tridiag->name,
					    solver->min_n, solver->max_n, model->name, b.n) :
				picard_fail(PICARD_EINVAL, "--linsolve %s takes lines of %d rows or "
					    "more: model %s's have %d", lin->tridiag->name,
					    solver->min_n, model->name, b.n);
			goto out;
		}
		if (solver->work_doubles(&b) > work)
			work = solver->work_doubles(&b);
	}
	state = (size_t)chunk * g->n * sizeof(double);
	g->kx_len = (long)(op->nx + 1) * (g->nlines == 2 ? op->ny : 1);
	g->ky_len = g->nlines == 2 ? (long)op->nx * (op->ny + 1) : 1;
	CUDA_TRY(cudaMalloc(&g->y, state), "imex: device memory");
	CUDA_TRY(cudaMalloc(&g->y_prev, state), "imex: device memory");
	CUDA_TRY(cudaMalloc(&g->Y, state * (grid->m - 1) * tab->stages), "imex: device memory");
	CUDA_TRY(cudaMalloc(&g->G, state * (grid->m - 1) * tab->stages), "imex: device memory");
	CUDA_TRY(cudaMalloc(&g->r, state), "imex: device memory");
	CUDA_TRY(cudaMalloc(&g->rhs, state), "imex: device memory");
	CUDA_TRY(cudaMalloc(&g->x, state), "imex: device memory");
	if (g->nlines == 2)
		CUDA_TRY(cudaMalloc(&g->u, state), "imex: device memory");
	for (int l = 0; l < g->nlines; l++) {
		CUDA_TRY(cudaMalloc(&g->line[l].lower, state), "imex: device memory");
		CUDA_TRY(cudaMalloc(&g->line[l].diag, state), "imex: device memory");
		CUDA_TRY(cudaMalloc(&g->line[l].upper, state), "imex: device memory");
	}
	if (work)
		CUDA_TRY(cudaMalloc(&g->work, work * sizeof(double)), "imex: device memory");
	CUDA_TRY(cudaMalloc(&g->tstatus, (g->line[0].systems > g->line[1].systems ?
					  g->line[0].systems : g->line[1].systems) * sizeof(int)),
		 "imex: device memory");
	CUDA_TRY(cudaMalloc(&g->kx, chunk * g->kx_len * sizeof(double)), "imex: device memory");
	CUDA_TRY(cudaMalloc(&g->ky, chunk * g->ky_len * sizeof(double)), "imex: device memory");
	CUDA_TRY(cudaMalloc(&g->ctl, chunk * sizeof(struct imex_member)), "imex: device memory");
	CUDA_TRY(cudaMalloc(&g->count, sizeof(int)), "imex: device memory");
	*out = g;
	return PICARD_OK;
out:
	imex_gpu_free(g);
	return err;
}

/* A tridiagonal method's solve of line batch l for N members, at step j
 * and stage q (which a failed system's member notes). */
static int solve_lines(struct imex_gpu *g, int l, long N, int j, int q, cudaStream_t stream)
{
	struct tridiag_batch b = lines_batch(g, l, N);
	int err = g->lin.tridiag->solver->solve(&b, g->work, stream);

	if (err > 0)
		return picard_cuda_fail(err, g->lin.tridiag->name);
	if (err < 0)
		return picard_fail(PICARD_ECUDA, "--linsolve %s cannot solve %ld lines of %d rows%s",
				   g->lin.tridiag->name, b.batch, b.n,
				   err == TRIDIAG_ELIBRARY ? ": its library failed" : "");
	imex_line_status_kernel<<<picard_counted(blocks_of(b.batch)), BLOCK, 0, stream>>>(b.batch, N, g->tstatus,
									   g->nlines == 2, j, q,
									   g->ctl);
	return PICARD_OK;
}

/* How many members a counting kernel left in *count, the stream waited
 * for. */
static int read_count(struct imex_gpu *g, cudaStream_t stream, int *host)
{
	cudaError_t e = cudaMemcpyAsync(host, g->count, sizeof(int), cudaMemcpyDeviceToHost, stream);

	if (e == cudaSuccess)
		e = picard_stream_wait(stream);
	if (e == cudaSuccess)
		e = cudaGetLastError();
	return e == cudaSuccess ? PICARD_OK : picard_cuda_fail(e, "imex: a kernel");
}

static int zero_count(struct imex_gpu *g, cudaStream_t stream)
{
	cudaError_t e = cudaMemsetAsync(g->count, 0, sizeof(int), stream);

	return e == cudaSuccess ? PICARD_OK : picard_cuda_fail(e, "imex: cudaMemset");
}

/* The stage's system M Y_q = r by ADI for N members, from the previous
 * sweep's Y_q, into u: iterations until every member's residual is within
 * lin.rtol or it failed. The x lines' right-hand sides and the y lines'
 * take turns in rhs, their solutions in x. */
static int adi_solve(struct imex_gpu *g, const struct imex_stage_args *S, long N,
		     cudaStream_t stream)
{
	const picard_operator *op = g->op;
	const long n = g->n, xs = N * op->ny, ys = N * op->nx;
	const double gh = g->tab.gamma * g->grid.h;
	const struct imex_adi_args A = {N, op->nx, op->ny, gh / (op->dx * op->dx),
					gh / (op->dy * op->dy), g->kx, g->ky, g->kx_len,
					g->ky_len, g->lin.tridiag->layout, g->ctl};
	int left = 1, err = PICARD_OK;

	imex_adi_begin_kernel<<<picard_counted(blocks_of(N * n)), BLOCK, 0, stream>>>(*S, g->u);
	for (int it = 0; !err; it++) {
		imex_adi_residual_kernel<<<picard_counted(blocks_of(N * n)), BLOCK, 0, stream>>>(A, g->r, g->u);
		err = zero_count(g, stream);
		if (err)
			break;
		imex_adi_check_kernel<<<picard_counted(blocks_of(N)), BLOCK, 0, stream>>>(N, S->j, S->q, g->lin.maxit,
									 g->lin.rtol, g->ctl,
									 g->count);
		err = read_count(g, stream, &left);
		if (err || left == 0)
			break;
		imex_adi_x_kernel<<<picard_counted(blocks_of(N * n)), BLOCK, 0, stream>>>(A, g->r, g->u, g->rhs,
									   g->line[0].diag, xs);
		err = solve_lines(g, 0, N, S->j, S->q, stream);
		if (err)
			break;
		imex_adi_y_kernel<<<picard_counted(blocks_of(N * n)), BLOCK, 0, stream>>>(A, g->r, g->x, xs, g->rhs,
									   g->line[1].diag, ys);
		err = solve_lines(g, 1, N, S->j, S->q, stream);
		if (err)
			break;
		imex_adi_take_kernel<<<picard_counted(blocks_of(N * n)), BLOCK, 0, stream>>>(A, g->x, ys, g->u);
		imex_adi_advance_kernel<<<picard_counted(blocks_of(N)), BLOCK, 0, stream>>>(N, g->ctl);
	}
	return err;
}

/* Launch the run-time compiled kernel's phase over threads. */
static int launch_model(const void *kernel, const struct picard_imex_launch *M, int phase,
			long threads, cudaStream_t stream)
{
	void *args[] = {(void *)M, &phase};
	picard_count_launch();
	cudaError_t e = cudaLaunchKernel(kernel, dim3(blocks_of(threads)), dim3(BLOCK), args, 0,
					 stream);

	return e == cudaSuccess ? PICARD_OK :
				  picard_cuda_fail(e, phase == PICARD_IMEX_K_FACES ? "imex: k faces" :
									       "imex: g");
}

/* Sweep i of window w over L's N members: g at every stage, then the
 * chain of solves, then each member's verdict; *left: members still
 * sweeping. */
static int sweep(struct imex_gpu *g, const void *kernel, const struct picard_imex_launch *M,
		 const struct picard_launch *L, long w, int i, int *left)
{
	const long N = L->ntraj, n = g->n;
	const int s = g->tab.stages, steps = g->grid.m - 1;
	cudaStream_t stream = (cudaStream_t)L->stream;
	int err = launch_model(kernel, M, PICARD_IMEX_NONLINEAR, (long)steps * s * N, stream);

	for (int j = 0; j < steps && !err; j++)
		for (int q = 0; q < s && !err; q++) {
			const struct imex_stage_args S = {
				N, (int)n, s, j, q, g->tab.carry[q], g->tab.gamma * g->grid.h, g->y,
				g->G, g->Y, g->r,
				g->krylov ? g->kry_b : g->nlines == 1 ? g->rhs : NULL,
				g->krylov ? TRIDIAG_INTERLEAVED : g->lin.tridiag->layout,
				g->krylov ? g->chunk : N, g->ctl};

			imex_rhs_kernel<<<picard_counted(blocks_of(N * n)), BLOCK, 0, stream>>>(S);
			err = g->krylov ? krylov_solve(g, &S, stream) :
			      g->nlines == 1 ? solve_lines(g, 0, N, j, q, stream) :
					       adi_solve(g, &S, N, stream);
			if (!err)
				imex_store_kernel<<<picard_counted(blocks_of(N * n)), BLOCK, 0, stream>>>(
					S, g->krylov ? g->kry_x : g->nlines == 1 ? g->x : NULL, g->u,
					L->iter_atol, L->iter_rtol);
		}
	if (!err)
		err = zero_count(g, stream);
	if (err)
		return err;
	imex_verdict_kernel<<<picard_counted(blocks_of(N)), BLOCK, 0, stream>>>(N, i, L->K, L->adaptive, w, g->ctl,
								 g->count);
	return read_count(g, stream, left);
}

/* The lowest member whose linear solve failed, in the CPU backend's
 * words (src/schemes/imex/cpu_imex.c). */
static int first_failure(struct imex_gpu *g, long N, struct imex_gpu_failure *first)
{
	struct imex_member *ctl = (struct imex_member *)malloc(N * sizeof(*ctl));
	cudaError_t e;

	first->member = -1;
	first->message[0] = '\0';
	if (!ctl)
		return picard_fail(PICARD_ENOMEM, "imex: host memory");
	e = picard_memcpy(ctl, g->ctl, N * sizeof(*ctl), cudaMemcpyDeviceToHost);
	for (long i = 0; e == cudaSuccess && i < N; i++) {
		const struct imex_member *c = &ctl[i];

		if (c->status != PICARD_TRAJ_LINSOLVE_FAILED)
			continue;
		first->member = i;
		if (g->krylov)
			snprintf(first->message, sizeof(first->message),
				 "linsolve-failed in window %ld (step %d, stage %d): %s: %s",
				 c->fail_window, c->lin_step, c->lin_stage + 1, g->lin.krylov->name,
				 picard_linsolve_strerror((picard_linsolve_code)c->lin_code));
		else if (g->nlines == 2)
			snprintf(first->message, sizeof(first->message),
				 "linsolve-failed in window %ld (step %d, stage %d): adi over %s "
				 "(iteration %d): %s", c->fail_window, c->lin_step, c->lin_stage + 1,
				 g->lin.tridiag->name, c->iterations,
				 picard_linsolve_strerror((picard_linsolve_code)c->lin_code));
		else
			snprintf(first->message, sizeof(first->message),
				 "linsolve-failed in window %ld (step %d, stage %d): %s: %s",
				 c->fail_window, c->lin_step, c->lin_stage + 1, g->lin.tridiag->name,
				 picard_linsolve_strerror((picard_linsolve_code)c->lin_code));
		break;
	}
	free(ctl);
	return e == cudaSuccess ? PICARD_OK : picard_cuda_fail(e, "imex: copy the members' states");
}

extern "C" int imex_gpu_run(struct imex_gpu *g, const void *kernel, const struct picard_launch *L,
			    struct imex_gpu_failure *first)
{
	const long N = L->ntraj, n = g->n;
	const int s = g->tab.stages, steps = g->grid.m - 1;
	const picard_operator *op = g->op;
	cudaStream_t stream = (cudaStream_t)L->stream;
	struct picard_imex_launch M;
	struct imex_end_args E;
	struct imex_lines xl = g->line[0], yl = g->line[1];
	cudaError_t e;
	int err;

	if (N > g->chunk)
		return picard_fail(PICARD_EINVAL, "imex: %ld members, room for %ld", N, g->chunk);
	memset(&M, 0, sizeof(M));
	M.ntraj = N;
	M.dim = (int)n;
	M.stages = s;
	M.steps = steps;
	M.h = L->h;
	M.c[0] = g->tab.c[0];
	M.c[1] = g->tab.c[1];
	M.params = (const double *)L->params;
	M.stage = g->Y;
	M.g = g->G;
	M.sweeping = &g->ctl[0].sweeping;
	M.sweeping_stride = sizeof(struct imex_member) / sizeof(int);
	M.kx = g->kx;
	M.ky = g->ky;
	M.kx_len = g->kx_len;
	M.ky_len = g->ky_len;

	imex_start_kernel<<<picard_counted(blocks_of(N * n)), BLOCK, 0, stream>>>(N, (int)n, (const double *)L->x0,
								   g->y, g->ctl);
	if (g->krylov) {
		err = krylov_values(g, L);
	} else {
		err = launch_model(kernel, &M, PICARD_IMEX_K_FACES, N, stream);
		xl.systems = lines_batch(g, 0, N).batch;
		yl.systems = lines_batch(g, 1, N).batch;
		if (!err)
			imex_lines_kernel<<<picard_counted(blocks_of(N)), BLOCK, 0, stream>>>(
				N, op->nx, g->nlines == 2 ? op->ny : 1, g->tab.gamma * L->h, op->dx,
				op->dy, g->kx, g->ky, g->kx_len, g->ky_len, g->lin.tridiag->layout, xl,
				yl, g->ctl);
	}
	if (err)
		return err;
	memset(&E, 0, sizeof(E));
	E.L = *L;
	E.n = (int)n;
	E.s = s;
	E.steps = steps;
	E.y = g->y;
	E.y_prev = g->y_prev;
	E.Y = g->Y;
	E.ctl = g->ctl;
	for (long w = 0; w < L->windows && !err; w++) {
		int left = 1;

		M.t_window = picard_window_start(false, L->t0, L->m, L->h, 0, w);
		imex_window_kernel<<<picard_counted(blocks_of((long)steps * s * N * n)), BLOCK, 0, stream>>>(
			N, (int)n, steps * s, w, L->warm_start, g->y, g->y_prev, g->Y, g->ctl);
		for (int i = 0; i < L->K && left > 0 && !err; i++)
			err = sweep(g, kernel, &M, L, w, i, &left);
		E.w = w;
		imex_window_end_kernel<<<picard_counted(blocks_of(N)), BLOCK, 0, stream>>>(E);
	}
	if (err)
		return err;
	imex_finish_kernel<<<picard_counted(blocks_of(N)), BLOCK, 0, stream>>>(N, (int)n, g->y, g->ctl,
								(double *)L->x_final, L->status,
								L->fail_window, L->sweeps, L->sweeps_max);
	e = cudaGetLastError();
	if (e == cudaSuccess)
		e = picard_stream_wait(stream);
	if (e != cudaSuccess)
		return picard_cuda_fail(e, "imex: a kernel");
	return first_failure(g, N, first);
}
