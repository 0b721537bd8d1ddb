/* test_radau5.c - the stiff scheme, radau5, where it is needed (suite
 * radau5), on the CPU backend; tests/schemes/test_rk.c holds its order, dense
 * output, tolerance and statuses with the explicit pairs, and the
 * conformance suite every model against the reference.
 * - robertson, hires and van der Pol at mu = 1000 against the published
 *   values of the Test Set for IVP Solvers (test_stiff.c quotes them),
 *   each within its tolerance's reach, in few steps;
 * - an ensemble mixing stiff and non-stiff members: each member's status
 *   on its own (an explicit pair stops at max-steps on the stiff ones
 *   alone), and radau5 solves them all;
 * - float agrees with double to float's tolerance on robertson;
 * - a stiff model's defaults in picard-run: radau5, in double;
 * - Hairer's own code, step for step: on the problems of radau5.f's
 *   drivers, the same function and Jacobian evaluations, LU
 *   decompositions, solves, accepted and rejected steps as radau5.f, and
 *   its end state to rounding (radau5_hairer.cpp). */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "picard.h"
#include "cli_files.h"
#include "independent.h"
#include "radau5_hairer.h"
#include "scheme.h"
#include "support.h"

/* One trajectory from x0 (params NULL: the defaults) over [t0, t1] by
 * radau5 at rtol, atol; the state at t1 into x, the status returned and
 * the Newton iterations into *iterations. */
static picard_traj_status radau5_one(const picard_model *model, const double *x0,
				     const double *params, double t0, double t1, double rtol,
				     double atol, picard_precision precision, double *x,
				     double *iterations)
{
	picard_options opt = {.scheme = PICARD_SCHEME_RADAU5, .iter_rtol = rtol,
			      .iter_atol = atol, .precision = precision, .t0 = t0, .t1 = t1,
			      .backend = PICARD_BACKEND_CPU};
	picard_solver *s = test_solver(model, &opt, 1);
	picard_traj_status status;
	picard_stats stats;
	int err = picard_solve(s, x0, params, x, &status, NULL, NULL, 0, &stats);

	cr_assert(err == 0 || err == PICARD_EFAILED, "%s: %s", model->name, picard_error_detail());
	*iterations = stats.sweeps_mean;
	picard_solver_free(s);
	return status;
}

/* HIRES at t = 321.8122 at rtol = atol = 1e-10: within 1e-6 relative of
 * the test set (every component; they are 6e-5 .. 6e-3). */
Test(radau5, hires_matches_the_test_set)
{
	static const double published[8] = {
		0.7371312573325668e-3, 0.1442485726316185e-3, 0.5888729740967575e-4,
		0.1175651343283149e-2, 0.2386356198831331e-2, 0.6238968252742796e-2,
		0.2849998395185769e-2, 0.2850001604814231e-2,
	};
	const picard_model *model = test_model("hires");
	double x[8], iterations, worst;

	cr_assert_eq(radau5_one(model, model->x0, NULL, 0, 321.8122, 1e-10, 1e-10, PICARD_DOUBLE,
				x, &iterations), PICARD_TRAJ_OK);
	worst = max_relative_error(8, x, published);
	cr_log_info("hires radau5 1e-10: %.2e relative off the test set, %.0f iterations", worst,
		    iterations);
	cr_expect_lt(worst, 1e-6, "hires: %.2e off the test set", worst);
}

/* Robertson over the test set's whole span, to t = 1e11, at rtol 1e-8,
 * atol 1e-14 (y2 falls to 8e-14 there): y3 within 1e-10, y1 within 1e-4
 * relative, the mass kept to 1e-12; in fewer than 1e4 iterations where an
 * explicit step is held near 1e-4 (1e15 steps). */
Test(radau5, robertson_to_1e11_matches_the_test_set)
{
	static const double published[3] = {
		0.2083340149701255e-7, 0.8333360770334713e-13, 0.9999999791665050,
	};
	const picard_model *model = test_model("robertson");
	double x[3], iterations;

	cr_assert_eq(radau5_one(model, model->x0, NULL, 0, 1e11, 1e-8, 1e-14, PICARD_DOUBLE, x,
				&iterations), PICARD_TRAJ_OK);
	cr_log_info("robertson radau5 to 1e11: y1 %.2e rel, y2 %.2e rel, y3 %.2e abs, "
		    "mass - 1 = %.1e, %.0f iterations", fabs(x[0] / published[0] - 1),
		    fabs(x[1] / published[1] - 1), fabs(x[2] - published[2]),
		    x[0] + x[1] + x[2] - 1, iterations);
	cr_expect_lt(fabs(x[0] / published[0] - 1), 1e-4);
	cr_expect_lt(fabs(x[2] - published[2]), 1e-10);
	cr_expect_lt(fabs(x[0] + x[1] + x[2] - 1), 1e-12);
	cr_expect_lt(iterations, 1e4);
}

/* van der Pol at mu = 1000 from (2, 0) to t = 2000 (the test set's VDPOL)
 * at rtol = atol = 1e-9: within 1e-5 relative. */
Test(radau5, vanderpol_mu_1000_matches_the_test_set)
{
	static const double published[2] = {1.706167732170469, -0.8928097010248125e-3};
	const picard_model *model = test_model("vanderpol");
	const double mu = 1000, x0[2] = {2, 0};
	double x[2], iterations, worst;

	cr_assert_eq(radau5_one(model, x0, &mu, 0, 2000, 1e-9, 1e-9, PICARD_DOUBLE, x,
				&iterations), PICARD_TRAJ_OK);
	worst = max_relative_error(2, x, published);
	cr_log_info("vanderpol mu 1000 radau5 1e-9: %.2e relative off the test set, %.0f "
		    "iterations", worst, iterations);
	cr_expect_lt(worst, 1e-5, "vanderpol: %.2e off the test set", worst);
}

/* van der Pol with mu = 1 and mu = 1000 in turn, over [0, 300]: dp5 with
 * 20000 steps allowed finishes the mu = 1 members (about 2000 steps) and
 * stops at max-steps on the others (its stable step ~ 1e-3 needs 3e5),
 * each member reported on its own; radau5 solves every member, checked
 * against the reference. */
#define MIXED 8
Test(radau5, mixed_ensemble_reports_each_member, .timeout = 120)
{
	const picard_model *model = test_model("vanderpol");
	double x0[2 * MIXED], mu[MIXED];
	picard_options opt = {.scheme = PICARD_SCHEME_DP5, .K_max = 20000, .iter_rtol = 1e-6,
			      .precision = PICARD_DOUBLE, .t0 = 0, .t1 = 300,
			      .backend = PICARD_BACKEND_CPU};
	picard_traj_status status[MIXED];
	picard_record rec = {.every = 1, .traj_stride = 1};
	picard_check_result check;
	picard_solver *s;
	int err;

	for (int i = 0; i < MIXED; i++) {
		x0[2 * i] = 2;
		x0[2 * i + 1] = 0;
		mu[i] = i % 2 ? 1000 : 1;
	}
	s = test_solver(model, &opt, MIXED);
	err = picard_solve(s, x0, mu, NULL, status, NULL, NULL, 0, NULL);
	cr_expect_eq(err, PICARD_EFAILED);
	for (int i = 0; i < MIXED; i++)
		cr_expect_eq(status[i], i % 2 ? PICARD_TRAJ_MAX_STEPS : PICARD_TRAJ_OK,
			     "dp5, member %d (mu %g): %s", i, mu[i],
			     picard_traj_status_name(status[i]));
	picard_solver_free(s);

	opt.scheme = PICARD_SCHEME_RADAU5;
	opt.K_max = 0;
	opt.h = 30; /* ten window ends to check */
	s = test_solver(model, &opt, MIXED);
	rec.states = malloc(picard_record_size(s, &rec) * sizeof(double));
	err = picard_solve(s, x0, mu, NULL, status, NULL, &rec, 1, NULL);
	cr_assert_eq(err, 0, "radau5: %s", picard_error_detail());
	err = picard_check(model, picard_solver_grid(s), MIXED, x0, mu, &rec, &check);
	cr_assert_eq(err, 0, "check: %s", picard_error_detail());
	cr_log_info("mixed ensemble, radau5 1e-6: E = %.2e (rel %.2e)", check.error,
		    check.rel_error);
	cr_expect_lt(check.rel_error, 1e-3, "radau5 on the mixed ensemble: rel %.2e",
		     check.rel_error);
	free(rec.states);
	picard_solver_free(s);
}

/* Float on robertson at rtol 1e-4, atol 1e-8: within 1e-3 relative of
 * double (y1, y3; y2 ~ 1e-5 within 1e-2) over the model's span. */
Test(radau5, float_agrees_with_double_on_robertson)
{
	const picard_model *model = test_model("robertson");
	double xf[3], xd[3], iterations;

	cr_assert_eq(radau5_one(model, model->x0, NULL, 0, 1e5, 1e-4, 1e-8, PICARD_FLOAT, xf,
				&iterations), PICARD_TRAJ_OK);
	cr_assert_eq(radau5_one(model, model->x0, NULL, 0, 1e5, 1e-4, 1e-8, PICARD_DOUBLE, xd,
				&iterations), PICARD_TRAJ_OK);
	cr_log_info("robertson float vs double: %.2e %.2e %.2e relative",
		    fabs(xf[0] / xd[0] - 1), fabs(xf[1] / xd[1] - 1), fabs(xf[2] / xd[2] - 1));
	cr_expect_lt(fabs(xf[0] / xd[0] - 1), 1e-3);
	cr_expect_lt(fabs(xf[1] / xd[1] - 1), 1e-2);
	cr_expect_lt(fabs(xf[2] / xd[2] - 1), 1e-3);
}

/* picard-run on a stiff model without --scheme: the list's first
 * per-thread scheme that solves stiff models (rodas5p) in double, checked;
 * with any such scheme named, double all the same. */
Test(radau5, stiff_model_defaults_in_picard_run)
{
	picard_scheme stiff[PER_THREAD_MAX];
	const int nstiff = per_thread_schemes(PER_THREAD_STIFF, stiff);
	struct cli_run run;
	char grid[64];

	snprintf(grid, sizeof(grid), "grid         %s ", picard_scheme_of(stiff[0])->name);
	make_workdir("radau5", NULL);
	run = run_program_line("picard-run", "robertson --traj 16 --backend cpu --check");
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect(strstr(run.out, grid), "no '%s' in\n%s", grid, run.out);
	cr_expect(strstr(run.out, "double"), "not double:\n%s", run.out);
	free_run(&run);
	/* a stiff scheme named still runs double: float's underflowed the
	 * steps of gri30 */
	for (int i = 0; i < nstiff; i++) {
		char line[128];

		snprintf(line, sizeof(line), "robertson --traj 4 --backend cpu --scheme %s",
			 picard_scheme_of(stiff[i])->name);
		run = run_program_line("picard-run", line);
		cr_expect_eq(run.status, 0, "%s: %s", line, run.err);
		cr_expect(strstr(run.out, "precision    double"), "%s not double:\n%s", line,
			  run.out);
		free_run(&run);
	}
	/* the README's command, its answer against GSL's rk8pd on mu = 1000
	 * solved here (stiff for it, but 10 time units are a few thousand
	 * steps): mu = 0 (what --param once left) is a rotation, far off */
	{
		const picard_model *vdp = test_model("vanderpol");
		const double mu = 1000, t1 = 10;
		double x[4 * 2], want[2];
		char line[512];

		snprintf(line, sizeof(line), "vanderpol --param mu=1000 --t1 10 --traj 4 "
			 "--backend cpu --scheme radau5 --precision double --check --spread 0 "
			 "--out %s", in_workdir("vdp.csv").s);
		run = run_program_line("picard-run", line);
		cr_expect_eq(run.status, 0, "%s", run.err);
		free_run(&run);
		read_final_csv(in_workdir("vdp.csv").s, 4, 2, x);
		gsl_solve(vdp, &mu, vdp->x0, 0, &t1, 1, want);
		for (int i = 0; i < 4 * 2; i++)
			cr_expect(fabs(x[i] - want[i % 2]) < 1e-4 * (1 + fabs(want[i % 2])),
				  "member %d, x%d(10) = %.12g, GSL at mu = 1000: %.12g", i / 2,
				  i % 2 + 1, x[i], want[i % 2]);
	}
	run = run_program_line("picard-run", "vanderpol --param mu=oops");
	cr_expect_neq(run.status, 0);
	cr_expect(strstr(run.err, "--param"), "%s", run.err);
	free_run(&run);
	remove_workdir();
}

/* Float, its default tolerance's neighbourhood (rtol = atol = 1e-5), 64
 * robertson members with k1, k2, k3 spread 10%, over [0, 1e4]: every one
 * ok. The iteration's increments reach float's rounding there, where
 * their ratio is noise: judged as divergence, it once halved the step to
 * underflow on 5 of these 64. */
Test(radau5, float_iteration_converges_at_rounding)
{
	const picard_model *model = test_model("robertson");
	const double spreads[3] = {0.1, 0.1, 0.1};
	enum { N = 64 };
	double x0[3 * N], params[3 * N];
	picard_traj_status status[N];
	picard_options opt = {.scheme = PICARD_SCHEME_RADAU5, .iter_rtol = 1e-5,
			      .precision = PICARD_FLOAT, .t0 = 0, .t1 = 1e4, .h = 1e3,
			      .backend = PICARD_BACKEND_CPU};
	picard_solver *s;
	int err;

	err = picard_ensemble_model(model, N, 0, spreads, 7, PICARD_BACKEND_CPU, x0, params);
	cr_assert_eq(err, 0, "%s", picard_error_detail());
	s = test_solver(model, &opt, N);
	err = picard_solve(s, x0, params, NULL, status, NULL, NULL, 0, NULL);
	cr_expect_eq(err, 0, "%s", picard_error_detail());
	for (int i = 0; i < N; i++)
		cr_expect_eq(status[i], PICARD_TRAJ_OK, "member %d: %s", i,
			     picard_traj_status_name(status[i]));
	picard_solver_free(s);
}

/* radau5.f's statistics for its drivers' problems: Hairer's radau5.f
 * (version of 1996, as kept in github.com/cpmech/hwode with its drivers
 * radau5_vdp.f and radau5_rob.f) compiled with gfortran and run with the
 * settings of each row (2026-11-28); the first row is also the published
 * figure of Hairer's driver dr1_radau5.f as russell_ode's tests quote it.
 * Any other count means a step, a decomposition or an iteration that
 * RADAU5 would not have made (or would have). */
static const struct {
	radau5_hairer_problem problem;
	double y0[3], t1, rtol, atol;
	long fcn, jac, dec, sol, step, accept, reject;
	double y[3];
} hairer[] = {
	{RADAU5_HAIRER_VDP, {2, -0.6}, 2, 1e-4, 1e-4, 2247, 162, 252, 668, 280, 242, 8,
	 {1.706163410178051, -8.927971289322032e-01}},
	{RADAU5_HAIRER_VDP, {2, -0.66}, 2, 1e-4, 1e-10, 2274, 164, 283, 675, 288, 248, 12,
	 {1.706165284637314, -8.928105126899403e-01}},
	{RADAU5_HAIRER_VDP, {2, -0.6}, 2, 1e-7, 1e-7, 5667, 430, 581, 1656, 706, 698, 7,
	 {1.706167446983628, -8.928100044884062e-01}},
	{RADAU5_HAIRER_ROBERTSON, {1, 0, 0}, 0.3, 1e-2, 1e-8, 87, 8, 15, 24, 17, 15, 1,
	 {9.886740138499884e-01, 3.447720471782071e-05, 1.129150894529390e-02}},
	{RADAU5_HAIRER_ROBERTSON, {1, 0, 0}, 1e5, 1e-6, 1e-12, 991, 114, 124, 289, 125, 124, 1,
	 {1.786592180677520e-02, 7.274751777388667e-08, 9.821340054457076e-01}},
	{RADAU5_HAIRER_ROBERTSON, {1, 0, 0}, 1e11, 1e-8, 1e-14, 4033, 395, 415, 1166, 537, 535, 2,
	 {2.083340103535270e-08, 8.333360585670755e-14, 9.999999791665143e-01}},
};

Test(radau5, counts_as_hairers_radau5)
{
	for (size_t c = 0; c < sizeof hairer / sizeof hairer[0]; c++) {
		const radau5_hairer_run r =
			radau5_hairer_solve(hairer[c].problem, hairer[c].y0, hairer[c].t1,
					    hairer[c].rtol, hairer[c].atol, 1e-6);
		const int n = hairer[c].problem == RADAU5_HAIRER_VDP ? 2 : 3;

		cr_expect_eq(r.status, PICARD_TRAJ_OK, "case %zu", c);
		cr_expect(r.fcn == hairer[c].fcn && r.jac == hairer[c].jac &&
				  r.dec == hairer[c].dec && r.sol == hairer[c].sol &&
				  r.step == hairer[c].step && r.accept == hairer[c].accept &&
				  r.reject == hairer[c].reject,
			  "case %zu: fcn %ld jac %ld dec %ld sol %ld step %ld accpt %ld rejct %ld, "
			  "radau5.f: %ld %ld %ld %ld %ld %ld %ld",
			  c, r.fcn, r.jac, r.dec, r.sol, r.step, r.accept, r.reject, hairer[c].fcn,
			  hairer[c].jac, hairer[c].dec, hairer[c].sol, hairer[c].step,
			  hairer[c].accept, hairer[c].reject);
		/* the same operations in another order of rounding: the end
		 * states agree far below the tolerance */
		for (int i = 0; i < n; i++)
			cr_expect(fabs(r.y[i] - hairer[c].y[i]) <=
					  1e-6 * (hairer[c].rtol * fabs(hairer[c].y[i]) + hairer[c].atol),
				  "case %zu: y%d = %.16e, radau5.f %.16e", c, i + 1, r.y[i],
				  hairer[c].y[i]);
	}
}
