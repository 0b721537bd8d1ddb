/* heat2d.cu - the heat equation in two dimensions with a variable
 * conductivity and a source, u_t = div(k grad u) + q(x, y, t) on the unit
 * square, k = D (1 + x y), Dirichlet sides u = 0 at x = 0 and y = 0,
 * u = a y sin t at x = 1, u = a x sin t at y = 1; semi-discretised by the
 * method of lines on 15 x 15 unknowns at ((i + 1) / 16, (j + 1) / 16), the
 * five-point finite-volume stencil with k at the faces (picard_stencil_2d's
 * conventions, kernels/semilinear.cuh). A semi-linear model x' = A x + g
 * (op = PICARD_OP_STENCIL_2D), unknown i + 15 j: A = div(k grad) with u = 0
 * past the sides, g = q at the nodes plus the boundary values through the
 * faces of the last column and row. The rhs computes each face's k where
 * it uses it (no face arrays on a GPU thread's stack).
 * Manufactured solution (Roache, J. Fluids Eng. 124 (2002) 4-10):
 *	u*(x, y, t) = a ((1 - exp(-t)) sin(pi x) sin(pi y) + x y sin t),
 * zero at t = 0 (x0 = 0); q = u*_t - k_x u*_x - k_y u*_y - k (u*_xx +
 * u*_yy). exact is u* at the nodes, within O(dx^2) of the semi-discrete
 * solution (tests/test_pde_models.c measures the order). A's largest
 * eigenvalue, about 8 k_max / dx^2 = 4e3 at D = 1, makes it stiff over
 * its span of 1. Parameters: D scales the conductivity, a the solution
 * (and so the source and the boundary values). */
#include <math.h>

#include "picard_model.cuh"
#include "semilinear.cuh"

namespace heat2d_pde {

constexpr double pi = 3.14159265358979323846;
constexpr int nx = 15, ny = 15;
constexpr double dx = 1.0 / (nx + 1), dy = 1.0 / (ny + 1);

template <typename real>
__host__ __device__ inline real conductivity(const real *p, double x, double y)
{
	return p[0] * real(1 + x * y);
}

/* k on the x-face (i, j), between unknowns (i-1, j) and (i, j), and on
 * the y-face (i, j), between (i, j-1) and (i, j) */
template <typename real>
struct x_faces {
	const real *p;
	__host__ __device__ real operator()(int i, int j) const
	{
		return conductivity(p, (i + 0.5) * dx, (j + 1) * dy);
	}
};
template <typename real>
struct y_faces {
	const real *p;
	__host__ __device__ real operator()(int i, int j) const
	{
		return conductivity(p, (i + 1) * dx, (j + 0.5) * dy);
	}
};

/* the manufactured source q(x, y, t) */
template <typename real>
__host__ __device__ inline real source(real t, const real *p, double x, double y)
{
	const real s = sin(t), c = cos(t), e = exp(-t);
	const double sx = sin(pi * x), cx = cos(pi * x), sy = sin(pi * y), cy = cos(pi * y);
	const real u_t = p[1] * (e * (sx * sy) + (x * y) * c);
	const real u_x = p[1] * ((1 - e) * (pi * cx * sy) + y * s);
	const real u_y = p[1] * ((1 - e) * (pi * sx * cy) + x * s);
	const real lap = p[1] * (1 - e) * (-2 * pi * pi * sx * sy);

	return u_t - p[0] * (y * u_x + x * u_y) - conductivity(p, x, y) * lap;
}

} /* namespace heat2d_pde */

struct heat2d {
	static constexpr int nx = heat2d_pde::nx, ny = heat2d_pde::ny, dim = nx * ny, nparams = 2;
	static constexpr const char *param_names[] = {"D", "a"};
	static constexpr double param_defaults[] = {1, 1};
	static constexpr double x0[dim] = {};
	static constexpr double t0 = 0, t1 = 1;
	static constexpr bool stiff = true;
	static constexpr const char *summary =
		"u_t = div(D (1 + x y) grad u) + q on the unit square, 15 x 15 nodes, Dirichlet "
		"sides; manufactured u* = a ((1 - e^-t) sin(pi x) sin(pi y) + x y sin t)";
	static constexpr const char *reference =
		"method of lines, five-point finite volumes; manufactured solution "
		"(Roache, J. Fluids Eng. 124 (2002) 4-10)";

	/* x' = A x + g: A the five-point div(k grad), u = 0 past the sides */
	static constexpr picard_operator_kind op = PICARD_OP_STENCIL_2D;
	static constexpr double dx = heat2d_pde::dx, dy = heat2d_pde::dy;

	template <typename real>
	__host__ __device__ static void k_faces(const real *p, real *kx, real *ky)
	{
		picard::fill_faces_2d(nx, ny, heat2d_pde::x_faces<real>{p},
				      heat2d_pde::y_faces<real>{p}, kx, ky);
	}

	/* g: the source at the nodes, and the values of the sides x = 1 and
	 * y = 1 through their faces */
	template <typename real>
	__host__ __device__ static void nonlinear(real t, const real *, const real *p, real *g)
	{
		const real edge = p[1] * sin(t);

		for (int j = 0; j < ny; j++)
			for (int i = 0; i < nx; i++) {
				const double x = (i + 1) * dx, y = (j + 1) * dy;
				real q = heat2d_pde::source(t, p, x, y);

				if (i == nx - 1)
					q += heat2d_pde::x_faces<real>{p}(nx, j) * (edge * y) /
					     real(dx * dx);
				if (j == ny - 1)
					q += heat2d_pde::y_faces<real>{p}(i, ny) * (edge * x) /
					     real(dy * dy);
				g[i + nx * j] = q;
			}
	}

	template <typename real>
	__host__ __device__ static void rhs(real t, const real *x, const real *p, real *dxdt)
	{
		nonlinear(t, x, p, dxdt);
		picard::stencil_2d_apply(nx, ny, real(dx), real(dy), heat2d_pde::x_faces<real>{p},
					 heat2d_pde::y_faces<real>{p}, x, dxdt, true);
	}

	/* J[i*dim + k] = d f_i / d x_k: A (g does not depend on x) */
	template <typename real>
	__host__ __device__ static void jacobian(real, const real *, const real *p, real *J)
	{
		picard::stencil_2d_jacobian(nx, ny, real(dx), real(dy),
					    heat2d_pde::x_faces<real>{p},
					    heat2d_pde::y_faces<real>{p}, J);
	}

	/* u* at the nodes: the PDE's solution from the model's start (x0 = 0
	 * at t = 0), whatever t0 and x0 are given */
	static void exact(double t, double, const double *, const double *p, double *u)
	{
		for (int j = 0; j < ny; j++)
			for (int i = 0; i < nx; i++) {
				const double x = (i + 1) * dx, y = (j + 1) * dy;

				u[i + nx * j] = p[1] * ((1 - exp(-t)) * sin(heat2d_pde::pi * x) *
							sin(heat2d_pde::pi * y) + x * y * sin(t));
			}
	}
};

PICARD_REGISTER_MODEL(heat2d)
