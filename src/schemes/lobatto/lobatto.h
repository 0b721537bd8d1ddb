/* lobatto.h - the Gauss-Lobatto-Legendre collocation window of the lobatto
 * scheme: nodes, weights, the spectral integration matrix S and the
 * extrapolation matrix of the warm start, built once on the host in double
 * (src/schemes/lobatto/lobatto.c), and the same tables scaled to a window and rounded to
 * the solve's precision for both backends (so the CPU backend and the CUDA
 * kernel multiply by bitwise the same numbers).
 *
 * On [-1, 1], m nodes tau_0 = -1 < tau_1 < ... < tau_{m-1} = 1: the ends and
 * the m-2 roots of P'_{m-1} (P_k: Legendre polynomials). L_l is the
 * Lagrange basis polynomial of node l (degree m-1). A window [t_w, t_w + H]
 * maps t = t_w + (tau + 1) H/2, and one Picard sweep is
 *
 *	x_j = x_w + (H/2) sum_l S_jl f(t_l, x_l),  S_jl = int_{-1}^{tau_j} L_l,
 *
 * whose fixed point is the Lobatto IIIA collocation method, order 2m-2
 * (Hairer & Wanner, Solving ODEs II, 2nd ed., section IV.5; the iteration:
 * Bai & Junkins, "Modified Chebyshev-Picard iteration methods", J. Astronaut.
 * Sci. 59 (2012), with Chebyshev in place of Legendre nodes).
 */
#ifndef PICARD_LOBATTO_H
#define PICARD_LOBATTO_H

#include <stdbool.h>

#include "picard.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PICARD_LOBATTO_MAX_M 32 /* one warp's lanes, one node each */
/* Windows in flight at most: a group of lanes each in a block of at most 512
 * threads (lobatto_time_kernel.cuh's bound, which keeps a thread's
 * registers for kepler in double unspilled). */
#define PICARD_LOBATTO_MAX_IN_FLIGHT 16
/* Threads a block of the windows-in-flight kernels holds at most (their
 * __launch_bounds__): the paper layout's P windows of G n threads fit. */
#define PICARD_LOBATTO_TIME_THREADS 512

/* The window on [-1, 1] for m nodes, all in double. */
struct picard_lobatto {
	int m;                                   /* nodes, 2..32 */
	double tau[PICARD_LOBATTO_MAX_M];        /* nodes, ascending */
	double weight[PICARD_LOBATTO_MAX_M];     /* quadrature weights, sum 2 */
	/* L_l = sum_k coef[l*m + k] P_k (k < m): the Legendre expansion S
	 * is built from, kept for dense output (src/schemes/dense_output.h) */
	double coef[PICARD_LOBATTO_MAX_M * PICARD_LOBATTO_MAX_M];
	/* S[j*m + l] = int_{-1}^{tau_j} L_l(s) ds; row 0 is zero and row m-1
	 * the weights */
	double S[PICARD_LOBATTO_MAX_M * PICARD_LOBATTO_MAX_M];
	/* E[j*m + l] = L_l(tau_j + 2): the polynomial through one window's
	 * nodes evaluated at the next window's (extrapolation, warm start);
	 * for m > 12 that polynomial cut to degree 11 first (its
	 * interpolant at the 12 Gauss-Lobatto points; lobatto.c says why).
	 * Row 0 is the unit vector of node m-1 exactly */
	double E[PICARD_LOBATTO_MAX_M * PICARD_LOBATTO_MAX_M];
	/* the same for float solves, cut to degree 5 for m > 6 */
	double E_float[PICARD_LOBATTO_MAX_M * PICARD_LOBATTO_MAX_M];
};

/* Nodes (Newton on (1 - x^2) P'_{m-1}), weights 2 / (m (m-1) P_{m-1}^2),
 * S (exact integrals of the Legendre expansion of each L_l) and E.
 * PICARD_EINVAL for m outside 2..32. */
int picard_lobatto_build(int m, struct picard_lobatto *lob);

/* The same window with Radau IIA's nodes (the newton-radau scheme): tau_0 =
 * -1 the window's start, not a collocation node, and tau_1 < ... < tau_{m-1}
 * = 1 the s = m-1 right Radau points (the roots of P_s - P_{s-1}); L_l is
 * the stages' Lagrange basis (degree s-1; column and coef row 0 zero), so
 * x_j = x_w + (H/2) sum_{l>=1} S_jl f_l is Radau IIA collocation with s
 * stages: order 2s-1 = 2m-3, stiffly accurate and L-stable (Hairer &
 * Wanner, Solving ODEs II, IV.5 and IV.8). The weights are Radau's
 * (w_s = 2/s^2, w_l = (1 + tau_l) / (s^2 P_{s-1}(tau_l)^2)); E extrapolates
 * the polynomial through all m nodes. Dense output's rule (picard_lobatto_
 * dense_weights) is then the collocation polynomial of degree s.
 * PICARD_EINVAL for m outside 2..32. */
int picard_radau_build(int m, struct picard_lobatto *lob);

/* The tables of one window of length H in the solve's precision (float
 * when !is_double), row stride `stride` (>= m; entries past m are left
 * alone): A = (real)(H/2 * S) and X = (real)E (E_float for float), each
 * stored [j][l], or
 * [l][j] when transposed (the CUDA kernel's layout: lanes j read
 * consecutive words); offset[j] = (tau_j + 1) H/2 in double, the node's
 * time from the window start. Any output may be NULL. */
void picard_lobatto_tables(const struct picard_lobatto *lob, double H,
			   bool is_double, int stride, bool transposed,
			   void *A, void *X, double *offset);

/* Dense output's weights for ntimes times of grid (a lobatto grid of
 * lob's m nodes): out[r*m + l] = (H/2) int_{-1}^{tau_r} L_l, tau_r where
 * times[r] lies in the window that holds it (picard_grid_window), in the
 * solve's precision (float when !is_double). The state at times[r] is
 * then x_w + sum_l out[r*m + l] f_l (src/schemes/dense_output.h): the same
 * numbers for the CPU backend and the kernels, computed once per solve
 * instead of once per trajectory. */
void picard_lobatto_dense_weights(const struct picard_lobatto *lob, const picard_grid *grid,
				  const double *times, long ntimes, bool is_double, void *out);

#ifdef __cplusplus
}
#endif

#endif
