/* dense_output.h - states between window ends (a picard_record of times):
 * which window holds a time, and how that window's nodes are interpolated
 * there. One definition for the CPU backend, the CUDA kernels and
 * picard_grid_window(), so all of them agree on every boundary.
 *
 * A time t belongs to the first window w whose end (the start of window
 * w+1, computed as the kernels compute it) is >= t: t0 to window 0, a
 * window end to the window it ends, and anything past the last window's
 * computed end (rounding near t1) to the last window.
 *
 * Interpolation, from the window's final iterate and no right-hand side
 * evaluation:
 * - trapezoid: linear between the two nodes around t. The scheme is of
 *   order 2 and so is this (error h^2/8 |x''|), where a polynomial through
 *   m equally spaced nodes would not be stable for large m.
 * - lobatto: the collocation polynomial of the window, degree m,
 *   u(t) = x_w + (H/2) sum_l (int_{-1}^{tau} L_l) f_l, tau = 2 (t - t_w)/H
 *   - 1, with the f_l of the window's last sweep: at the nodes it is the
 *   final iterate, in between it is off by O(H^(m+1)) locally (stage order
 *   m: E. Hairer, S. P. Norsett, G. Wanner, Solving ODEs I, 2nd ed.,
 *   Theorem II.7.10), while the window ends keep order 2m-2. (The degree
 *   m-1 interpolant of the node values would lose one order: measured m
 *   on the oscillator.) The integrals come from each L_l's Legendre
 *   expansion, the one S is built from (src/lobatto.c); the sum is added
 *   to x_w once, as in a sweep.
 */
#ifndef PICARD_DENSE_OUTPUT_H
#define PICARD_DENSE_OUTPUT_H

#include <math.h>
#include <stdbool.h>

#ifdef __CUDACC__
#define PICARD_DENSE_HD __host__ __device__
#else
#define PICARD_DENSE_HD
#endif

/* Start of window w, exactly as the kernels and the CPU backend compute it:
 * t0 + w H (lobatto), t0 + w (m-1) h (trapezoid). */
static inline PICARD_DENSE_HD double picard_window_start(bool lobatto, double t0, int m,
							double h, double window, long w)
{
	return lobatto ? t0 + (double)w * window : t0 + (double)w * (m - 1) * h;
}

/* The largest time window w holds: the start of window w+1, or +Inf for
 * the last of windows. */
static inline PICARD_DENSE_HD double picard_window_last_time(bool lobatto, double t0, int m,
							    double h, double window,
							    long w, long windows)
{
	return w + 1 < windows ? picard_window_start(lobatto, t0, m, h, window, w + 1) :
				 (double)INFINITY;
}

/* Trapezoid: the node q (0 .. m-2) that starts the segment holding s = t -
 * t_w, and in *frac where s lies in it, (s - q h) / h. */
static inline PICARD_DENSE_HD int picard_trapezoid_segment(double s, double h, int m,
							  double *frac)
{
	const double u = s / h;
	int q = (int)u;

	q = q < 0 ? 0 : q > m - 2 ? m - 2 : q;
	*frac = u - q;
	return q;
}

/* Lobatto: int_{-1}^{at} L_l(s) ds from L_l's Legendre coefficients
 * coef[0 .. m-1] (L_l = sum_k coef[k] P_k), with int_{-1}^{x} P_0 = x + 1
 * and int_{-1}^{x} P_k = (P_{k+1}(x) - P_{k-1}(x)) / (2k+1); the P_k by
 * their three-term recurrence. S_jl of lobatto.h is this at tau_j. */
static inline PICARD_DENSE_HD double picard_lobatto_integral(const double *coef, int m,
							     double at)
{
	double p_prev = 1, p = at; /* P_{k-1}(at), P_k(at) */
	double integral = coef[0] * (at + 1);

	for (int k = 1; k < m; k++) {
		const double p_next = ((2 * k + 1) * at * p - k * p_prev) / (k + 1);

		integral += coef[k] * (p_next - p_prev) / (2 * k + 1);
		p_prev = p;
		p = p_next;
	}
	return integral;
}

#endif
