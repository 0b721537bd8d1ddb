/* test_check_each.c - picard_check_each() (suite check_each) and the dense
 * reference of the tuner (suite dense_reference), on records whose answer
 * is known: states from exact solutions with planted errors.
 *
 * The riccati ensemble x' = x^2 (exact x0 / (1 - x0 t), infinite at
 * t = 1/x0) from x0 = 0.1 .. 0.4, -1, 1 over [0, 2] has one member, the
 * last, whose reference blows up at t = 1. A model of 40 components
 * (20 harmonic oscillators, defined here: the reference and the check
 * need only its host right-hand side) covers dimensions above the dense
 * reference's old limit of 16. Criterion forks per test; no CUDA here.
 */
#define _GNU_SOURCE /* M_PI */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dense_reference.h"
#include "errors.h"
#include "model_impl.h"
#include "picard.h"
#include "reference.h"
#include "support.h"

#define RIC_NTRAJ 6
#define RIC_BLOWUP 5  /* x0 = 1: blows up at t = 1 */
#define NTIMES 8      /* record times 0.25, 0.5, ..., 2 */

static const double ric_x0[RIC_NTRAJ] = { 0.1, 0.2, 0.3, 0.4, -1.0, 1.0 };

/* A record of times with the exact riccati states (a = 1), NaN where the
 * exact solution has blown up, and the grid picard_check_each needs. */
struct ric_fixture {
	const picard_model *model; /* riccati */
	picard_grid grid;          /* [0, 2]: 8 windows of m = 5 */
	double times[NTIMES];      /* record times */
	double states[NTIMES * RIC_NTRAJ]; /* [time][traj] */
	picard_record rec;         /* the times, every trajectory */
	double traj_error[RIC_NTRAJ]; /* picard_check_each's per slot */
};

static double ric_exact(double x0, double t)
{
	return t < 1 / x0 || x0 < 0 ? x0 / (1 - x0 * t) : NAN;
}

static void ric_setup(struct ric_fixture *f)
{
	f->model = test_model("riccati");
	cr_assert_eq(f->model->dim, 1);
	f->grid = (picard_grid){ .m = 5, .K = 2, .h = 0.0625, .window = 0.25,
				 .t0 = 0, .t1 = 2, .windows = 8 };
	for (int r = 0; r < NTIMES; r++) {
		f->times[r] = 0.25 * (r + 1);
		for (int i = 0; i < RIC_NTRAJ; i++)
			f->states[r * RIC_NTRAJ + i] = ric_exact(ric_x0[i], f->times[r]);
	}
	f->rec = (picard_record){ .traj_stride = 1, .states = f->states,
				  .times = f->times, .ntimes = NTIMES };
}

/* picard_check_each of the fixture under tol; the call must return want. */
static picard_check_result ric_check(struct ric_fixture *f, picard_tolerance tol,
				     bool keep_going, int want)
{
	picard_check_options opt = { .tol = tol, .traj_error = f->traj_error,
				     .keep_going = keep_going };
	picard_check_result res;
	int err;

	for (int i = 0; i < RIC_NTRAJ; i++)
		f->traj_error[i] = -1;
	err = picard_check_each(f->model, &f->grid, RIC_NTRAJ, ric_x0, NULL, &f->rec,
				&opt, &res);
	cr_assert_eq(err, want, "check_each returned %d (%s): %s", err,
		     picard_strerror(err), picard_error_detail());
	return res;
}

/* The number after "near t = " in a detail. */
static double detail_time(const char *detail)
{
	const char *at = strstr(detail, "near t = ");

	cr_assert_not_null(at, "no time in the detail: %s", detail);
	return strtod(at + strlen("near t = "), NULL);
}

/* The blowing-up member is NaN and counted, the detail names it and the
 * time of the blow-up; every other member is compared and matches the
 * exact states to the reference's accuracy. */
Test(check_each, blowup_marks_its_slot_only)
{
	struct ric_fixture f;
	picard_check_result res;
	const char *detail;

	ric_setup(&f);
	res = ric_check(&f, (picard_tolerance){ .atol = 1e-8, .rtol = 1e-8 }, true, 0);
	detail = picard_error_detail();
	cr_log_info("detail: %s; scaled %.3e", detail, res.scaled_error);
	cr_assert_eq(res.ref_failed, 1);
	cr_assert_eq(res.first_ref_failed, RIC_BLOWUP);
	cr_assert_eq(res.checked_traj, RIC_NTRAJ - 1);
	cr_assert_eq(res.points, (RIC_NTRAJ - 1) * NTIMES);
	cr_assert(isnan(f.traj_error[RIC_BLOWUP]), "slot %d: %g", RIC_BLOWUP,
		  f.traj_error[RIC_BLOWUP]);
	for (int i = 0; i < RIC_NTRAJ - 1; i++)
		cr_assert(f.traj_error[i] >= 0 && f.traj_error[i] < 1e-3,
			  "slot %d: scaled error %g", i, f.traj_error[i]);
	cr_assert(strstr(detail, "trajectory 5"), "detail: %s", detail);
	cr_assert(strstr(detail, "blows up"), "detail: %s", detail);
	cr_assert_float_eq(detail_time(detail), 1.0, 1e-3, "detail: %s", detail);
	cr_assert_lt(res.scaled_error, 1e-3);
	cr_assert_eq(res.nonfinite, 0);
	cr_assert_lt(res.error, 1e-11, "E = %g", res.error);
}

/* A perturbed state's scaled error is |dx| / (atol + rtol |x_ref|), and
 * it is its slot's and the check's maximum; E and where it lies keep
 * their meaning. */
Test(check_each, planted_error_is_scaled)
{
	const picard_tolerance tol = { .atol = 1e-6, .rtol = 1e-3 };
	const double delta = 1e-4;
	struct ric_fixture f;
	picard_check_result res;
	double want, ref;

	ric_setup(&f);
	ref = ric_exact(ric_x0[2], f.times[5]);
	f.states[5 * RIC_NTRAJ + 2] += delta;
	want = delta / (tol.atol + tol.rtol * fabs(ref));
	res = ric_check(&f, tol, true, 0);
	cr_log_info("scaled %.12f, want %.12f", f.traj_error[2], want);
	cr_assert_float_eq(f.traj_error[2], want, 1e-8 * want);
	cr_assert_eq(res.scaled_error, f.traj_error[2]);
	cr_assert_eq(res.worst_traj, 2);
	cr_assert_eq(res.worst_window, 5, "the row of the time");
	cr_assert_float_eq(res.error, delta, 1e-12);
	for (int i = 0; i < RIC_NTRAJ - 1; i++)
		if (i != 2)
			cr_assert_lt(f.traj_error[i], 1e-3, "slot %d: %g", i, f.traj_error[i]);
}

/* Under a purely relative tolerance the same relative perturbation gives
 * the same scaled error on members of different size; as absolute errors
 * (both parts 0) they differ by the members' sizes. */
Test(check_each, relative_tolerance_scales_by_the_state)
{
	const double rel = 1e-6, rtol = 1e-5;
	struct ric_fixture f;
	picard_check_result res;

	ric_setup(&f);
	for (int r = 0; r < NTIMES; r++)
		for (int i = 0; i < RIC_NTRAJ - 1; i++)
			f.states[r * RIC_NTRAJ + i] *= 1 + rel;
	res = ric_check(&f, (picard_tolerance){ .rtol = rtol }, true, 0);
	for (int i = 0; i < RIC_NTRAJ - 1; i++)
		cr_assert_float_eq(f.traj_error[i], rel / rtol, 1e-5,
				   "slot %d: %.9f", i, f.traj_error[i]);
	cr_assert_float_eq(res.scaled_error, rel / rtol, 1e-5);
	res = ric_check(&f, (picard_tolerance){ 0 }, true, 0);
	/* absolute: rel * max_t |x(t)|, largest at t = 2 (x0 > 0) or 0.25 */
	for (int i = 0; i < RIC_NTRAJ - 1; i++) {
		double big = fmax(fabs(ric_exact(ric_x0[i], 2)), fabs(ric_exact(ric_x0[i], 0.25)));

		cr_assert_float_eq(f.traj_error[i], rel * big, 1e-3 * rel * big,
				   "slot %d: %.3e, want %.3e", i, f.traj_error[i], rel * big);
	}
	cr_assert_eq(res.scaled_error, res.error, "absolute: the scaled error is E");
}

/* A non-finite state makes its slot +Inf and counts. */
Test(check_each, nonfinite_state_is_inf)
{
	struct ric_fixture f;
	picard_check_result res;

	ric_setup(&f);
	f.states[3 * RIC_NTRAJ + 1] = NAN;
	res = ric_check(&f, (picard_tolerance){ .atol = 1e-6 }, true, 0);
	cr_assert(isinf(f.traj_error[1]) && f.traj_error[1] > 0, "%g", f.traj_error[1]);
	cr_assert(isinf(res.scaled_error));
	cr_assert_eq(res.nonfinite, 1);
	cr_assert_eq(res.worst_traj, 1);
}

/* Without keep_going the failed reference fails the check, as
 * picard_check does, and names the trajectory; so does picard_check. */
Test(check_each, without_keep_going_fails)
{
	struct ric_fixture f;
	picard_check_result res;
	int err;

	ric_setup(&f);
	ric_check(&f, (picard_tolerance){ .atol = 1e-6 }, false, PICARD_EREF);
	cr_assert(strstr(picard_error_detail(), "trajectory 5"), "%s", picard_error_detail());
	err = picard_check(f.model, &f.grid, RIC_NTRAJ, ric_x0, NULL, &f.rec, &res);
	cr_assert_eq(err, PICARD_EREF);
	cr_assert(strstr(picard_error_detail(), "trajectory 5"), "%s", picard_error_detail());
	cr_assert_float_eq(detail_time(picard_error_detail()), 1.0, 1e-3);
}

/* Every reference failed: nothing compared must not read as a pass. */
Test(check_each, all_failed_is_an_error)
{
	struct ric_fixture f;
	picard_check_result res;
	picard_check_options opt = { .keep_going = true };
	const double x0 = 1;

	ric_setup(&f);
	f.rec.states = f.states; /* one slot: trajectory 0 of x0 = 1 */
	cr_assert_eq(picard_check_each(f.model, &f.grid, 1, &x0, NULL, &f.rec, &opt, &res),
		     PICARD_EREF);
	cr_assert_eq(res.ref_failed, 1);
	cr_assert_eq(res.checked_traj, 0);
	cr_assert(isnan(res.error) && isnan(res.scaled_error));
}

/* Absolute errors: picard_check_each agrees with picard_check on every
 * shared field, whatever the thread count. */
Test(check_each, absolute_agrees_with_check)
{
	struct ric_fixture f;
	picard_check_result each, plain, one;
	double x0[RIC_NTRAJ - 1];
	picard_check_options opt = { 0 };
	int err;

	ric_setup(&f);
	memcpy(x0, ric_x0, sizeof(x0));
	f.states[2 * RIC_NTRAJ + 3] += 0.5; /* slot 3 of the 5-member record */
	f.rec.traj_stride = 1;
	/* the first 5 members as their own record, [time][5] */
	for (int r = 0; r < NTIMES; r++)
		memmove(f.states + r * (RIC_NTRAJ - 1), f.states + r * RIC_NTRAJ,
			(RIC_NTRAJ - 1) * sizeof(double));
	err = picard_check(f.model, &f.grid, RIC_NTRAJ - 1, x0, NULL, &f.rec, &plain);
	cr_assert_eq(err, 0, "%s", picard_error_detail());
	err = picard_check_each(f.model, &f.grid, RIC_NTRAJ - 1, x0, NULL, &f.rec, &opt, &each);
	cr_assert_eq(err, 0, "%s", picard_error_detail());
	omp_set_num_threads(1);
	err = picard_check_each(f.model, &f.grid, RIC_NTRAJ - 1, x0, NULL, &f.rec, &opt, &one);
	cr_assert_eq(err, 0);
	cr_assert_eq(each.error, plain.error);
	cr_assert_eq(each.rel_error, plain.rel_error);
	cr_assert_eq(each.worst_traj, 3);
	cr_assert_eq(each.worst_window, 2);
	cr_assert_eq(each.worst_traj, plain.worst_traj);
	cr_assert_eq(each.worst_window, plain.worst_window);
	cr_assert_eq(each.points, plain.points);
	cr_assert_eq(each.scaled_error, each.error);
	cr_assert_eq(each.ref_failed, 0);
	cr_assert_eq(each.first_ref_failed, -1);
	cr_assert_eq(memcmp(&each, &one, sizeof(each)), 0, "1 thread and many disagree");
}

/* A tolerance near the default reference's own (1e-12) gets a tighter
 * reference: exact states then score far below 1. */
Test(check_each, tight_tolerance_tightens_the_reference)
{
	struct ric_fixture f;
	picard_check_result res;
	double loose[NTIMES], worst_loose = 0;
	const double x0 = ric_x0[3];

	ric_setup(&f);
	res = ric_check(&f, (picard_tolerance){ .atol = 1e-12, .rtol = 1e-12 }, true, 0);
	cr_assert_eq(picard_reference(f.model, NULL, &x0, 0, f.times, NTIMES, loose), 0);
	for (int r = 0; r < NTIMES; r++)
		worst_loose = fmax(worst_loose, fabs(loose[r] - ric_exact(x0, f.times[r])) /
				   (1e-12 + 1e-12 * fabs(ric_exact(x0, f.times[r]))));
	cr_log_info("scaled error of exact states at 1e-12: %.3e (the 1e-12 reference alone: %.3e)",
		    res.scaled_error, worst_loose);
	cr_assert_lt(res.scaled_error, 0.05);
}

/* Bad tolerances are refused. */
Test(check_each, rejects_bad_tolerance)
{
	struct ric_fixture f;
	picard_check_options opt = { .tol = { .atol = -1 } };
	picard_check_result res;

	ric_setup(&f);
	cr_assert_eq(picard_check_each(f.model, &f.grid, RIC_NTRAJ, ric_x0, NULL, &f.rec,
				       &opt, &res), PICARD_EINVAL);
	opt.tol = (picard_tolerance){ .rtol = NAN };
	cr_assert_eq(picard_check_each(f.model, &f.grid, RIC_NTRAJ, ric_x0, NULL, &f.rec,
				       &opt, &res), PICARD_EINVAL);
	cr_assert_eq(picard_check_each(f.model, &f.grid, RIC_NTRAJ, ric_x0, NULL, &f.rec,
				       NULL, &res), PICARD_EINVAL);
}

/* ---- a model of 40 components ------------------------------------------ */

#define ROT_PAIRS 20
#define ROT_DIM (2 * ROT_PAIRS)

static double rot_omega(int j)
{
	return 1 + 0.1 * j;
}

/* q_j' = w_j p_j, p_j' = -w_j q_j: each pair rotates at its own w_j. */
static void rot_rhs(double t, const double *x, const double *p, double *dxdt)
{
	(void)t;
	(void)p;
	for (int j = 0; j < ROT_PAIRS; j++) {
		dxdt[2 * j] = rot_omega(j) * x[2 * j + 1];
		dxdt[2 * j + 1] = -rot_omega(j) * x[2 * j];
	}
}

static void rot_exact(const double *x0, double t, double *x)
{
	for (int j = 0; j < ROT_PAIRS; j++) {
		double c = cos(rot_omega(j) * t), s = sin(rot_omega(j) * t);

		x[2 * j] = c * x0[2 * j] + s * x0[2 * j + 1];
		x[2 * j + 1] = -s * x0[2 * j] + c * x0[2 * j + 1];
	}
}

static const struct picard_model_impl rot_impl = { .rhs_double = rot_rhs };
static const picard_model rot_model = {
	.name = "rotations", .dim = ROT_DIM, .t0 = 0, .t1 = 10, .impl = &rot_impl,
};

static void rot_start(double *x0, long ntraj)
{
	for (long i = 0; i < ntraj; i++)
		for (int k = 0; k < ROT_DIM; k++)
			x0[i * ROT_DIM + k] = cos(0.3 * k + i);
}

/* dim 40: the scaled error of a planted error in component 37 is exact,
 * the other slot clean. */
Test(check_each, many_components)
{
	enum { NT = 2, NR = 5 };
	double x0[NT * ROT_DIM], times[NR], states[NR * NT * ROT_DIM], traj_error[NT];
	const picard_grid grid = { .m = 3, .K = 2, .h = 1, .window = 2, .t0 = 0,
				   .t1 = 10, .windows = 5 };
	const picard_record rec = { .traj_stride = 1, .states = states, .times = times,
				    .ntimes = NR };
	picard_check_options opt = { .tol = { .atol = 1e-7, .rtol = 1e-7 },
				     .traj_error = traj_error };
	picard_check_result res;
	double *planted = &states[(3 * NT + 1) * ROT_DIM + 37];
	double want;
	int err;

	rot_start(x0, NT);
	for (int r = 0; r < NR; r++) {
		times[r] = 2.0 * (r + 1);
		for (int i = 0; i < NT; i++)
			rot_exact(x0 + i * ROT_DIM, times[r], states + (r * NT + i) * ROT_DIM);
	}
	want = 1e-5 / (1e-7 + 1e-7 * fabs(*planted));
	*planted += 1e-5;
	err = picard_check_each(&rot_model, &grid, NT, x0, NULL, &rec, &opt, &res);
	cr_assert_eq(err, 0, "%s", picard_error_detail());
	cr_log_info("dim %d: slot 0 %.3e, slot 1 %.6f (want %.6f)", ROT_DIM, traj_error[0],
		    traj_error[1], want);
	cr_assert_lt(traj_error[0], 1e-2);
	cr_assert_float_eq(traj_error[1], want, 1e-4 * want);
	cr_assert_eq(res.worst_traj, 1);
	cr_assert_eq(res.worst_window, 3);
}

/* ---- the dense reference ----------------------------------------------- */

/* The largest |dense - exact| of riccati trajectory traj over n times
 * spread off the grid through [0, t1]. */
static double ric_dense_error(const struct dense_reference *ref, long traj,
			      double x0, double t1)
{
	double worst = 0, x;

	for (int i = 0; i < 997; i++) {
		double t = t1 * (i + 0.5) / 997;

		dense_reference_eval(ref, traj, t, &x);
		worst = fmax(worst, fabs(x - ric_exact(x0, t)));
	}
	return worst;
}

/* The dense reference meets its target against the exact solution, even
 * close to a blow-up (x0 = 0.45: x grows 10-fold over [0, 2]). */
Test(dense_reference, meets_target_against_exact)
{
	const picard_model *model = test_model("riccati");
	const double x0[3] = { 0.1, -1, 0.45 }, target = 1e-9;
	struct dense_reference ref;
	int err;

	err = dense_reference_build(&ref, model, x0, NULL, 3, NULL, 0, 2, target);
	cr_assert_eq(err, 0, "%s", picard_error_detail());
	cr_log_info("riccati: %ld points, interp_error %.3e", ref.npoints, ref.interp_error);
	cr_assert_leq(ref.interp_error, target);
	for (int i = 0; i < 3; i++) {
		double e = ric_dense_error(&ref, i, x0[i], 2);

		cr_log_info("x0 %g: %ld points, error %.3e", x0[i], ref.traj[i].npoints, e);
		cr_assert_leq(e, target, "x0 %g: %.3e", x0[i], e);
	}
	cr_assert_gt(ref.traj[2].npoints, ref.traj[0].npoints,
		     "the sharper solution has the finer grid");
	dense_reference_free(&ref);
}

/* Kepler's equation, E - e sin E = M, by Newton from E = pi (converges
 * for every e < 1 and M in [0, 2 pi)); the orbit of a = mu = 1 from its
 * periapsis at t = 0 (the model's start) into x. */
static void kepler_exact(double e, double t, double *x)
{
	double M = fmod(t, 2 * M_PI), E = M_PI, d, s = sqrt(1 - e * e);

	for (int it = 0; it < 60; it++)
		E -= (E - e * sin(E) - M) / (1 - e * cos(E));
	d = 1 - e * cos(E);
	x[0] = cos(E) - e;
	x[1] = s * sin(E);
	x[2] = -sin(E) / d;
	x[3] = s * cos(E) / d;
}

/* A kepler orbit of eccentricity 0.9 over 10 periods: its periapses are
 * sharp (speed 4.4 at r = 0.1); the dense reference reaches 1e-9 against
 * the solution of Kepler's equation. */
Test(dense_reference, kepler_eccentric_orbit)
{
	const picard_model *model = test_model("kepler");
	const double params[2] = { 1, 0.9 }, target = 1e-9, t1 = 20 * M_PI;
	struct dense_reference ref;
	double x0[4], x[4], exact[4], worst = 0;
	int err;

	picard_model_start(model, params, x0);
	err = dense_reference_build(&ref, model, x0, params, 1, NULL, 0, t1, target);
	cr_assert_eq(err, 0, "%s", picard_error_detail());
	for (int i = 0; i < 4001; i++) {
		double t = t1 * (i + 0.37) / 4001;

		dense_reference_eval(&ref, 0, t, x);
		kepler_exact(0.9, t, exact);
		for (int k = 0; k < 4; k++)
			worst = fmax(worst, fabs(x[k] - exact[k]));
	}
	cr_log_info("kepler e = 0.9, 10 periods: %ld points, rk8pd tol %.0e, hermite %.2e, rk8pd %.2e, bound %.2e; error against Kepler's equation %.3e",
		    ref.npoints, ref.ref_tol, ref.traj[0].hermite_error,
		    ref.traj[0].rk8pd_error, ref.interp_error, worst);
	cr_assert_leq(worst, target);
	cr_assert_leq(ref.traj[0].hermite_error, 0.5 * target);
	cr_assert_geq(ref.interp_error, worst, "the bound is below the error measured");
	dense_reference_free(&ref);
}

/* dim 40 (past the old limit of 16): the dense reference meets its target
 * against the exact rotations. */
Test(dense_reference, many_components)
{
	const double target = 1e-8;
	struct dense_reference ref;
	double x0[2 * ROT_DIM], x[ROT_DIM], exact[ROT_DIM], worst = 0;
	int err;

	rot_start(x0, 2);
	err = dense_reference_build(&ref, &rot_model, x0, NULL, 2, NULL, 0, 10, target);
	cr_assert_eq(err, 0, "%s", picard_error_detail());
	for (long i = 0; i < 2; i++)
		for (int r = 0; r < 501; r++) {
			double t = 10 * (r + 0.5) / 501;

			dense_reference_eval(&ref, i, t, x);
			rot_exact(x0 + i * ROT_DIM, t, exact);
			for (int k = 0; k < ROT_DIM; k++)
				worst = fmax(worst, fabs(x[k] - exact[k]));
		}
	cr_log_info("dim %d: %ld points, interp_error %.3e, error %.3e", ROT_DIM,
		    ref.npoints, ref.interp_error, worst);
	cr_assert_leq(ref.interp_error, target);
	cr_assert_leq(worst, target);
	dense_reference_free(&ref);
}

/* A failed trajectory's detail reaches the caller's thread, naming the
 * caller's trajectory (traj_index) and where rk8pd stopped; the smallest
 * failing row wins whatever the thread count, and no stale detail of an
 * earlier error survives. */
Test(dense_reference, failure_names_the_trajectory)
{
	const picard_model *model = test_model("riccati");
	const double x0[4] = { 0.1, 1.0, 0.2, 2.0 }; /* rows 1, 3 blow up at 1, 0.5 */
	const long traj_index[4] = { 7, 12, 19, 30 };
	struct dense_reference ref;
	char many[512];
	int err;

	picard_fail(PICARD_EIO, "no tuning cache at /nowhere (stale)");
	err = dense_reference_build(&ref, model, x0, NULL, 4, traj_index, 0, 2, 1e-8);
	cr_assert_eq(err, PICARD_EREF, "%d: %s", err, picard_error_detail());
	cr_log_info("detail: %s", picard_error_detail());
	cr_assert_null(strstr(picard_error_detail(), "stale"), "%s", picard_error_detail());
	cr_assert(strstr(picard_error_detail(), "the reference solution of trajectory 12 blows up"),
		  "%s", picard_error_detail());
	cr_assert_float_eq(detail_time(picard_error_detail()), 1.0, 1e-3);
	snprintf(many, sizeof(many), "%s", picard_error_detail());
	omp_set_num_threads(1);
	err = dense_reference_build(&ref, model, x0, NULL, 4, traj_index, 0, 2, 1e-8);
	cr_assert_eq(err, PICARD_EREF);
	cr_assert_str_eq(picard_error_detail(), many);
	err = dense_reference_build(&ref, model, x0 + 1, NULL, 1, NULL, 0, 2, 1e-8);
	cr_assert(strstr(picard_error_detail(), "trajectory 0 "), "%s", picard_error_detail());
}

/* picard_reference's own failure gives the model and the time. */
Test(dense_reference, reference_failure_gives_the_time)
{
	const picard_model *model = test_model("riccati");
	const double x0 = 0.5, times[2] = { 1, 3 };
	double out[2];

	cr_assert_eq(picard_reference(model, NULL, &x0, 0, times, 2, out), PICARD_EREF);
	cr_log_info("detail: %s", picard_error_detail());
	cr_assert(strstr(picard_error_detail(), "riccati: the reference solution blows up"),
		  "%s", picard_error_detail());
	cr_assert_float_eq(detail_time(picard_error_detail()), 2.0, 2e-3);
	cr_assert_float_eq(out[0], 1.0, 1e-10, "x(1) = 0.5 / 0.5");
}

/* picard_check_merge: parts folded into a total give what one check of
 * all gives: counts added, the worst error (NaN the worst) and its place
 * counted from the part's first, the first failed reference; a part that
 * checked nothing moves no maximum. */
Test(check_each, merge_of_parts)
{
	picard_check_result total = PICARD_CHECK_NONE;
	const picard_check_result a = {
		.error = 0.5, .rel_error = 0.1, .worst_traj = 3, .worst_window = 7, .checked_traj = 4,
		.points = 40, .scaled_error = 2, .first_ref_failed = -1,
	};
	const picard_check_result b = {
		.error = 0.25, .rel_error = 0.3, .worst_traj = 1, .worst_window = 2, .checked_traj = 3,
		.points = 30, .scaled_error = 1, .ref_failed = 1, .first_ref_failed = 6,
	};
	const picard_check_result none = {
		.error = 9, .rel_error = 9, .scaled_error = 9, .worst_traj = -1, .worst_window = -1,
		.ref_failed = 2, .first_ref_failed = 0,
	};
	const picard_check_result bad = {
		.error = NAN, .rel_error = 0, .worst_traj = 0, .worst_window = 0, .checked_traj = 1,
		.points = 10, .nonfinite = 1, .scaled_error = INFINITY, .first_ref_failed = -1,
	};

	picard_check_merge(&total, &a, 0);
	picard_check_merge(&total, &b, 100);
	cr_expect_eq(total.error, 0.5);
	cr_expect_eq(total.worst_traj, 3);
	cr_expect_eq(total.worst_window, 7);
	cr_expect_eq(total.rel_error, 0.3, "the largest of each, wherever it is");
	cr_expect_eq(total.scaled_error, 2);
	cr_expect_eq(total.checked_traj, 7);
	cr_expect_eq(total.points, 70);
	cr_expect_eq(total.ref_failed, 1);
	cr_expect_eq(total.first_ref_failed, 106, "counted from its part's first");
	picard_check_merge(&total, &none, 200);
	cr_expect_eq(total.error, 0.5, "a part that checked nothing moves no maximum");
	cr_expect_eq(total.checked_traj, 7);
	cr_expect_eq(total.ref_failed, 3);
	cr_expect_eq(total.first_ref_failed, 106, "the first failed reference stays the first");
	picard_check_merge(&total, &bad, 300);
	cr_expect(isnan(total.error), "a NaN error is the worst: %g", total.error);
	cr_expect_eq(total.worst_traj, 300);
	cr_expect_eq(total.nonfinite, 1);
	cr_expect(isinf(total.scaled_error));

	/* one part into nothing: that part, its places moved by first */
	total = PICARD_CHECK_NONE;
	picard_check_merge(&total, &b, 0);
	cr_expect_eq(memcmp(&total, &b, sizeof(b)), 0, "one part merged is that part");

	/* the events' errors: the largest time error and where, the first
	 * mismatch and its words, counts added */
	const picard_check_result ea = {
		.checked_traj = 2, .worst_traj = -1, .first_ref_failed = -1, .events = 10,
		.event_error = 1e-3, .event_scaled_error = 5, .worst_event_traj = 1,
		.event_mismatch = 1, .first_event_mismatch = 0,
		.event_detail = "member 0: 1 event, the reference 2",
	};
	const picard_check_result eb = {
		.checked_traj = 2, .worst_traj = -1, .first_ref_failed = -1, .events = 7,
		.event_error = 2e-3, .event_scaled_error = 3, .worst_event_traj = 0,
		.event_mismatch = 2, .first_event_mismatch = 1,
		.event_detail = "member 11: 3 events, the reference 4",
	};
	total = PICARD_CHECK_NONE;
	picard_check_merge(&total, &ea, 0);
	picard_check_merge(&total, &eb, 10);
	cr_expect_eq(total.events, 17);
	cr_expect_eq(total.event_error, 2e-3);
	cr_expect_eq(total.worst_event_traj, 10, "counted from its part's first");
	cr_expect_eq(total.event_scaled_error, 5);
	cr_expect_eq(total.event_mismatch, 3);
	cr_expect_eq(total.first_event_mismatch, 0, "the first mismatch stays the first");
	cr_expect_str_eq(total.event_detail, "member 0: 1 event, the reference 2");
}
