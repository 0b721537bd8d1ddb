/* cpu_newton.c - the newton scheme (src/schemes/newton/newton.h) on the CPU backend: each
 * trajectory through picard_newton_trajectory, its windows in parallel
 * (OpenMP) when the ensemble is smaller than the threads; the records
 * stored as each window becomes final, dense output from its nodes by the
 * lobatto scheme's collocation polynomial (src/schemes/lobatto/cpu_lobatto.h). */
#include <math.h>
#include <string.h>

#include "cpu_lobatto.h"
#include "cpu_records.h"
#include "model_impl.h"
#include "newton.h"
#include "scheme.h"

/* One trajectory's records as its windows become final. */
struct records_ctx {
	const struct picard_job *job;
	const struct picard_cpu_lobatto_tables *tab;
	const double *params;
	long traj;
	long next[PICARD_MAX_RECORDS]; /* records of times: the next row */
	double *slopes;                /* m*n: f at the nodes, for dense output */
	double *last;                  /* n: the last final window's end */
};

static void window_done(void *ctx_, long w, const double *X)
{
	struct records_ctx *ctx = ctx_;
	const struct picard_job *job = ctx->job;
	const int n = job->model->dim, m = job->grid->m;
	const double tw = job->grid->t0 + (double)w * job->grid->window;
	bool have_slopes = false;

	memcpy(ctx->last, X + (m - 1) * n, n * sizeof(double));
	for (int r = 0; r < job->nrecords; r++) {
		const picard_record *rec = &job->records[r];
		long row;

		for (int k = 0; k < n; k++)
			record_window_end(job, rec, w, ctx->traj, k, ctx->last[k]);
		/* x(t) = x_w + sum_l b_l(t) f_l: the lobatto scheme's rule */
		while ((row = dense_row(job, rec, w, ctx->traj, &ctx->next[r])) >= 0) {
			const double *b = (const double *)ctx->tab->dense_weights[r] + row * m;

			for (int l = 0; l < m && !have_slopes; l++)
				job->model->impl->rhs_double(tw + ctx->tab->offset[l], X + l * n,
							     ctx->params, ctx->slopes + l * n);
			have_slopes = true;
			for (int k = 0; k < n; k++) {
				double acc = 0;

				for (int l = 0; l < m; l++)
					acc = fma(b[l], ctx->slopes[l * n + k], acc);
				record_store(job, rec, row, ctx->traj, k, X[k] + acc);
			}
		}
	}
}

/* Reals of scratch one trajectory needs: slopes and the last end. */
static size_t scratch_len(const struct picard_job *job)
{
	return ((size_t)job->grid->m + 1) * job->model->dim;
}

static picard_traj_status trajectory_double(const struct picard_job *job, const void *tables,
					    long traj, void *scratch, long *fail_window)
{
	const picard_grid *g = job->grid;
	const int n = job->model->dim;
	struct records_ctx ctx = {
		.job = job, .tab = tables, .traj = traj,
		.params = job->params + traj * job->param_stride,
		.slopes = scratch, .last = (double *)scratch + (size_t)g->m * n,
	};
	const struct picard_newton_problem pb = {
		.model = job->model, .params = ctx.params, .t0 = g->t0, .window = g->window,
		.windows = g->windows, .m = g->m,
		.collocation = picard_scheme_of(g->scheme)->collocation,
		.check_predictor = picard_scheme_of(g->scheme)->solves_stiff, .block = g->block, .max_iterations = g->K,
		.atol = g->iter_atol, .rtol = g->iter_rtol, .bound = job->bound,
		.window_done = window_done, .ctx = &ctx,
	};
	struct picard_newton_result res;

	memcpy(ctx.last, job->x0 + traj * n, n * sizeof(double));
	/* the problem was checked by the scheme's resolve: an error here is
	 * memory, and the trajectory is reported failed, never as a result */
	if (picard_newton_trajectory(&pb, job->x0 + traj * n, NULL, &res)) {
		res = (struct picard_newton_result){PICARD_TRAJ_NONFINITE, 0, 0, 0, 0, 0};
		for (int k = 0; k < n; k++)
			ctx.last[k] = NAN;
	}
	/* a window's linearisation is its sweep: m right-hand sides */
	job->sweeps[traj] = res.linearisations;
	job->sweeps_max[traj] = res.linearisations_max;
	*fail_window = res.fail_window;
	if (job->x_final)
		memcpy(job->x_final + traj * n, ctx.last, n * sizeof(double));
	return res.status;
}

const struct picard_cpu_scheme picard_cpu_newton = {
	.scratch_len = scratch_len,
	.prepare = picard_cpu_lobatto_prepare,
	.release = picard_cpu_lobatto_release,
	.trajectory = { NULL, trajectory_double }, /* double only: the scheme's resolve */
	.across_windows = true,
};
