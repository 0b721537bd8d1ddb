/* dense_reference.c - GSL rk8pd on a grid of its own per trajectory, with
 * cubic Hermite interpolation between points (states and slopes are both
 * known there).
 *
 * The grid starts from the ends of rk8pd's own adaptive steps, so it is
 * dense where the solution varies fast (a kepler periapsis) and sparse
 * where it does not. The interpolation error, about h^4/384 max|x''''| on
 * an interval of length h and largest at its midpoint, is measured against
 * rk8pd at every midpoint rather than assumed; each interval above the
 * target is split into as many pieces as that h^4 law asks for, and the
 * whole trajectory integrated again through the new points, until the
 * Hermite error is within half the target.
 *
 * rk8pd's own global error is not bounded by its local tolerance: over 100
 * orbits of a kepler e = 0.9 orbit at 1e-12 it is 2.5e-8 (measured against
 * the solution of Kepler's equation). So the grid is integrated once more
 * 10 times tighter, the change taken as the looser run's error (a
 * conservative bound for the tighter run, which is kept), and rk8pd
 * tightened tenfold at a time, down to REF_TOL_FLOOR, until that is
 * within the other half.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dense_reference.h"
#include "errors.h"
#include "gauss_reference.h"
#include "reference.h"

/* Longest interval: span / 512, the uniform grid this reference began as;
 * a few points per feature that rk8pd's long steps would step over. */
#define DENSE_MIN_INTERVALS 512
/* Most points of one trajectory's grid: 16 MiB of states and slopes per
 * component, the uniform grid's old limit. */
#define DENSE_MAX_POINTS 262145L
/* Split an interval to aim at this fraction of the target, a margin for
 * x'''' not being constant across it ... */
#define DENSE_AIM 0.5
/* ... into at most this many pieces at once: beyond it the midpoint error
 * of a coarse interval says too little about its inside to trust the h^4
 * law; the next pass splits again. */
#define DENSE_MAX_SPLIT 64
/* Refinement passes at one rk8pd tolerance; each pass at least halves the
 * error or refinement stops (rk8pd's noise is measured), so this is never
 * the limit in practice. */
#define DENSE_MAX_PASSES 24
/* rk8pd starts at this fraction of the target (at most REF_TOL): its
 * error is below the target for all but long, sharp orbits, which the
 * measurement of its error catches. */
#define DENSE_REF_SHARE 1e-3

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

/* The interval of g holding t: the last point at or before t, clamped to
 * the first and last interval. */
static long dense_interval(const struct dense_traj *g, double t)
{
	long lo = 0, hi = g->npoints - 1;

	while (hi - lo > 1) {
		long mid = lo + (hi - lo) / 2;

		if (g->t[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

void dense_reference_eval(const struct dense_reference *ref, long traj,
			  double t, double *x)
{
	const int n = ref->model->dim;
	const struct dense_traj *g = &ref->traj[traj];

	if (g->gauss) {
		gauss_traj_eval(g->gauss, t, x);
		return;
	}
	const long i = dense_interval(g, t);
	const double dt = g->t[i + 1] - g->t[i];

	hermite(n, (t - g->t[i]) / dt, dt, g->x + i * n, g->f + i * n,
		g->x + (i + 1) * n, g->f + (i + 1) * n, x);
}

static void dense_traj_free(struct dense_traj *g)
{
	free(g->t);
	free(g->x);
	free(g->f);
	if (g->gauss)
		gauss_traj_free(g->gauss);
	free(g->gauss);
	memset(g, 0, sizeof(*g));
}

void dense_reference_free(struct dense_reference *ref)
{
	for (long i = 0; ref->traj && i < ref->ntraj; i++)
		dense_traj_free(&ref->traj[i]);
	free(ref->traj);
	memset(ref, 0, sizeof(*ref));
}

/* What building one trajectory needs. */
struct dense_job {
	const picard_model *model; /* the model */
	const double *x0;          /* the trajectory's start state */
	const double *params;      /* its parameters, or NULL */
	double t0, t1;             /* the span */
	double target;             /* interpolation error wanted */
	long label;                /* the caller's trajectory, for messages */
};

/* Split [a, b] into count equal pieces, their ends (b last) appended to
 * out at *n. */
static void split_interval(double a, double b, long count, double *out, long *n)
{
	for (long q = 1; q < count; q++)
		out[(*n)++] = a + (b - a) * (double)q / count;
	out[(*n)++] = b;
}

/* Pieces a step from a to b is split into: none longer than longest. */
static long step_pieces(double a, double b, double longest)
{
	return (long)fmax(1, ceil((b - a) / longest));
}

/* The first grid: t0, then rk8pd's step ends, each step split so that no
 * interval is longer than span / DENSE_MIN_INTERVALS. */
static int initial_grid(const struct dense_job *job, double tol,
			struct dense_traj *g)
{
	const double longest = (job->t1 - job->t0) / DENSE_MIN_INTERVALS;
	double *steps, prev = job->t0;
	long nsteps, n = 0, total = 1;
	int err;

	err = picard_reference_steps(job->model, job->params, job->x0, job->t0,
				     job->t1, tol, job->label, &steps, &nsteps);
	if (err)
		return err;
	for (long i = 0; i < nsteps; prev = steps[i++])
		total += step_pieces(prev, steps[i], longest);
	g->t = malloc(total * sizeof(double));
	if (!g->t) {
		free(steps);
		return picard_fail(PICARD_ENOMEM, "dense reference: grid of %ld points", total);
	}
	g->t[n++] = job->t0;
	prev = job->t0;
	for (long i = 0; i < nsteps; prev = steps[i++])
		split_interval(prev, steps[i], step_pieces(prev, steps[i], longest), g->t, &n);
	g->npoints = n;
	free(steps);
	return PICARD_OK;
}

/* Integrate through g's points and their midpoints at tol: states and
 * slopes at the points into g, the Hermite error at each midpoint into
 * mid_err (npoints - 1), the largest into g->hermite_error. */
static int dense_pass(const struct dense_job *job, double tol,
		      struct dense_traj *g, double *mid_err)
{
	const int n = job->model->dim;
	const long nt = 2 * (g->npoints - 1);
	double *times = malloc(nt * sizeof(double));
	double *states = malloc(nt * n * sizeof(double));
	double *mid = malloc(n * sizeof(double));
	int err;

	free(g->x);
	free(g->f);
	g->x = malloc(g->npoints * n * sizeof(double));
	g->f = malloc(g->npoints * n * sizeof(double));
	if (!times || !states || !mid || !g->x || !g->f) {
		err = picard_fail(PICARD_ENOMEM, "dense reference: %ld points of dim %d",
				  g->npoints, n);
		goto out;
	}
	for (long i = 0; i + 1 < g->npoints; i++) {
		times[2 * i] = 0.5 * (g->t[i] + g->t[i + 1]);
		times[2 * i + 1] = g->t[i + 1];
	}
	err = picard_reference_tol(job->model, job->params, job->x0, job->t0, times,
				   nt, tol, job->label, states);
	if (err)
		goto out;
	memcpy(g->x, job->x0, n * sizeof(double));
	for (long i = 1; i < g->npoints; i++)
		memcpy(g->x + i * n, states + (2 * i - 1) * n, n * sizeof(double));
	for (long i = 0; i < g->npoints; i++)
		picard_model_rhs(job->model, g->t[i], g->x + i * n, job->params, g->f + i * n);
	g->hermite_error = 0;
	g->ref_tol = tol;
	for (long i = 0; i + 1 < g->npoints; i++) {
		const double *exact = states + 2 * i * n;

		hermite(n, 0.5, g->t[i + 1] - g->t[i], g->x + i * n, g->f + i * n,
			g->x + (i + 1) * n, g->f + (i + 1) * n, mid);
		mid_err[i] = 0;
		for (int k = 0; k < n; k++)
			mid_err[i] = fmax(mid_err[i], fabs(mid[k] - exact[k]));
		g->hermite_error = fmax(g->hermite_error, mid_err[i]);
	}
out:
	free(times);
	free(states);
	free(mid);
	return err;
}

/* Pieces interval i is split into: by the h^4 law, to DENSE_AIM of the
 * target; 1 where it meets the target already. */
static long split_count(double err, double target)
{
	if (err <= target)
		return 1;
	return (long)fmin(DENSE_MAX_SPLIT, fmax(2, ceil(pow(err / (DENSE_AIM * target), 0.25))));
}

/* g's grid with every interval above target split: 1 when it would pass
 * DENSE_MAX_POINTS (g untouched), else 0 or an error. */
static int refine_grid(struct dense_traj *g, const double *mid_err, double target)
{
	long total = 1, n = 0;
	double *t;

	for (long i = 0; i + 1 < g->npoints; i++)
		total += split_count(mid_err[i], target);
	if (total > DENSE_MAX_POINTS)
		return 1;
	t = malloc(total * sizeof(double));
	if (!t)
		return picard_fail(PICARD_ENOMEM, "dense reference: grid of %ld points", total);
	t[n++] = g->t[0];
	for (long i = 0; i + 1 < g->npoints; i++)
		split_interval(g->t[i], g->t[i + 1], split_count(mid_err[i], target), t, &n);
	free(g->t);
	g->t = t;
	g->npoints = n;
	return PICARD_OK;
}

/* Refine g at rk8pd tolerance tol until its Hermite error meets half the
 * target, stops improving (rk8pd's own noise is what is measured: a
 * tighter tol may help) or the grid reaches its size limit. */
static int refine_at(const struct dense_job *job, double tol,
		     struct dense_traj *g)
{
	const double goal = 0.5 * job->target;
	double previous = INFINITY, *mid_err = NULL;
	int err = PICARD_OK;

	for (int pass = 0; pass < DENSE_MAX_PASSES; pass++) {
		double *grown = realloc(mid_err, g->npoints * sizeof(double));

		if (!grown) {
			err = picard_fail(PICARD_ENOMEM, "dense reference: %ld errors", g->npoints);
			break;
		}
		mid_err = grown;
		err = dense_pass(job, tol, g, mid_err);
		if (err || g->hermite_error <= goal || g->hermite_error > 0.5 * previous)
			break;
		previous = g->hermite_error;
		err = refine_grid(g, mid_err, goal);
		if (err) {
			err = err > 0 ? PICARD_OK : err;
			break;
		}
	}
	free(mid_err);
	return err;
}

/* Integrate g's grid again at tol (tighter than the last pass): the
 * largest change of a grid state into g->rk8pd_error, the tighter states
 * kept. */
static int tighten(const struct dense_job *job, double tol, struct dense_traj *g)
{
	const size_t size = g->npoints * job->model->dim * sizeof(double);
	double *looser = malloc(size), *mid_err = malloc(g->npoints * sizeof(double));
	int err;

	if (!looser || !mid_err) {
		err = picard_fail(PICARD_ENOMEM, "dense reference: %ld points", g->npoints);
		goto out;
	}
	memcpy(looser, g->x, size);
	err = dense_pass(job, tol, g, mid_err);
	if (err)
		goto out;
	g->rk8pd_error = 0;
	for (long i = 0; i < g->npoints * job->model->dim; i++)
		g->rk8pd_error = fmax(g->rk8pd_error, fabs(g->x[i] - looser[i]));
out:
	free(looser);
	free(mid_err);
	return err;
}

/* rk8pd's first tolerance for a target: picard_reference()'s, or tighter
 * for a target so small that its error would show; one step above the
 * floor at most, so that its error can be measured. */
static double first_tol(double target)
{
	return fmin(REF_TOL, fmax(10 * REF_TOL_FLOOR, DENSE_REF_SHARE * target));
}

/* rk8pd's error stayed above the target: gauss16 serves g where its own
 * measured error is smaller (a failure of it leaves rk8pd's grid). */
static void dense_gauss(const struct dense_job *job, struct dense_traj *g)
{
	struct gauss_traj *q = malloc(sizeof(*q));

	if (q && gauss_reference_build(q, job->model, job->params, job->x0, job->t0, job->t1,
				       job->target, job->label) == PICARD_OK &&
	    q->own_error < g->interp_error) {
		g->gauss = q;
		g->interp_error = q->own_error;
		return;
	}
	if (q)
		gauss_traj_free(q);
	free(q);
}

/* One trajectory's grid: refined for the Hermite error, rk8pd tightened
 * for its own, each to half the target. */
static int dense_one(const struct dense_job *job, struct dense_traj *g)
{
	const double goal = 0.5 * job->target;
	double tol = first_tol(job->target);
	int err;

	err = initial_grid(job, tol, g);
	if (!err)
		err = refine_at(job, tol, g);
	g->rk8pd_error = INFINITY;
	while (!err && tol > REF_TOL_FLOOR) {
		tol = fmax(REF_TOL_FLOOR, tol / 10);
		err = tighten(job, tol, g);
		if (err || (g->rk8pd_error <= goal && g->hermite_error <= goal))
			break;
		if (g->hermite_error > goal)
			err = refine_at(job, tol, g);
	}
	g->interp_error = g->hermite_error + g->rk8pd_error;
	if (!err && !(g->interp_error <= job->target) && gauss_available(job->model))
		dense_gauss(job, g);
	return err;
}

/* A failed trajectory's error and detail, kept from the worker thread
 * that raised it (picard_error_detail() is per thread). */
struct dense_failure {
	int err;          /* 0 or the error code */
	char detail[256]; /* its detail */
};

/* Every trajectory's grid, in parallel; the failure of the smallest row
 * is raised again in this thread, whatever the thread count. */
static int build_grids(struct dense_reference *ref, const double *x0,
		       const double *params, const long *traj_index,
		       double target)
{
	const int n = ref->model->dim, np = ref->model->nparams;
	struct dense_failure *failed = calloc(ref->ntraj ? ref->ntraj : 1, sizeof(*failed));

	if (!failed)
		return picard_fail(PICARD_ENOMEM, "dense reference: %ld trajectories", ref->ntraj);
#pragma omp parallel for schedule(dynamic, 1)
	for (long i = 0; i < ref->ntraj; i++) {
		const struct dense_job job = {
			.model = ref->model, .x0 = x0 + i * n,
			.params = params ? params + i * np : NULL,
			.t0 = ref->t0, .t1 = ref->t1, .target = target,
			.label = traj_index ? traj_index[i] : i,
		};

		failed[i].err = dense_one(&job, &ref->traj[i]);
		if (failed[i].err)
			snprintf(failed[i].detail, sizeof(failed[i].detail), "%s",
				 picard_error_detail());
	}
	for (long i = 0; i < ref->ntraj; i++) {
		if (failed[i].err) {
			int err = picard_fail(failed[i].err, "%s", failed[i].detail);

			free(failed);
			return err;
		}
	}
	free(failed);
	return PICARD_OK;
}

/* The reference's totals over its trajectories. */
static void dense_totals(struct dense_reference *ref)
{
	for (long i = 0; i < ref->ntraj; i++) {
		const struct dense_traj *g = &ref->traj[i];

		ref->npoints += g->npoints;
		ref->gauss_traj += g->gauss != NULL;
		ref->interp_error = fmax(ref->interp_error, g->interp_error);
		ref->ref_tol = i ? fmin(ref->ref_tol, g->ref_tol) : g->ref_tol;
	}
}

int dense_reference_build(struct dense_reference *ref,
			  const picard_model *model, const double *x0,
			  const double *params, long ntraj,
			  const long *traj_index, double t0, double t1,
			  double target)
{
	int err;

	memset(ref, 0, sizeof(*ref));
	if (!model || !x0 || ntraj < 1 || !(t1 > t0) || !isfinite(t1 - t0) ||
	    !(target > 0))
		return picard_fail(PICARD_EINVAL, "dense reference: %ld trajectories over [%g, %g], target %g",
				   ntraj, t0, t1, target);
	ref->model = model;
	ref->ntraj = ntraj;
	ref->t0 = t0;
	ref->t1 = t1;
	ref->traj = calloc(ntraj, sizeof(*ref->traj));
	if (!ref->traj)
		return picard_fail(PICARD_ENOMEM, "dense reference: %ld trajectories", ntraj);
	err = build_grids(ref, x0, params, traj_index, target);
	if (err) {
		dense_reference_free(ref);
		return err;
	}
	dense_totals(ref);
	return PICARD_OK;
}

void dense_reference_keep(struct dense_reference *ref, const char *drop)
{
	long kept = 0;

	for (long i = 0; i < ref->ntraj; i++) {
		if (drop[i])
			dense_traj_free(&ref->traj[i]);
		else
			ref->traj[kept++] = ref->traj[i];
	}
	ref->ntraj = kept;
	ref->npoints = 0;
	ref->gauss_traj = 0;
	ref->interp_error = 0;
	dense_totals(ref);
}
