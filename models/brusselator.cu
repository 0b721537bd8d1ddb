/* brusselator.cu - the Brusselator, a model autocatalytic reaction,
 * I. Prigogine & R. Lefever, "Symmetry breaking instabilities in
 * dissipative systems II", J. Chem. Phys. 48 (1968) 1695-1700:
 *
 *	x' = a + x^2 y - (b + 1) x,  y' = b x - x^2 y
 *
 * With b > 1 + a^2 (a = 1, b = 3 here) the equilibrium (a, b/a) is
 * unstable and trajectories approach a limit cycle with fast and slow
 * phases; span [0, 20], about three cycles.
 */
#include "picard_model.cuh"

struct brusselator {
	static constexpr int dim = 2, nparams = 2;
	static constexpr const char *param_names[] = {"a", "b"};
	static constexpr double param_defaults[] = {1, 3};
	static constexpr double x0[] = {1, 1};
	static constexpr double t0 = 0, t1 = 20;
	static constexpr double default_h = 0.0025;
	static constexpr const char *summary =
		"x' = a + x^2 y - (b + 1) x, y' = b x - x^2 y";
	static constexpr const char *reference =
		"Prigogine & Lefever, J. Chem. Phys. 48 (1968) 1695-1700";

	template <typename real>
	__host__ __device__ static void rhs(real, const real *x, const real *p,
					    real *dxdt)
	{
		real x2y = x[0] * x[0] * x[1];

		dxdt[0] = p[0] + x2y - (p[1] + 1) * x[0];
		dxdt[1] = p[1] * x[0] - x2y;
	}

	/* J[i*dim + k] = d f_i / d x_k */
	template <typename real>
	__host__ __device__ static void jacobian(real, const real *x, const real *p, real *J)
	{
		real xy2 = 2 * x[0] * x[1];

		J[0] = xy2 - (p[1] + 1);
		J[1] = x[0] * x[0];
		J[2] = p[1] - xy2;
		J[3] = -x[0] * x[0];
	}
};

PICARD_REGISTER_MODEL(brusselator)
