/* sparse.c - CSR and MSR storage (sparse.h): the product, the diagonal,
 * the conversion and the building of a CSR matrix row by row. */
#include <math.h>
#include <stdlib.h>

#include "linsolve/sparse.h"

void picard_sparse_spmv(const picard_sparse *a, const double *x, double *y)
{
	if (a->format == PICARD_SPARSE_MSR) {
		/* Gubaidullin & Nikiforov, Fig. 1 */
#pragma omp parallel for schedule(static) if (a->n > 4096)
		for (int i = 0; i < a->n; i++) {
			double dot = a->val[i] * x[i];

			for (int k = a->bindx[i]; k < a->bindx[i + 1]; k++)
				dot += a->val[k] * x[a->bindx[k]];
			y[i] = dot;
		}
		return;
	}
#pragma omp parallel for schedule(static) if (a->n > 4096)
	for (int i = 0; i < a->n; i++) {
		double dot = 0;

		for (int k = a->row_start[i]; k < a->row_start[i + 1]; k++)
			dot += a->val[k] * x[a->col[k]];
		y[i] = dot;
	}
}

/* Row i's stored entries, the diagonal of an MSR row apart: [*first,
 * *end) of the val and column arrays *cols. */
static void row_entries(const picard_sparse *a, int i, int *first, int *end, const int **cols)
{
	if (a->format == PICARD_SPARSE_MSR) {
		*first = a->bindx[i], *end = a->bindx[i + 1], *cols = a->bindx;
		return;
	}
	*first = a->row_start[i], *end = a->row_start[i + 1], *cols = a->col;
}

double picard_sparse_entry(const picard_sparse *a, int i, int j)
{
	double sum = a->format == PICARD_SPARSE_MSR && i == j ? a->val[i] : 0;
	const int *cols;
	int first, end;

	row_entries(a, i, &first, &end, &cols);
	for (int k = first; k < end; k++)
		if (cols[k] == j)
			sum += a->val[k];
	return sum;
}

void picard_sparse_diagonal(const picard_sparse *a, double *diag)
{
	for (int i = 0; i < a->n; i++)
		diag[i] = picard_sparse_entry(a, i, i);
}

bool picard_sparse_symmetric(const picard_sparse *a, double rtol, int *row, int *col)
{
	for (int i = 0; i < a->n; i++) {
		const int *cols;
		int first, end;

		row_entries(a, i, &first, &end, &cols);
		for (int k = first; k < end; k++) {
			int j = cols[k];
			double here = picard_sparse_entry(a, i, j), there = picard_sparse_entry(a, j, i);

			if (fabs(here - there) > rtol * fmax(fabs(here), fabs(there))) {
				*row = i, *col = j;
				return false;
			}
		}
	}
	return true;
}

double picard_sparse_norm_inf(const picard_sparse *a)
{
	double most = 0;

	for (int i = 0; i < a->n; i++) {
		double sum = a->format == PICARD_SPARSE_MSR ? fabs(a->val[i]) : 0;
		const int *cols;
		int first, end;

		row_entries(a, i, &first, &end, &cols);
		for (int k = first; k < end; k++)
			sum += fabs(a->val[k]);
		most = fmax(most, sum);
	}
	return most;
}

picard_linsolve_code picard_sparse_to_msr(const picard_sparse *csr, picard_sparse *msr)
{
	int n = csr->n, off_diagonal = 0;

	*msr = (picard_sparse){ .format = PICARD_SPARSE_MSR, .n = n };
	if (csr->format != PICARD_SPARSE_CSR)
		return PICARD_LINSOLVE_BAD_INPUT;
	for (int i = 0; i < n; i++)
		for (int k = csr->row_start[i]; k < csr->row_start[i + 1]; k++)
			off_diagonal += csr->col[k] != i;
	msr->bindx = malloc(sizeof(int) * (n + 1 + off_diagonal));
	msr->val = calloc(n + 1 + off_diagonal, sizeof(double));
	if (!msr->bindx || !msr->val) {
		picard_sparse_free(msr);
		return PICARD_LINSOLVE_NO_MEMORY;
	}
	picard_sparse_diagonal(csr, msr->val);
	int next = n + 1;
	for (int i = 0; i < n; i++) {
		msr->bindx[i] = next;
		for (int k = csr->row_start[i]; k < csr->row_start[i + 1]; k++)
			if (csr->col[k] != i) {
				msr->bindx[next] = csr->col[k];
				msr->val[next++] = csr->val[k];
			}
	}
	msr->bindx[n] = next;
	return PICARD_LINSOLVE_OK;
}

void picard_sparse_free(picard_sparse *a)
{
	free(a->row_start);
	free(a->col);
	free(a->bindx);
	free(a->val);
	a->row_start = a->col = a->bindx = NULL;
	a->val = NULL;
}

picard_linsolve_code picard_sparse_alloc_csr(int n, int nnz, picard_sparse *a)
{
	*a = (picard_sparse){ .format = PICARD_SPARSE_CSR, .n = n };
	if (n < 1 || nnz < 0)
		return PICARD_LINSOLVE_BAD_INPUT;
	a->row_start = malloc(sizeof(int) * (n + 1));
	a->col = malloc(sizeof(int) * (nnz ? nnz : 1));
	a->val = malloc(sizeof(double) * (nnz ? nnz : 1));
	if (!a->row_start || !a->col || !a->val) {
		picard_sparse_free(a);
		return PICARD_LINSOLVE_NO_MEMORY;
	}
	a->row_start[0] = 0;
	return PICARD_LINSOLVE_OK;
}

void picard_sparse_push(picard_sparse *a, int *filled, int col, double val)
{
	a->col[*filled] = col;
	a->val[*filled] = val;
	++*filled;
}

void picard_sparse_end_row(picard_sparse *a, int row, int filled)
{
	a->row_start[row + 1] = filled;
}
