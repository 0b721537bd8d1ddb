/* adi.c - Peaceman-Rachford alternating-direction implicit iteration for
 * M y = r, M = I - gamma h A with A a five-point stencil (sparse.h), over
 * a tridiagonal method's batches of lines (Peaceman & Rachford, "The
 * numerical solution of parabolic and elliptic differential equations",
 * J. SIAM 3 (1955) 28-41, equations (15)-(16) with the iteration
 * parameters of their section 4; the ADI solver of the checkerboard
 * papers, Zolfaghari & Foadaddini 2016, section 4, equations (8)-(10), and
 * 2018, equations (2)-(4), which stop on the residual as here, (5)).
 *
 * M = I + Px + Py, Px and Py the couplings across x and across y times
 * gamma h (each positive semi-definite for k >= 0). With H = I/2 + Px and
 * V = I/2 + Py, one iteration with parameter rho > 0 is
 *     (H + rho) y' = r - (V - rho) y      x lines, ny systems of nx
 *     (V + rho) y  = r - (H - rho) y'     y lines, nx systems of ny
 * and the parameters cycle geometrically over the spectra's bounds
 * [alpha, beta] of H and V, a ratio of 4 apart, so every eigencomponent
 * meets a parameter within a factor 2 of it and loses at least a factor 3
 * per cycle (for commuting H and V, constant k; variable k converges in
 * practice, and the true residual decides). */
#define _DEFAULT_SOURCE /* M_PI */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linsolve/implicit.h"

#define PARAMETER_RATIO 4.0
#define MAX_PARAMETERS 64

struct picard_adi {
	int nx, ny;
	/* gamma h k / d^2 to each neighbour, per unknown (a boundary face's
	 * counts on the diagonal; u = 0 past it) */
	double *west, *east, *south, *north;
	double *lower, *upper, *diag; /* a half-step's bands, n each */
	double *rhs, *half, *work;    /* n each (work: picard_adi_apply's own) */
	double rho[MAX_PARAMETERS];   /* the cycle */
	int nrho;
};

/* Px y or Py y into out (n): (w + e) y_p - w y_{p-1} - e y_{p+1}, the
 * neighbours step apart along lines of length len. */
static void couplings(const struct picard_adi *a, bool across_x, const double *y, double *out)
{
	const int n = a->nx * a->ny, step = across_x ? 1 : a->nx;
	const double *before = across_x ? a->west : a->south, *after = across_x ? a->east : a->north;

	for (int p = 0; p < n; p++) {
		const int along = across_x ? p % a->nx : p / a->nx;
		const int len = across_x ? a->nx : a->ny;
		double v = (before[p] + after[p]) * y[p];

		if (along > 0)
			v -= before[p] * y[p - step];
		if (along < len - 1)
			v -= after[p] * y[p + step];
		out[p] = v;
	}
}

void picard_adi_apply(const picard_implicit *s, const double *y, double *out)
{
	const struct picard_adi *a = s->adi;

	couplings(a, true, y, out);
	couplings(a, false, y, a->work);
	for (int p = 0; p < s->n; p++)
		out[p] += y[p] + a->work[p];
}

/* The relative residual of y for M y = r (picard_implicit_residual's
 * for a stencil in 2D), M y into work. */
static double residual(const picard_implicit *s, const double *r, const double *y, double *work)
{
	picard_adi_apply(s, y, work);
	return picard_relative_residual(s->n, r, work);
}

/* The cycle of parameters over [alpha, beta]: the smallest eigenvalue of
 * H or V is at least 1/2 + gamma h k_min 4/d^2 sin^2(pi/(2(len+1))) (the
 * constant-k line's, k at its least), the largest at most 1/2 + the
 * largest Gershgorin row sum of the couplings. */
static void parameters(struct picard_adi *a, const double *kx, const double *ky, double gamma_h,
		       double dx, double dy)
{
	const int nx = a->nx, ny = a->ny, n = nx * ny;
	double kmin = INFINITY, alpha, beta = 0;

	for (int i = 0; i < (nx + 1) * ny; i++)
		kmin = fmin(kmin, kx[i]);
	for (int i = 0; i < nx * (ny + 1); i++)
		kmin = fmin(kmin, ky[i]);
	kmin = fmax(kmin, 0);
	alpha = 0.5 + gamma_h * kmin *
		fmin(4 / (dx * dx) * pow(sin(M_PI / (2.0 * (nx + 1))), 2),
		     4 / (dy * dy) * pow(sin(M_PI / (2.0 * (ny + 1))), 2));
	for (int p = 0; p < n; p++)
		beta = fmax(beta, 2 * fmax(a->west[p] + a->east[p], a->south[p] + a->north[p]));
	beta += 0.5;
	a->nrho = (int)ceil(log(beta / alpha) / log(PARAMETER_RATIO));
	if (a->nrho < 1)
		a->nrho = 1;
	if (a->nrho > MAX_PARAMETERS)
		a->nrho = MAX_PARAMETERS;
	for (int j = 0; j < a->nrho; j++)
		a->rho[j] = alpha * pow(beta / alpha, (j + 0.5) / a->nrho);
}

picard_linsolve_code picard_adi_setup(picard_implicit *s, const double *params)
{
	const picard_operator *op = s->op;
	const int nx = op->nx, ny = op->ny, n = nx * ny;
	const double sx = s->gamma_h / (op->dx * op->dx), sy = s->gamma_h / (op->dy * op->dy);
	struct picard_adi *a = s->adi = calloc(1, sizeof(*a));
	double *kx, *ky;

	if (!a)
		return PICARD_LINSOLVE_NO_MEMORY;
	a->nx = nx, a->ny = ny;
	a->west = malloc(sizeof(double) * 10 * n);
	kx = malloc(sizeof(double) * ((size_t)(nx + 1) * ny + (size_t)nx * (ny + 1)));
	s->line_status = malloc(sizeof(*s->line_status) * (nx > ny ? nx : ny));
	if (!a->west || !kx || !s->line_status) {
		free(kx);
		return PICARD_LINSOLVE_NO_MEMORY;
	}
	a->east = a->west + n, a->south = a->east + n, a->north = a->south + n;
	a->lower = a->north + n, a->upper = a->lower + n, a->diag = a->upper + n;
	a->rhs = a->diag + n, a->half = a->rhs + n, a->work = a->half + n;
	ky = kx + (size_t)(nx + 1) * ny;
	op->k_faces(params, kx, ky);
	for (int j = 0; j < ny; j++)
		for (int i = 0; i < nx; i++) {
			const int p = i + nx * j;

			a->west[p] = sx * kx[i + (nx + 1) * j];
			a->east[p] = sx * kx[i + 1 + (nx + 1) * j];
			a->south[p] = sy * ky[i + nx * j];
			a->north[p] = sy * ky[i + nx * (j + 1)];
		}
	parameters(a, kx, ky, s->gamma_h, op->dx, op->dy);
	free(kx);
	return PICARD_LINSOLVE_OK;
}

/* One half-step: (D + rho) y_out = r - (1/2 - rho) y_in - P_other y_in
 * along lines across x (across_x) or y, D = I/2 + P_along. */
static picard_linsolve_code half_step(picard_implicit *s, bool across_x, double rho,
				      const double *r, const double *y_in, double *y_out)
{
	struct picard_adi *a = s->adi;
	const int n = s->n;
	const double *before = across_x ? a->west : a->south, *after = across_x ? a->east : a->north;
	const picard_tridiag_batch batch = {
		.lower = a->lower, .diag = a->diag, .upper = a->upper, .rhs = a->rhs, .x = y_out,
		.n = across_x ? a->nx : a->ny, .count = across_x ? a->ny : a->nx,
		.row_stride = across_x ? 1 : a->nx, .system_stride = across_x ? a->nx : 1,
	};

	couplings(a, !across_x, y_in, a->rhs);
	for (int p = 0; p < n; p++) {
		a->rhs[p] = r[p] - (0.5 - rho) * y_in[p] - a->rhs[p];
		a->lower[p] = -before[p];
		a->upper[p] = -after[p];
		a->diag[p] = 0.5 + rho + before[p] + after[p];
	}
	return s->type->tridiag->solve(s->type->tridiag, &batch, s->line_status);
}

picard_linsolve_code picard_adi_solve(picard_implicit *s, const double *r, double *y)
{
	struct picard_adi *a = s->adi;
	const char *name = s->type->tridiag->name;
	picard_linsolve_code code;
	int iter;

	/* a non-finite guess: start from zero */
	if (!isfinite(residual(s, r, y, a->half)))
		for (int p = 0; p < s->n; p++)
			y[p] = 0;
	for (iter = 0; iter < s->cfg.maxit; iter++) {
		const double rho = a->rho[iter % a->nrho];

		s->residual = residual(s, r, y, a->half);
		if (!isfinite(s->residual)) {
			s->iters = iter;
			snprintf(s->message, sizeof(s->message), "adi over %s (iteration %d): %s", name,
				 iter, picard_linsolve_strerror(PICARD_LINSOLVE_NONFINITE));
			for (int p = 0; p < s->n; p++)
				y[p] = NAN;
			return PICARD_LINSOLVE_NONFINITE;
		}
		if (s->residual <= s->cfg.rtol)
			break;
		code = half_step(s, true, rho, r, y, a->half);
		if (code == PICARD_LINSOLVE_OK)
			code = half_step(s, false, rho, r, a->half, y);
		if (code != PICARD_LINSOLVE_OK) {
			s->iters = iter + 1;
			snprintf(s->message, sizeof(s->message), "adi over %s (iteration %d): %s",
				 name, iter + 1, picard_linsolve_strerror(code));
			for (int p = 0; p < s->n; p++)
				y[p] = NAN;
			return code;
		}
	}
	s->iters = iter;
	if (iter == s->cfg.maxit)
		s->residual = residual(s, r, y, a->half);
	if (!(s->residual <= s->cfg.rtol)) {
		snprintf(s->message, sizeof(s->message), "adi over %s: %s after %d iterations: "
			 "residual %.3g > rtol %.3g", name,
			 picard_linsolve_strerror(PICARD_LINSOLVE_NOT_CONVERGED), iter, s->residual,
			 s->cfg.rtol);
		for (int p = 0; p < s->n; p++)
			y[p] = NAN;
		return PICARD_LINSOLVE_NOT_CONVERGED;
	}
	return PICARD_LINSOLVE_OK;
}

void picard_adi_release(picard_implicit *s)
{
	if (!s->adi)
		return;
	free(s->adi->west);
	free(s->adi);
	s->adi = NULL;
}
