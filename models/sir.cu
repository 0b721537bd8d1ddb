/* sir.cu - the SIR epidemic of W. O. Kermack & A. G. McKendrick, "A
 * contribution to the mathematical theory of epidemics", Proc. R. Soc.
 * Lond. A 115 (1927) 700-721, in the form of H. W. Hethcote, SIAM Review
 * 42 (2000) 599-653, section 2:
 *
 *	S' = -beta S I / N,  I' = beta S I / N - gamma I,  R' = gamma I
 *
 * with N = S + I + R, which the flow conserves (the invariant
 * "population"). Time in days: beta = 0.3, gamma = 0.1 (R0 = 3), 1000
 * people of whom 10 infected, span [0, 160] days, one epidemic wave.
 */
#include "picard_model.cuh"

struct sir {
	static constexpr int dim = 3, nparams = 2;
	static constexpr const char *param_names[] = {"beta", "gamma"};
	static constexpr double param_defaults[] = {0.3, 0.1};
	static constexpr double x0[] = {990, 10, 0};
	static constexpr double t0 = 0, t1 = 160;
	static constexpr double default_h = 0.1;
	static constexpr const char *summary =
		"S' = -beta S I/N, I' = beta S I/N - gamma I, R' = gamma I, N = S + I + R";
	static constexpr const char *reference =
		"Kermack & McKendrick, Proc. R. Soc. Lond. A 115 (1927) 700-721";
	static constexpr int ninvariants = 1;
	static constexpr const char *invariant_names[] = {"population"};

	template <typename real>
	__host__ __device__ static void rhs(real, const real *x, const real *p,
					    real *dxdt)
	{
		real infections = p[0] * x[0] * x[1] / (x[0] + x[1] + x[2]);
		real recoveries = p[1] * x[1];

		dxdt[0] = -infections;
		dxdt[1] = infections - recoveries;
		dxdt[2] = recoveries;
	}

	/* J[i*dim + k] = d f_i / d x_k */
	template <typename real>
	__host__ __device__ static void jacobian(real, const real *x, const real *p, real *J)
	{
		real n = x[0] + x[1] + x[2], bn2 = p[0] / (n * n);
		real ds = bn2 * x[1] * (x[1] + x[2]); /* d infections / d S */
		real di = bn2 * x[0] * (x[0] + x[2]); /* d infections / d I */
		real dr = -bn2 * x[0] * x[1];         /* d infections / d R */

		J[0] = -ds;
		J[1] = -di;
		J[2] = -dr;
		J[3] = ds;
		J[4] = di - p[1];
		J[5] = dr;
		J[6] = 0;
		J[7] = p[1];
		J[8] = 0;
	}

	static void invariants(const double *x, const double *, double *out)
	{
		out[0] = x[0] + x[1] + x[2];
	}
};

PICARD_REGISTER_MODEL(sir)
