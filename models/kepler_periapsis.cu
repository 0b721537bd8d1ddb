/* kepler_periapsis.cu - kepler.cu's two-body problem with its periapsis
 * passages recorded: an event where the radial velocity q . p crosses
 * zero rising (the distance |q| at its minimum), logged only, so the
 * orbit is left as it is (kepler.cu itself stays event-free for its
 * benchmarks):
 *
 *	q'' = -mu q / |q|^3, state (q1, q2, p1, p2) with p = q';
 *	when q1 p1 + q2 p2 rises through 0: record
 *
 * The default start is the apoapsis of the orbit of semi-major axis 1 and
 * eccentricity e = 0.5 with mu = 1: q = (-(1 + e), 0), p = (0, -sqrt(mu
 * (1 - e) / (1 + e))), the same orbit as kepler's, half a period on. A
 * trajectory's start is the apoapsis of its own e. The closed form: from
 * any bound start the semi-major axis is a = -mu / (2 E) (E the energy
 * |p|^2/2 - mu/|q|), the period T = 2 pi sqrt(a^3 / mu), and the
 * periapsis passages are t_p + k T (t_p from Kepler's equation, pi here),
 * each at the distance a (1 - e). Energy and angular momentum are
 * invariants. */
#include <math.h>

#include "picard_model.cuh"

struct kepler_periapsis {
	static constexpr int dim = 4, nparams = 2;
	static constexpr const char *param_names[] = {"mu", "e"};
	static constexpr double param_defaults[] = {1, 0.5};
	static constexpr double x0[] = {-1.5, 0, 0, -0.57735026918962573};
	static constexpr double t0 = 0, t1 = 20 * 3.14159265358979323846;
	static constexpr double default_h = 0.001;
	static constexpr const char *summary =
		"q' = p, p' = -mu q / |q|^3 (start: apoapsis of eccentricity e); at q.p = 0 rising: record";
	static constexpr const char *reference =
		"Hairer, Lubich & Wanner, Geometric Numerical Integration (2006) I.2.3";
	static constexpr int ninvariants = 2;
	static constexpr const char *invariant_names[] = {"energy", "angular_momentum"};

	template <typename real>
	__host__ __device__ static void rhs(real, const real *x, const real *p, real *dxdt)
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

	/* apoapsis of the orbit of semi-major axis 1 and eccentricity e */
	static void initial(const double *p, double *x)
	{
		double mu = p[0], e = p[1];

		x[0] = -(1 + e);
		x[1] = 0;
		x[2] = 0;
		x[3] = -sqrt(mu * (1 - e) / (1 + e));
	}

	static void invariants(const double *x, const double *p, double *out)
	{
		out[0] = 0.5 * (x[2] * x[2] + x[3] * x[3]) - p[0] / sqrt(x[0] * x[0] + x[1] * x[1]);
		out[1] = x[0] * x[3] - x[1] * x[2];
	}

	/* one event, recorded: periapsis, where q . p turns from falling
	 * distance (negative) to rising */
	static constexpr int nevents = 1;
	static constexpr const char *event_names[] = {"periapsis"};
	static constexpr picard_event_direction event_directions[] = {PICARD_EVENT_RISING};
	static constexpr picard_event_action event_actions[] = {PICARD_EVENT_RECORD};

	template <typename real>
	__host__ __device__ static void events(real, const real *x, const real *, real *g)
	{
		g[0] = x[0] * x[2] + x[1] * x[3];
	}
};

PICARD_REGISTER_MODEL(kepler_periapsis)
