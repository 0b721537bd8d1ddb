/* cg.c - preconditioned conjugate gradients (Hestenes & Stiefel; the
 * preconditioned form as in Saad, Iterative Methods for Sparse Linear
 * Systems, 2nd ed., Algorithm 9.1) for a symmetric positive definite A.
 * It refuses a matrix that is not symmetric, and stops at a search
 * direction with p^T A p <= 0, which no SPD matrix has: negative is a
 * matrix that is not positive definite, zero to rounding a singular one
 * (or one too ill-conditioned for double). */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "linsolve/krylov_run.h"

/* The matrix symmetry CG asks of A, relative per entry. */
#define SYMMETRY_RTOL 1e-12

static picard_linsolve_code cg_solve(const picard_sparse *a, const picard_precond *pc,
				     const double *b, double *x, const picard_krylov_options *opt,
				     picard_krylov_result *result)
{
	krylov_run run;
	picard_linsolve_code code = krylov_begin(&run, "cg", a, pc, b, x, opt, result);
	int n = run.n, row, col, iter = 0;
	double *r, *z, *p, *ap, rz, a_norm;

	if (code != PICARD_LINSOLVE_OK || krylov_converged(&run))
		return code != PICARD_LINSOLVE_OK ? code : krylov_end(&run, code, 0, NULL);
	if (!picard_sparse_symmetric(a, SYMMETRY_RTOL, &row, &col))
		return krylov_end(&run, PICARD_LINSOLVE_NOT_SPD, 0,
				  "not symmetric: a(%d,%d) = %.6g, a(%d,%d) = %.6g", row, col,
				  picard_sparse_entry(a, row, col), col, row,
				  picard_sparse_entry(a, col, row));
	r = malloc(sizeof(double) * 4 * n);
	if (!r)
		return krylov_end(&run, PICARD_LINSOLVE_NO_MEMORY, 0, "%d unknowns", n);
	z = r + n, p = z + n, ap = p + n;
	a_norm = picard_sparse_norm_inf(a);
	for (int i = 0; i < n; i++)
		r[i] = run.residual[i];
	pc->type->apply(pc, r, z);
	for (int i = 0; i < n; i++)
		p[i] = z[i];
	rz = krylov_dot(n, r, z);
	code = PICARD_LINSOLVE_NOT_CONVERGED;
	while (iter < run.max_iters) {
		double pap, p_norm, curvature_floor, alpha, rz_next;

		iter++;
		picard_sparse_spmv(a, p, ap);
		pap = krylov_dot(n, p, ap);
		if (!isfinite(pap) || !isfinite(rz)) {
			code = krylov_end(&run, PICARD_LINSOLVE_NONFINITE, iter,
					  "p^T A p = %g: the iteration overflowed (A singular or "
					  "too ill-conditioned)",
					  pap);
			break;
		}
		/* curvature zero to rounding against |A| |p|^2: singular */
		p_norm = sqrt(krylov_dot(n, p, p));
		curvature_floor = n * DBL_EPSILON * a_norm * p_norm * p_norm;
		if (pap < -curvature_floor) {
			code = krylov_end(&run, PICARD_LINSOLVE_NOT_SPD, iter,
					  "p^T A p = %.3g <= 0 for a search direction p", pap);
			break;
		}
		if (pap <= curvature_floor) {
			code = krylov_end(&run, PICARD_LINSOLVE_SINGULAR, iter,
					  "p^T A p = %.3g, zero against |A| |p|^2 = %.3g for a "
					  "search direction p",
					  pap, a_norm * p_norm * p_norm);
			break;
		}
		alpha = rz / pap;
		krylov_axpy(n, alpha, p, x);
		krylov_axpy(n, -alpha, ap, r);
		if (sqrt(krylov_dot(n, r, r)) <= run.rtol * run.b_norm && krylov_converged(&run)) {
			code = krylov_end(&run, PICARD_LINSOLVE_OK, iter, NULL);
			break;
		}
		pc->type->apply(pc, r, z);
		rz_next = krylov_dot(n, r, z);
		if (!(rz_next > 0)) {
			code = krylov_end(&run, PICARD_LINSOLVE_BREAKDOWN, iter,
					  "r^T M^-1 r = %.3g <= 0: the preconditioner is not "
					  "positive definite for this matrix",
					  rz_next);
			break;
		}
		for (int i = 0; i < n; i++)
			p[i] = z[i] + rz_next / rz * p[i];
		rz = rz_next;
	}
	if (code == PICARD_LINSOLVE_NOT_CONVERGED)
		code = krylov_end(&run, code, iter, NULL);
	free(r);
	return code;
}

const picard_krylov_type picard_krylov_cg = {
	.name = "cg",
	.summary = "preconditioned conjugate gradients, for symmetric positive definite A",
	.needs_spd = true,
	.solve = cg_solve,
};
