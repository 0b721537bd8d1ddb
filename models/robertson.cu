/* robertson.cu - Robertson's chemical kinetics, the classic stiff test
 * problem: three species, one slow reaction and two fast ones,
 *
 *	A -> B (k1),  B + C -> A + C (k2),  2B -> B + C (k3)
 *
 *	y1' = -k1 y1 + k2 y2 y3
 *	y2' =  k1 y1 - k2 y2 y3 - k3 y2^2
 *	y3' =  k3 y2^2
 *
 * with k1 = 0.04, k2 = 1e4, k3 = 3e7 (H. H. Robertson, "The solution of a
 * set of reaction rate equations", in Numerical Analysis: an Introduction,
 * Academic Press 1966, 178-182; Hairer & Wanner, Solving ODEs II, IV.1).
 * The Jacobian's eigenvalues reach -1e4 while the solution changes on
 * time scales up to 1e5: an explicit scheme's step is held near 1e-4 for
 * the whole span. y1 + y2 + y3 is conserved.
 */
#include "picard_model.cuh"

struct robertson {
	static constexpr int dim = 3, nparams = 3;
	static constexpr const char *param_names[] = {"k1", "k2", "k3"};
	static constexpr double param_defaults[] = {0.04, 1e4, 3e7};
	static constexpr double x0[] = {1, 0, 0};
	static constexpr double t0 = 0, t1 = 1e5;
	static constexpr bool stiff = true;
	static constexpr const char *summary =
		"y1' = -k1 y1 + k2 y2 y3, y2' = k1 y1 - k2 y2 y3 - k3 y2^2, y3' = k3 y2^2";
	static constexpr const char *reference =
		"Robertson 1966; Hairer & Wanner, Solving ODEs II, IV.1";
	static constexpr int ninvariants = 1;
	static constexpr const char *invariant_names[] = {"mass"};

	template <typename real>
	__host__ __device__ static void rhs(real, const real *y, const real *p, real *dydt)
	{
		const real slow = p[0] * y[0], back = p[1] * y[1] * y[2], fast = p[2] * y[1] * y[1];

		dydt[0] = -slow + back;
		dydt[1] = slow - back - fast;
		dydt[2] = fast;
	}

	/* J[i*dim + k] = d f_i / d y_k */
	template <typename real>
	__host__ __device__ static void jacobian(real, const real *y, const real *p, real *J)
	{
		J[0] = -p[0];
		J[1] = p[1] * y[2];
		J[2] = p[1] * y[1];
		J[3] = p[0];
		J[4] = -p[1] * y[2] - 2 * p[2] * y[1];
		J[5] = -p[1] * y[1];
		J[6] = 0;
		J[7] = 2 * p[2] * y[1];
		J[8] = 0;
	}

	static void invariants(const double *y, const double *, double *out)
	{
		out[0] = y[0] + y[1] + y[2];
	}
};

PICARD_REGISTER_MODEL(robertson)
