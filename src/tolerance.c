/* tolerance.c - what "met the tolerance" means, in one place: the scaled
 * error of a state under (atol, rtol), the names of the per-trajectory
 * statuses, and the identity of an ensemble that the tuning cache keys on. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "picard.h"

double picard_scaled_error(const picard_tolerance *tol, const double *x,
			   const double *ref, int n)
{
	const bool absolute = !tol || (tol->atol == 0 && tol->rtol == 0);
	double worst = 0;

	for (int k = 0; k < n; k++) {
		const double diff = fabs(x[k] - ref[k]);
		const double scale = absolute ? 1 : tol->atol + tol->rtol * fabs(ref[k]);

		if (!isfinite(x[k]))
			return INFINITY;
		/* a zero scale (atol 0, ref 0): only an exact match meets it */
		worst = fmax(worst, scale > 0 ? diff / scale : diff == 0 ? 0 : INFINITY);
	}
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
