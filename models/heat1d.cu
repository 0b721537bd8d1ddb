/* heat1d.cu - the heat equation with a variable conductivity and a
 * source, u_t = (k(x) u_x)_x + q(x, t) on [0, 1], k(x) = D (1 + x),
 * Dirichlet ends u(0, t) = 0, u(1, t) = a sin t, semi-discretised by the
 * method of lines: 47 unknowns at x_i = (i + 1) / 48, the three-point
 * finite-volume stencil with k at the cell faces (picard_stencil_1d's
 * conventions, kernels/semilinear.cuh). A semi-linear model x' = A x + g
 * (op = PICARD_OP_STENCIL_1D): A = div(k grad) with u = 0 past the ends,
 * g = q at the nodes plus the right end's boundary value k(1 - dx/2) a
 * sin(t) / dx^2 in the last row.
 * Manufactured solution (the method of manufactured solutions: choose u*,
 * derive q so that u* solves the PDE; Roache, "Code verification by the
 * method of manufactured solutions", J. Fluids Eng. 124 (2002) 4-10):
 *	u*(x, t) = a (x sin t + (1 - exp(-t)) sin(pi x)),
 * zero at t = 0 (x0 = 0), so q = u*_t - D u*_x - D (1 + x) u*_xx. exact is
 * u* at the nodes: the semi-discrete solution is within O(dx^2) of it
 * (tests/test_pde_models.c measures the order). The largest eigenvalue of
 * A, about 4 k_max / dx^2 = 1.8e4 at D = 1, makes it stiff over its span
 * of 2. Parameters: D scales the conductivity, a the solution and so the
 * source and the boundary value. */
#include <math.h>

#include "picard_model.cuh"
#include "semilinear.cuh"

namespace heat1d_pde {

constexpr double pi = 3.14159265358979323846;

/* the conductivity at x */
template <typename real>
__host__ __device__ inline real conductivity(const real *p, double x)
{
	return p[0] * real(1 + x);
}

/* the manufactured source q(x, t) */
template <typename real>
__host__ __device__ inline real source(real t, const real *p, double x)
{
	const real s = sin(t), c = cos(t), e = exp(-t);
	const double sx = sin(pi * x), cx = cos(pi * x);
	const real u_t = p[1] * (x * c + e * sx);
	const real u_x = p[1] * (s + (1 - e) * (pi * cx));
	const real u_xx = p[1] * (1 - e) * (-pi * pi * sx);

	return u_t - p[0] * u_x - p[0] * real(1 + x) * u_xx;
}

} /* namespace heat1d_pde */

struct heat1d {
	static constexpr int dim = 47, nparams = 2;
	static constexpr const char *param_names[] = {"D", "a"};
	static constexpr double param_defaults[] = {1, 1};
	static constexpr double x0[dim] = {};
	static constexpr double t0 = 0, t1 = 2;
	static constexpr bool stiff = true;
	static constexpr const char *summary =
		"u_t = ((D (1 + x)) u_x)_x + q(x, t) on [0, 1], u(0) = 0, u(1) = a sin t, "
		"47 nodes; manufactured u* = a (x sin t + (1 - e^-t) sin(pi x))";
	static constexpr const char *reference =
		"method of lines, three-point finite volumes; manufactured solution "
		"(Roache, J. Fluids Eng. 124 (2002) 4-10)";

	/* x' = A x + g: A the three-point div(k grad), u = 0 past the ends */
	static constexpr picard_operator_kind op = PICARD_OP_STENCIL_1D;
	static constexpr int nx = dim;
	static constexpr double dx = 1.0 / (nx + 1);

	/* k at face i, x = (i + 1/2) dx, between unknowns i-1 and i */
	template <typename real>
	__host__ __device__ static void k_faces(const real *p, real *kx, real *)
	{
		for (int i = 0; i <= nx; i++)
			kx[i] = heat1d_pde::conductivity(p, (i + 0.5) * dx);
	}

	/* g: the source at the nodes, and the right end's value a sin t
	 * through its face */
	template <typename real>
	__host__ __device__ static void nonlinear(real t, const real *, const real *p, real *g)
	{
		for (int i = 0; i < nx; i++)
			g[i] = heat1d_pde::source(t, p, (i + 1) * dx);
		g[nx - 1] += heat1d_pde::conductivity(p, (nx + 0.5) * dx) * p[1] * sin(t) /
			     real(dx * dx);
	}

	template <typename real>
	__host__ __device__ static void rhs(real t, const real *x, const real *p, real *dxdt)
	{
		picard::semilinear_rhs<heat1d>(t, x, p, dxdt);
	}

	/* J[i*dim + k] = d f_i / d x_k: A (g does not depend on x) */
	template <typename real>
	__host__ __device__ static void jacobian(real, const real *, const real *p, real *J)
	{
		picard::stencil_1d_jacobian(
			nx, real(dx),
			[&](int i) { return heat1d_pde::conductivity(p, (i + 0.5) * dx); }, J);
	}

	/* u* at the nodes: the PDE's solution from the model's start (x0 = 0
	 * at t = 0), whatever t0 and x0 are given */
	static void exact(double t, double, const double *, const double *p, double *x)
	{
		for (int i = 0; i < nx; i++) {
			const double xi = (i + 1) * dx;

			x[i] = p[1] * (xi * sin(t) + (1 - exp(-t)) * sin(heat1d_pde::pi * xi));
		}
	}
};

PICARD_REGISTER_MODEL(heat1d)
