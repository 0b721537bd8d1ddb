/* lorenz96.cu - Lorenz's 1996 model of an atmospheric quantity on a
 * latitude circle: 64 sites, advection, damping and forcing F.
 *
 *	dx_k/dt = (x_{k+1} - x_{k-2}) x_{k-1} - x_k + F,  k = 0..63 (cyclic)
 *
 * Chaotic for F = 8; a model of 64 components, to show a model file
 * outside models/ (picard-run examples/models/lorenz96.cu) and the layouts
 * that suit a large state: the right-hand side loops over components.
 */
#include "picard_model.cuh"

struct lorenz96 {
	static constexpr int dim = 64, nparams = 1;
	static constexpr const char *param_names[] = {"F"};
	static constexpr double param_defaults[] = {8};
	/* the rest state x_k = F, nudged at one site */
	static constexpr double x0[] = {
		8.01, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,
		8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,
		8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,
		8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8};
	static constexpr double t0 = 0, t1 = 2;
	static constexpr const char *summary =
		"x_k' = (x_{k+1} - x_{k-2}) x_{k-1} - x_k + F, 64 sites on a circle";
	static constexpr const char *reference =
		"Lorenz, Proc. ECMWF Seminar on Predictability, 1996";

	template <typename real>
	__host__ __device__ static void rhs(real, const real *x, const real *p, real *dxdt)
	{
		for (int k = 0; k < dim; k++)
			dxdt[k] = (x[(k + 1) % dim] - x[(k + dim - 2) % dim]) * x[(k + dim - 1) % dim] -
				  x[k] + p[0];
	}
};

PICARD_REGISTER_MODEL(lorenz96)
