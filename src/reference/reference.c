/* reference.c - the GSL reference and the check of a solve against it.
 *
 * The paper measured its global error E against a 5th-order Runge-Kutta-
 * Merson solution; picard uses GSL's gsl_odeiv2 in double with rtol =
 * atol = 1e-12, far more accurate than any Picard run it judges;
 * picard_check_each() tightens it for tolerances near that
 * (picard_check_ref_tol()). picard_check() integrates each checked
 * trajectory once through all recorded window ends (one driver, never
 * restarted) and reduces the paper's E, its relative variant and where the
 * worst point lies, threading over trajectories with OpenMP.
 *
 * The stepper. A non-stiff model gets rk8pd (Prince-Dormand 8(9)): the most
 * accurate of GSL's steppers per step at tight tolerances. An explicit
 * stepper on a stiff problem has its step held at the stability limit
 * instead (|h lambda| of a few for the largest eigenvalue lambda of the
 * Jacobian), however smooth the solution: robertson's span of 1e5 at
 * |lambda| ~ 1e4 would be some 1e8 steps. So:
 *   - a model declared stiff (model->stiff) is integrated by msbdf, GSL's
 *     variable-order (1-5) BDF with modified Newton iterations, given the
 *     model's Jacobian (picard_model_jacobian(): its own, else automatic
 *     differentiation);
 *   - any other model starts with rk8pd, and every REF_STIFF_EVERY steps
 *     compares its step with the Jacobian's spectral radius rho (Gelfand's
 *     formula, ref_spectral_radius()). An accuracy-limited rk8pd step at
 *     these tolerances has a small h rho (0.14 at most on the non-stiff
 *     models, kepler's), a stability-limited one a few units (5.6 to 6.8,
 *     vanderpol at mu = 1000); above REF_STIFF_HRHO the
 *     trajectory is stiff at its parameters (vanderpol at mu = 1000, given
 *     by --init) and is integrated again from its start by msbdf, rather
 *     than stalling at REF_MAX_STEPS or taking minutes.
 * msbdf reads only df/dy, the model's exact Jacobian; bsimp (Bader-
 * Deuflhard) also needs df/dt, which picard has only as a difference, and
 * the implicit Gauss steppers rk*imp are of order 4 at most and A- but not
 * L-stable. At equal rtol = atol msbdf's global error is orders above
 * rk8pd's, so it is asked for REF_MSBDF_SHARE of the tolerance as rtol,
 * and REF_MSBDF_ATOL_SHARE of that as atol: an atol equal to rtol leaves
 * every component below it uncontrolled, and a stiff model's small
 * components are often what drives it (h2o2's radicals, 1e-20 to 1e-6
 * of the mass before ignition, whose chain branching sets when it
 * ignites: at atol 1e-14 msbdf ignited 2.0e-6 to 3.9e-6 early, T off by
 * 4e-6 to 9e-6 at the conformance suite's 20 times, while radau5,
 * rodas5p and msbdf at atol 1e-20 to 1e-22 agree within 1e-11:
 * docs/chemistry.md). At picard_reference()'s 1e-12 (msbdf at rtol 1e-14,
 * atol 1e-22), against the published values of the test set for IVP
 * solvers (tests/reference/test_stiff.c), HIRES at t = 321.8122 comes
 * within 5.1e-13 relative in every component (2.8e-10 at atol 1e-14),
 * Robertson at t = 1e11 within 6.5e-12 relative in y1 and y2 (6.5e-6)
 * and 3.6e-14 absolute in y3, van der Pol at mu = 1000, t = 2000 within
 * 1.6e-12 relative (5.6e-11), in 2.0 to 2.5 times the steps (hires 6010,
 * robertson 5353 over [0, 1e5], van der Pol 23178 over [0, 2000]); and
 * msbdf against rk8pd (both as here, atol 1e-14 then) on the non-stiff
 * models at their t1 within 1.5e-10 of the state's size, except the
 * orbits: pendulum 1e-9, rosenzweig_macarthur 2e-8, kepler (100 orbits)
 * 1.9e-6. On the 2-core build machine robertson over [0, 1e5] takes 2.6
 * ms (1 ms at atol 1e-14), hires 6.1 ms (2 ms), van der Pol at mu = 1000
 * over [0, 2000] 13 ms (12 ms; rk8pd: 0.33 s, 746k steps), h2o2 over its
 * 1 ms 50 ms; 2026-11-28.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>

#include "backend.h"
#include "errors.h"
#include "gauss_reference.h"
#include "reference.h"
#include "reference_events.h"
#include "reference_run.h"

#define REF_MAX_STEPS 10000000  /* per interval: a stuck reference fails */
/* rk8pd steps between two tests for stiffness (ref_stiff()): few enough
 * that a stiff trajectory is caught within a fraction of a second, many
 * enough that a non-stiff one of a few thousand steps is never tested. */
#define REF_STIFF_EVERY 5000
/* h rho above which rk8pd's step is taken as held by stability, not
 * accuracy: see the file's head. */
#define REF_STIFF_HRHO 1.0
/* msbdf is asked for this fraction of the tolerance (down to
 * REF_TOL_FLOOR): at the same rtol = atol its global error is orders
 * above rk8pd's (the file's head), and its steps are cheap. */
#define REF_MSBDF_SHARE 1e-2
/* msbdf's atol as a fraction of its rtol (the file's head): 1e-14 gives
 * 1e-22, far below any component that matters, as a chemist's atol for
 * mass fractions is; never 0, which fails on a component that starts at 0. */
#define REF_MSBDF_ATOL_SHARE 1e-8



/* GSL's view of f. A non-finite slope is reported as a plain failure (not
 * GSL_EBADFUNC) so the evolver halves the trial step and retries: an
 * overlong trial step may overflow where the solution does not. A true
 * blow-up still fails once the step cannot shrink any more. */
static int ref_rhs(double t, const double y[], double dydt[], void *arg)
{
	const struct ref_system *sys = arg;

	picard_model_rhs(sys->model, t, y, sys->params, dydt);
	for (int k = 0; k < sys->model->dim; k++)
		if (!isfinite(dydt[k]))
			return GSL_FAILURE;
	return GSL_SUCCESS;
}

/* GSL's view of the Jacobian, for msbdf: dfdy from picard_model_jacobian()
 * (row-major, as GSL wants it); dfdt by a central difference of f in t
 * (msbdf reads only dfdy, but the system is then complete for any GSL
 * stepper). A non-finite entry fails as ref_rhs() does. */
static int ref_jac(double t, const double y[], double *dfdy, double dfdt[], void *arg)
{
	const struct ref_system *sys = arg;
	const int n = sys->model->dim;
	const double dt = 1e-7 * fmax(1, fabs(t));
	double *ahead = sys->work, *behind = sys->work + n;

	picard_model_jacobian(sys->model, t, y, sys->params, dfdy);
	picard_model_rhs(sys->model, t + dt, y, sys->params, ahead);
	picard_model_rhs(sys->model, t - dt, y, sys->params, behind);
	for (int k = 0; k < n; k++)
		dfdt[k] = (ahead[k] - behind[k]) / (2 * dt);
	for (int k = 0; k < n * n; k++)
		if (!isfinite(dfdy[k]))
			return GSL_FAILURE;
	return GSL_SUCCESS;
}

static pthread_once_t gsl_quiet_once = PTHREAD_ONCE_INIT;

static void gsl_quiet(void)
{
	gsl_set_error_handler_off();
}

/* GSL's default error handler aborts the process; the library must never
 * do that, so it is switched off (process-wide, once) before any use. */
static void ref_gsl_init(void)
{
	pthread_once(&gsl_quiet_once, gsl_quiet);
}

/* Times must be finite and non-decreasing from t0. */
static int check_times(double t0, const double *times, long ntimes)
{
	double prev = t0;

	if (!isfinite(t0))
		return picard_fail(PICARD_EINVAL, "reference: t0 = %g", t0);
	for (long i = 0; i < ntimes; i++) {
		if (!isfinite(times[i]) || times[i] < prev)
			return picard_fail(PICARD_EINVAL,
					   "reference: time %ld = %g after %g (need finite, increasing)",
					   i, times[i], prev);
		prev = times[i];
	}
	return PICARD_OK;
}


/* GSL's reason for status, in words for this use: ref_rhs() reports a
 * non-finite slope as GSL_FAILURE, and the evolver passes that on once it
 * cannot shrink the step any further. */
static const char *ref_reason(int status)
{
	if (status == GSL_FAILURE)
		return "the slope is not finite however short the step";
	return gsl_strerror(status);
}

/* The stepper (its GSL name, "rk8pd" or "msbdf") stopped at t with GSL
 * status: PICARD_EREF with a detail that says so in the caller's terms.
 * Running out of steps is a stall (stiffness, a too tight tol); anything
 * else, the step shrinking to nothing, is the solution blowing up. */
int ref_stopped(const struct ref_who *who, const char *stepper, double t, int status)
{
	const char *what = status == GSL_EMAXITER ? "stalls" : "blows up";

	if (who->traj >= 0)
		return picard_fail(PICARD_EREF, "the reference solution of trajectory %ld %s near t = %g (%s stopped there: %s)",
				   who->traj, what, t, stepper, ref_reason(status));
	return picard_fail(PICARD_EREF, "%s: the reference solution %s near t = %g (%s stopped there: %s)",
			   who->model->name, what, t, stepper, ref_reason(status));
}

/* A state component came out non-finite at t (rk8pd took a step it should
 * not have): a blow-up all the same. */
static int ref_nonfinite(const struct ref_who *who, double t, int k, double value)
{
	if (who->traj >= 0)
		return picard_fail(PICARD_EREF, "the reference solution of trajectory %ld blows up near t = %g (its x[%d] = %g there)",
				   who->traj, t, k, value);
	return picard_fail(PICARD_EREF, "%s: the reference solution blows up near t = %g (its x[%d] = %g there)",
			   who->model->name, t, k, value);
}

int ref_check_state(const struct ref_who *who, double t, const double *y)
{
	for (int k = 0; k < who->model->dim; k++)
		if (!isfinite(y[k]))
			return ref_nonfinite(who, t, k, y[k]);
	return PICARD_OK;
}

/* The checks every entry point makes before integrating. */
static int ref_args(const picard_model *model, const double *x0, double tol)
{
	if (!model || !x0)
		return picard_fail(PICARD_EINVAL, "reference: missing model or state");
	if (!(tol > 0) || !isfinite(tol))
		return picard_fail(PICARD_EINVAL, "reference: tolerance %g", tol);
	for (int k = 0; k < model->dim; k++)
		if (!isfinite(x0[k]))
			return picard_fail(PICARD_EINVAL, "reference: x0[%d] = %g", k, x0[k]);
	return PICARD_OK;
}


/* The stepper a model starts with: msbdf if it is declared stiff. */
static enum ref_stepper ref_stepper_of(const picard_model *model)
{
	return model->stiff ? REF_MSBDF : REF_RK8PD;
}

/* A driver of stepper at rtol = atol = tol for sys (msbdf: tighter,
 * REF_MSBDF_SHARE, and its atol REF_MSBDF_ATOL_SHARE of that). A small
 * first step,
 * the controller grows it at once; scaled by the model's span, not by the
 * times asked for, so a call for a prefix of the times takes the very same
 * steps. */
static gsl_odeiv2_driver *ref_driver(const gsl_odeiv2_system *sys,
				     const picard_model *model,
				     enum ref_stepper stepper, double tol)
{
	gsl_odeiv2_driver *driver;
	double hstart = 1e-6 * (model->t1 - model->t0);

	if (!(hstart > 0) || !isfinite(hstart))
		hstart = 1e-6;
	ref_gsl_init();
	if (stepper == REF_MSBDF)
		tol = fmin(tol, fmax(REF_TOL_FLOOR, REF_MSBDF_SHARE * tol));
	driver = gsl_odeiv2_driver_alloc_y_new(sys, stepper == REF_MSBDF ?
					       gsl_odeiv2_step_msbdf : gsl_odeiv2_step_rk8pd, hstart,
					       stepper == REF_MSBDF ? REF_MSBDF_ATOL_SHARE * tol : tol,
					       tol);
	if (driver)
		gsl_odeiv2_driver_set_nmax(driver, REF_MAX_STEPS);
	return driver;
}

/* Set r up for model from x0 at rtol = atol = tol with stepper. */
int ref_open(struct ref_run *r, const picard_model *model, const double *params,
	     const double *x0, double tol, enum ref_stepper stepper)
{
	const int n = model->dim;

	r->rs = (struct ref_system){ model, params ? params : model->param_defaults,
				     malloc((2 * n + 3 * n * n) * sizeof(double)) };
	r->sys = (gsl_odeiv2_system){ ref_rhs, ref_jac, (size_t)n, &r->rs };
	r->stepper = stepper;
	r->steps = 0;
	r->y = malloc(n * sizeof(*r->y));
	r->driver = ref_driver(&r->sys, model, stepper, tol);
	if (!r->y || !r->driver || !r->rs.work)
		return picard_fail(PICARD_ENOMEM, "reference: GSL driver for dim %d", n);
	memcpy(r->y, x0, n * sizeof(*r->y));
	return PICARD_OK;
}

void ref_close(struct ref_run *r)
{
	if (r->driver)
		gsl_odeiv2_driver_free(r->driver);
	free(r->rs.work);
	free(r->y);
}

/* C = A B, n x n row-major. */
static void matmul(int n, const double *a, const double *b, double *c)
{
	for (int i = 0; i < n; i++)
		for (int k = 0; k < n; k++) {
			double sum = 0;

			for (int j = 0; j < n; j++)
				sum += a[i * n + j] * b[j * n + k];
			c[i * n + k] = sum;
		}
}

/* The infinity norm (largest absolute row sum) of an n x n matrix. */
static double norm_inf(int n, const double *a)
{
	double largest = 0;

	for (int i = 0; i < n; i++) {
		double row = 0;

		for (int k = 0; k < n; k++)
			row += fabs(a[i * n + k]);
		largest = fmax(largest, row);
	}
	return largest;
}

/* An estimate of the spectral radius rho of the Jacobian at (t, y) by
 * Gelfand's formula, rho = lim ||J^k||^(1/k), at k = 16 (four squarings)
 * in the infinity norm; J is scaled by its norm first so that the powers
 * cannot overflow. Never below rho; above it by at most the condition of
 * J's eigenvectors to the power 1/16 (kepler's [[0, I], [G, 0]], whose
 * norm is rho^2 near periapsis, comes out at rho). */
static double ref_spectral_radius(const struct ref_system *rs, double t, const double *y)
{
	const int n = rs->model->dim;
	double *a = rs->work + 2 * n, *b = a + n * n, *c = b + n * n;
	double scale;

	picard_model_jacobian(rs->model, t, y, rs->params, a);
	scale = norm_inf(n, a);
	if (!(scale > 0) || !isfinite(scale))
		return scale;
	for (int k = 0; k < n * n; k++)
		a[k] /= scale;
	matmul(n, a, a, b);  /* J^2 */
	matmul(n, b, b, c);  /* J^4 */
	matmul(n, c, c, b);  /* J^8 */
	matmul(n, b, b, c);  /* J^16 */
	return scale * pow(norm_inf(n, c), 1.0 / 16);
}

/* rk8pd's step h is held by stability at (t, y): h rho > REF_STIFF_HRHO
 * (the file's head). */
static bool ref_stiff(const struct ref_run *r, double t)
{
	return fabs(r->driver->h) * ref_spectral_radius(&r->rs, t, r->y) > REF_STIFF_HRHO;
}

/* One accepted step of r's stepper from *t toward target (never past it):
 * 0, PICARD_EREF (with the detail) or, for rk8pd, REF_STIFF every
 * REF_STIFF_EVERY steps that ref_stiff() says so. */
int ref_step(struct ref_run *r, const struct ref_who *who, double *t, double target)
{
	gsl_odeiv2_driver *d = r->driver;
	int status;

	if (d->n++ >= d->nmax)
		return ref_stopped(who, gsl_odeiv2_step_name(d->s), *t, GSL_EMAXITER);
	status = gsl_odeiv2_evolve_apply(d->e, d->c, d->s, d->sys, t, target, &d->h, r->y);
	if (status != GSL_SUCCESS)
		return ref_stopped(who, gsl_odeiv2_step_name(d->s), *t, status);
	if (r->stepper == REF_RK8PD && ++r->steps % REF_STIFF_EVERY == 0 && ref_stiff(r, *t))
		return REF_STIFF;
	return PICARD_OK;
}

/* March r.y from t0 through the times (never restarting), storing the
 * state at each; REF_MAX_STEPS per interval. */
static int ref_march(struct ref_run *r, const struct ref_who *who, double t0,
		     const double *times, long ntimes, double *out)
{
	const int n = who->model->dim;
	double t = t0;

	for (long i = 0; i < ntimes; i++) {
		int err = PICARD_OK;

		r->driver->n = 0;
		while (!err && t < times[i])
			err = ref_step(r, who, &t, times[i]);
		if (!err)
			err = ref_check_state(who, t, r->y);
		if (err)
			return err;
		memcpy(out + i * n, r->y, n * sizeof(*r->y));
	}
	return PICARD_OK;
}

/* From x0 at t0 through the times with stepper: ref_march()'s result. */
static int ref_times(const struct ref_who *who, const double *params, const double *x0,
		     double t0, const double *times, long ntimes, double tol,
		     enum ref_stepper stepper, double *out)
{
	struct ref_run r = { .driver = NULL };
	int err = ref_open(&r, who->model, params, x0, tol, stepper);

	if (!err)
		err = ref_march(&r, who, t0, times, ntimes, out);
	ref_close(&r);
	return err;
}

int picard_reference_tol(const picard_model *model, const double *params,
			 const double *x0, double t0, const double *times,
			 long ntimes, double tol, long traj, double *out)
{
	return picard_reference_tol_stiff(model, params, x0, t0, times, ntimes, tol, traj, out,
					  NULL);
}

int picard_reference_tol_stiff(const picard_model *model, const double *params,
			       const double *x0, double t0, const double *times, long ntimes,
			       double tol, long traj, double *out, bool *stiff)
{
	const struct ref_who who = { model, traj };
	int err;

	if (ntimes < 0 || (ntimes && (!times || !out)))
		return picard_fail(PICARD_EINVAL, "reference: missing times");
	err = ref_args(model, x0, tol);
	if (!err)
		err = check_times(t0, times, ntimes);
	if (err || ntimes == 0)
		return err;
	err = ref_times(&who, params, x0, t0, times, ntimes, tol, ref_stepper_of(model), out);
	if (stiff)
		*stiff = model->stiff || err == REF_STIFF;
	if (err == REF_STIFF)
		err = ref_times(&who, params, x0, t0, times, ntimes, tol, REF_MSBDF, out);
	return err;
}

int picard_reference(const picard_model *model, const double *params,
		     const double *x0, double t0, const double *times,
		     long ntimes, double *out)
{
	return picard_reference_tol(model, params, x0, t0, times, ntimes, REF_TOL,
				    -1, out);
}

/* Append t to the growing array *times of *n (capacity *cap). */
static int push_time(double **times, long *n, long *cap, double t)
{
	if (*n == *cap) {
		long grown = *cap ? 2 * *cap : 256;
		double *bigger = realloc(*times, grown * sizeof(**times));

		if (!bigger)
			return picard_fail(PICARD_ENOMEM, "reference: %ld step times", grown);
		*times = bigger;
		*cap = grown;
	}
	(*times)[(*n)++] = t;
	return PICARD_OK;
}

/* Step by step from t0 to t1 with stepper, recording where each accepted
 * step ends into a malloc'd *times (freed again on failure or REF_STIFF). */
static int ref_step_times(const struct ref_who *who, const double *params,
			  const double *x0, double t0, double t1, double tol,
			  enum ref_stepper stepper, double **times, long *nsteps)
{
	struct ref_run r = { .driver = NULL };
	double t = t0;
	long cap = 0;
	int err = ref_open(&r, who->model, params, x0, tol, stepper);

	*times = NULL;
	*nsteps = 0;
	while (!err && t < t1) {
		err = ref_step(&r, who, &t, t1);
		if (!err)
			err = ref_check_state(who, t, r.y);
		if (!err)
			err = push_time(times, nsteps, &cap, t);
	}
	ref_close(&r);
	if (err) {
		free(*times);
		*times = NULL;
		*nsteps = 0;
	}
	return err;
}

int picard_reference_steps(const picard_model *model, const double *params,
			   const double *x0, double t0, double t1, double tol,
			   long traj, double **times, long *nsteps)
{
	const struct ref_who who = { model, traj };
	int err;

	*times = NULL;
	*nsteps = 0;
	err = ref_args(model, x0, tol);
	if (!err)
		err = check_times(t0, &t1, 1);
	if (err)
		return err;
	err = ref_step_times(&who, params, x0, t0, t1, tol, ref_stepper_of(model),
			     times, nsteps);
	if (err == REF_STIFF)
		err = ref_step_times(&who, params, x0, t0, t1, tol, REF_MSBDF, times, nsteps);
	return err;
}

/* ---- picard_check and picard_check_each -------------------------------- */

/* Below this smallest part of a check's tolerance the default reference is
 * too close to the promise it judges: rk8pd's tolerance is per step, and
 * its global error is orders larger (kepler, e near 0.9, two periods: the
 * 1e-12 reference is 3e-10 off, measured on the H100 machine's CPU,
 * 2026-11-24, where a 1e-9 check and an independent judge disagreed) ... */
#define CHECK_TIGHT_TOL 1e-6
/* ... and rk8pd is asked for this fraction of it, as far as double goes.
 * Its error is then measured (against rk8pd 10 times looser: a bound for
 * the tighter run); where it is above CHECK_JUDGE_SHARE of that part,
 * gauss16 in binary128 judges the trajectory instead, to that share. */
#define CHECK_REF_SHARE 1e-5
#define CHECK_JUDGE_SHARE 1e-2

/* The worst point of one trajectory (or of all of them). */
struct check_worst {
	double error;      /* max |x - x_ref|, -1 before the first point */
	double rel_error;  /* max over points of the relative error */
	double scaled;     /* max over points of the scaled error */
	long window;       /* window where error is reached */
	long points;       /* recorded states compared */
	long nonfinite;    /* non-finite recorded states */
	long outside_span; /* states written outside the member's span */
	int err;           /* 0 or the reference's error code */
	char detail[256];  /* picard_error_detail() of err, from its thread */
	bool gauss;        /* gauss16 judged it */
	double judge_error; /* its judge's measured own error, 0: unmeasured */
	struct event_compare ev; /* a model with events: its events' */
};

/* Compare one recorded point (dim components) with its reference: fold it
 * into worst. A NaN/Inf component makes the point non-finite: it is counted
 * and its error is infinite (NaN would otherwise slip through every
 * comparison). The relative error divides by max_k |x_ref|; a zero
 * reference gives 0 when the state matches exactly and Inf otherwise. */
static void check_point(const double *x, const double *ref, int n, long window,
			const picard_tolerance *tol, struct check_worst *worst)
{
	double diff = 0, scale = 0, rel;
	bool finite = true;

	for (int k = 0; k < n; k++) {
		if (!isfinite(x[k])) {
			finite = false;
			continue;
		}
		diff = fmax(diff, fabs(x[k] - ref[k]));
		scale = fmax(scale, fabs(ref[k]));
	}
	if (!finite) {
		worst->nonfinite++;
		diff = INFINITY;
	}
	rel = scale > 0 ? diff / scale : (diff == 0 ? 0 : INFINITY);
	/* Strict: ties keep the earliest window. */
	if (diff > worst->error) {
		worst->error = diff;
		worst->window = window;
	}
	worst->rel_error = fmax(worst->rel_error, rel);
	worst->scaled = fmax(worst->scaled, picard_scaled_error(tol, x, ref, n));
}

/* A recorded state at a time outside its member's own span, where the
 * solve writes none (NaN): a state written there is the solve's defect,
 * with no reference to compare it with; counted, its error infinite. */
static void check_outside(const double *x, int n, long window, struct check_worst *worst)
{
	for (int k = 0; k < n; k++)
		if (!isnan(x[k])) {
			worst->outside_span++;
			if (INFINITY > worst->error) {
				worst->error = INFINITY;
				worst->window = window;
			}
			worst->rel_error = worst->scaled = INFINITY;
			return;
		}
}

/* What every checked trajectory shares. */
struct check_job {
	const picard_model *model;   /* the model */
	const picard_grid *grid;     /* the solve's grid */
	const picard_record *record; /* recorded window ends or times */
	long slots, nrec;            /* record slots, records kept */
	const double *x0, *params;   /* as given to picard_solve */
	const double *span_t0, *span_t1; /* the members' own spans, or NULL:
					    the grid's */
	picard_tolerance tol;        /* scale of the scaled errors */
	double ref_tol;              /* rk8pd's rtol = atol */
	double judge_need;           /* the judge's error needed, 0: not
					measured (rk8pd judges) */
	bool keep_going;             /* a failed reference fails one slot */
	long first;                  /* x0's first trajectory, as messages
					count it */
	/* a model with events: the solve's log, statuses and fail times
	 * (picard_check_each), or NULL: the states alone (picard_check) */
	const picard_event_log *events;
	const picard_traj_status *status;
	const double *fail_times;
};

/* One checked member: its span, the times of all the record's rows, and
 * the rows within its span, [lo, hi), the rows compared. */
struct member_rows {
	long traj;
	double t0, t1;
	const double *times;
	long lo, hi;
};

/* Member traj's rows (times: nrec scratch). Its span: its own, else the
 * grid's. A record of times keeps the given times, those within [t0, t1]
 * compared; window ends lie on its own span, record r at the end of
 * window (r+1)*every - 1, t0 + (r+1)*every times a window of
 * (t1 - t0) / windows as rk_run_spanning has it (the grid's (m-1) h on
 * the grid's span), all compared. */
static struct member_rows member_rows(const struct check_job *job, long traj, double *times)
{
	const picard_grid *g = job->grid;
	const bool own = job->span_t0 || job->span_t1;
	struct member_rows m = {
		.traj = traj, .t0 = job->span_t0 ? job->span_t0[traj] : g->t0,
		.t1 = job->span_t1 ? job->span_t1[traj] : g->t1, .times = job->record->times,
		.lo = 0, .hi = job->nrec,
	};

	if (!m.times) {
		for (long r = 0; r < job->nrec; r++) {
			const double windows = (double)((r + 1) * job->record->every);

			times[r] = m.t0 + (own ? windows * ((m.t1 - m.t0) / (double)g->windows) :
					   windows * (g->m - 1) * g->h);
		}
		m.times = times;
		return m;
	}
	while (m.lo < m.hi && m.times[m.lo] < m.t0)
		m.lo++;
	while (m.hi > m.lo && m.times[m.hi - 1] > m.t1)
		m.hi--;
	return m;
}

/* Slot s's recorded state at row r, and the place a message gives it:
 * the row of a record of times, else its window. */
static const double *row_state(const struct check_job *job, long s, long r)
{
	return job->record->states + (r * job->slots + s) * job->model->dim;
}

static long row_place(const struct check_job *job, long r)
{
	return job->record->times ? r : (r + 1) * job->record->every - 1;
}

/* A model with events: slot s's reference locates them
 * (picard_reference_events()) on the member's span; the states are
 * compared at its rows up to where the member or its reference stopped,
 * whichever is sooner (past it one has NaN: how far apart they stopped
 * is the terminal event's time error, or a different end), and with the
 * log the events too. A failed reference keeps its detail in worst. */
static void check_events_trajectory(const struct check_job *job, long s,
				    const struct member_rows *m, double *ref,
				    struct check_worst *worst)
{
	const int n = job->model->dim, np = job->model->nparams;
	const long traj = m->traj;
	const picard_traj_status status = job->status ? job->status[traj] : PICARD_TRAJ_OK;
	struct ref_events rev;
	double stop;
	int err = ref_events_alloc(&rev, job->events ? job->events->capacity : 0, n);

	if (!err)
		err = picard_reference_events(job->model, job->params ? job->params + traj * np : NULL,
					      job->x0 + traj * n, m->t0, m->t1, m->times + m->lo,
					      m->hi - m->lo, job->ref_tol, job->first + traj, ref,
					      &rev);
	if (err) {
		worst->err = err;
		snprintf(worst->detail, sizeof(worst->detail), "%s", picard_error_detail());
		goto out;
	}
	stop = fmin(rev.t_stop, job->fail_times ? picard_event_stop(status,
								    job->fail_times[2 * traj]) :
			 INFINITY);
	for (long r = m->lo; r < m->hi && m->times[r] <= stop; r++)
		check_point(row_state(job, s, r), ref + (r - m->lo) * n, n, row_place(job, r),
			    &job->tol, worst);
	if (job->events) {
		picard_events_compare(job->model, &rev, job->events, traj, status, &job->tol,
				      job->first + traj, &worst->ev);
		worst->scaled = fmax(worst->scaled, fmax(worst->ev.time_scaled,
							 worst->ev.after_scaled));
		if (worst->ev.after_error > worst->error) { /* E at a state after an event */
			worst->error = worst->ev.after_error;
			worst->window = -1;
		}
		worst->rel_error = fmax(worst->rel_error, worst->ev.after_rel_error);
		if (worst->ev.mismatch)
			worst->scaled = INFINITY;
	}
out:
	ref_events_free(&rev);
}

/* The reference of member m at its rows into ref: rk8pd; under a tight
 * check (judge_need) its error measured against rk8pd 10 times looser,
 * and where that is above judge_need, gauss16 in binary128 instead, but
 * for a stiff member (fixed-point stages do not converge on one) or one
 * gauss16 fails on: rk8pd judges it then, its measured error said. */
static int check_judge(const struct check_job *job, const struct member_rows *m,
		       const double *params, double *ref, struct check_worst *worst)
{
	const int n = job->model->dim;
	const long rows = m->hi - m->lo, label = job->first + m->traj;
	const double *x0 = job->x0 + m->traj * n;
	double *looser, own = 0, gauss_own;
	bool stiff = false;
	int err = picard_reference_tol_stiff(job->model, params, x0, m->t0, m->times + m->lo,
					     rows, job->ref_tol, label, ref, &stiff);

	if (err || !(job->judge_need > 0) || rows < 1)
		return err;
	looser = malloc(rows * n * sizeof(double));
	if (!looser)
		return picard_fail(PICARD_ENOMEM, "check: %ld reference states", rows);
	err = picard_reference_tol(job->model, params, x0, m->t0, m->times + m->lo, rows,
				   10 * job->ref_tol, label, looser);
	for (long i = 0; !err && i < rows * n; i++)
		own = fmax(own, fabs(looser[i] - ref[i]));
	free(looser);
	if (err)
		return err;
	worst->judge_error = own;
	if (own <= job->judge_need || stiff || !gauss_available(job->model))
		return PICARD_OK;
	if (gauss_reference_times(job->model, params, x0, m->t0, m->times + m->lo, rows,
				  job->judge_need, label, ref, &gauss_own) == PICARD_OK &&
	    gauss_own < own) {
		worst->gauss = true;
		worst->judge_error = gauss_own;
		return PICARD_OK;
	}
	/* rk8pd's states again: a failed or worse gauss16 may have written */
	return picard_reference_tol(job->model, params, x0, m->t0, m->times + m->lo, rows,
				    job->ref_tol, label, ref);
}

/* Reference for slot s (trajectory s * traj_stride) from its own t0 at
 * each of its rows within its span, compared point by point; its rows
 * outside its span must hold no state (check_outside()). ref: nrec*dim
 * scratch, times: nrec. A failure keeps its detail in worst: it is raised
 * in this (worker) thread, whose picard_error_detail() the caller's
 * thread cannot see. */
static void check_trajectory(const struct check_job *job, long s, double *ref, double *times,
			     struct check_worst *worst)
{
	const int n = job->model->dim, np = job->model->nparams;
	const struct member_rows m = member_rows(job, s * job->record->traj_stride, times);
	const double *params = job->params ? job->params + m.traj * np : NULL;
	int err;

	*worst = (struct check_worst){ .error = -1, .window = -1, .points = m.hi - m.lo };
	for (long r = 0; r < job->nrec; r++)
		if (r < m.lo || r >= m.hi)
			check_outside(row_state(job, s, r), n, row_place(job, r), worst);
	if (job->model->events) {
		check_events_trajectory(job, s, &m, ref, worst);
		return;
	}
	err = check_judge(job, &m, params, ref, worst);
	if (err) {
		worst->err = err;
		snprintf(worst->detail, sizeof(worst->detail), "%s",
			 picard_error_detail());
		return;
	}
	for (long r = m.lo; r < m.hi; r++)
		check_point(row_state(job, s, r), ref + (r - m.lo) * n, n, row_place(job, r),
			    &job->tol, worst);
}

static int check_args(const picard_model *model, const picard_grid *grid,
		      long ntraj, const double *x0, const picard_record *record,
		      const picard_check_result *result)
{
	if (!model || !grid || !x0 || !record || !record->states || !result)
		return picard_fail(PICARD_EINVAL, "check: missing model, grid, states or record");
	if (ntraj < 1)
		return picard_fail(PICARD_EINVAL, "check: %ld trajectories", ntraj);
	if (record->traj_stride < 1 || (record->times ? record->ntimes < 1 : record->every < 1))
		return picard_fail(PICARD_EINVAL, "check: record every %ld, %ld times, stride %d",
				   record->every, record->times ? record->ntimes : 0,
				   record->traj_stride);
	if (grid->m < 2 || !(grid->h > 0) || grid->windows < 1)
		return picard_fail(PICARD_EINVAL, "check: grid m %d, h %g, %ld windows",
				   grid->m, grid->h, grid->windows);
	/* Nothing compared must not read as E = 0, a pass. */
	if (!record->times && grid->windows / record->every < 1)
		return picard_fail(PICARD_EINVAL, "check: record every %ld of %ld windows keeps none",
				   record->every, grid->windows);
	return PICARD_OK;
}

/* The tolerance parts must be finite and non-negative (picard.h). */
static int check_tol(const picard_tolerance *tol)
{
	if (!(tol->atol >= 0) || !(tol->rtol >= 0) || !isfinite(tol->atol) ||
	    !isfinite(tol->rtol))
		return picard_fail(PICARD_EINVAL, "check: tolerance atol %g, rtol %g",
				   tol->atol, tol->rtol);
	return PICARD_OK;
}

/* The members' own spans, where given: each finite with t1 > t0, as
 * picard_solver_set_spans() has them. */
static int check_spans(const picard_check_options *o, const picard_grid *g, long ntraj)
{
	for (long i = 0; (o->span_t0 || o->span_t1) && i < ntraj; i++) {
		const double a = o->span_t0 ? o->span_t0[i] : g->t0;
		const double b = o->span_t1 ? o->span_t1[i] : g->t1;

		if (!(isfinite(a) && isfinite(b) && b > a))
			return picard_fail(PICARD_EINVAL, "check: the span of member %ld, [%g, %g]: "
					   "need finite t0 < t1", i, a, b);
	}
	return PICARD_OK;
}

/* rk8pd's tolerance for a check under tol: picard_reference()'s, unless a
 * part of tol is so small that the reference's own error would show in the
 * scaled errors; then CHECK_REF_SHARE of that part, as far as double goes. */
double picard_check_ref_tol(const picard_tolerance *tol)
{
	double smallest = INFINITY;

	if (tol->atol > 0)
		smallest = tol->atol;
	if (tol->rtol > 0)
		smallest = fmin(smallest, tol->rtol);
	if (!(smallest < CHECK_TIGHT_TOL))
		return REF_TOL;
	return fmin(REF_TOL, fmax(REF_TOL_FLOOR, CHECK_REF_SHARE * smallest));
}

/* The judge's error a check under tol needs, where rk8pd's is to be
 * measured: CHECK_JUDGE_SHARE of tol's smallest part below
 * CHECK_TIGHT_TOL; else 0 (rk8pd at picard_check_ref_tol() judges). */
static double check_judge_need(const picard_tolerance *tol)
{
	double smallest = INFINITY;

	if (tol->atol > 0)
		smallest = tol->atol;
	if (tol->rtol > 0)
		smallest = fmin(smallest, tol->rtol);
	return smallest < CHECK_TIGHT_TOL ? CHECK_JUDGE_SHARE * smallest : 0;
}

/* A slot whose reference failed under keep_going: NaN, counted, and the
 * first of them (slot order: the smallest trajectory) remembered. */
static void check_ref_failed(const struct check_job *job, long s,
			     picard_check_result *result, long *first_slot)
{
	if (result->ref_failed++ == 0) {
		result->first_ref_failed = s * job->record->traj_stride;
		*first_slot = s;
	}
}

/* After keep_going: the first failure's detail, raised in the caller's
 * thread. Nothing compared at all fails the check: E over no point must
 * not read as a pass. */
static int check_report_failed(const struct check_job *job,
			       const struct check_worst *per_slot,
			       const picard_check_result *result, long first_slot)
{
	const char *detail = per_slot[first_slot].detail;

	if (result->ref_failed == 0)
		return PICARD_OK;
	if (result->ref_failed == 1)
		picard_fail(PICARD_EREF, "%s", detail);
	else
		picard_fail(PICARD_EREF, "%s; %ld of %ld references failed", detail,
			    result->ref_failed, job->slots);
	return result->checked_traj ? PICARD_OK : PICARD_EREF;
}

/* a > b, NaN above everything: a NaN error is the worst there is. */
static bool worse(double a, double b)
{
	return (isnan(a) && !isnan(b)) || a > b;
}

void picard_check_merge(picard_check_result *t, const picard_check_result *p, long first)
{
	const bool none = t->checked_traj == 0;

	t->points += p->points;
	t->nonfinite += p->nonfinite;
	t->outside_span += p->outside_span;
	t->ref_failed += p->ref_failed;
	t->judged_gauss += p->judged_gauss;
	t->judge_error = fmax(t->judge_error, p->judge_error);
	if (t->first_ref_failed < 0 && p->first_ref_failed >= 0)
		t->first_ref_failed = first + p->first_ref_failed;
	if (p->checked_traj <= 0)
		return; /* no error to weigh */
	t->checked_traj += p->checked_traj;
	if (none || worse(p->error, t->error)) {
		t->error = p->error;
		t->worst_traj = p->worst_traj >= 0 ? first + p->worst_traj : -1;
		t->worst_window = p->worst_window;
	}
	if (none || worse(p->rel_error, t->rel_error))
		t->rel_error = p->rel_error;
	if (none || worse(p->scaled_error, t->scaled_error))
		t->scaled_error = p->scaled_error;
	/* the events' alike; the first part checked is taken whole */
	t->events += p->events;
	if (none || (p->events && (t->worst_event_traj < 0 ||
				   worse(p->event_error, t->event_error)))) {
		t->event_error = p->event_error;
		t->worst_event_traj = p->worst_event_traj >= 0 ? first + p->worst_event_traj : -1;
	}
	if (none || worse(p->event_scaled_error, t->event_scaled_error))
		t->event_scaled_error = p->event_scaled_error;
	if (none || (p->event_mismatch && t->event_mismatch == 0)) {
		t->first_event_mismatch = p->first_event_mismatch >= 0 ?
					  first + p->first_event_mismatch : -1;
		snprintf(t->event_detail, sizeof(t->event_detail), "%s", p->event_detail);
	}
	t->event_mismatch += p->event_mismatch;
}

/* One member's events (trajectory traj) into result: the largest time
 * error and where, and the first mismatch in words. */
static void check_fold_events(const struct event_compare *ev, long traj,
			      picard_check_result *result)
{
	result->events += ev->events;
	if (ev->events && (result->worst_event_traj < 0 || ev->time_error > result->event_error)) {
		result->event_error = ev->time_error;
		result->worst_event_traj = traj;
	}
	result->event_scaled_error = fmax(result->event_scaled_error, ev->time_scaled);
	if (!ev->mismatch)
		return;
	if (result->event_mismatch++ == 0) {
		result->first_event_mismatch = traj;
		snprintf(result->event_detail, sizeof(result->event_detail), "%s", ev->detail);
	}
}

/* Fold the per-slot results in slot order (deterministic: on a tie the
 * smallest trajectory wins). A failed reference fails the check, the first
 * one's detail raised; under keep_going a failed reference (PICARD_EREF)
 * only marks its slot. traj_error, when given, gets each slot's scaled
 * error. */
static int check_reduce(const struct check_job *job,
			const struct check_worst *per_slot, double *traj_error,
			picard_check_result *result)
{
	double error = -1;
	long first_slot = -1;

	*result = PICARD_CHECK_NONE;
	for (long s = 0; s < job->slots; s++) {
		const struct check_worst *w = &per_slot[s];

		if (w->err && !(job->keep_going && w->err == PICARD_EREF))
			return picard_fail(w->err, "%s", w->detail);
		if (traj_error)
			traj_error[s] = w->err ? NAN : w->scaled;
		if (w->err) {
			check_ref_failed(job, s, result, &first_slot);
			continue;
		}
		if (w->error > error) {
			error = w->error;
			result->worst_traj = s * job->record->traj_stride;
			result->worst_window = w->window;
		}
		result->rel_error = fmax(result->rel_error, w->rel_error);
		result->scaled_error = fmax(result->scaled_error, w->scaled);
		result->nonfinite += w->nonfinite;
		result->outside_span += w->outside_span;
		result->points += w->points;
		result->judged_gauss += w->gauss;
		result->judge_error = fmax(result->judge_error, w->judge_error);
		check_fold_events(&w->ev, s * job->record->traj_stride, result);
	}
	result->checked_traj = job->slots - result->ref_failed;
	result->error = result->checked_traj ? error : NAN;
	if (!result->checked_traj)
		result->scaled_error = NAN;
	return check_report_failed(job, per_slot, result, first_slot);
}

/* One reference per slot, in parallel, each compared at all its recorded
 * points into per_slot. */
static void check_slots(const struct check_job *job, struct check_worst *per_slot)
{
#pragma omp parallel
	{
		/* Each thread its own scratch; the reference its own driver. */
		double *ref = malloc(job->nrec * job->model->dim * sizeof(*ref));
		double *times = malloc((job->nrec ? job->nrec : 1) * sizeof(*times));

#pragma omp for schedule(dynamic, 1)
		for (long s = 0; s < job->slots; s++) {
			if (ref && times) {
				check_trajectory(job, s, ref, times, &per_slot[s]);
			} else {
				per_slot[s].err = PICARD_ENOMEM;
				snprintf(per_slot[s].detail, sizeof(per_slot[s].detail),
					 "check: reference scratch of %ld states", job->nrec);
			}
		}
		free(ref);
		free(times);
	}
}

/* The one implementation of both checks: job's shared part filled from the
 * arguments, the slots compared in parallel, then a serial reduction in
 * trajectory order. */
static int check_run(struct check_job *job, long ntraj, double *traj_error,
		     picard_check_result *result)
{
	struct check_worst *per_slot;
	int err;

	job->slots = picard_record_slots(ntraj, job->record->traj_stride);
	job->nrec = picard_record_rows(job->grid, job->record);
	per_slot = malloc(job->slots * sizeof(*per_slot));
	if (!per_slot)
		return picard_fail(PICARD_ENOMEM, "check: %ld trajectories, %ld records",
				   job->slots, job->nrec);
	check_slots(job, per_slot);
	err = check_reduce(job, per_slot, traj_error, result);
	free(per_slot);
	return err;
}

/* Absolute errors against picard_reference(); the first failed reference
 * (PICARD_EREF, ENOMEM) fails the check, naming the smallest such
 * trajectory. */
int picard_check(const picard_model *model, const picard_grid *grid,
		 long ntraj, const double *x0, const double *params,
		 const picard_record *record, picard_check_result *result)
{
	struct check_job job = {
		.model = model, .grid = grid, .record = record, .x0 = x0,
		.params = params, .ref_tol = REF_TOL,
	};
	int err = check_args(model, grid, ntraj, x0, record, result);

	return err ? err : check_run(&job, ntraj, NULL, result);
}

int picard_check_each(const picard_model *model, const picard_grid *grid,
		      long ntraj, const double *x0, const double *params,
		      const picard_record *record,
		      const picard_check_options *options,
		      picard_check_result *result)
{
	struct check_job job = {
		.model = model, .grid = grid, .record = record, .x0 = x0,
		.params = params,
	};
	int err = check_args(model, grid, ntraj, x0, record, result);

	if (!err && !options)
		err = picard_fail(PICARD_EINVAL, "check: missing options");
	if (!err)
		err = check_tol(&options->tol);
	if (!err)
		err = check_spans(options, grid, ntraj);
	if (err)
		return err;
	job.tol = options->tol;
	job.ref_tol = picard_check_ref_tol(&options->tol);
	job.judge_need = check_judge_need(&options->tol);
	job.keep_going = options->keep_going;
	job.first = options->first;
	job.events = options->events;
	job.status = options->status;
	job.fail_times = options->fail_times;
	job.span_t0 = options->span_t0;
	job.span_t1 = options->span_t1;
	if (model->events && (!job.events || !job.status || !job.fail_times))
		return picard_fail(PICARD_EINVAL, "check: model %s has events: the options need the "
				   "solve's event log, statuses and fail times", model->name);
	if (job.events && job.events->ntraj < ntraj)
		return picard_fail(PICARD_EINVAL, "check: an event log of %ld members for %ld",
				   job.events->ntraj, ntraj);
	return check_run(&job, ntraj, options->traj_error, result);
}
