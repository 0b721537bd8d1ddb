/* hires.cu - HIRES, the "High Irradiance RESponse" of photomorphogenesis
 * on the basis of phytochrome, a stiff chemical kinetics system of eight
 * species (E. Schäfer, "A new approach to explain the 'high irradiance
 * responses' of photomorphogenesis on the basis of phytochrome", J. Math.
 * Biology 2 (1975) 41-56; Hairer & Wanner, Solving ODEs II, IV.10; problem
 * HIRES of the Test Set for IVP Solvers, F. Mazzia and C. Magherini, Univ.
 * of Bari, release 2.4, 2008):
 *
 *	y1' = -1.71 y1 + 0.43 y2 + 8.32 y3 + 0.0007
 *	y2' =  1.71 y1 - 8.75 y2
 *	y3' = -10.03 y3 + 0.43 y4 + 0.035 y5
 *	y4' =  8.32 y2 + 1.71 y3 - 1.12 y4
 *	y5' = -1.745 y5 + 0.43 y6 + 0.43 y7
 *	y6' = -280 y6 y8 + 0.69 y4 + 1.71 y5 - 0.43 y6 + 0.69 y7
 *	y7' =  280 y6 y8 - 1.81 y7
 *	y8' = -280 y6 y8 + 1.81 y7
 *
 * y(0) = (1, 0, 0, 0, 0, 0, 0, 0.0057), t in [0, 321.8122]. The twelve
 * coefficients are Schäfer's ten rate constants, which are the parameters
 * here: k1 = 1.71 (Pr -> Pfr, also for PrX and PrX'), k2 = 0.43 (back),
 * k3 = 8.32 (Pfr -> PfrX), k4 = 0.69 (PfrX -> PfrX'), k5 = 0.035 (PrX' ->
 * PrX), k6 = 8.32 (PrX -> Pr), kplus = 280 and kminus = 0.69 (the enzyme
 * E binding to PfrX' and leaving it), kstar = 0.69 (PfrX'E decaying) and
 * oks = 0.0007 (synthesis of Pr); the other five coefficients are sums of
 * them (8.75 = k2 + k3, 10.03 = k1 + k6, 1.12 = k2 + k4, 1.745 = k1 + k5,
 * 1.81 = k2 + kminus + kstar), so a spread parameter keeps the mechanism.
 * y1..y8 are Pr, Pfr, PrX, PfrX, PrX', PfrX', PfrX'E, E; the enzyme's
 * total y7 + y8 is conserved.
 *
 * The test set's reference solution at t = 321.8122:
 *	y1 = 0.7371312573325668e-3, y2 = 0.1442485726316185e-3,
 *	y3 = 0.5888729740967575e-4, y4 = 0.1175651343283149e-2,
 *	y5 = 0.2386356198831331e-2, y6 = 0.6238968252742796e-2,
 *	y7 = 0.2849998395185769e-2, y8 = 0.2850001604814231e-2
 * (tests/test_reference.c holds the reference against it). The Jacobian's
 * eigenvalues reach about -1e2 when y6 is large (kplus y6), while the
 * solution settles on a scale of hundreds: stiff, for the implicit
 * schemes and the implicit reference.
 */
#include "picard_model.cuh"

struct hires {
	static constexpr int dim = 8, nparams = 10;
	static constexpr const char *param_names[] = {
		"k1", "k2", "k3", "k4", "k5", "k6", "kplus", "kminus", "kstar", "oks"};
	static constexpr double param_defaults[] = {
		1.71, 0.43, 8.32, 0.69, 0.035, 8.32, 280, 0.69, 0.69, 0.0007};
	static constexpr double x0[] = {1, 0, 0, 0, 0, 0, 0, 0.0057};
	static constexpr double t0 = 0, t1 = 321.8122;
	static constexpr bool stiff = true;
	static constexpr const char *summary =
		"8 species: Pr' = -k1 Pr + k2 Pfr + k6 PrX + oks, ..., "
		"PfrX'E' = kplus PfrX' E - (k2 + kminus + kstar) PfrX'E, E' = -PfrX'E'";
	static constexpr const char *reference =
		"Schäfer, J. Math. Biology 2 (1975) 41-56; Mazzia & Magherini, "
		"Test Set for IVP Solvers, HIRES";
	static constexpr int ninvariants = 1;
	static constexpr const char *invariant_names[] = {"enzyme"};

	template <typename real>
	__host__ __device__ static void rhs(real, const real *y, const real *p, real *dydt)
	{
		const real k1 = p[0], k2 = p[1], k3 = p[2], k4 = p[3], k5 = p[4],
			   k6 = p[5], kplus = p[6], kminus = p[7], kstar = p[8], oks = p[9];
		const real bind = kplus * y[5] * y[7];
		const real release = (k2 + kminus + kstar) * y[6];

		dydt[0] = -k1 * y[0] + k2 * y[1] + k6 * y[2] + oks;
		dydt[1] = k1 * y[0] - (k2 + k3) * y[1];
		dydt[2] = -(k1 + k6) * y[2] + k2 * y[3] + k5 * y[4];
		dydt[3] = k3 * y[1] + k1 * y[2] - (k2 + k4) * y[3];
		dydt[4] = -(k1 + k5) * y[4] + k2 * y[5] + k2 * y[6];
		dydt[5] = k4 * y[3] + k1 * y[4] - k2 * y[5] + kminus * y[6] - bind;
		dydt[6] = bind - release;
		dydt[7] = release - bind;
	}

	/* J[i*dim + k] = d f_i / d y_k */
	template <typename real>
	__host__ __device__ static void jacobian(real, const real *y, const real *p, real *J)
	{
		const real k1 = p[0], k2 = p[1], k3 = p[2], k4 = p[3], k5 = p[4],
			   k6 = p[5], kplus = p[6], kminus = p[7], kstar = p[8];
		const real out7 = k2 + kminus + kstar;

		for (int i = 0; i < dim * dim; i++)
			J[i] = 0;
		J[0 * dim + 0] = -k1;
		J[0 * dim + 1] = k2;
		J[0 * dim + 2] = k6;
		J[1 * dim + 0] = k1;
		J[1 * dim + 1] = -(k2 + k3);
		J[2 * dim + 2] = -(k1 + k6);
		J[2 * dim + 3] = k2;
		J[2 * dim + 4] = k5;
		J[3 * dim + 1] = k3;
		J[3 * dim + 2] = k1;
		J[3 * dim + 3] = -(k2 + k4);
		J[4 * dim + 4] = -(k1 + k5);
		J[4 * dim + 5] = k2;
		J[4 * dim + 6] = k2;
		J[5 * dim + 3] = k4;
		J[5 * dim + 4] = k1;
		J[5 * dim + 5] = -k2 - kplus * y[7];
		J[5 * dim + 6] = kminus;
		J[5 * dim + 7] = -kplus * y[5];
		J[6 * dim + 5] = kplus * y[7];
		J[6 * dim + 6] = -out7;
		J[6 * dim + 7] = kplus * y[5];
		J[7 * dim + 5] = -kplus * y[7];
		J[7 * dim + 6] = out7;
		J[7 * dim + 7] = -kplus * y[5];
	}

	static void invariants(const double *y, const double *, double *out)
	{
		out[0] = y[6] + y[7];
	}
};

PICARD_REGISTER_MODEL(hires)
