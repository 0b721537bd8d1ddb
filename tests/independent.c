/* independent.c - see independent.h. */
#include <criterion/criterion.h>
#include <curand.h>
#include <float.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "independent.h"

void linear_trapezoid_picard(int n, const double *A, int m, double h, int K, long windows,
			     double *x)
{
	double nodes[64 * 4], next[64 * 4], f[2][4];

	cr_assert(n <= 4 && m <= 64, "n %d, m %d", n, m);
	for (long w = 0; w < windows; w++) {
		for (int j = 0; j < m; j++)
			memcpy(nodes + j * n, x, n * sizeof(double));
		for (int sweep = 0; sweep < K; sweep++) {
			memcpy(next, x, n * sizeof(double));
			for (int j = 1; j < m; j++)
				for (int i = 0; i < n; i++) {
					f[0][i] = f[1][i] = 0;
					for (int k = 0; k < n; k++) {
						f[0][i] += A[i * n + k] * nodes[(j - 1) * n + k];
						f[1][i] += A[i * n + k] * nodes[j * n + k];
					}
					next[j * n + i] = next[(j - 1) * n + i] + h / 2 * (f[0][i] + f[1][i]);
				}
			memcpy(nodes, next, (size_t)m * n * sizeof(double));
		}
		memcpy(x, nodes + (m - 1) * n, n * sizeof(double));
	}
}

void philox_uniforms(unsigned long long seed, long count, double *u)
{
	curandGenerator_t gen;

	cr_assert(count > 0 && count < (1L << 16), "count %ld", count);
	cr_assert_eq(curandCreateGeneratorHost(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10),
		     CURAND_STATUS_SUCCESS);
	cr_assert_eq(curandSetPseudoRandomGeneratorSeed(gen, seed), CURAND_STATUS_SUCCESS);
	cr_assert_eq(curandGenerateUniformDouble(gen, u, (size_t)count), CURAND_STATUS_SUCCESS);
	curandDestroyGenerator(gen);
}

void documented_ensemble(int n, const double *center, long ntraj, double spread,
			 unsigned long long seed, double *x)
{
	double *u = calloc((size_t)(ntraj * n), sizeof(double));

	cr_assert_not_null(u);
	if (spread > 0)
		philox_uniforms(seed, ntraj * n, u);
	for (long j = 0; j < ntraj * n; j++)
		x[j] = center[j % n] * (spread > 0 ? 1 + spread * (2 * u[j] - 1) : 1);
	free(u);
}

struct gsl_system {
	const picard_model *model;
	const double *params;
};

static int gsl_rhs(double t, const double *x, double *dxdt, void *data)
{
	const struct gsl_system *sys = data;

	picard_model_rhs(sys->model, t, x, sys->params, dxdt);
	return GSL_SUCCESS;
}

void gsl_solve(const picard_model *model, const double *params, const double *x0, double t0,
	       const double *times, long ntimes, double *out)
{
	struct gsl_system sys = {model, params ? params : model->param_defaults};
	gsl_odeiv2_system ode = {gsl_rhs, NULL, (size_t)model->dim, &sys};
	gsl_odeiv2_driver *driver =
		gsl_odeiv2_driver_alloc_y_new(&ode, gsl_odeiv2_step_rk8pd, 1e-6, 1e-12, 1e-12);
	double *x = malloc((size_t)model->dim * sizeof(double)), t = t0;

	cr_assert(driver && x);
	memcpy(x, x0, (size_t)model->dim * sizeof(double));
	gsl_odeiv2_driver_set_nmax(driver, 0);
	for (long r = 0; r < ntimes; r++) {
		if (times[r] > t)
			cr_assert_eq(gsl_odeiv2_driver_apply(driver, &t, times[r], x), GSL_SUCCESS,
				     "%s: GSL stopped at t = %g", model->name, t);
		memcpy(out + r * model->dim, x, (size_t)model->dim * sizeof(double));
	}
	free(x);
	gsl_odeiv2_driver_free(driver);
}

/* The state at t_end from x at t by a fresh rk8pd drive at tol. */
static void gsl_state_at(gsl_odeiv2_driver *driver, double t, const double *x, double t_end,
			 int dim, double *out)
{
	memcpy(out, x, (size_t)dim * sizeof(double));
	gsl_odeiv2_driver_reset(driver);
	if (t_end > t)
		cr_assert_eq(gsl_odeiv2_driver_apply(driver, &t, t_end, out), GSL_SUCCESS,
			     "GSL stopped at t = %g", t);
}

int gsl_solve_events(const struct gsl_event_system *sys, const double *x0, double t0, double t1,
		     double tol, int max, double *t, double *before, double *after)
{
	const int n = sys->dim;
	gsl_odeiv2_system ode = {sys->rhs, NULL, (size_t)n, (void *)sys->params};
	gsl_odeiv2_step *step = gsl_odeiv2_step_alloc(gsl_odeiv2_step_rk8pd, n);
	gsl_odeiv2_control *control = gsl_odeiv2_control_y_new(tol, tol);
	gsl_odeiv2_evolve *evolve = gsl_odeiv2_evolve_alloc(n);
	gsl_odeiv2_driver *driver =
		gsl_odeiv2_driver_alloc_y_new(&ode, gsl_odeiv2_step_rk8pd, 1e-6, tol, tol);
	double x[8], start[8], mid[8], at = t0, h = fmin(1e-3, sys->hmax);
	int count = 0;

	cr_assert(n <= 8 && step && control && evolve && driver);
	gsl_odeiv2_driver_set_nmax(driver, 0);
	memcpy(x, x0, (size_t)n * sizeof(double));
	double g = sys->g(x, sys->params);
	while (at < t1 && count < max) {
		const double from = at;

		memcpy(start, x, (size_t)n * sizeof(double));
		h = fmin(h, sys->hmax);
		cr_assert_eq(gsl_odeiv2_evolve_apply(evolve, control, step, &ode, &at, t1, &h, x),
			     GSL_SUCCESS, "GSL stopped at t = %g", at);
		const double g_end = sys->g(x, sys->params);

		if (!(g < 0 && g_end >= 0)) {
			g = g_end;
			continue;
		}
		double lo = from, hi = at;
		while (hi - lo > 4 * DBL_EPSILON * fmax(1, fabs(hi))) {
			const double m = 0.5 * (lo + hi);

			gsl_state_at(driver, from, start, m, n, mid);
			if (sys->g(mid, sys->params) < 0)
				lo = m;
			else
				hi = m;
		}
		at = hi;
		gsl_state_at(driver, from, start, at, n, x);
		t[count] = at;
		memcpy(before + (size_t)count * n, x, (size_t)n * sizeof(double));
		if (sys->jump)
			sys->jump(x, sys->params);
		memcpy(after + (size_t)count * n, x, (size_t)n * sizeof(double));
		count++;
		g = sys->g(x, sys->params);
		gsl_odeiv2_evolve_reset(evolve);
		gsl_odeiv2_step_reset(step);
		h = fmin(1e-3, sys->hmax);
	}
	gsl_odeiv2_driver_free(driver);
	gsl_odeiv2_evolve_free(evolve);
	gsl_odeiv2_control_free(control);
	gsl_odeiv2_step_free(step);
	return count;
}
