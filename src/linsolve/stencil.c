/* stencil.c - the finite-volume diffusion operators of u_t = div(k grad
 * u) (+ convection in 1D) as CSR matrices (sparse.h): three points in 1D,
 * five in 2D, k on the cell faces, u = 0 on a Dirichlet boundary. A row's
 * flux through face f to a neighbour is k_f / d^2 (u_neighbour - u_i);
 * through a boundary face the neighbour is the boundary's 0, so only its
 * share of the diagonal stays. */
#include <stddef.h>

#include "linsolve/sparse.h"

picard_linsolve_code picard_stencil_convection_1d(int n, double dx, const double *k_face,
						  const double *velocity, double shift,
						  double scale, picard_sparse *a)
{
	picard_linsolve_code code = picard_sparse_alloc_csr(n, 3 * n, a);
	int filled = 0;

	if (code != PICARD_LINSOLVE_OK)
		return code;
	for (int i = 0; i < n; i++) {
		double west = k_face[i] / (dx * dx), east = k_face[i + 1] / (dx * dx);
		/* -v u' by central differences: -v (u_{i+1} - u_{i-1}) / 2dx */
		double drift = velocity ? velocity[i] / (2 * dx) : 0;

		if (i > 0)
			picard_sparse_push(a, &filled, i - 1, scale * (west + drift));
		picard_sparse_push(a, &filled, i, shift - scale * (west + east));
		if (i < n - 1)
			picard_sparse_push(a, &filled, i + 1, scale * (east - drift));
		picard_sparse_end_row(a, i, filled);
	}
	return PICARD_LINSOLVE_OK;
}

picard_linsolve_code picard_stencil_1d(int n, double dx, const double *k_face, double shift,
				       double scale, picard_sparse *a)
{
	return picard_stencil_convection_1d(n, dx, k_face, NULL, shift, scale, a);
}

picard_linsolve_code picard_stencil_2d(int nx, int ny, double dx, double dy,
				       const double *kx_face, const double *ky_face, double shift,
				       double scale, picard_sparse *a)
{
	picard_linsolve_code code;
	int filled = 0;

	if (nx < 1 || ny < 1)
		return PICARD_LINSOLVE_BAD_INPUT;
	code = picard_sparse_alloc_csr(nx * ny, 5 * nx * ny, a);
	if (code != PICARD_LINSOLVE_OK)
		return code;
	for (int j = 0; j < ny; j++)
		for (int i = 0; i < nx; i++) {
			int row = i + nx * j;
			double west = kx_face[i + (nx + 1) * j] / (dx * dx);
			double east = kx_face[i + 1 + (nx + 1) * j] / (dx * dx);
			double south = ky_face[i + nx * j] / (dy * dy);
			double north = ky_face[i + nx * (j + 1)] / (dy * dy);

			/* columns in increasing order */
			if (j > 0)
				picard_sparse_push(a, &filled, row - nx, scale * south);
			if (i > 0)
				picard_sparse_push(a, &filled, row - 1, scale * west);
			picard_sparse_push(a, &filled, row,
					   shift - scale * (west + east + south + north));
			if (i < nx - 1)
				picard_sparse_push(a, &filled, row + 1, scale * east);
			if (j < ny - 1)
				picard_sparse_push(a, &filled, row + nx, scale * north);
			picard_sparse_end_row(a, row, filled);
		}
	return PICARD_LINSOLVE_OK;
}
