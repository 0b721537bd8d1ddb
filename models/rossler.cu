/* rossler.cu - the Rossler attractor, O. E. Rossler, "An equation for
 * continuous chaos", Phys. Lett. A 57 (1976) 397-398, with the usual
 * a = b = 0.2, c = 5.7:
 *
 *	x' = -y - z,  y' = x + a y,  z' = b + z (x - c)
 *
 * Chaotic but slowly (largest Lyapunov exponent ~0.07), with short spikes
 * of z where the right-hand side is stiffest; span [0, 50].
 */
#include "picard_model.cuh"

struct rossler {
	static constexpr int dim = 3, nparams = 3;
	static constexpr const char *param_names[] = {"a", "b", "c"};
	static constexpr double param_defaults[] = {0.2, 0.2, 5.7};
	static constexpr double x0[] = {1, 1, 0};
	static constexpr double t0 = 0, t1 = 50;
	static constexpr double default_h = 0.0006;
	static constexpr const char *summary =
		"x' = -y - z, y' = x + a y, z' = b + z (x - c)";
	static constexpr const char *reference =
		"Rossler, Phys. Lett. A 57 (1976) 397-398";

	template <typename real>
	__host__ __device__ static void rhs(real, const real *x, const real *p,
					    real *dxdt)
	{
		dxdt[0] = -x[1] - x[2];
		dxdt[1] = x[0] + p[0] * x[1];
		dxdt[2] = p[1] + x[2] * (x[0] - p[2]);
	}

	/* J[i*dim + k] = d f_i / d x_k */
	template <typename real>
	__host__ __device__ static void jacobian(real, const real *x, const real *p, real *J)
	{
		J[0] = 0;
		J[1] = -1;
		J[2] = -1;
		J[3] = 1;
		J[4] = p[0];
		J[5] = 0;
		J[6] = x[2];
		J[7] = 0;
		J[8] = x[0] - p[2];
	}
};

PICARD_REGISTER_MODEL(rossler)
