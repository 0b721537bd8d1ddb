/* sparse.h - square sparse matrices in CSR (compressed sparse row) and MSR
 * (modified sparse row: the diagonal apart, as Gubaidullin & Nikiforov's
 * filtration solvers store it, their Fig. 1), the product y = A x of
 * each, and builders of the diffusion operators of u_t = div(k grad u)
 * (stencil.c). A matrix owns its arrays: picard_sparse_free releases
 * them. */
#ifndef PICARD_SPARSE_H
#define PICARD_SPARSE_H

#include <stdbool.h>

#include "linsolve/linsolve.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum picard_sparse_format {
	PICARD_SPARSE_CSR, /* row_start, col, val */
	PICARD_SPARSE_MSR, /* bindx, val */
} picard_sparse_format;

typedef struct picard_sparse {
	picard_sparse_format format; /* which arrays below hold it */
	int n;                       /* rows, and columns */
	/* CSR: row i's entries are col[k], val[k] for k in
	 * [row_start[i], row_start[i+1]), n + 1 starts */
	int *row_start;
	int *col;
	/* MSR: val[i] is the diagonal of row i (i < n; val[n] unused);
	 * bindx[i] .. bindx[i+1]-1 index row i's off-diagonal entries,
	 * val[k] in column bindx[k], k >= n + 1 */
	int *bindx;
	double *val; /* the values, of either format */
} picard_sparse;

/* y = A x (x and y of n, not overlapping); rows in parallel (OpenMP). */
void picard_sparse_spmv(const picard_sparse *a, const double *x, double *y);
/* The diagonal of A into diag (n). */
void picard_sparse_diagonal(const picard_sparse *a, double *diag);
/* Entry (i, j) of A, 0 where none is stored (duplicates add up). */
double picard_sparse_entry(const picard_sparse *a, int i, int j);
/* Whether A is symmetric to rtol (|a_ij - a_ji| <= rtol max(|a_ij|,
 * |a_ji|)); else the first pair that is not into *row, *col. */
bool picard_sparse_symmetric(const picard_sparse *a, double rtol, int *row, int *col);
/* The largest row sum of |a_ij|: the infinity norm. */
double picard_sparse_norm_inf(const picard_sparse *a);
/* The MSR copy of a CSR matrix into *msr. */
picard_linsolve_code picard_sparse_to_msr(const picard_sparse *csr, picard_sparse *msr);
/* Release a matrix's arrays (a zeroed or freed one is fine). */
void picard_sparse_free(picard_sparse *a);

/* A CSR matrix of n rows with room for nnz entries, its row_start[0]
 * set: a builder fills it row by row with picard_sparse_push. */
picard_linsolve_code picard_sparse_alloc_csr(int n, int nnz, picard_sparse *a);
/* Append an entry to the row being built, and close a row. */
void picard_sparse_push(picard_sparse *a, int *filled, int col, double val);
void picard_sparse_end_row(picard_sparse *a, int row, int filled);

/* shift I + scale L, with L the discrete div(k grad u) with u = 0 on the
 * boundary (its values belong in the right-hand side), on a grid of
 * spacing dx:
 * - 1D, three points: n unknowns at x_i = (i+1) dx; k_face[i] (n + 1 of
 *   them) is k at x_i - dx/2, between unknowns i-1 and i;
 *   (L u)_i = (k_{i+1} (u_{i+1} - u_i) - k_i (u_i - u_{i-1})) / dx^2.
 * - 2D, five points: nx ny unknowns, i + nx j at ((i+1) dx, (j+1) dy);
 *   kx_face[i + (nx+1) j] is k between unknowns (i-1, j) and (i, j),
 *   ky_face[i + nx j] between (i, j-1) and (i, j).
 * shift 0, scale -1 gives the SPD -div(k grad); shift 1, scale -gamma h
 * an implicit step's I - gamma h A. */
picard_linsolve_code picard_stencil_1d(int n, double dx, const double *k_face, double shift,
				       double scale, picard_sparse *a);
picard_linsolve_code picard_stencil_2d(int nx, int ny, double dx, double dy,
				       const double *kx_face, const double *ky_face, double shift,
				       double scale, picard_sparse *a);
/* The non-symmetric 1D convection-diffusion operator of u_t = (k u')' -
 * v u', central differences for u' (velocity v per unknown), u = 0 on the
 * boundary: shift I + scale of it (velocity NULL: picard_stencil_1d). */
picard_linsolve_code picard_stencil_convection_1d(int n, double dx, const double *k_face,
						  const double *velocity, double shift,
						  double scale, picard_sparse *a);

#ifdef __cplusplus
}
#endif

#endif
