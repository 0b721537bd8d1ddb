/* tolerance.c - what "met the tolerance" means, in one place: the scaled
 * error of a state under (atol, rtol), the tolerances a precision can
 * reach, the names of the per-trajectory statuses, and the identity of an
 * ensemble that the tuning cache keys on. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "errors.h"
#include "picard.h"
#include "scaled_error.h"
#include "tolerance.h"

/* A change below 2 eps of |x| (two units in its last place, 4 u) is the
 * rounding of the sweep or step that made it: lobatto in float converges
 * at iter_rtol 3e-7 and no longer at 1e-7 (src/schemes/lobatto/scheme_lobatto.c), and in
 * double at 1e-15 (tests/schemes/test_lobatto.c, kepler_periodic_return). */
#define ROUNDING_ULPS 2.0
/* The reference and the error estimates run in double at tolerances down
 * to 1e-14 (src/reference/reference.h): an error below 100 u of double (1.1e-14,
 * the floor MATLAB's ode45 puts under RelTol) cannot be measured. */
#define REFERENCE_UNITS 100.0

double picard_iteration_floor(picard_precision precision)
{
	return ROUNDING_ULPS * (precision == PICARD_DOUBLE ? DBL_EPSILON : FLT_EPSILON);
}

double picard_tolerance_floor(picard_precision precision)
{
	return fmax(picard_iteration_floor(precision), REFERENCE_UNITS * DBL_EPSILON / 2);
}

int picard_tolerance_check(const picard_tolerance *tol, picard_precision precision,
			   const double *x, long count)
{
	const double floor = picard_tolerance_floor(precision);
	double scale = 0;

	for (long i = 0; x && i < count; i++)
		scale = fmax(scale, fabs(x[i]));
	if (tol->rtol >= floor || (scale > 0 && tol->atol + tol->rtol * scale >= floor * scale) ||
	    (scale == 0 && tol->atol > 0))
		return PICARD_OK;
	return picard_fail(PICARD_EACCURACY, "atol %g, rtol %g: below what %s reaches: "
			   "relative %.2g at least (%s), %.2g absolute at the largest start "
			   "state |x| = %g", tol->atol, tol->rtol,
			   precision == PICARD_DOUBLE ? "double" : "float", floor,
			   floor > picard_iteration_floor(precision) ?
			   "100 units of double's roundoff, the reference's" :
			   "2 eps of the precision", floor * scale, scale);
}

int picard_iteration_check(const char *name, double rtol, picard_precision precision)
{
	if (!(rtol > 0) || rtol >= picard_iteration_floor(precision))
		return PICARD_OK;
	return picard_fail(PICARD_EACCURACY, "%s %g: below what %s reaches, %.2g (2 eps: a "
			   "change below it is rounding)", name, rtol,
			   precision == PICARD_DOUBLE ? "double" : "float",
			   picard_iteration_floor(precision));
}

int picard_tolerance_check_ensemble(const picard_tolerance *tol, picard_precision precision,
				    const double *x, long ntraj, int dim)
{
	long easiest = 0;
	double least = INFINITY;
	int err;

	/* the first member of the smallest start: each thread's, then the
	 * lowest index among equals */
#pragma omp parallel if (x && ntraj > 4096)
	{
		double own_least = INFINITY;
		long own = 0;

#pragma omp for schedule(static) nowait
		for (long i = 0; i < (x ? ntraj : 0); i++) {
			double scale = 0;

			for (int k = 0; k < dim; k++)
				scale = fmax(scale, fabs(x[i * dim + k]));
			if (scale < own_least) {
				own_least = scale;
				own = i;
			}
		}
#pragma omp critical(picard_tolerance_easiest)
		if (own_least < least || (own_least == least && own < easiest)) {
			least = own_least;
			easiest = own;
		}
	}
	err = picard_tolerance_check(tol, precision, x ? x + easiest * dim : NULL, x ? dim : 0);
	if (err) {
		char why[512]; /* the detail is rewritten by picard_fail */

		snprintf(why, sizeof(why), "%s", picard_error_detail());
		picard_fail(err, "%s of trajectory %ld, the smallest start: no member can meet it",
			    why, easiest);
	}
	return err;
}

double picard_scaled_error(const picard_tolerance *tol, const double *x,
			   const double *ref, int n)
{
	const bool absolute = !tol || (tol->atol == 0 && tol->rtol == 0);
	double worst = 0;

	for (int k = 0; k < n; k++)
		worst = fmax(worst, picard_component_error(absolute ? 0 : tol->atol,
							   absolute ? 0 : tol->rtol, absolute,
							   x[k], ref[k]));
	return worst;
}

static const char *const status_names[] = {
	[PICARD_TRAJ_OK] = "ok",
	[PICARD_TRAJ_NONFINITE] = "nonfinite",
	[PICARD_TRAJ_DIVERGED] = "diverged",
	[PICARD_TRAJ_NOT_CONVERGED] = "not-converged",
	[PICARD_TRAJ_TOL_EXCEEDED] = "tol-exceeded",
	[PICARD_TRAJ_STEP_UNDERFLOW] = "step-underflow",
	[PICARD_TRAJ_MAX_STEPS] = "max-steps",
	[PICARD_TRAJ_LINSOLVE_FAILED] = "linsolve-failed",
	[PICARD_TRAJ_IMPLAUSIBLE] = "implausible",
	[PICARD_TRAJ_CHECK_FAILED] = "check-failed",
	[PICARD_TRAJ_EVENT] = "event",
	[PICARD_TRAJ_EVENT_LIMIT] = "event-limit",
	[PICARD_TRAJ_EVENT_FAILED] = "event-failed",
};

const char *picard_traj_status_name(picard_traj_status status)
{
	if ((int)status < 0 || (size_t)status >= sizeof(status_names) / sizeof(status_names[0]))
		return "unknown";
	return status_names[status];
}

/* FNV-1a over the bytes of the doubles: the same ensemble, the same id on
 * any little-endian machine. */
static uint64_t fnv1a(uint64_t hash, const void *data, size_t len)
{
	const unsigned char *bytes = data;

	for (size_t i = 0; i < len; i++) {
		hash ^= bytes[i];
		hash *= 0x100000001b3ULL;
	}
	return hash;
}

void picard_ensemble_id(const double *x0, const double *params, long ntraj,
			int dim, int nparams, char *buf, size_t len)
{
	uint64_t hash = 0xcbf29ce484222325ULL;
	const long header[3] = {ntraj, dim, params ? nparams : 0};

	hash = fnv1a(hash, header, sizeof(header));
	if (x0)
		hash = fnv1a(hash, x0, (size_t)ntraj * dim * sizeof(double));
	if (params)
		hash = fnv1a(hash, params, (size_t)ntraj * nparams * sizeof(double));
	snprintf(buf, len, "ens-%016llx", (unsigned long long)hash);
}
