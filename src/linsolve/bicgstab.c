/* bicgstab.c - BiCGStab with right preconditioning (van der Vorst 1992;
 * Saad, Iterative Methods for Sparse Linear Systems, 2nd ed., Algorithm
 * 7.7 with M^-1 applied to p and s), for a general nonsingular A. Its
 * recurrences divide by (r0, r), (r0, A p) and (t, t); a zero one is a
 * breakdown, and A p = 0 or A s = 0 for a nonzero direction is a
 * singular matrix. */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "linsolve/krylov_run.h"

/* Whether A v = 0 to rounding for v (av = A v). */
static bool annihilated(int n, double a_norm, const double *v, const double *av)
{
	double v_norm = sqrt(krylov_dot(n, v, v));

	return v_norm > 0 && sqrt(krylov_dot(n, av, av)) <= n * DBL_EPSILON * a_norm * v_norm;
}

/* The preconditioned direction and its product, dir_hat = M^-1 dir and
 * a_dir_hat = A dir_hat; whether A annihilates it (a singular A). */
static bool precondition_and_multiply(const picard_sparse *a, const picard_precond *pc,
				      double a_norm, const double *dir, double *dir_hat,
				      double *a_dir_hat)
{
	pc->type->apply(pc, dir, dir_hat);
	picard_sparse_spmv(a, dir_hat, a_dir_hat);
	return annihilated(a->n, a_norm, dir_hat, a_dir_hat);
}

static picard_linsolve_code bicgstab_solve(const picard_sparse *a, const picard_precond *pc,
					   const double *b, double *x,
					   const picard_krylov_options *opt,
					   picard_krylov_result *result)
{
	krylov_run run;
	picard_linsolve_code code = krylov_begin(&run, "bicgstab", a, pc, b, x, opt, result);
	int n = run.n, iter = 0;
	double *r, *r0, *p, *v, *s, *t, *p_hat, *s_hat;
	double rho = 1, alpha = 1, omega = 1, a_norm;

	if (code != PICARD_LINSOLVE_OK || krylov_converged(&run))
		return code != PICARD_LINSOLVE_OK ? code : krylov_end(&run, code, 0, NULL);
	r = calloc(8 * (size_t)n, sizeof(double));
	if (!r)
		return krylov_end(&run, PICARD_LINSOLVE_NO_MEMORY, 0, "%d unknowns", n);
	r0 = r + n, p = r0 + n, v = p + n, s = v + n, t = s + n, p_hat = t + n, s_hat = p_hat + n;
	a_norm = picard_sparse_norm_inf(a);
	for (int i = 0; i < n; i++)
		r[i] = r0[i] = run.residual[i];
	code = PICARD_LINSOLVE_NOT_CONVERGED;
	while (iter < run.max_iters) {
		double rho_next = krylov_dot(n, r0, r), r0v, tt;

		iter++;
		if (!isfinite(rho_next)) {
			code = krylov_end(&run, PICARD_LINSOLVE_NONFINITE, iter, "(r0, r) = %g",
					  rho_next);
			break;
		}
		if (rho_next == 0) {
			code = krylov_end(&run, PICARD_LINSOLVE_BREAKDOWN, iter, "(r0, r) = 0");
			break;
		}
		for (int i = 0; i < n; i++)
			p[i] = r[i] + rho_next / rho * alpha / omega * (p[i] - omega * v[i]);
		rho = rho_next;
		if (precondition_and_multiply(a, pc, a_norm, p, p_hat, v)) {
			code = krylov_end(&run, PICARD_LINSOLVE_SINGULAR, iter,
					  "A p = 0 for a search direction p");
			break;
		}
		r0v = krylov_dot(n, r0, v);
		if (r0v == 0 || !isfinite(r0v)) {
			code = krylov_end(&run, PICARD_LINSOLVE_BREAKDOWN, iter, "(r0, A p) = %g", r0v);
			break;
		}
		alpha = rho / r0v;
		for (int i = 0; i < n; i++)
			s[i] = r[i] - alpha * v[i];
		krylov_axpy(n, alpha, p_hat, x);
		if (sqrt(krylov_dot(n, s, s)) <= run.rtol * run.b_norm && krylov_converged(&run)) {
			code = krylov_end(&run, PICARD_LINSOLVE_OK, iter, NULL);
			break;
		}
		if (precondition_and_multiply(a, pc, a_norm, s, s_hat, t)) {
			code = krylov_end(&run, PICARD_LINSOLVE_SINGULAR, iter,
					  "A s = 0 for a nonzero s");
			break;
		}
		tt = krylov_dot(n, t, t);
		omega = tt > 0 ? krylov_dot(n, t, s) / tt : 0;
		krylov_axpy(n, omega, s_hat, x);
		for (int i = 0; i < n; i++)
			r[i] = s[i] - omega * t[i];
		if (sqrt(krylov_dot(n, r, r)) <= run.rtol * run.b_norm && krylov_converged(&run)) {
			code = krylov_end(&run, PICARD_LINSOLVE_OK, iter, NULL);
			break;
		}
		if (omega == 0 || !isfinite(omega)) {
			code = krylov_end(&run, PICARD_LINSOLVE_BREAKDOWN, iter, "omega = %g", omega);
			break;
		}
	}
	if (code == PICARD_LINSOLVE_NOT_CONVERGED)
		code = krylov_end(&run, code, iter, NULL);
	free(r);
	return code;
}

const picard_krylov_type picard_krylov_bicgstab = {
	.name = "bicgstab",
	.summary = "BiCGStab, right-preconditioned, for a general nonsingular A",
	.needs_spd = false,
	.solve = bicgstab_solve,
};
