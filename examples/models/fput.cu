/* fput.cu - the Fermi-Pasta-Ulam-Tsingou beta chain: 32 unit masses
 * between fixed ends, joined by springs with a cubic part, 64 components
 * (positions q_1..q_32, then momenta p_1..p_32).
 *
 *	q_k' = p_k
 *	p_k' = (q_{k+1} - 2 q_k + q_{k-1})
 *	       + beta ((q_{k+1} - q_k)^3 - (q_k - q_{k-1})^3),  q_0 = q_33 = 0
 *
 * Started in the lowest mode, q_k = sin(pi k / 33): the energy the
 * nonlinearity hands to the higher modes comes back (the FPUT recurrence),
 * far from equipartition, so nearby trajectories stay close. A model file
 * outside models/ (picard-run examples/models/fput.cu), of a size that
 * shows which layouts suit a large state: its right-hand side loops over
 * the components.
 */
#include "picard_model.cuh"

struct fput {
	static constexpr int dim = 64, nparams = 1;
	static constexpr const char *param_names[] = {"beta"};
	static constexpr double param_defaults[] = {1};
	static constexpr double x0[] = {
		0.095056043304182658, 0.18925124436041019, 0.28173255684142967, 0.37166245566032752,
		0.45822652172741041, 0.54064081745559756, 0.61815898622060517, 0.69007901148211193,
		0.75574957435425827, 0.81457595205033573, 0.8660254037844386, 0.90963199535451833,
		0.94500081871466846, 0.97181156832354165, 0.98982144188093268, 0.99886733918300796,
		0.99886733918300796, 0.9898214418809328, 0.97181156832354176, 0.94500081871466846,
		0.90963199535451833, 0.86602540378443871, 0.81457595205033584, 0.75574957435425827,
		0.69007901148211193, 0.61815898622060506, 0.54064081745559778, 0.45822652172741052,
		0.37166245566032757, 0.28173255684143006, 0.18925124436041049, 0.09505604330418288,
		0, 0, 0, 0,
		0, 0, 0, 0,
		0, 0, 0, 0,
		0, 0, 0, 0,
		0, 0, 0, 0,
		0, 0, 0, 0,
		0, 0, 0, 0,
		0, 0, 0, 0};
	static constexpr double t0 = 0, t1 = 50;
	/* the default grid (trapezoid, m = 8, K = 2) within about 1% */
	static constexpr double default_h = 0.002;
	static constexpr const char *summary =
		"q_k' = p_k, p_k' = q_{k+1} - 2 q_k + q_{k-1} + beta ((q_{k+1} - q_k)^3 - (q_k - q_{k-1})^3), 32 masses";
	static constexpr const char *reference =
		"Fermi, Pasta, Ulam, Los Alamos report LA-1940, 1955; Dauxois, Physics Today 61(1), 2008";

	template <typename real>
	__host__ __device__ static void rhs(real, const real *x, const real *p, real *dxdt)
	{
		constexpr int n = dim / 2;
		const real *q = x, *v = x + n;

		for (int k = 0; k < n; k++) {
			const real left = k > 0 ? q[k] - q[k - 1] : q[k];
			const real right = k < n - 1 ? q[k + 1] - q[k] : -q[k];

			dxdt[k] = v[k];
			dxdt[n + k] = right - left + p[0] * (right * right * right - left * left * left);
		}
	}

	/* J[i*dim + k] = d f_i / d x_k: each mass feels its two neighbours */
	template <typename real>
	__host__ __device__ static void jacobian(real, const real *x, const real *p, real *J)
	{
		constexpr int n = dim / 2;
		const real *q = x;

		for (int i = 0; i < dim * dim; i++)
			J[i] = 0;
		for (int k = 0; k < n; k++) {
			const real left = k > 0 ? q[k] - q[k - 1] : q[k];
			const real right = k < n - 1 ? q[k + 1] - q[k] : -q[k];
			const real dl = 1 + 3 * p[0] * left * left, dr = 1 + 3 * p[0] * right * right;
			real *row = J + (n + k) * dim;

			J[k * dim + n + k] = 1;
			row[k] = -dl - dr;
			if (k > 0)
				row[k - 1] = dl;
			if (k < n - 1)
				row[k + 1] = dr;
		}
	}
};

PICARD_REGISTER_MODEL(fput)
