/* model_operator.c - a semi-linear model's operator as a matrix, and the
 * check of its declaration against the model's rhs (model_operator.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "model_operator.h"

#define CONTRACT "(docs/models.md, semi-linear models)"

/* The model's own A (shift 0, scale 1) for params, unchecked beyond what
 * building it needs: stencils from k_faces (each k finite and >= 0). */
static int stencil_matrix(const picard_model *model, const double *p, picard_sparse *a)
{
	const picard_operator *op = model->op;
	const bool two_d = op->kind == PICARD_OP_STENCIL_2D;
	const int nkx = (op->nx + 1) * op->ny, nky = two_d ? op->nx * (op->ny + 1) : 0;
	double *kx = malloc(sizeof(double) * nkx), *ky = malloc(sizeof(double) * (nky ? nky : 1));
	picard_linsolve_code code;
	int err = PICARD_OK;

	if (!kx || !ky) {
		free(kx);
		free(ky);
		return picard_fail(PICARD_ENOMEM, "model %s: the operator's faces", model->name);
	}
	op->k_faces(p, kx, two_d ? ky : NULL);
	for (int f = 0; f < nkx + nky && !err; f++) {
		const double k = f < nkx ? kx[f] : ky[f - nkx];

		if (!isfinite(k) || k < 0)
			err = picard_fail(PICARD_EINVAL, "model %s: k_faces gave k = %g on %s-face %d: "
					  "k must be finite and >= 0 (0: no flux) " CONTRACT,
					  model->name, k, f < nkx ? "x" : "y", f < nkx ? f : f - nkx);
	}
	if (!err) {
		code = two_d ? picard_stencil_2d(op->nx, op->ny, op->dx, op->dy, kx, ky, 0, 1, a) :
			       picard_stencil_1d(op->nx, op->dx, kx, 0, 1, a);
		if (code != PICARD_LINSOLVE_OK)
			err = picard_fail(code == PICARD_LINSOLVE_NO_MEMORY ? PICARD_ENOMEM :
					  PICARD_EINVAL, "model %s: the stencil: %s", model->name,
					  picard_linsolve_strerror(code));
	}
	free(kx);
	free(ky);
	return err;
}

/* The model's csr for params, its pattern checked: dim + 1 row starts
 * from 0, non-decreasing, at most nnz entries; columns in range and
 * increasing within a row; values finite. */
static int csr_matrix(const picard_model *model, const double *p, picard_sparse *a)
{
	const picard_operator *op = model->op;
	const int n = model->dim;

	*a = (picard_sparse){.format = PICARD_SPARSE_CSR, .n = n};
	a->row_start = malloc(sizeof(int) * (n + 1));
	a->col = malloc(sizeof(int) * op->nnz);
	a->val = malloc(sizeof(double) * op->nnz);
	if (!a->row_start || !a->col || !a->val) {
		picard_sparse_free(a);
		return picard_fail(PICARD_ENOMEM, "model %s: the operator's %d entries", model->name,
				   op->nnz);
	}
	for (int i = 0; i <= n; i++)
		a->row_start[i] = -1; /* what csr must overwrite */
	op->csr(p, a->row_start, a->col, a->val);
	if (a->row_start[0] != 0) {
		picard_sparse_free(a);
		return picard_fail(PICARD_EINVAL, "model %s: csr: row_start[0] = %d, not 0 "
				   CONTRACT, model->name, a->row_start[0]);
	}
	for (int i = 0; i < n; i++) {
		const int first = a->row_start[i], end = a->row_start[i + 1];

		if (end < first || end > op->nnz) {
			const int bad = end;

			picard_sparse_free(a);
			return picard_fail(PICARD_EINVAL, "model %s: csr: row_start[%d] = %d after "
					   "row_start[%d] = %d: the starts must not decrease and stay "
					   "within nnz = %d " CONTRACT, model->name, i + 1, bad, i,
					   first, op->nnz);
		}
		for (int k = first; k < end; k++) {
			const int j = a->col[k];
			const char *why =
				j < 0 || j >= n ? "out of range" :
				k > first && j <= a->col[k - 1] ?
						  "not after the row's previous column (columns "
						  "increase along a row, no duplicates)" :
				!isfinite(a->val[k]) ? "with a value not finite" : NULL;

			if (why) {
				picard_sparse_free(a);
				return picard_fail(PICARD_EINVAL, "model %s: csr: row %d, entry %d: column "
						   "%d %s " CONTRACT, model->name, i, k, j, why);
			}
		}
	}
	return PICARD_OK;
}

int picard_operator_matrix(const picard_model *model, const double *params, double shift,
			   double scale, picard_sparse *a)
{
	const picard_operator *op = model ? model->op : NULL;
	const double *p = params ? params : model ? model->param_defaults : NULL;
	picard_sparse own;
	int err, filled = 0;
	picard_linsolve_code code;

	memset(a, 0, sizeof(*a));
	if (!op)
		return picard_fail(PICARD_EINVAL, "model %s declares no linear operator (op)",
				   model ? model->name : "(null)");
	if (op->nx < 1 || op->ny < 1 || (long)op->nx * op->ny != model->dim)
		return picard_fail(PICARD_EINVAL, "model %s: the operator's grid %d x %d is not its "
				   "dim %d " CONTRACT, model->name, op->nx, op->ny, model->dim);
	switch (op->kind) {
	case PICARD_OP_STENCIL_1D:
	case PICARD_OP_STENCIL_2D:
		if (!op->k_faces || !(op->dx > 0) ||
		    (op->kind == PICARD_OP_STENCIL_2D ? !(op->dy > 0) : op->ny != 1))
			return picard_fail(PICARD_EINVAL, "model %s: a stencil operator needs k_faces, "
					   "dx > 0 and (2D) dy > 0, (1D) ny = 1 " CONTRACT,
					   model->name);
		err = stencil_matrix(model, p, &own);
		break;
	case PICARD_OP_CSR:
		if (!op->csr || op->nnz < 1)
			return picard_fail(PICARD_EINVAL, "model %s: a CSR operator needs csr and nnz "
					   ">= 1 " CONTRACT, model->name);
		err = csr_matrix(model, p, &own);
		break;
	default:
		return picard_fail(PICARD_EINVAL, "model %s: operator kind %d unknown " CONTRACT,
				   model->name, (int)op->kind);
	}
	if (err)
		return err;
	/* shift I + scale A, a diagonal inserted where the pattern has none */
	code = picard_sparse_alloc_csr(model->dim, own.row_start[model->dim] + model->dim, a);
	if (code != PICARD_LINSOLVE_OK) {
		picard_sparse_free(&own);
		return picard_fail(PICARD_ENOMEM, "model %s: the operator's matrix", model->name);
	}
	for (int i = 0; i < model->dim; i++) {
		bool diagonal = false;

		for (int k = own.row_start[i]; k < own.row_start[i + 1]; k++) {
			const int j = own.col[k];

			if (j > i && !diagonal)
				picard_sparse_push(a, &filled, i, shift);
			diagonal |= j >= i;
			picard_sparse_push(a, &filled, j, scale * own.val[k] + (j == i ? shift : 0));
		}
		if (!diagonal)
			picard_sparse_push(a, &filled, i, shift);
		picard_sparse_end_row(a, i, filled);
	}
	picard_sparse_free(&own);
	return PICARD_OK;
}

/* splitmix64: the check's own reproducible numbers in [-1, 1) */
static double uniform(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (double)(z >> 11) * 0x1.0p-52 - 1;
}

/* Rounding's bound on |rhs - (A x + g)|, relative to the terms' sizes:
 * the model and the matrix sum the same products in other orders. */
#define ROUNDING 1e-12
#define NPARAM_SETS 3
#define NSTATES 3

/* rhs against A x + g at one parameter set p (set: its number, for the
 * message), NSTATES random states and times. */
static int check_at(const picard_model *model, const double *p, int set, uint64_t *rng,
		    double *work)
{
	const int n = model->dim;
	double *x = work, *f = work + n, *ax = work + 2 * n, *g = work + 3 * n;
	double *abs_ax = work + 4 * n, *absx = work + 5 * n;
	picard_sparse a, abs_a;
	int row, col, err = picard_operator_matrix(model, p, 0, 1, &a);

	if (err)
		return err;
	if (model->op->symmetric && !picard_sparse_symmetric(&a, 1e-12, &row, &col)) {
		err = picard_fail(PICARD_EINVAL, "model %s: op_symmetric is true but A is not "
				  "symmetric at parameter set %d: A[%d][%d] = %.17g, A[%d][%d] = "
				  "%.17g " CONTRACT, model->name, set, row, col,
				  picard_sparse_entry(&a, row, col), col, row,
				  picard_sparse_entry(&a, col, row));
		picard_sparse_free(&a);
		return err;
	}
	abs_a = a;
	abs_a.val = malloc(sizeof(double) * (a.row_start[n] ? a.row_start[n] : 1));
	if (!abs_a.val) {
		picard_sparse_free(&a);
		return picard_fail(PICARD_ENOMEM, "model %s: the operator check", model->name);
	}
	for (int k = 0; k < a.row_start[n]; k++)
		abs_a.val[k] = fabs(a.val[k]);
	for (int s = 0; s < NSTATES && !err; s++) {
		const double t = model->t0 + (model->t1 - model->t0) * (0.5 + 0.5 * uniform(rng));

		for (int i = 0; i < n; i++) {
			x[i] = model->x0[i] + (1 + fabs(model->x0[i])) * uniform(rng);
			absx[i] = fabs(x[i]);
		}
		picard_model_rhs(model, t, x, p, f);
		picard_sparse_spmv(&a, x, ax);
		picard_sparse_spmv(&abs_a, absx, abs_ax);
		model->op->nonlinear(t, x, p, g);
		for (int i = 0; i < n && !err; i++) {
			const double sum = ax[i] + g[i];
			const double scale = abs_ax[i] + fabs(g[i]) + fabs(f[i]);

			if (!(fabs(f[i] - sum) <= ROUNDING * scale))
				err = picard_fail(PICARD_EINVAL, "model %s: rhs is not A x + g in "
						  "component %d (t = %g, random state %d, parameter "
						  "set %d): rhs %.17g, A x + g = %.17g + %.17g = %.17g: "
						  "rhs, the operator (k_faces or csr) and nonlinear "
						  "disagree " CONTRACT, model->name, i, t, s, set, f[i],
						  ax[i], g[i], sum);
		}
	}
	free(abs_a.val);
	picard_sparse_free(&a);
	return err;
}

int picard_model_check_operator(const picard_model *model)
{
	const int n = model->dim, np = model->nparams;
	uint64_t rng = 0x5eed0f0b5e55edull;
	double *work, *p;
	int err = PICARD_OK;

	if (!model->op)
		return PICARD_OK;
	if (!model->op->nonlinear)
		return picard_fail(PICARD_EINVAL, "model %s: its operator has no nonlinear part "
				   "g " CONTRACT, model->name);
	work = malloc(sizeof(double) * 6 * n);
	p = malloc(sizeof(double) * (np ? np : 1));
	if (!work || !p) {
		free(work);
		free(p);
		return picard_fail(PICARD_ENOMEM, "model %s: the operator check", model->name);
	}
	for (int set = 0; set < NPARAM_SETS && !err; set++) {
		for (int q = 0; q < np; q++)
			p[q] = model->param_defaults[q] * (set ? 1 + 0.2 * uniform(&rng) : 1);
		err = check_at(model, p, set, &rng, work);
	}
	free(work);
	free(p);
	return err;
}
