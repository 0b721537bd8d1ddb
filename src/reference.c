/* reference.c - the GSL reference and the check of a solve against it.
 *
 * The paper measured its global error E against a 5th-order Runge-Kutta-
 * Merson solution; picard uses GSL's gsl_odeiv2 rk8pd (Prince-Dormand 8(9))
 * in double with rtol = atol = 1e-12, far more accurate than any Picard
 * run it judges. picard_check() integrates each checked trajectory once
 * through all recorded window ends (one driver, never restarted) and
 * reduces the paper's E, its relative variant and where the worst point
 * lies, threading over trajectories with OpenMP.
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
#include "reference.h"

#define REF_TOL 1e-12           /* rtol = atol of the reference */
#define REF_MAX_STEPS 10000000  /* per interval: a stuck reference fails */

/* What the GSL right-hand side adapter needs. */
struct ref_system {
	const picard_model *model; /* whose f is integrated */
	const double *params;      /* nparams values, never NULL */
};

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

/* March y from t0 through the times with one driver, continuing from each
 * time to the next (never restarting), storing the state at each. */
static int ref_march(gsl_odeiv2_driver *driver, const picard_model *model,
		     double t0, const double *times, long ntimes, double *y,
		     double *out)
{
	const int n = model->dim;
	double t = t0;

	for (long i = 0; i < ntimes; i++) {
		int status = gsl_odeiv2_driver_apply(driver, &t, times[i], y);

		if (status != GSL_SUCCESS)
			return picard_fail(PICARD_EREF, "the reference solution blows up near t = %.6g "
					   "(%s: rk8pd stopped there on its way to %g: %s)", t,
					   model->name, times[i], gsl_strerror(status));
		for (int k = 0; k < n; k++)
			if (!isfinite(y[k]))
				return picard_fail(PICARD_EREF, "the reference solution blows up near "
						   "t = %.6g (%s: rk8pd's x[%d] = %g there)", t,
						   model->name, k, y[k]);
		memcpy(out + i * n, y, n * sizeof(*y));
	}
	return PICARD_OK;
}

int picard_reference(const picard_model *model, const double *params,
		     const double *x0, double t0, const double *times,
		     long ntimes, double *out)
{
	struct ref_system rs;
	gsl_odeiv2_system sys;
	gsl_odeiv2_driver *driver;
	double *y, hstart;
	int err;

	if (!model || !x0 || ntimes < 0 || (ntimes && (!times || !out)))
		return picard_fail(PICARD_EINVAL, "reference: missing model, state or times");
	for (int k = 0; k < model->dim; k++)
		if (!isfinite(x0[k]))
			return picard_fail(PICARD_EINVAL, "reference: x0[%d] = %g", k, x0[k]);
	err = check_times(t0, times, ntimes);
	if (err || ntimes == 0)
		return err;
	ref_gsl_init();
	rs = (struct ref_system){ model, params ? params : model->param_defaults };
	sys = (gsl_odeiv2_system){ ref_rhs, NULL, (size_t)model->dim, &rs };
	/* A small first step, the controller grows it at once. Scaled by the
	 * model's span, not by the times asked for, so a call for a prefix of
	 * the times takes the very same steps. */
	hstart = 1e-6 * (model->t1 - model->t0);
	if (!(hstart > 0) || !isfinite(hstart))
		hstart = 1e-6;
	y = malloc(model->dim * sizeof(*y));
	driver = gsl_odeiv2_driver_alloc_y_new(&sys, gsl_odeiv2_step_rk8pd, hstart,
					       REF_TOL, REF_TOL);
	if (!y || !driver) {
		err = picard_fail(PICARD_ENOMEM, "reference: GSL driver for dim %d", model->dim);
		goto out;
	}
	gsl_odeiv2_driver_set_nmax(driver, REF_MAX_STEPS);
	memcpy(y, x0, model->dim * sizeof(*y));
	err = ref_march(driver, model, t0, times, ntimes, y, out);
out:
	if (driver)
		gsl_odeiv2_driver_free(driver);
	free(y);
	return err;
}

/* ---- picard_check ------------------------------------------------------ */

/* The worst point of one trajectory (or of all of them). */
struct check_worst {
	double error;      /* max |x - x_ref|, -1 before the first point */
	double rel_error;  /* max over points of the relative error */
	long window;       /* window where error is reached */
	long nonfinite;    /* non-finite recorded states */
	double scaled;     /* max scaled error under the check's tolerance */
	int err;           /* 0 or the reference's error code */
	char detail[320];  /* picard_error_detail() of err, from its thread */
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

void picard_reference_failure(char *buf, size_t len, long traj)
{
	static const char prefix[] = "the reference solution ";
	const char *detail = picard_error_detail();

	if (strncmp(detail, prefix, sizeof(prefix) - 1) == 0)
		snprintf(buf, len, "%sof trajectory %ld %s", prefix, traj,
			 detail + sizeof(prefix) - 1);
	else
		snprintf(buf, len, "trajectory %ld: %s", traj, detail);
}

/* What every checked trajectory shares. */
struct check_job {
	const picard_model *model;   /* the model */
	const picard_grid *grid;     /* the solve's grid */
	const picard_record *record; /* recorded window ends */
	long slots, nrec;            /* record slots, records kept */
	const double *x0, *params;   /* as given to picard_solve */
	const double *times;         /* nrec recorded window-end times */
	picard_tolerance tol;        /* scale of the scaled errors */
};

/* Reference for slot s (trajectory s * traj_stride) at every recorded
 * window end, compared point by point. ref: nrec*dim scratch. */
static void check_trajectory(const struct check_job *job, long s, double *ref,
			     struct check_worst *worst)
{
	const int n = job->model->dim, np = job->model->nparams;
	const long every = job->record->every;
	const long traj = s * job->record->traj_stride;
	const double *params = job->params ? job->params + traj * np : NULL;
	int err;

	worst->error = -1;
	worst->rel_error = 0;
	worst->window = -1;
	worst->nonfinite = 0;
	worst->scaled = 0;
	worst->err = 0;
	worst->detail[0] = '\0';
	err = picard_reference(job->model, params, job->x0 + traj * n,
			       job->grid->t0, job->times, job->nrec, ref);
	if (err) {
		worst->err = err;
		picard_reference_failure(worst->detail, sizeof(worst->detail), traj);
		return;
	}
	for (long r = 0; r < job->nrec; r++)
		check_point(job->record->states + (r * job->slots + s) * n,
			    ref + r * n, n, job->record->times ? r : (r + 1) * every - 1,
			    &job->tol, worst);
}

/* Times of the record's rows: its times, or for window ends, record r is
 * window (r+1)*every - 1, which ends at t0 + (r+1)*every*(m-1)*h
 * (picard_grid). */
static double *record_times(const picard_grid *grid, const picard_record *record,
			    long nrec)
{
	double *times = malloc((nrec ? nrec : 1) * sizeof(*times));

	for (long r = 0; times && r < nrec; r++)
		times[r] = record->times ? record->times[r] :
			   grid->t0 + (double)((r + 1) * record->every) * (grid->m - 1) * grid->h;
	return times;
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

/* Fold the per-slot results in slot order (deterministic: on a tie the
 * smallest trajectory wins). A failed reference is the error, or with
 * keep_going its slot's NaN and a count; the first one's detail stands. */
static int check_reduce(const struct check_job *job,
			const struct check_worst *per_slot,
			const picard_check_options *options,
			picard_check_result *result)
{
	double error = -1;
	long compared = 0;

	memset(result, 0, sizeof(*result));
	result->worst_traj = -1;
	result->worst_window = -1;
	result->first_ref_failed = -1;
	for (long s = 0; s < job->slots; s++) {
		const struct check_worst *w = &per_slot[s];

		if (w->err && !options->keep_going)
			return picard_fail(w->err, "%s", w->detail);
		if (w->err) {
			if (!result->ref_failed++) {
				result->first_ref_failed = s * job->record->traj_stride;
				picard_fail(w->err, "%s", w->detail);
			}
			if (options->traj_error)
				options->traj_error[s] = NAN;
			continue;
		}
		compared++;
		if (options->traj_error)
			options->traj_error[s] = w->scaled;
		if (w->error > error) {
			error = w->error;
			result->worst_traj = s * job->record->traj_stride;
			result->worst_window = w->window;
		}
		result->rel_error = fmax(result->rel_error, w->rel_error);
		result->scaled_error = fmax(result->scaled_error, w->scaled);
		result->nonfinite += w->nonfinite;
	}
	result->error = compared ? error : NAN;
	result->checked_traj = compared;
	result->points = compared * job->nrec;
	return PICARD_OK;
}

/* One reference per checked trajectory, in parallel, each compared at all
 * its recorded window ends; then a serial reduction in trajectory order.
 * A failed reference (PICARD_EREF, ENOMEM) fails the check: the smallest
 * such trajectory is named in the detail. */
int picard_check_each(const picard_model *model, const picard_grid *grid,
		      long ntraj, const double *x0, const double *params,
		      const picard_record *record,
		      const picard_check_options *options,
		      picard_check_result *result)
{
	struct check_worst *per_slot = NULL;
	struct check_job job;
	double *times = NULL;
	int err;

	err = check_args(model, grid, ntraj, x0, record, result);
	if (!err && !options)
		err = picard_fail(PICARD_EINVAL, "check: no options");
	if (!err && (!(options->tol.atol >= 0) || !(options->tol.rtol >= 0)))
		err = picard_fail(PICARD_EINVAL, "check: tolerance atol %g, rtol %g",
				  options->tol.atol, options->tol.rtol);
	if (err)
		return err;
	job = (struct check_job){
		.model = model, .grid = grid, .record = record,
		.slots = picard_record_slots(ntraj, record->traj_stride),
		.nrec = picard_record_rows(grid, record), .x0 = x0, .params = params,
		.tol = options->tol,
	};
	times = record_times(grid, record, job.nrec);
	per_slot = malloc(job.slots * sizeof(*per_slot));
	if (!times || !per_slot) {
		err = picard_fail(PICARD_ENOMEM, "check: %ld trajectories, %ld records",
				  job.slots, job.nrec);
		goto out;
	}
	job.times = times;

#pragma omp parallel
	{
		/* Each thread its own scratch; picard_reference its own driver. */
		double *ref = malloc(job.nrec * model->dim * sizeof(*ref));

#pragma omp for schedule(dynamic, 1)
		for (long s = 0; s < job.slots; s++) {
			if (ref) {
				check_trajectory(&job, s, ref, &per_slot[s]);
			} else {
				per_slot[s].err = PICARD_ENOMEM;
				snprintf(per_slot[s].detail, sizeof(per_slot[s].detail),
					 "check: reference scratch of %ld states", job.nrec);
			}
		}
		free(ref);
	}
	err = check_reduce(&job, per_slot, options, result);
out:
	free(per_slot);
	free(times);
	return err;
}

int picard_check(const picard_model *model, const picard_grid *grid,
		 long ntraj, const double *x0, const double *params,
		 const picard_record *record, picard_check_result *result)
{
	const picard_check_options absolute = {.keep_going = false};

	return picard_check_each(model, grid, ntraj, x0, params, record, &absolute, result);
}
