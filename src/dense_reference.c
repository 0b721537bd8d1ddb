/* dense_reference.c - GSL rk8pd on a uniform grid with cubic Hermite
 * interpolation between points (states and slopes are both known there).
 * The interpolation error, about dt^4/384 max|x''''|, is measured against
 * rk8pd at the midpoints rather than assumed, and the grid is doubled until
 * it is below the caller's target. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dense_reference.h"
#include "errors.h"
#include "reference.h"

#define DENSE_MIN_POINTS 513L
#define DENSE_MAX_POINTS 262145L

/* Cubic Hermite on [a, a+dt] from states xa, xb and slopes fa, fb at
 * s = (t - a)/dt in [0, 1], component by component. */
static void hermite(int n, double s, double dt, const double *xa,
		    const double *fa, const double *xb, const double *fb,
		    double *x)
{
	double s2 = s * s, s3 = s2 * s;
	double h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s;
	double h01 = -2 * s3 + 3 * s2, h11 = s3 - s2;

	for (int k = 0; k < n; k++)
		x[k] = h00 * xa[k] + h10 * dt * fa[k] + h01 * xb[k] + h11 * dt * fb[k];
}

void dense_reference_eval(const struct dense_reference *ref, long traj,
			  double t, double *x)
{
	const int n = ref->model->dim;
	double pos = (t - ref->t0) / ref->dt;
	long i = (long)floor(pos);

	if (i < 0)
		i = 0;
	if (i > ref->npoints - 2)
		i = ref->npoints - 2;
	const double *xs = ref->x + (traj * ref->npoints + i) * n;
	const double *fs = ref->f + (traj * ref->npoints + i) * n;
	hermite(n, pos - i, ref->dt, xs, fs, xs + n, fs + n, x);
}

void dense_reference_free(struct dense_reference *ref)
{
	free(ref->x);
	free(ref->f);
	memset(ref, 0, sizeof(*ref));
}

/* One trajectory through the grid points and midpoints: grid states and
 * slopes into ref, largest interpolation error at the midpoints returned in
 * *err. */
static int integrate_one(struct dense_reference *ref, long traj,
			 const double *x0, const double *params,
			 double *times, double *states, double *mid, double *err)
{
	const int n = ref->model->dim;
	const long npoints = ref->npoints, nt = 2 * (npoints - 1);
	double *xg = ref->x + traj * npoints * n, *fg = ref->f + traj * npoints * n;
	int rc;

	for (long i = 0; i < nt; i++)
		times[i] = ref->t0 + (i + 1) * 0.5 * ref->dt;
	rc = picard_reference(ref->model, params, x0, ref->t0, times, nt, states);
	if (rc)
		return rc;
	memcpy(xg, x0, n * sizeof(double));
	for (long i = 1; i < npoints; i++)
		memcpy(xg + i * n, states + (2 * i - 1) * n, n * sizeof(double));
	for (long i = 0; i < npoints; i++)
		picard_model_rhs(ref->model, ref->t0 + i * ref->dt, xg + i * n, params, fg + i * n);
	*err = 0;
	for (long i = 0; i + 1 < npoints; i++) {
		const double *exact = states + 2 * i * n;
		hermite(n, 0.5, ref->dt, xg + i * n, fg + i * n, xg + (i + 1) * n,
			fg + (i + 1) * n, mid);
		for (int k = 0; k < n; k++)
			*err = fmax(*err, fabs(mid[k] - exact[k]));
	}
	return PICARD_OK;
}

/* The grid of npoints for every trajectory; worst midpoint error out. A
 * failed trajectory's detail is raised again in the calling thread (the
 * detail is per thread): the smallest such trajectory's, named by
 * traj_index (the caller's numbering; NULL: the row). */
static int build_grid(struct dense_reference *ref, const double *x0,
		      const double *params, const long *traj_index, double *worst)
{
	const int n = ref->model->dim, np = ref->model->nparams;
	const long nt = 2 * (ref->npoints - 1);
	double max_err = 0;
	long failed_row = -1;
	char detail[320] = "";
	int err = PICARD_OK;

	ref->x = malloc(ref->ntraj * ref->npoints * n * sizeof(double));
	ref->f = malloc(ref->ntraj * ref->npoints * n * sizeof(double));
	if (!ref->x || !ref->f)
		return picard_fail(PICARD_ENOMEM, "dense reference: %ld x %ld states",
				   ref->ntraj, ref->npoints);
#pragma omp parallel reduction(max : max_err)
	{
		double *times = malloc(nt * sizeof(double));
		double *states = malloc(nt * n * sizeof(double));
		double *mid = malloc(n * sizeof(double));
		double e = 0;

#pragma omp for schedule(dynamic)
		for (long i = 0; i < ref->ntraj; i++) {
			int rc = times && states && mid ?
				 integrate_one(ref, i, x0 + i * n, params ? params + i * np : NULL,
					       times, states, mid, &e) :
				 picard_fail(PICARD_ENOMEM, "dense reference: scratch of %ld states", nt);
			if (rc) {
#pragma omp critical
				if (failed_row < 0 || i < failed_row) {
					failed_row = i;
					err = rc;
					picard_reference_failure(detail, sizeof(detail),
								 traj_index ? traj_index[i] : i);
				}
				continue;
			}
			max_err = fmax(max_err, e);
		}
		free(times);
		free(states);
		free(mid);
	}
	*worst = max_err;
	return err ? picard_fail(err, "%s", detail) : PICARD_OK;
}

int dense_reference_build(struct dense_reference *ref,
			  const picard_model *model, const double *x0,
			  const double *params, const long *traj_index, long ntraj,
			  double t0, double t1, double target)
{
	double worst = INFINITY;
	int err;

	memset(ref, 0, sizeof(*ref));
	for (long npoints = DENSE_MIN_POINTS; npoints <= DENSE_MAX_POINTS;
	     npoints = 2 * npoints - 1) {
		dense_reference_free(ref);
		ref->model = model;
		ref->ntraj = ntraj;
		ref->npoints = npoints;
		ref->t0 = t0;
		ref->dt = (t1 - t0) / (npoints - 1);
		err = build_grid(ref, x0, params, traj_index, &worst);
		if (err) {
			dense_reference_free(ref);
			return err;
		}
		ref->interp_error = worst;
		if (worst <= target)
			break;
	}
	return PICARD_OK;
}
