/* logistic.cu - logistic growth of a population toward the capacity of its
 * environment, P.-F. Verhulst, "Notice sur la loi que la population suit
 * dans son accroissement", Corresp. Math. Phys. 10 (1838) 113-121:
 *
 *	x' = r x (1 - x / K)
 *
 * Exact solution x(t) = K / (1 + (K / x0 - 1) exp(-r (t - t0))). The worked
 * example of docs/models.md.
 */
#include <math.h>

#include "picard_model.cuh"

struct logistic {
	static constexpr int dim = 1, nparams = 2;
	static constexpr const char *param_names[] = {"r", "K"};
	static constexpr double param_defaults[] = {0.5, 100};
	static constexpr double x0[] = {5};
	static constexpr double t0 = 0, t1 = 20;
	static constexpr double default_h = 0.05;
	static constexpr const char *summary = "x' = r x (1 - x/K)";
	static constexpr const char *reference =
		"Verhulst, Corresp. Math. Phys. 10 (1838) 113-121";

	template <typename real>
	__host__ __device__ static void rhs(real, const real *x, const real *p,
					    real *dxdt)
	{
		dxdt[0] = p[0] * x[0] * (1 - x[0] / p[1]);
	}

	/* J[i*dim + k] = d f_i / d x_k */
	template <typename real>
	__host__ __device__ static void jacobian(real, const real *x, const real *p, real *J)
	{
		J[0] = p[0] * (1 - 2 * x[0] / p[1]);
	}

	static void exact(double t, double t0, const double *x0, const double *p,
			  double *x)
	{
		x[0] = p[1] / (1 + (p[1] / x0[0] - 1) * exp(-p[0] * (t - t0)));
	}
};

PICARD_REGISTER_MODEL(logistic)
