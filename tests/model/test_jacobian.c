/* test_jacobian.c - the Jacobians of the right-hand sides (suite
 * jacobian): for every registered model, at states and parameters spread
 * around its defaults and at times across its span, the forward-mode
 * automatic derivative through rhs (src/model/jacobian.cuh) agrees with the
 * model's analytic jacobian to rounding, and both with central finite
 * differences to their truncation. Every shipped model declares one. CPU
 * only: the device instances are the same templates. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdlib.h>

#include "model_impl.h"
#include "picard.h"

#define NPOINTS 7     /* states per model */
#define SPREAD 0.3    /* states +-30% */
#define PSPREAD 0.1   /* parameters +-10% */
#define SEED 17ULL
#define AD_TOL 1e-12  /* AD against analytic, relative to the row's scale */
#define FD_TOL 1e-6   /* finite differences: step^2 truncation and rounding/step */
/* The differences' step in x_k: FD_STEP |x_k|, but at least FD_STEP
 * FD_FLOOR. Relative, not 1e-5 max(1, |x_k|) as it was: that step was
 * absolute for every component below 1, which for h2o2's mass fractions
 * (Y_H2 0.02, radicals 0 at these states) is 1/2000 of the fuel and
 * larger than the radicals themselves; the rates' curvature in Y through
 * rho = P W / (R T) (third derivative at Y_OH = 0) then gave 2.7e-3 off the
 * AD Jacobian. The error goes as floor^2 (measured on h2o2: floor 1
 * 2.7e-3, 1e-2 2.7e-7, 1e-3 2.7e-9), while the other models move from
 * 1e-13..1e-9 to at most 2.6e-8 (sir; rounding / a smaller step), and at
 * a floor of 1e-6 rounding takes them to 2e-5 (sir). */
#define FD_STEP 1e-5
#define FD_FLOOR 1e-3

/* Largest |J| in row i, at least 1: the scale of an entry's error. */
static double row_scale(const double *J, int n, int i)
{
	double s = 1;

	for (int k = 0; k < n; k++)
		s = fmax(s, fabs(J[i * n + k]));
	return s;
}

/* Central differences of rhs: column k from x +- h_k e_k, h_k =
 * FD_STEP max(|x_k|, FD_FLOOR). */
static void finite_differences(const picard_model *model, double t, const double *x,
			       const double *p, double *J)
{
	const int n = model->dim;
	double *xp = malloc(n * sizeof(double)), *fp = malloc(n * sizeof(double));
	double *fm = malloc(n * sizeof(double));

	cr_assert(xp && fp && fm);
	for (int k = 0; k < n; k++) {
		const double h = FD_STEP * fmax(fabs(x[k]), FD_FLOOR);

		for (int j = 0; j < n; j++)
			xp[j] = x[j];
		xp[k] = x[k] + h;
		picard_model_rhs(model, t, xp, p, fp);
		xp[k] = x[k] - h;
		picard_model_rhs(model, t, xp, p, fm);
		for (int i = 0; i < n; i++)
			J[i * n + k] = (fp[i] - fm[i]) / (2 * h);
	}
	free(xp);
	free(fp);
	free(fm);
}

/* Each model at NPOINTS (t, x, p): its analytic J, the AD one, differences. */
Test(jacobian, ad_matches_analytic_and_differences_every_model)
{
	for (int m = 0; m < picard_model_count(); m++) {
		const picard_model *model = picard_model_at(m);
		const int n = model->dim, np = model->nparams;
		double *x = malloc(NPOINTS * n * sizeof(double));
		double *p = malloc(NPOINTS * (np + 1) * sizeof(double));
		double *ja = malloc(n * n * sizeof(double)), *jd = malloc(n * n * sizeof(double));
		double *jf = malloc(n * n * sizeof(double)), spreads[16];
		double worst_ad = 0, worst_fd = 0;

		cr_assert(x && p && ja && jd && jf);
		cr_expect(model->impl->declares_jacobian, "%s declares no jacobian", model->name);
		for (int q = 0; q < 16; q++)
			spreads[q] = PSPREAD;
		cr_assert_eq(picard_ensemble_model(model, NPOINTS, SPREAD, np ? spreads : NULL, SEED,
						   PICARD_BACKEND_CPU, x, np ? p : NULL), 0);
		for (int s = 0; s < NPOINTS; s++) {
			const double t = model->t0 + (model->t1 - model->t0) * s / NPOINTS;
			const double *xs = x + s * n, *ps = np ? p + s * np : NULL;

			model->impl->jacobian[0](t, xs, ps ? ps : model->param_defaults, ja);
			model->impl->jacobian[1](t, xs, ps ? ps : model->param_defaults, jd);
			finite_differences(model, t, xs, ps, jf);
			for (int i = 0; i < n; i++) {
				const double scale = row_scale(ja, n, i);

				for (int k = 0; k < n; k++) {
					worst_ad = fmax(worst_ad, fabs(ja[i * n + k] - jd[i * n + k]) / scale);
					worst_fd = fmax(worst_fd, fabs(jf[i * n + k] - jd[i * n + k]) / scale);
				}
			}
		}
		cr_log_info("%s: AD against analytic %.1e, against differences %.1e", model->name,
			    worst_ad, worst_fd);
		cr_expect_leq(worst_ad, AD_TOL, "%s: AD and analytic Jacobians differ by %.2e",
			      model->name, worst_ad);
		cr_expect_leq(worst_fd, FD_TOL, "%s: AD and finite differences differ by %.2e",
			      model->name, worst_fd);
		free(x), free(p), free(ja), free(jd), free(jf);
	}
}

/* The public entry gives the model's own. */
Test(jacobian, public_entry_is_the_models)
{
	const picard_model *model = picard_model_find("lorenz");
	const double x[3] = {1, 2, 3};
	double J[9];

	cr_assert_not_null(model);
	picard_model_jacobian(model, 0, x, NULL, J);
	/* sigma = 10, rho = 28, beta = 8/3 */
	cr_expect_float_eq(J[0], -model->param_defaults[0], 0);
	cr_expect_float_eq(J[3], model->param_defaults[1] - 3, 1e-15);
	cr_expect_float_eq(J[5], -1, 0);
	cr_expect_float_eq(J[8], -model->param_defaults[2], 0);
}
