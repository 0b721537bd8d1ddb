/* cpu_imex.c - the imex schemes (src/schemes/imex/imex.h, src/schemes/imex/scheme_imex.c) on the CPU
 * backend, a trajectory per OpenMP thread, in double. Each trajectory sets
 * its linear solver up once (its parameters and gamma h fix I - gamma h
 * A), then per window sweeps: g at every stage of every step from the
 * previous sweep's stage values (the window's start at every stage in the
 * first), then the chain of linear solves step by step, until the stage
 * values stop moving (adaptive) or K sweeps. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "convergence.h"
#include "cpu_records.h"
#include "errors.h"
#include "imex.h"
#include "launch.h"
#include "linsolve/implicit.h"
#include "scheme.h"

/* What every trajectory of a solve shares. */
struct imex_tables {
	const struct picard_imex_method *method; /* the stages */
	const picard_implicit_type *solver;      /* the linear solver */
	picard_implicit_config cfg;              /* its limits */
};

/* One trajectory's arrays, carved from its scratch. */
struct imex_work {
	double *stages;  /* (m-1) s n: Y of step j, stage i at (j s + i) n */
	double *g;       /* the same layout: g at the previous sweep's values */
	double *fresh;   /* n: a stage's new value */
	double *rhs;     /* n: a stage's right-hand side */
	double *xw;      /* n: the window's start */
	double *xw_prev; /* n: the previous window's start (warm start) */
};

static size_t scratch_len(const struct picard_job *job)
{
	const struct picard_imex_method *method = picard_imex_method_of(job->grid->scheme);
	const size_t n = job->model->dim;

	return 2 * (size_t)(job->grid->m - 1) * method->stages * n + 4 * n;
}

static int prepare(const struct picard_job *job, void **tables)
{
	const picard_grid *g = job->grid;
	struct imex_tables *t = malloc(sizeof(*t));

	*tables = t;
	if (!t)
		return picard_fail(PICARD_ENOMEM, "imex tables");
	t->method = picard_imex_method_of(g->scheme);
	t->solver = picard_implicit_of(g->linsolve);
	if (!t->solver || !t->solver->setup)
		return picard_fail(PICARD_EINVAL, "linsolve = %s: no solver on the CPU backend",
				   picard_linsolver_name(g->linsolve) ?
				   picard_linsolver_name(g->linsolve) : "?");
	t->cfg = (picard_implicit_config){ .precond = g->precond, .rtol = g->linsolve_rtol,
					   .maxit = g->linsolve_maxit };
	return PICARD_OK;
}

static void release(void *tables)
{
	free(tables);
}

/* Whether all n of x are finite. */
static bool all_finite(const double *x, int n)
{
	for (int k = 0; k < n; k++)
		if (!isfinite(x[k]))
			return false;
	return true;
}

/* The window's records: its end, and dense output linear between its
 * nodes (the start, then every step's end), as the trapezoid's. */
static void store_records(const struct picard_job *job, const struct imex_work *wk, long w,
			  long traj, long *next, int stages)
{
	const int n = job->model->dim, m = job->grid->m;
	const double h = job->grid->h, tw = job->grid->t0 + (double)w * (m - 1) * h;
	const double *end = wk->stages + ((size_t)(m - 2) * stages + stages - 1) * n;

	for (int r = 0; r < job->nrecords; r++) {
		const picard_record *rec = &job->records[r];
		long row;

		for (int k = 0; k < n; k++)
			record_window_end(job, rec, w, traj, k, end[k]);
		while ((row = dense_row(job, rec, w, traj, &next[r])) >= 0) {
			double frac;
			const int q = picard_trapezoid_segment(rec->times[row] - tw, h, m, &frac);
			const double *lo = q == 0 ? wk->xw :
				wk->stages + ((size_t)(q - 1) * stages + stages - 1) * n;
			const double *hi = wk->stages + ((size_t)q * stages + stages - 1) * n;

			for (int k = 0; k < n; k++)
				record_store(job, rec, row, traj, k, fma(frac, hi[k] - lo[k], lo[k]));
		}
	}
}

/* One sweep over window w (start wk->xw at tw): g at the previous values,
 * then the chain of solves. Whether every stage's change was within the
 * iteration tolerance into *within, the largest plain change into
 * *plain; PICARD_TRAJ_OK, or the failure (the note says which solve). */
static picard_traj_status sweep(const struct picard_job *job, const struct imex_tables *t,
				picard_implicit *solver, const double *params,
				const struct imex_work *wk, long traj, long w, double tw,
				bool *within, float *plain)
{
	const struct picard_imex_method *method = t->method;
	const picard_operator *op = job->model->op;
	const int n = job->model->dim, m = job->grid->m, s = method->stages;
	const double h = job->grid->h, gamma_h = method->gamma * h;
	const double *y = wk->xw; /* the step's start */

	for (int j = 0; j < m - 1; j++)
		for (int i = 0; i < s; i++) {
			const size_t at = ((size_t)j * s + i) * n;

			op->nonlinear(tw + (j + method->c[i]) * h, wk->stages + at, params, wk->g + at);
		}
	*within = true;
	*plain = 0;
	for (int j = 0; j < m - 1; j++) {
		for (int i = 0; i < s; i++) {
			double *stage = wk->stages + ((size_t)j * s + i) * n;
			const double *g = wk->g + ((size_t)j * s + i) * n;
			picard_linsolve_code code;

			for (int k = 0; k < n; k++)
				wk->rhs[k] = y[k] + gamma_h * g[k] +
					     (i > 0 ? method->carry[i] * (stage[k - n] - y[k]) : 0);
			if (!all_finite(wk->rhs, n))
				return PICARD_TRAJ_NONFINITE;
			memcpy(wk->fresh, stage, n * sizeof(double)); /* the guess */
			code = solver->type->solve(solver, wk->rhs, wk->fresh);
			if (code != PICARD_LINSOLVE_OK) {
				picard_note_failure(job, traj, "linsolve-failed in window %ld (step %d, "
						    "stage %d): %s", w, j, i + 1, solver->message);
				return PICARD_TRAJ_LINSOLVE_FAILED;
			}
			for (int k = 0; k < n; k++) {
				*within &= picard_change_within(wk->fresh[k], stage[k],
								job->grid->iter_atol,
								job->grid->iter_rtol);
				*plain = fmaxf(*plain, (float)fabs(wk->fresh[k] - stage[k]));
				stage[k] = wk->fresh[k];
			}
		}
		y = wk->stages + ((size_t)j * s + s - 1) * n;
	}
	return PICARD_TRAJ_OK;
}

static picard_traj_status trajectory_double(const struct picard_job *job, const void *tables,
					    long traj, void *scratch, long *fail_window)
{
	const struct imex_tables *t = tables;
	const picard_grid *grid = job->grid;
	const int n = job->model->dim, m = grid->m, s = t->method->stages;
	const size_t stage_len = (size_t)(m - 1) * s * n;
	const double *params = job->params + traj * job->param_stride;
	struct imex_work wk = { .stages = scratch };
	picard_implicit *solver = NULL;
	picard_traj_status status = PICARD_TRAJ_OK;
	long w = 0, unconverged_window = -1;
	long next[PICARD_MAX_RECORDS] = { 0 };
	picard_linsolve_code code;

	wk.g = wk.stages + stage_len;
	wk.fresh = wk.g + stage_len;
	wk.rhs = wk.fresh + n;
	wk.xw = wk.rhs + n;
	wk.xw_prev = wk.xw + n;
	job->sweeps[traj] = 0;
	job->sweeps_max[traj] = 0;
	memcpy(wk.xw, job->x0 + traj * n, n * sizeof(double));
	code = t->solver->setup(t->solver, job->model->op, params, t->method->gamma * grid->h,
				&t->cfg, &solver);
	if (code != PICARD_LINSOLVE_OK) {
		picard_note_failure(job, traj, "linsolve-failed setting up for window 0: %s",
				    solver ? solver->message : picard_linsolve_strerror(code));
		status = PICARD_TRAJ_LINSOLVE_FAILED;
		goto out;
	}
	for (w = 0; w < grid->windows; w++) {
		const double tw = grid->t0 + (double)w * (m - 1) * grid->h;
		int i, verdict = PICARD_SWEEP_GO_ON;
		float prev_plain = INFINITY;

		/* the first sweep's previous values: the start, or warm: the
		 * previous window's increments added to it */
		for (size_t at = 0; at < stage_len; at++) {
			const int k = (int)(at % n);

			wk.stages[at] = grid->warm_start && w > 0 ?
				wk.xw[k] + (wk.stages[at] - wk.xw_prev[k]) : wk.xw[k];
		}
		memcpy(wk.xw_prev, wk.xw, n * sizeof(double));
		for (i = 0; i < grid->K && verdict == PICARD_SWEEP_GO_ON; i++) {
			bool within;
			float plain;

			status = sweep(job, t, solver, params, &wk, traj, w, tw, &within, &plain);
			if (status != PICARD_TRAJ_OK)
				break;
			if (!picard_sweep_measured(i, grid->K, grid->adaptive))
				continue;
			verdict = picard_sweep_verdict(i, grid->K, grid->adaptive, within, plain,
						       prev_plain);
			prev_plain = plain;
		}
		job->sweeps[traj] += i + (status != PICARD_TRAJ_OK);
		if (i > job->sweeps_max[traj])
			job->sweeps_max[traj] = i;
		if (status != PICARD_TRAJ_OK)
			break;
		if (verdict == PICARD_SWEEP_NOT_CONVERGED && unconverged_window < 0)
			unconverged_window = w;
		store_records(job, &wk, w, traj, next, s);
		memcpy(wk.xw, wk.stages + stage_len - n, n * sizeof(double));
		for (int k = 0; k < n; k++) {
			if (!isfinite(wk.xw[k]))
				status = PICARD_TRAJ_NONFINITE;
			else if (fabs(wk.xw[k]) > job->bound && status == PICARD_TRAJ_OK)
				status = PICARD_TRAJ_DIVERGED;
		}
		if (status != PICARD_TRAJ_OK)
			break;
	}
	if (status == PICARD_TRAJ_OK && unconverged_window >= 0) {
		status = PICARD_TRAJ_NOT_CONVERGED;
		w = unconverged_window;
	}
out:
	if (solver)
		solver->type->release(solver);
	*fail_window = status == PICARD_TRAJ_OK ? -1 : w;
	/* a failed solve leaves no state to report */
	if (status == PICARD_TRAJ_LINSOLVE_FAILED)
		for (int k = 0; k < n; k++)
			wk.xw[k] = NAN;
	if (job->x_final)
		memcpy(job->x_final + traj * n, wk.xw, n * sizeof(double));
	return status;
}

const struct picard_cpu_scheme picard_cpu_imex = {
	.scratch_len = scratch_len,
	.prepare = prepare,
	.release = release,
	.trajectory = { NULL, trajectory_double }, /* double only: the scheme's resolve */
};
