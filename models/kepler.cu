/* kepler.cu - the planar two-body problem in relative coordinates, the
 * classic long-horizon test of orbit integrators (E. Hairer, C. Lubich,
 * G. Wanner, Geometric Numerical Integration, 2nd ed., Springer 2006,
 * section I.2.3):
 *
 *	q'' = -mu q / |q|^3,   state (q1, q2, p1, p2) with p = q'
 *
 * The default start is the periapsis of the orbit of semi-major axis 1 and
 * eccentricity e = 0.5 with mu = 1: q = (1 - e, 0), p = (0, sqrt(mu (1 + e)
 * / (1 - e))), period 2 pi; the span is 100 periods. A trajectory's start
 * is the periapsis of its own e (picard-run --spread-param e=S sweeps the
 * eccentricity). Energy |p|^2/2 - mu/|q| and angular momentum
 * q1 p2 - q2 p1 are invariants.
 *
 * The long serial chain: over 100 orbits the paper's scheme at its default
 * (m = 8, K = 2) is far off even at h = 0.001 (relative error ~3 measured
 * with --check; the phase drifts), so default_h here only keeps the
 * default run affordable. Ask for an accuracy (--tol) instead.
 */
#include <math.h>

#include "picard_model.cuh"

struct kepler {
	static constexpr int dim = 4, nparams = 2;
	static constexpr const char *param_names[] = {"mu", "e"};
	static constexpr double param_defaults[] = {1, 0.5};
	static constexpr double x0[] = {0.5, 0, 0, 1.7320508075688772};
	static constexpr double t0 = 0, t1 = 200 * 3.14159265358979323846;
	static constexpr double default_h = 0.001;
	static constexpr const char *summary =
		"q1' = p1, q2' = p2, p' = -mu q / |q|^3 (start: periapsis of eccentricity e)";
	static constexpr const char *reference =
		"Hairer, Lubich & Wanner, Geometric Numerical Integration (2006) I.2.3";
	static constexpr int ninvariants = 2;
	static constexpr const char *invariant_names[] = {"energy", "angular_momentum"};

	template <typename real>
	__host__ __device__ static void rhs(real, const real *x, const real *p,
					    real *dxdt)
	{
		real r2 = x[0] * x[0] + x[1] * x[1];
		real c = -p[0] / (r2 * sqrt(r2));

		dxdt[0] = x[2];
		dxdt[1] = x[3];
		dxdt[2] = c * x[0];
		dxdt[3] = c * x[1];
	}

	/* J[i*dim + k] = d f_i / d x_k */
	template <typename real>
	__host__ __device__ static void jacobian(real, const real *x, const real *p, real *J)
	{
		real r2 = x[0] * x[0] + x[1] * x[1];
		real c = -p[0] / (r2 * sqrt(r2)), c3 = -3 * c / r2; /* dc/dx_k = c3 x_k */

		for (int i = 0; i < 16; i++)
			J[i] = 0;
		J[0 * 4 + 2] = 1;
		J[1 * 4 + 3] = 1;
		J[2 * 4 + 0] = c + c3 * x[0] * x[0];
		J[2 * 4 + 1] = c3 * x[0] * x[1];
		J[3 * 4 + 0] = c3 * x[0] * x[1];
		J[3 * 4 + 1] = c + c3 * x[1] * x[1];
	}

	/* periapsis of the orbit of semi-major axis 1 and eccentricity e */
	static void initial(const double *p, double *x)
	{
		double mu = p[0], e = p[1];

		x[0] = 1 - e;
		x[1] = 0;
		x[2] = 0;
		x[3] = sqrt(mu * (1 + e) / (1 - e));
	}

	static void invariants(const double *x, const double *p, double *out)
	{
		out[0] = 0.5 * (x[2] * x[2] + x[3] * x[3]) - p[0] / sqrt(x[0] * x[0] + x[1] * x[1]);
		out[1] = x[0] * x[3] - x[1] * x[2];
	}
};

PICARD_REGISTER_MODEL(kepler)
