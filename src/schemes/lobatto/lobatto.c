/* lobatto.c - Gauss-Lobatto-Legendre nodes, weights, spectral integration
 * matrix and extrapolation matrix of the lobatto scheme (see lobatto.h).
 *
 * Choices, in double, once per solver:
 * - Nodes: Newton's iteration x <- x - (x P_N - P_{N-1}) / ((N+1) P_N),
 *   N = m-1, from the Chebyshev-Gauss-Lobatto points cos(pi j / N); its
 *   fixed points are the zeros of (1 - x^2) P'_N, i.e. the two ends and the
 *   roots of P'_N (the iteration of G. von Winckel's lglnodes; C. Canuto,
 *   M. Y. Hussaini, A. Quarteroni, T. A. Zang, Spectral Methods:
 *   Fundamentals in Single Domains, Springer 2006, section 2.3). The result
 *   is made exactly symmetric and the ends exactly -1 and 1.
 * - Weights: w_l = 2 / (N (N+1) P_N(tau_l)^2) (ibid.).
 * - S: each Lagrange basis polynomial L_l (degree N) expanded in Legendre
 *   polynomials, L_l = sum_k c_lk P_k with c_lk = w_l P_k(tau_l) / g_k,
 *   g_k = 2/(2k+1) for k < N and g_N = 2/N (the discrete norm of P_N on
 *   these nodes; Canuto et al. eq. (2.3.13)): exact, since the Lobatto
 *   quadrature integrates L_l P_k (degree <= 2N-1) exactly for k < N. Then
 *   int_{-1}^{x} P_0 = x + 1 and int_{-1}^{x} P_k = (P_{k+1}(x) -
 *   P_{k-1}(x)) / (2k+1) for k >= 1, evaluated at the nodes.
 * - E: L_l(tau_j + 2) from the product formula (no division by tiny
 *   differences: the nodes are at least ~1/N^2 apart). Extrapolation to a
 *   whole window ahead amplifies rounding by max_j sum_l |E_jl|, which
 *   grows like 5.8^N (1.2e5 at m = 8, 1.6e11 at m = 16, 2.9e23 at m = 32:
 *   lotka's warm start went non-finite at m = 32). So for m > c nodes
 *   the previous window's polynomial is first interpolated at the c
 *   Gauss-Lobatto points (well conditioned) and that polynomial of degree
 *   c-1 is extrapolated: E = E_c P. c = 12 for double solves (E's
 *   amplification at most ~1e8), 6 for float (~3e3): float rounding makes
 *   a high-degree guess worse than a low one. Row 0 stays the unit vector
 *   of node m-1 exactly.
 */
#include <math.h>
#include <string.h>

#include "dense_output.h"
#include "errors.h"
#include "lobatto.h"

#define PI 3.14159265358979323846
/* Nodes of the largest polynomial the warm start extrapolates, by
 * precision (measured on the CPU, sweeps per window with --warm-start:
 * double, lotka m = 32 H = 2: cut to 5 nodes 9.3, 8 7.1, 10 5.7, 12 5.0,
 * 14 5.3, 16 6.2; kepler m = 16 H = 0.3: 8 8.5, 12 7.3, 14 7.3. Float,
 * lotka m = 16 H = 2: 5 4.1, 6 3.7, 8 4.5, 10 5.5, 12 6.4, 14
 * non-finite; m = 8: 6 3.7, 8 (no cut) 4.5) */
#define WARM_NODES_DOUBLE 12
#define WARM_NODES_FLOAT 6

/* P_0(x) .. P_{count-1}(x) by the three-term recurrence. */
static void legendre(double x, int count, double *P)
{
	P[0] = 1;
	if (count > 1)
		P[1] = x;
	for (int k = 2; k < count; k++)
		P[k] = ((2 * k - 1) * x * P[k - 1] - (k - 1) * P[k - 2]) / k;
}

/* Nodes and weights of m >= 2 points. */
static void lobatto_nodes(int m, double *tau, double *weight)
{
	const int N = m - 1;
	double P[PICARD_LOBATTO_MAX_M + 1];

	for (int j = 0; j < m; j++) {
		/* descending from cos(0) = 1; stored ascending below */
		double x = cos(PI * j / N), previous;

		for (int iter = 0; iter < 100; iter++) {
			legendre(x, N + 1, P);
			previous = x;
			x -= (x * P[N] - P[N - 1]) / ((N + 1) * P[N]);
			if (fabs(x - previous) <= 1e-16)
				break;
		}
		tau[N - j] = x;
	}
	tau[0] = -1;
	tau[N] = 1;
	for (int j = 0; j < m / 2; j++) {
		double mean = 0.5 * (tau[N - j] - tau[j]);

		tau[j] = -mean;
		tau[N - j] = mean;
	}
	if (m % 2)
		tau[N / 2] = 0;
	for (int j = 0; j < m; j++) {
		legendre(tau[j], N + 1, P);
		weight[j] = 2.0 / (N * (N + 1) * P[N] * P[N]);
	}
}

/* L_l(x) of the count nodes tau, by the product formula. */
static double lagrange(int count, const double *tau, int l, double x)
{
	double value = 1;

	for (int i = 0; i < count; i++)
		if (i != l)
			value *= (x - tau[i]) / (tau[l] - tau[i]);
	return value;
}

/* E[j*m + l]: the previous window's polynomial (values at tau) at the next
 * window's nodes tau_j + 2, cut to degree at most cap-1 (see the head of
 * this file). */
static void extrapolation(int m, const double *tau, int cap, double *E)
{
	double coarse[PICARD_LOBATTO_MAX_M], weight[PICARD_LOBATTO_MAX_M];

	if (m <= cap) {
		for (int j = 0; j < m; j++)
			for (int l = 0; l < m; l++)
				E[j * m + l] = lagrange(m, tau, l, tau[j] + 2);
		return;
	}
	lobatto_nodes(cap, coarse, weight);
	for (int j = 0; j < m; j++)
		for (int l = 0; l < m; l++) {
			double sum = 0;

			for (int i = 0; i < cap; i++)
				sum += lagrange(cap, coarse, i, tau[j] + 2) *
				       lagrange(m, tau, l, coarse[i]);
			E[j * m + l] = sum;
		}
}

/* S from each basis polynomial's Legendre expansion (lob->coef), and E:
 * what both node families build from their nodes and expansions. */
static void integrals_and_extrapolation(struct picard_lobatto *lob)
{
	const int m = lob->m;

	for (int l = 0; l < m; l++)
		for (int j = 1; j < m; j++)
			lob->S[j * m + l] = picard_lobatto_integral(lob->coef + l * m, m,
								    lob->tau[j]);
	extrapolation(m, lob->tau, WARM_NODES_DOUBLE, lob->E);
	extrapolation(m, lob->tau, WARM_NODES_FLOAT, lob->E_float);
}

int picard_lobatto_build(int m, struct picard_lobatto *lob)
{
	const int N = m - 1;
	double P[PICARD_LOBATTO_MAX_M + 1]; /* P_k(tau_l), k <= N */

	if (m < 2 || m > PICARD_LOBATTO_MAX_M)
		return picard_fail(PICARD_EINVAL, "lobatto: m = %d nodes, need 2..%d", m,
				   PICARD_LOBATTO_MAX_M);
	memset(lob, 0, sizeof(*lob));
	lob->m = m;
	lobatto_nodes(m, lob->tau, lob->weight);

	for (int l = 0; l < m; l++) {
		legendre(lob->tau[l], N + 1, P);
		for (int k = 0; k <= N; k++) {
			double norm = k < N ? 2.0 / (2 * k + 1) : 2.0 / N;

			lob->coef[l * m + k] = lob->weight[l] * P[k] / norm;
		}
	}
	integrals_and_extrapolation(lob);
	return PICARD_OK;
}

/* P_k(x) and P'_k(x), k < count: P'_k = P'_{k-2} + (2k-1) P_{k-1}, with no
 * division by 1 - x^2 (the Radau points reach x = 1). */
static void legendre_slopes(double x, int count, double *P, double *dP)
{
	legendre(x, count, P);
	dP[0] = 0;
	if (count > 1)
		dP[1] = 1;
	for (int k = 2; k < count; k++)
		dP[k] = dP[k - 2] + (2 * k - 1) * P[k - 1];
}

int picard_radau_build(int m, struct picard_lobatto *lob)
{
	const int s = m - 1; /* stages */
	double P[PICARD_LOBATTO_MAX_M + 1], dP[PICARD_LOBATTO_MAX_M + 1];

	if (m < 2 || m > PICARD_LOBATTO_MAX_M)
		return picard_fail(PICARD_EINVAL, "radau: m = %d nodes, need 2..%d", m,
				   PICARD_LOBATTO_MAX_M);
	memset(lob, 0, sizeof(*lob));
	lob->m = m;
	lob->tau[0] = -1;
	/* the stages: the roots of P_s - P_{s-1}, from cos(2 pi j / (2s - 1))
	 * (j = 0 is the root x = 1 itself), stored ascending */
	for (int j = 1; j < s; j++) {
		double x = cos(2 * PI * j / (2 * s - 1)), previous;

		for (int iter = 0; iter < 100; iter++) {
			legendre_slopes(x, s + 1, P, dP);
			previous = x;
			x -= (P[s] - P[s - 1]) / (dP[s] - dP[s - 1]);
			if (fabs(x - previous) <= 1e-16)
				break;
		}
		lob->tau[s - j] = x;
	}
	lob->tau[s] = 1;
	for (int l = 1; l <= s; l++) {
		legendre(lob->tau[l], s + 1, P);
		lob->weight[l] = l == s ? 2.0 / ((double)s * s) :
			(1 + lob->tau[l]) / ((double)s * s * P[s - 1] * P[s - 1]);
		/* the stages' Lagrange basis (degree s-1) in Legendre
		 * polynomials: Radau's quadrature is exact to degree 2s-2 */
		for (int k = 0; k < s; k++)
			lob->coef[l * m + k] = lob->weight[l] * P[k] * (2 * k + 1) / 2.0;
	}
	integrals_and_extrapolation(lob); /* column 0: coef row 0 is zero */
	return PICARD_OK;
}

void picard_lobatto_tables(const struct picard_lobatto *lob, double H,
			   bool is_double, int stride, bool transposed,
			   void *A, void *X, double *offset)
{
	const int m = lob->m;

	for (int j = 0; j < m; j++) {
		if (offset)
			offset[j] = 0.5 * H * (lob->tau[j] + 1);
		for (int l = 0; l < m; l++) {
			const int at = transposed ? l * stride + j : j * stride + l;
			const double a = 0.5 * H * lob->S[j * m + l];
			const double x = is_double ? lob->E[j * m + l] : lob->E_float[j * m + l];

			if (is_double) {
				if (A)
					((double *)A)[at] = a;
				if (X)
					((double *)X)[at] = x;
			} else {
				if (A)
					((float *)A)[at] = (float)a;
				if (X)
					((float *)X)[at] = (float)x;
			}
		}
	}
}

void picard_lobatto_dense_weights(const struct picard_lobatto *lob, const picard_grid *grid,
				  const double *times, long ntimes, bool is_double, void *out)
{
	const int m = lob->m;

	for (long r = 0; r < ntimes; r++) {
		const long w = picard_grid_window(grid, times[r]);
		const double tw = picard_window_start(true, grid->t0, m, grid->h, grid->window, w);
		const double at = 2 * (times[r] - tw) / grid->window - 1;

		for (int l = 0; l < m; l++) {
			const double b = 0.5 * grid->window *
					 picard_lobatto_integral(lob->coef + l * m, m, at);

			if (is_double)
				((double *)out)[r * m + l] = b;
			else
				((float *)out)[r * m + l] = (float)b;
		}
	}
}
