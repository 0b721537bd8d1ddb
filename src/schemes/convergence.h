/* convergence.h - when a window's Picard iteration has converged, shared
 * by the CUDA kernel and the CPU backend so both decide alike.
 *
 * After each sweep a window's change is within the tolerance when every
 * scaled change |x_j^i - x_j^(i-1)| / (atol + rtol |x_j^i|) over nodes j and
 * components is <= 1 (tested without dividing). Adaptive K stops at the
 * first sweep where it is and flags the window when K-max sweeps did not
 * get there. A fixed K runs all K sweeps and flags the window only
 * when the iteration is not contracting: its last change is still above
 * the tolerance and, in the plain max norm max |dx| (weights would make
 * the comparison depend on which node holds the maximum), no smaller than
 * the one before: past the convergence boundary h* of the paper the
 * changes grow. With windows in flight an adaptive front stops at the
 * second sweep in a row where it is (picard_front_within). */
#ifndef PICARD_CONVERGENCE_H
#define PICARD_CONVERGENCE_H

#include <math.h>
#include <stdbool.h>

#ifdef __CUDACC__
#define PICARD_HOST_DEVICE __host__ __device__
#else
#define PICARD_HOST_DEVICE
#endif

enum picard_sweep_verdict {
	PICARD_SWEEP_GO_ON = 0,      /* sweep again */
	PICARD_SWEEP_CONVERGED,      /* window done */
	PICARD_SWEEP_NOT_CONVERGED,  /* window done, flagged */
};

/* Whether one component's change between two iterates is within the
 * tolerance, |dx| <= atol + rtol |x_new|, i.e. its scaled change is at most
 * 1. A comparison, not a division: it runs for every node, component and
 * sweep, and a window has converged when it holds for all of them (a vote
 * on the GPU, no reduction). A NaN change is never within. */
static inline PICARD_HOST_DEVICE bool picard_change_within(double x_new, double x_old,
							    double atol, double rtol)
{
	return fabs(x_new - x_old) <= atol + rtol * fabs(x_new);
}

/* The same test in float, for float solves: no conversions to double
 * (on the GPU, two conversions and three double operations per node and
 * component, every sweep: Nsight Compute on an H200, 2026-11-23), and a fused
 * multiply-add on both sides, so the CPU backend decides as the kernels
 * do. C++ callers get it as an overload of picard_change_within; C
 * callers name it. */
static inline PICARD_HOST_DEVICE bool picard_change_within_float(float x_new, float x_old,
								  float atol, float rtol)
{
	return fabsf(x_new - x_old) <= fmaf(rtol, fabsf(x_new), atol);
}

static inline PICARD_HOST_DEVICE bool picard_change_within_double(double x_new, double x_old,
								   double atol, double rtol)
{
	return picard_change_within(x_new, x_old, atol, rtol);
}

#ifdef __cplusplus
static inline PICARD_HOST_DEVICE bool picard_change_within(float x_new, float x_old, float atol,
							    float rtol)
{
	return picard_change_within_float(x_new, x_old, atol, rtol);
}
#endif

/* Whether the sweep count measures the change after sweep i (0-based):
 * every sweep when adaptive, the last two of a fixed K. */
static inline PICARD_HOST_DEVICE bool picard_sweep_measured(int i, int K, bool adaptive)
{
	return adaptive || i >= K - 2;
}

/* Windows in flight (lobatto_time_kernel.cuh): whether the front's sweep
 * counts as within for picard_sweep_verdict. Adaptive, its change and
 * that of its window's sweep before (as the front, or behind it) must
 * both be within. A window's iterate is swept from starts that keep
 * moving, so one sweep's change is its start's last shift plus its own
 * iteration's step, and the two can nearly cancel while the iterate is
 * still off by about the tolerance; accepted so, the error has the same
 * sign window after window and adds up over a long span, where one
 * window after the other's does not. Two changes in a row within rule
 * out the chance cancellation. A fixed K, or K = 1, judges the sweep
 * alone (no verdict to delay). */
static inline PICARD_HOST_DEVICE bool picard_front_within(int K, bool adaptive, bool within,
							   bool within_before)
{
	if (!adaptive || K == 1)
		return within;
	return within && within_before;
}

/* Verdict after sweep i of at most K: within, every change of this sweep
 * was within the tolerance; plain, its largest plain change, and
 * prev_plain the previous sweep's (+Inf when not measured; a fixed K needs
 * them, adaptive K does not). */
static inline PICARD_HOST_DEVICE enum picard_sweep_verdict
picard_sweep_verdict(int i, int K, bool adaptive, bool within, float plain,
		     float prev_plain)
{
	if (adaptive) {
		if (within)
			return PICARD_SWEEP_CONVERGED;
		return i + 1 >= K ? PICARD_SWEEP_NOT_CONVERGED : PICARD_SWEEP_GO_ON;
	}
	if (i + 1 < K)
		return PICARD_SWEEP_GO_ON;
	return !within && i > 0 && !(plain < prev_plain) ?
		PICARD_SWEEP_NOT_CONVERGED : PICARD_SWEEP_CONVERGED;
}

#endif
