/* window_plausible.h - whether a converged window of an iterated scheme is
 * a plausible solution, a rule the host and the kernels share (plain C,
 * host and device).
 *
 * A root of a window's equations can be no solution of the ODE at all:
 * Lobatto IIIA (the newton scheme) over a window with H |lambda| >> 1 on a
 * stiff component is A-stable but not L-stable (R(-inf) = +-1), so the
 * component's transient never damps: robertson at H = 500 keeps y2 at
 * +-4e-6 from window to window, and y3' = k3 y2^2 drives x1 to -34 by
 * t = 1e5, every window converged. A window across a pole (riccati at
 * t = 1) converges too, to a polynomial through it. In both the nodes'
 * slopes are far larger than the window's motion: H |f(X_l)| of the
 * ghost is ~ 600 times its motion. A window of the solution moves about as
 * its slopes say (an oscillation's by H omega at most, under 3 on the
 * suite's models: oscillator at H omega = 6, kepler, lotka, hires and
 * robertson under newton-radau). A window is plausible when
 *
 *	H max_{l >= 1} |f(X_l)| <= PLAUSIBLE_SLOPES (max_l |X_l - X_0| +
 *	                                             atol + rtol |X_0|)
 *
 * (infinity norms; X_0 the start, given, so its slope is not the root's;
 * atol, rtol the iteration's tolerances, so a window at rest is judged by
 * what the iteration resolves).
 *
 * The Picard-iterated schemes (lobatto, trapezoid, imex) need no such
 * test: a sweep's fixed point is reached only where the sweep contracts,
 * H rho(A (x) J) < 1 at the root, where the collocation polynomial is the
 * solution's (the ghost needs H |lambda| >> 1, a pole an unbounded J),
 * and imex takes A's stiffness by L-stable linear solves. Their windows
 * there end nonfinite, diverged or not-converged
 * (stiff/picard_windows_where_newton_finds_ghosts_fail_or_are_right). */
#ifndef PICARD_WINDOW_PLAUSIBLE_H
#define PICARD_WINDOW_PLAUSIBLE_H

#include <math.h>
#include <stdbool.h>

#ifdef __CUDACC__
#define PICARD_PLAUSIBLE_HD __host__ __device__
#else
#define PICARD_PLAUSIBLE_HD
#endif

/* Slopes may move a window this many times its motion. The solution's
 * windows: at most 2.9 measured (the oscillator at H omega = 6, m = 32);
 * van der Pol's relaxation jumps inside a window 57 (a run that also ends
 * not-converged), a ghost 670, a pole's window 1e11. */
#define PICARD_PLAUSIBLE_SLOPES 32

/* The largest |f| of the m nodes' slopes F (m*n) past the start. */
static inline PICARD_PLAUSIBLE_HD double picard_window_slope(const double *F, int n, int m)
{
	double slope = 0;

	for (int e = n; e < m * n; e++)
		slope = fabs(F[e]) > slope || isnan(F[e]) ? fabs(F[e]) : slope;
	return slope;
}

/* The window's start's size, max |X_0|, and its motion, max_l |X_l - X_0|
 * (infinity norms), of nodes X (m*n). */
static inline PICARD_PLAUSIBLE_HD void picard_window_motion(const double *X, int n, int m,
							    double *start, double *moved)
{
	*start = *moved = 0;
	for (int k = 0; k < n; k++)
		*start = fmax(*start, fabs(X[k]));
	for (int l = 1; l < m; l++)
		for (int k = 0; k < n; k++)
			*moved = fmax(*moved, fabs(X[l * n + k] - X[k]));
}

/* Whether the window of length H, nodes X (m*n, X_0 its start) whose
 * slopes past the start are at most slope (picard_window_slope), is
 * plausible; a slope not finite never is. */
static inline PICARD_PLAUSIBLE_HD bool picard_window_plausible(double H, double slope,
							       const double *X, int n, int m,
							       double atol, double rtol)
{
	double start, moved;

	picard_window_motion(X, n, m, &start, &moved);
	return H * slope <= PICARD_PLAUSIBLE_SLOPES * (moved + atol + rtol * start);
}

#endif
