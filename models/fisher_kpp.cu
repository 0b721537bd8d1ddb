/* fisher_kpp.cu - the Fisher-KPP equation u_t = D u_xx + r u (1 - u) on
 * [0, 1], semi-discretised by the method of lines: 32 cells of width
 * dx = 1/32, second differences with no-flux (Neumann) ends. R. A. Fisher,
 * "The wave of advance of advantageous genes", Ann. Eugenics 7 (1937)
 * 355-369. A front invades the domain from the left at speed 2 sqrt(D r)
 * = 0.09; the largest eigenvalue of the diffusion, 4 D / dx^2 = 8.2 at the
 * default D, bounds the window Picard iteration converges on. The model of
 * 30 or more components that the tests run at --tol (issue 14). */
#include "picard_model.cuh"

struct fisher_kpp {
	static constexpr int dim = 32, nparams = 2;
	static constexpr const char *param_names[] = {"D", "r"};
	static constexpr double param_defaults[] = {0.002, 1};
	/* a front at x = 0.25: u = 1 behind it, 0.02 ahead */
	static constexpr double x0[] = {
		1, 1, 1, 1, 1, 1, 1, 0.9, 0.5, 0.1, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02,
		0.02, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02,
		0.02, 0.02, 0.02, 0.02};
	static constexpr double t0 = 0, t1 = 5;
	/* windows of 7 h times the Lipschitz constant 8.2: 0.29, as lotka's
	 * default grid has it (the tests scale default_h by up to 4.2) */
	static constexpr double default_h = 0.005;
	static constexpr const char *summary =
		"u_i' = D (u_{i-1} - 2 u_i + u_{i+1}) / dx^2 + r u_i (1 - u_i), 32 cells, no-flux ends";
	static constexpr const char *reference =
		"Fisher, Ann. Eugenics 7 (1937) 355-369; method of lines, dx = 1/32";

	template <typename real>
	__host__ __device__ static void rhs(real, const real *u, const real *p, real *dudt)
	{
		const real diffusion = p[0] * real(dim * dim); /* D / dx^2 */

		for (int i = 0; i < dim; i++) {
			const real left = u[i > 0 ? i - 1 : i + 1];
			const real right = u[i < dim - 1 ? i + 1 : i - 1];

			dudt[i] = diffusion * (left - 2 * u[i] + right) + p[1] * u[i] * (1 - u[i]);
		}
	}

	/* J[i*dim + k] = d f_i / d x_k */
	template <typename real>
	__host__ __device__ static void jacobian(real, const real *u, const real *p, real *J)
	{
		const real diffusion = p[0] * real(dim * dim);

		for (int i = 0; i < dim * dim; i++)
			J[i] = 0;
		for (int i = 0; i < dim; i++) {
			real *row = J + i * dim;

			row[i] += -2 * diffusion + p[1] * (1 - 2 * u[i]);
			row[i > 0 ? i - 1 : i + 1] += diffusion;
			row[i < dim - 1 ? i + 1 : i - 1] += diffusion;
		}
	}
};

PICARD_REGISTER_MODEL(fisher_kpp)
