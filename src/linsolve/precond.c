/* precond.c - the preconditioners (precond.h) and their list. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "linsolve/precond.h"

/* z = r: the solver unpreconditioned. */
static void apply_none(const picard_precond *pc, const double *r, double *z)
{
	memcpy(z, r, sizeof(double) * pc->a->n);
}

/* z = D^-1 r. */
static void apply_jacobi(const picard_precond *pc, const double *r, double *z)
{
	for (int i = 0; i < pc->a->n; i++)
		z[i] = pc->inv_diag[i] * r[i];
}

/* z = sum_{k=0}^{degree} (I - D^-1 A)^k D^-1 r, by Horner's rule:
 * z_0 = D^-1 r, z_{k+1} = z_k + D^-1 (r - A z_k) (degree Jacobi sweeps
 * on A z = r from zero). Gubaidullin & Nikiforov's polynomial
 * preconditioner; it converges to A^-1 r as degree grows where the
 * spectral radius of I - D^-1 A is below 1 (diagonal dominance). */
static void apply_neumann(const picard_precond *pc, const double *r, double *z)
{
	int n = pc->a->n;

	apply_jacobi(pc, r, z);
	for (int k = 0; k < pc->degree; k++) {
		picard_sparse_spmv(pc->a, z, pc->work);
		for (int i = 0; i < n; i++)
			z[i] += pc->inv_diag[i] * (r[i] - pc->work[i]);
	}
}

static const picard_precond_type precond_none = {
	.name = "none",
	.summary = "no preconditioning: z = r",
	.apply = apply_none,
};

static const picard_precond_type precond_jacobi = {
	.name = "jacobi",
	.summary = "Jacobi: z = D^-1 r, D the diagonal of A",
	.takes_diagonal = true,
	.apply = apply_jacobi,
};

static const picard_precond_type precond_neumann = {
	.name = "neumann",
	.summary = "Neumann polynomial: sum_{k<=degree} (I - D^-1 A)^k D^-1 r",
	.takes_diagonal = true,
	.apply = apply_neumann,
};

const picard_precond_type *const picard_precond_list[] = {
	&precond_none,
	&precond_jacobi,
	&precond_neumann,
	NULL,
};

const picard_precond_type *picard_precond_named(const char *name)
{
	for (int i = 0; name && picard_precond_list[i]; i++)
		if (strcmp(picard_precond_list[i]->name, name) == 0)
			return picard_precond_list[i];
	return NULL;
}

picard_linsolve_code picard_precond_setup(picard_precond *pc, const picard_precond_type *type,
					  const picard_sparse *a, int degree)
{
	int n = a->n;

	*pc = (picard_precond){ .type = type, .a = a, .degree = degree, .failed_row = -1 };
	if (degree < 0 || n < 1)
		return PICARD_LINSOLVE_BAD_INPUT;
	if (!type->takes_diagonal)
		return PICARD_LINSOLVE_OK;
	pc->inv_diag = malloc(sizeof(double) * n);
	pc->work = malloc(sizeof(double) * n);
	if (!pc->inv_diag || !pc->work) {
		picard_precond_free(pc);
		return PICARD_LINSOLVE_NO_MEMORY;
	}
	picard_sparse_diagonal(a, pc->inv_diag);
	for (int i = 0; i < n; i++) {
		double d = pc->inv_diag[i];

		if (d == 0 || !isfinite(d)) {
			picard_precond_free(pc);
			pc->failed_row = i;
			return d == 0 ? PICARD_LINSOLVE_ZERO_PIVOT : PICARD_LINSOLVE_NONFINITE;
		}
		pc->inv_diag[i] = 1 / d;
	}
	return PICARD_LINSOLVE_OK;
}

void picard_precond_free(picard_precond *pc)
{
	free(pc->inv_diag);
	free(pc->work);
	pc->inv_diag = pc->work = NULL;
}
