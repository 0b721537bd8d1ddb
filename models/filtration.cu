/* filtration.cu - the pressure equation of single-phase slightly
 * compressible filtration, c p_t = div(K grad p) + q + wells, on the unit
 * square with a heterogeneous permeability K(x, y) = kappa exp(sin(2 pi x)
 * sin(2 pi y) / 2) (0.61 to 1.65 kappa), c = 1: Gubaidullin & Nikiforov's
 * setting (../shared/papers/gubaidullin-nikiforov-krylov-gpu-filtration.
 * txt, eqs. (1)-(3): flow to wells, Dirichlet pressure on part of the
 * boundary, no flux on the rest, the operator given as a sparse matrix),
 * here transient on a regular grid. Cell-centred finite volumes on 15 x 15
 * cells (the two-point flux of reservoir simulation: a face's
 * transmissibility the harmonic mean of its cells' K over h^2; a
 * Dirichlet side's the side's K over h^2 / 2), p = 0 at x = 0, p = a sin t
 * at x = 1, no flux at y = 0 and y = 1. Two wells at bottom-hole pressure
 * (the paper's first well condition), an injector in cell (3, 11) and a
 * producer in cell (11, 3), each adding WI (p_bh - p) to its cell, WI =
 * 100: the -WI on A's diagonal is why A is no stencil of the contract but
 * a CSR matrix (op = PICARD_OP_CSR); A is symmetric (CG applies).
 * Manufactured solution (Roache, J. Fluids Eng. 124 (2002) 4-10):
 *	p*(x, y, t) = a ((1 - exp(-t)) sin(pi x) cos(pi y) + x sin t),
 * zero at t = 0, with q = p*_t - div(K grad p*) and each well's p_bh the
 * exact pressure at its cell's centre (the wells then carry no flow at
 * the exact solution, and pull the discrete one towards it). exact is p*
 * at the cell centres, within O(h^2) of the semi-discrete solution.
 * A's largest eigenvalue, about 8 K_max / h^2 + WI = 3e3 at kappa = 1,
 * makes it stiff over its span of 1. Parameters: kappa scales the
 * permeability, a the pressure (the source, the boundary and the wells). */
#include <math.h>

#include "picard_model.cuh"

namespace filtration_pde {

constexpr double pi = 3.14159265358979323846;
constexpr int n = 15;                /* cells per side */
constexpr double h = 1.0 / n;        /* their width */
constexpr double well_index = 100;   /* WI, per unit volume */
constexpr int injector = 3 + n * 11; /* the wells' cells, i + n j */
constexpr int producer = 11 + n * 3;

__host__ __device__ inline double log_permeability(double x, double y)
{
	return 0.5 * sin(2 * pi * x) * sin(2 * pi * y);
}

template <typename real>
__host__ __device__ inline real permeability(const real *p, double x, double y)
{
	return p[0] * exp(log_permeability(x, y));
}

/* the cell centre of unknown r, i + n j */
__host__ __device__ inline double centre_x(int r) { return (r % n + 0.5) * h; }
__host__ __device__ inline double centre_y(int r) { return (r / n + 0.5) * h; }

/* The transmissibility between cells r and s (neighbours), over h^2. */
template <typename real>
__host__ __device__ inline real transmissibility(const real *p, int r, int s)
{
	const real kr = permeability(p, centre_x(r), centre_y(r));
	const real ks = permeability(p, centre_x(s), centre_y(s));

	return 2 * kr * ks / ((kr + ks) * real(h * h));
}

/* Row r of A, entry by entry in increasing column: emit(column, value). */
template <typename real, class Emit>
__host__ __device__ inline void row(const real *p, int r, Emit &emit)
{
	const int i = r % n, j = r / n;
	real diagonal = (r == injector || r == producer) ? real(-well_index) : real(0);
	real south = 0, west = 0, east = 0, north = 0;

	if (j > 0)
		diagonal -= south = transmissibility(p, r, r - n);
	if (i > 0)
		diagonal -= west = transmissibility(p, r, r - 1);
	else /* the side x = 0, half a cell away */
		diagonal -= 2 * permeability(p, 0.0, centre_y(r)) / real(h * h);
	if (i < n - 1)
		diagonal -= east = transmissibility(p, r, r + 1);
	else
		diagonal -= 2 * permeability(p, 1.0, centre_y(r)) / real(h * h);
	if (j < n - 1)
		diagonal -= north = transmissibility(p, r, r + n);
	if (j > 0)
		emit(r - n, south);
	if (i > 0)
		emit(r - 1, west);
	emit(r, diagonal);
	if (i < n - 1)
		emit(r + 1, east);
	if (j < n - 1)
		emit(r + n, north);
}

/* the manufactured pressure p*(x, y, t) and its source q */
__host__ __device__ inline double pressure(double t, double a, double x, double y)
{
	return a * ((1 - exp(-t)) * sin(pi * x) * cos(pi * y) + x * sin(t));
}

template <typename real>
__host__ __device__ inline real source(real t, const real *p, double x, double y)
{
	const real s = sin(t), c = cos(t), e = exp(-t);
	const double sx = sin(pi * x), cx = cos(pi * x), sy = sin(pi * y), cy = cos(pi * y);
	const double k_x = pi * cos(2 * pi * x) * sin(2 * pi * y); /* (log K)_x */
	const double k_y = pi * sin(2 * pi * x) * cos(2 * pi * y);
	const real k = permeability(p, x, y);
	const real p_t = p[1] * (e * (sx * cy) + x * c);
	const real p_x = p[1] * ((1 - e) * (pi * cx * cy) + s);
	const real p_y = p[1] * (1 - e) * (-pi * sx * sy);
	const real lap = p[1] * (1 - e) * (-2 * pi * pi * sx * cy);

	return p_t - k * (k_x * p_x + k_y * p_y + lap);
}

} /* namespace filtration_pde */

struct filtration {
	static constexpr int nx = filtration_pde::n, ny = filtration_pde::n, dim = nx * ny;
	static constexpr int nparams = 2;
	static constexpr const char *param_names[] = {"kappa", "a"};
	static constexpr double param_defaults[] = {1, 1};
	static constexpr double x0[dim] = {};
	static constexpr double t0 = 0, t1 = 1;
	static constexpr bool stiff = true;
	static constexpr const char *summary =
		"p_t = div(K grad p) + q + WI (p_bh - p) at two wells, K = kappa exp(sin(2 pi x) "
		"sin(2 pi y) / 2), 15 x 15 cells; manufactured p* = a ((1 - e^-t) sin(pi x) "
		"cos(pi y) + x sin t)";
	static constexpr const char *reference =
		"Gubaidullin & Nikiforov (Krylov solvers on GPUs for filtration, eqs. 1-3); "
		"two-point flux finite volumes; manufactured solution (Roache 2002)";

	/* x' = A x + g: A the finite-volume div(K grad) less the wells' WI */
	static constexpr picard_operator_kind op = PICARD_OP_CSR;
	static constexpr double dx = filtration_pde::h, dy = filtration_pde::h;
	static constexpr int nnz = 5 * dim;
	static constexpr bool op_symmetric = true;

	static void csr(const double *p, int *row_start, int *col, double *val)
	{
		int filled = 0;
		auto push = [&](int c, double v) {
			col[filled] = c;
			val[filled++] = v;
		};

		for (int r = 0; r < dim; r++) {
			row_start[r] = filled;
			filtration_pde::row(p, r, push);
		}
		row_start[dim] = filled;
	}

	/* g: the source, the side x = 1's pressure a sin t through its faces,
	 * the wells' WI p_bh */
	template <typename real>
	__host__ __device__ static void nonlinear(real t, const real *, const real *p, real *g)
	{
		using namespace filtration_pde;

		for (int r = 0; r < dim; r++) {
			const double x = centre_x(r), y = centre_y(r);

			g[r] = source(t, p, x, y);
			if (r % n == n - 1)
				g[r] += 2 * permeability(p, 1.0, y) / real(h * h) * (p[1] * sin(t));
			if (r == injector || r == producer)
				g[r] += well_index * p[1] *
					((1 - exp(-t)) * (sin(pi * x) * cos(pi * y)) + x * sin(t));
		}
	}

	template <typename real>
	__host__ __device__ static void rhs(real t, const real *x, const real *p, real *dxdt)
	{
		nonlinear(t, x, p, dxdt);
		for (int r = 0; r < dim; r++) {
			real sum = 0;
			auto add = [&](int c, real v) { sum += v * x[c]; };

			filtration_pde::row(p, r, add);
			dxdt[r] += sum;
		}
	}

	/* J[i*dim + k] = d f_i / d x_k: A (g does not depend on x) */
	template <typename real>
	__host__ __device__ static void jacobian(real, const real *, const real *p, real *J)
	{
		for (int i = 0; i < dim * dim; i++)
			J[i] = 0;
		for (int r = 0; r < dim; r++) {
			auto set = [&](int c, real v) { J[r * dim + c] = v; };

			filtration_pde::row(p, r, set);
		}
	}

	/* p* at the cell centres: the PDE's solution from the model's start
	 * (x0 = 0 at t = 0), whatever t0 and x0 are given */
	static void exact(double t, double, const double *, const double *p, double *u)
	{
		for (int r = 0; r < dim; r++)
			u[r] = filtration_pde::pressure(t, p[1], filtration_pde::centre_x(r),
							filtration_pde::centre_y(r));
	}
};

PICARD_REGISTER_MODEL(filtration)
