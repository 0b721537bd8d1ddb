/* test_gauss_reference.c - the binary128 judge (suite gauss_reference:
 * src/reference/gauss_reference.c) against closed forms: kepler's orbit
 * over its 100 periods (Kepler's equation solved in binary128 here, for
 * the orbit of the start state as rounded to double), the harmonic
 * oscillator's rotation, decay's exponential in a model file compiled at
 * run time (docs/models.md), and a blow-up reported. Between step ends
 * the dense output is held to the same bounds. */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <math.h>
#include <quadmath.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauss_reference.h"
#include "picard.h"
#include "support.h"

/* Kepler's orbit (mu = 1) from a periapsis start (x0[0], 0, 0, x0[3]),
 * exactly as rounded: its elements in binary128, the state at t. */
static void kepler_exact(const double *x0, double t, double *x)
{
	const __float128 r = x0[0], v = x0[3], a = 1 / (2 / r - v * v), e = 1 - r / a;
	const __float128 n = sqrtq(1 / (a * a * a)), M = n * (__float128)t;
	const __float128 b = a * sqrtq(1 - e * e);
	__float128 E = M;

	for (int i = 0; i < 60; i++)
		E -= (E - e * sinq(E) - M) / (1 - e * cosq(E));
	const __float128 dE = n / (1 - e * cosq(E));

	x[0] = (double)(a * (cosq(E) - e));
	x[1] = (double)(b * sinq(E));
	x[2] = (double)(-a * sinq(E) * dE);
	x[3] = (double)(b * cosq(E) * dE);
}

static double max_diff(const double *a, const double *b, int n)
{
	double worst = 0;

	for (int k = 0; k < n; k++)
		worst = fmax(worst, fabs(a[k] - b[k]));
	return worst;
}

Test(gauss_reference, kepler_100_periods_closed_form, .timeout = 300)
{
	const picard_model *model = test_model("kepler");
	double x0[4], x[4], ex[4], end = 0, between = 0;
	struct gauss_traj g;

	cr_assert(gauss_available(model), "kepler has no rhs in binary128");
	picard_model_start(model, NULL, x0);
	cr_assert_eq(gauss_reference_build(&g, model, NULL, x0, model->t0, model->t1, 1e-13, 0),
		     PICARD_OK, "%s", picard_error_detail());
	gauss_traj_eval(&g, model->t1, x);
	kepler_exact(x0, model->t1, ex);
	end = max_diff(x, ex, 4);
	/* whole periods of the rounded orbit bring it back to x0 within the
	 * period's own rounding: the closed form above is the sharper test */
	for (int i = 0; i < 997; i++) {
		const double t = model->t1 * (i + 0.37) / 997;

		gauss_traj_eval(&g, t, x);
		kepler_exact(x0, t, ex);
		between = fmax(between, max_diff(x, ex, 4));
	}
	cr_log_info("kepler e = 0.5, 100 periods: %ld steps, own error %.2g, at t1 %.2g off, "
		    "between steps %.2g, %.2f s", g.nsteps, g.own_error, end, between, g.seconds);
	cr_expect_lt(g.own_error, 1e-13);
	cr_expect_lt(end, 1e-13, "x(t1) %.3g off Kepler's closed form", end);
	cr_expect_lt(between, 1e-13, "the dense output %.3g off between steps", between);
	gauss_traj_free(&g);
}

Test(gauss_reference, oscillator_closed_form)
{
	const picard_model *model = test_model("oscillator");
	const int n = model->dim;
	double x0[8], x[8], ex[8], worst = 0, times[41], out[41 * 8], own;

	cr_assert(model->exact && n <= 8);
	picard_model_start(model, NULL, x0);
	for (int i = 0; i < 41; i++)
		times[i] = model->t0 + (model->t1 - model->t0) * (i + 0.29) / 41;
	cr_assert_eq(gauss_reference_times(model, NULL, x0, model->t0, times, 41, 1e-13, 0, out,
					   &own), PICARD_OK, "%s", picard_error_detail());
	for (int i = 0; i < 41; i++) {
		model->exact(times[i], model->t0, x0, model->param_defaults, ex);
		memcpy(x, out + i * n, n * sizeof(double));
		worst = fmax(worst, max_diff(x, ex, n) / fmax(1, fabs(ex[0])));
	}
	cr_log_info("oscillator: own error %.2g, off the closed form %.2g", own, worst);
	cr_expect_lt(own, 1e-13);
	cr_expect_lt(worst, 1e-13, "%.3g off the rotation", worst);
}

/* A model file compiled at run time, as docs/models.md writes one: decay
 * (mode 0), x' = x^2 blowing up at t = 1/x0 (mode 1), a NaN slope
 * (mode 2). */
static const char *const loaded_model =
	"#include \"picard_model.cuh\"\n"
	"struct judged {\n"
	"\tstatic constexpr int dim = 1, nparams = 2;\n"
	"\tstatic constexpr const char *param_names[] = {\"lambda\", \"mode\"};\n"
	"\tstatic constexpr double param_defaults[] = {0.7, 0};\n"
	"\tstatic constexpr double x0[] = {1};\n"
	"\tstatic constexpr double t0 = 0, t1 = 10;\n"
	"\tstatic constexpr const char *summary = \"decay, a blow-up or NaN\";\n"
	"\tstatic constexpr const char *reference = \"test_gauss_reference.c\";\n"
	"\ttemplate <typename real>\n"
	"\t__host__ __device__ static void rhs(real, const real *x, const real *p, real *dxdt)\n"
	"\t{\n"
	"\t\tif (p[1] == 1)\n"
	"\t\t\tdxdt[0] = x[0] * x[0];\n"
	"\t\telse if (p[1] == 2)\n"
	"\t\t\tdxdt[0] = sqrt(x[0] - 2);\n"
	"\t\telse\n"
	"\t\t\tdxdt[0] = -p[0] * x[0];\n"
	"\t}\n"
	"};\n"
	"PICARD_REGISTER_MODEL(judged)\n";

static const picard_model *load_judged(void)
{
	const struct path file = in_workdir("judged.cu");
	const picard_model *model = NULL;

	write_file(file.s, loaded_model, strlen(loaded_model));
	cr_assert_eq(picard_model_load(file.s, &model), PICARD_OK, "%s", picard_error_detail());
	return model;
}

Test(gauss_reference, loaded_model_decay, .timeout = 300)
{
	const picard_model *model = load_judged();
	const double x0 = 1, p[2] = {0.7, 0};
	double times[10], out[10], own, worst = 0;

	cr_assert(gauss_available(model), "a loaded model has no rhs in binary128");
	for (int i = 0; i < 10; i++)
		times[i] = 1.0 + i * 0.77;
	cr_assert_eq(gauss_reference_times(model, p, &x0, 0, times, 10, 1e-14, 3, out, &own),
		     PICARD_OK, "%s", picard_error_detail());
	for (int i = 0; i < 10; i++)
		worst = fmax(worst, fabs(out[i] - exp(-0.7 * times[i])));
	cr_log_info("decay (loaded): own error %.2g, off exp %.2g", own, worst);
	cr_expect_lt(worst, 1e-15);
}

Test(gauss_reference, blow_up_and_nan_reported, .timeout = 300)
{
	const picard_model *model = load_judged();
	const double x0 = 1, blow[2] = {0, 1}, nan_slope[2] = {0, 2};
	struct gauss_traj g;

	cr_expect_eq(gauss_reference_build(&g, model, blow, &x0, 0, 2, 1e-12, 5), PICARD_EREF);
	cr_expect(strstr(picard_error_detail(), "trajectory 5") &&
		  strstr(picard_error_detail(), "gauss16"), "%s", picard_error_detail());
	cr_expect_eq(gauss_reference_build(&g, model, nan_slope, &x0, 0, 2, 1e-12, 6), PICARD_EREF);
	cr_expect(strstr(picard_error_detail(), "trajectory 6") &&
		  strstr(picard_error_detail(), "not finite"), "%s", picard_error_detail());
}

/* picard-run at a tolerance rk8pd cannot check: the final check judged
 * by gauss16, the check passing. 4 members over 10 periods (--t1), not
 * the 64 over 100: on 2 cores 4 members over 100 periods take
 * 245 s (the search 212 s of it), over 10 periods 23 s. */
static void make_gauss_workdir(void)
{
	make_workdir("gauss-cli", NULL); /* its search's decision not in the user's cache */
}

Test(gauss_reference, cli_kepler_tol_1e10, .init = make_gauss_workdir, .fini = remove_workdir,
     .timeout = 600)
{
	struct cli_run r = run_program_line("picard-run",
					    "kepler --traj 4 --tol 1e-10 --backend cpu "
					    "--t1 62.83185307179586");

	cr_log_info("%s", r.out);
	cr_expect_eq(r.status, 0, "%s\n%s", r.out, r.err);
	cr_expect(strstr(r.out, "[PASS]"), "%s", r.out);
	cr_expect(strstr(r.out, "judged by gauss16 in binary128"), "%s", r.out);
	free_run(&r);
}
