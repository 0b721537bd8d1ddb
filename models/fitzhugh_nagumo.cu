/* fitzhugh_nagumo.cu - the FitzHugh-Nagumo neuron, R. FitzHugh, "Impulses
 * and physiological states in theoretical models of nerve membrane",
 * Biophys. J. 1 (1961) 445-466; J. Nagumo, S. Arimoto, S. Yoshizawa,
 * Proc. IRE 50 (1962) 2061-2070:
 *
 *	v' = v - v^3 / 3 - w + I,  w' = eps (v + a - b w)
 *
 * FitzHugh's a = 0.7, b = 0.8, eps = 0.08 with a stimulus I = 0.5: a
 * relaxation oscillation (spikes) with fast and slow phases; span
 * [0, 200], about five spikes.
 */
#include "picard_model.cuh"

struct fitzhugh_nagumo {
	static constexpr int dim = 2, nparams = 4;
	static constexpr const char *param_names[] = {"a", "b", "eps", "I"};
	static constexpr double param_defaults[] = {0.7, 0.8, 0.08, 0.5};
	static constexpr double x0[] = {-1, 1};
	static constexpr double t0 = 0, t1 = 200;
	static constexpr double default_h = 0.0025;
	static constexpr const char *summary =
		"v' = v - v^3/3 - w + I, w' = eps (v + a - b w)";
	static constexpr const char *reference =
		"FitzHugh, Biophys. J. 1 (1961) 445-466; Nagumo et al., Proc. IRE 50 (1962) 2061";

	template <typename real>
	__host__ __device__ static void rhs(real, const real *x, const real *p,
					    real *dxdt)
	{
		dxdt[0] = x[0] - x[0] * x[0] * x[0] / 3 - x[1] + p[3];
		dxdt[1] = p[2] * (x[0] + p[0] - p[1] * x[1]);
	}

	/* J[i*dim + k] = d f_i / d x_k */
	template <typename real>
	__host__ __device__ static void jacobian(real, const real *x, const real *p, real *J)
	{
		J[0] = 1 - x[0] * x[0];
		J[1] = -1;
		J[2] = p[2];
		J[3] = -p[2] * p[1];
	}
};

PICARD_REGISTER_MODEL(fitzhugh_nagumo)
