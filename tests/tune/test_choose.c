/* test_choose.c - picard_choose (include/picard_choose.h), the choice
 * picard-run --tol and solve(tol=) share (suite choose), on the CPU.
 *
 * On decay (exact solution x0 exp(-lambda t)) an ensemble spread in x0 and
 * lambda: the chosen configuration, solved, must meet E on every member
 * against the closed form; the same request again takes the kept decision
 * and the same options; a request that fixes the whole grid chooses
 * nothing; a bad request is refused naming what is wrong. The options a
 * point sets are checked against values worked by hand.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "picard.h"
#include "picard_choose.h"
#include "scheme.h"
#include "support.h"

#define CHOOSE_TOL 1e-6
#define CHOOSE_TRAJ 24L

static void make_choose_workdir(void)
{
	make_workdir("choose", "cache");
}

TestSuite(choose, .init = make_choose_workdir, .fini = remove_workdir, .timeout = 120);

/* decay's members: x0 in [0.5, 1.5], lambda in [0.2, 0.8], into x0, p. */
static void decay_ensemble(double *x0, double *p)
{
	for (long i = 0; i < CHOOSE_TRAJ; i++) {
		x0[i] = 0.5 + (double)i / (CHOOSE_TRAJ - 1);
		p[i] = 0.8 - 0.6 * (double)((i * 7) % CHOOSE_TRAJ) / (CHOOSE_TRAJ - 1);
	}
}

static picard_choose_request decay_request(const double *x0, const double *p)
{
	return (picard_choose_request){
		.x0 = x0, .params = p, .ntraj = CHOOSE_TRAJ, .spread = 0.1, .seed = 1,
		.precision = PICARD_DOUBLE, .backend = PICARD_BACKEND_CPU,
		.t0 = 0, .t1 = 10, .tol = CHOOSE_TOL,
	};
}

/* The largest |x(t1) - x0 exp(-lambda t1)| of the ensemble solved with opts. */
static double worst_against_exact(const picard_options *opts, const double *x0, const double *p)
{
	double x1[CHOOSE_TRAJ], worst = 0;
	picard_traj_status status[CHOOSE_TRAJ];
	picard_solver *solver = test_solver(test_model("decay"), opts, CHOOSE_TRAJ);
	int err = picard_solve(solver, x0, p, x1, status, NULL, NULL, 0, NULL);

	cr_assert(err == 0, "solve: %s (%s)", picard_strerror(err), picard_error_detail());
	for (long i = 0; i < CHOOSE_TRAJ; i++) {
		cr_assert_eq(status[i], PICARD_TRAJ_OK, "member %ld: status %d", i, status[i]);
		worst = fmax(worst, fabs(x1[i] - x0[i] * exp(-p[i] * 10)));
	}
	picard_solver_free(solver);
	return worst;
}

Test(choose, searched_choice_meets_tol_against_the_closed_form_and_is_kept)
{
	double x0[CHOOSE_TRAJ], p[CHOOSE_TRAJ];
	picard_options first, again;
	picard_choose_report *report = malloc(sizeof(*report));
	int err;

	decay_ensemble(x0, p);
	const picard_choose_request request = decay_request(x0, p);
	err = picard_choose(test_model("decay"), &request, &first, report);
	cr_assert(err == 0, "choose: %s (%s)", picard_strerror(err), picard_error_detail());
	cr_assert_eq(report->source, PICARD_CHOICE_SEARCH);
	cr_assert(!report->closest && report->point.meets);
	cr_assert(report->point.error <= CHOOSE_TOL, "predicted E %g", report->point.error);
	cr_assert(report->where[0] && strstr(report->search, "trajectories sampled"),
		  "kept in '%s', search '%s'", report->where, report->search);
	cr_assert_eq(first.scheme, report->point.scheme);
	cr_assert(first.t0 == 0 && first.t1 == 10 && first.precision == PICARD_DOUBLE);

	const double worst = worst_against_exact(&first, x0, p);
	cr_assert(worst <= CHOOSE_TOL, "%s: max error %g against exp(-lambda t) over %g",
		  picard_scheme_of(first.scheme)->name, worst, CHOOSE_TOL);

	err = picard_choose(test_model("decay"), &request, &again, report);
	cr_assert_eq(err, 0);
	cr_assert_eq(report->source, PICARD_CHOICE_DECISION);
	cr_assert(!memcmp(&first, &again, sizeof(first)), "the kept decision chose otherwise");
	free(report);
}

Test(choose, fixed_grid_chooses_nothing)
{
	double x0[CHOOSE_TRAJ], p[CHOOSE_TRAJ];
	picard_options chosen;
	picard_choose_report report;
	picard_choose_request request;

	decay_ensemble(x0, p);
	request = decay_request(x0, p);
	request.fixed = (picard_options){.scheme = PICARD_SCHEME_TRAPEZOID, .m = 4, .K = 3, .h = 0.01};
	cr_assert_eq(picard_choose(test_model("decay"), &request, &chosen, &report), 0);
	cr_assert_eq(report.source, PICARD_CHOICE_GIVEN);
	cr_assert(chosen.m == 4 && chosen.K == 3 && chosen.h == 0.01 && chosen.t1 == 10);
}

Test(choose, bad_request_is_refused_naming_it)
{
	double x0[CHOOSE_TRAJ], p[CHOOSE_TRAJ];
	picard_options chosen;
	picard_choose_request request;

	decay_ensemble(x0, p);
	request = decay_request(x0, p);
	request.tol = -1;
	cr_assert_eq(picard_choose(test_model("decay"), &request, &chosen, NULL), PICARD_EINVAL);
	cr_assert(strstr(picard_error_detail(), "tol = -1"), "%s", picard_error_detail());
	request = decay_request(x0, p);
	request.t1 = request.t0;
	cr_assert_eq(picard_choose(test_model("decay"), &request, &chosen, NULL), PICARD_EINVAL);
	cr_assert(strstr(picard_error_detail(), "span"), "%s", picard_error_detail());
}

Test(choose, pair_fixed_steps_cover_the_span)
{
	const picard_tune_point p = {.scheme = PICARD_SCHEME_DP8, .m = 2, .K = 1, .h = 2.5};
	const picard_options fixed = {.t0 = 0, .t1 = 100};
	picard_options o;

	picard_choose_apply(&p, &fixed, false, &o);
	/* one output interval, the span, in steps of at most 2.5: 40 */
	cr_assert(o.scheme == PICARD_SCHEME_DP8 && o.m == 2 && o.h == 100 && o.K == 40,
		  "m %d h %g K %d", o.m, o.h, o.K);
	cr_assert(isinf(o.max_work), "the search bounds its grids: no work limit");
}

Test(choose, lobatto_point_sets_window_and_warm_start_keeping_what_is_fixed)
{
	const picard_tune_point p = {.scheme = PICARD_SCHEME_LOBATTO, .m = 9, .K = 20, .h = 0.05,
				     .iter_rtol = 1e-10, .block = 8};
	picard_options fixed = {.t0 = 0, .t1 = 10, .iter_rtol = 1e-12};
	picard_options o;

	picard_choose_apply(&p, &fixed, false, &o);
	cr_assert(o.m == 9 && fabs(o.window - 0.4) < 1e-15 && o.K == 0 && o.K_max == 20,
		  "m %d window %g K %d K_max %d", o.m, o.window, o.K, o.K_max);
	cr_assert(o.warm_start && o.iter_rtol == 1e-12, "iter_rtol fixed: %g", o.iter_rtol);
	cr_assert_eq(o.block, picard_scheme_of(PICARD_SCHEME_LOBATTO)->windows_in_flight ? 8 : 0);
	fixed.m = 5;
	picard_choose_apply(&p, &fixed, false, &o);
	cr_assert(o.m == 5 && fabs(o.window - 0.2) < 1e-15, "m %d window %g", o.m, o.window);
}
