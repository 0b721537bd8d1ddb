/* semilinear.cuh - for authors of semi-linear models x' = A x + g (docs/
 * models.md, "Semi-linear models"): A u for the diffusion operators
 * div(k grad u) of the contract's stencil kinds, host and device, with the
 * exact conventions of picard_stencil_1d/_2d (src/linsolve/sparse.h): u = 0
 * past the boundary, k on the faces, a face's flux k_f / d^2 (u_neighbour -
 * u_i). A model's rhs is then one line, A x + g:
 *
 *	template <typename real> __host__ __device__
 *	static void rhs(real t, const real *x, const real *p, real *dxdt)
 *	{
 *		picard::semilinear_rhs<heat1d>(t, x, p, dxdt);
 *	}
 *
 * semilinear_rhs holds the faces' k in arrays on the stack ((nx + 1) ny +
 * nx (ny + 1) reals: 4 KB in double for 16 x 16), which a GPU thread keeps
 * in slow local memory; a 2D model had better give k as a function of the
 * face to stencil_2d_apply, computed where it is used (models/heat2d.cu). */
#ifndef PICARD_SEMILINEAR_CUH
#define PICARD_SEMILINEAR_CUH

#include "picard_model.cuh"

namespace picard {

/* k at the faces from an array, in the layout of picard_stencil_1d/_2d:
 * 1D face i (of n + 1) between unknowns i-1 and i; 2D x-face (i, j),
 * i = 0..nx, at kx[i + (nx + 1) j]; y-face (i, j), j = 0..ny, at
 * ky[i + nx j]. */
template <typename real>
struct faces_1d {
	const real *k;
	__host__ __device__ real operator()(int i) const { return k[i]; }
};
template <typename real>
struct faces_2d_x {
	const real *k;
	int nx;
	__host__ __device__ real operator()(int i, int j) const { return k[i + (nx + 1) * j]; }
};
template <typename real>
struct faces_2d_y {
	const real *k;
	int nx;
	__host__ __device__ real operator()(int i, int j) const { return k[i + nx * j]; }
};

/* out (+)= A u in 1D, n unknowns at x_i = (i+1) dx, k(i) the k of face i
 * (any callable: faces_1d, or a function computing it):
 * (A u)_i = (k(i+1) (u_{i+1} - u_i) - k(i) (u_i - u_{i-1})) / dx^2.
 * accumulate: add to out instead of overwriting it. */
template <typename real, class K>
__host__ __device__ void stencil_1d_apply(int n, real dx, const K &k, const real *u, real *out,
					  bool accumulate = false)
{
	const real inv = real(1) / (dx * dx);

	for (int i = 0; i < n; i++) {
		const real west = i > 0 ? u[i - 1] : real(0);
		const real east = i < n - 1 ? u[i + 1] : real(0);
		const real a = (k(i + 1) * (east - u[i]) - k(i) * (u[i] - west)) * inv;

		out[i] = accumulate ? out[i] + a : a;
	}
}

/* out (+)= A u in 2D, nx ny unknowns, i + nx j at ((i+1) dx, (j+1) dy);
 * kx(i, j) the k of the x-face between (i-1, j) and (i, j), i = 0..nx;
 * ky(i, j) of the y-face between (i, j-1) and (i, j), j = 0..ny. */
template <typename real, class KX, class KY>
__host__ __device__ void stencil_2d_apply(int nx, int ny, real dx, real dy, const KX &kx,
					  const KY &ky, const real *u, real *out,
					  bool accumulate = false)
{
	const real ix = real(1) / (dx * dx), iy = real(1) / (dy * dy);

	for (int j = 0; j < ny; j++)
		for (int i = 0; i < nx; i++) {
			const int r = i + nx * j;
			const real west = i > 0 ? u[r - 1] : real(0);
			const real east = i < nx - 1 ? u[r + 1] : real(0);
			const real south = j > 0 ? u[r - nx] : real(0);
			const real north = j < ny - 1 ? u[r + nx] : real(0);
			const real a = (kx(i + 1, j) * (east - u[r]) - kx(i, j) * (u[r] - west)) * ix +
				       (ky(i, j + 1) * (north - u[r]) - ky(i, j) * (u[r] - south)) * iy;

			out[r] = accumulate ? out[r] + a : a;
		}
}

/* J = A, dense and row-major (J[r*n + c], n = nx ny, every entry
 * written): the Jacobian of A x, and a model's whole Jacobian when its g
 * does not depend on x (else add dg/dx). k as for the _apply functions. */
template <typename real, class K>
__host__ __device__ void stencil_1d_jacobian(int n, real dx, const K &k, real *J)
{
	const real inv = real(1) / (dx * dx);

	for (int i = 0; i < n * n; i++)
		J[i] = 0;
	for (int i = 0; i < n; i++) {
		real *row = J + i * n;

		row[i] = -(k(i) + k(i + 1)) * inv;
		if (i > 0)
			row[i - 1] = k(i) * inv;
		if (i < n - 1)
			row[i + 1] = k(i + 1) * inv;
	}
}
template <typename real, class KX, class KY>
__host__ __device__ void stencil_2d_jacobian(int nx, int ny, real dx, real dy, const KX &kx,
					     const KY &ky, real *J)
{
	const int n = nx * ny;
	const real ix = real(1) / (dx * dx), iy = real(1) / (dy * dy);

	for (int i = 0; i < n * n; i++)
		J[i] = 0;
	for (int j = 0; j < ny; j++)
		for (int i = 0; i < nx; i++) {
			const int r = i + nx * j;
			const real west = kx(i, j) * ix, east = kx(i + 1, j) * ix;
			const real south = ky(i, j) * iy, north = ky(i, j + 1) * iy;
			real *row = J + r * n;

			row[r] = -(west + east + south + north);
			if (i > 0)
				row[r - 1] = west;
			if (i < nx - 1)
				row[r + 1] = east;
			if (j > 0)
				row[r - nx] = south;
			if (j < ny - 1)
				row[r + nx] = north;
		}
}

/* Fill the face arrays of a stencil from functions of the face (what a
 * model's k_faces does when its rhs computes k inline): kx (n + 1) in 1D
 * (ky untouched, may be NULL); in 2D kx (nx + 1) ny, ky nx (ny + 1). */
template <typename real, class K>
__host__ __device__ void fill_faces_1d(int n, const K &k, real *kx)
{
	for (int i = 0; i <= n; i++)
		kx[i] = k(i);
}
template <typename real, class KX, class KY>
__host__ __device__ void fill_faces_2d(int nx, int ny, const KX &kx_of, const KY &ky_of, real *kx,
				       real *ky)
{
	for (int j = 0; j < ny; j++)
		for (int i = 0; i <= nx; i++)
			kx[i + (nx + 1) * j] = kx_of(i, j);
	for (int j = 0; j <= ny; j++)
		for (int i = 0; i < nx; i++)
			ky[i + nx * j] = ky_of(i, j);
}

/* dxdt = A x + g for a stencil model (Model::op PICARD_OP_STENCIL_1D or
 * _2D) from its k_faces and nonlinear: the faces on the stack. */
template <class Model, typename real>
__host__ __device__ void semilinear_rhs(real t, const real *x, const real *p, real *dxdt)
{
	constexpr bool two_d = Model::op == PICARD_OP_STENCIL_2D;
	constexpr int nx = (int)nx_of<Model>::value, ny = (int)ny_of<Model>::value;
	real kx[(nx + 1) * ny], ky[two_d ? nx * (ny + 1) : 1];

	Model::template k_faces<real>(p, kx, two_d ? ky : nullptr);
	Model::template nonlinear<real>(t, x, p, dxdt);
	if (two_d)
		stencil_2d_apply(nx, ny, real(dx_of<Model>::value),
				 real(dy_of<Model>::value), faces_2d_x<real>{kx, nx},
				 faces_2d_y<real>{ky, nx}, x, dxdt, true);
	else
		stencil_1d_apply(nx, real(dx_of<Model>::value), faces_1d<real>{kx}, x, dxdt, true);
}

} /* namespace picard */

#endif
