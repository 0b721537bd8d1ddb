/* newton.c - collocation solved by Newton's method across windows, one
 * trajectory on the host (src/schemes/newton/newton.h).
 *
 * Window w, nodes X_0..X_{m-1} at t_w + offset_j, X_0 = x_w, A = (H/2) S:
 *
 *	X_j = x_w + sum_l A_jl f(t_l, X_l),  j = 1..m-1.
 *
 * Around the iterate X^i, f(X_l) ~ f_l + J_l (X_l - X^i_l), so the step of
 * the unknowns Y = (X_1..X_{m-1}) solves the linear system
 *
 *	M dY = B dx_w - R,  M = I - [A_jl J_l] (j, l >= 1),
 *	B_j = I + A_j0 J_0,  R_j = X^i_j - X^i_0 - sum_l A_jl f_l,
 *
 * where dx_w is the change of the window's start: dY = P dx_w + q is
 * affine in it, and its last block row gives the window's map x_{w+1} =
 * A_w x_w + b_w. Composing the maps from the block's first (known) start
 * gives every start, then every window's nodes: one Newton iteration for
 * all the windows of the block. The nodes move by their step (the residual
 * form): a converged window's rounding is then its residual's, where
 * solving for Y itself (M Y = B x_w + sum_l A_jl (f_l - J_l X^i_l)) left
 * the rounding of terms of the size of A J X, which cancel, in every window
 * (an error that grew with the windows: bench/results/
 * h100-2026-11-25-newton). */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "lobatto.h"
#include "model_impl.h"
#include "newton.h"
#include "newton_rules.h"
#include "window_plausible.h"

/* One window's part of an iteration. */
struct window {
	double *X;  /* nodes, m*n: the iterate */
	double *P;  /* Y = P x_w + q: (m-1)n x n */
	double *q;  /* (m-1)n */
	double *predicted; /* n: the predictor's change (check_predictor) */
	int age;    /* iterations since it became the block's first */
	int linearised; /* times, since it entered the ring (refills, the
			   reach pulled back, keep counting) */
	bool trusted;   /* iterated from its exact start's constant since it
			   was last filled: its root is the serial method's */
	double change; /* its last iteration's largest scaled change */
	double slope;  /* the largest |f| of its nodes past the start at its
			  last linearisation (src/schemes/window_plausible.h) */
};

/* LU with partial pivoting of the N x N a (row-major), in place; then
 * solve for the nrhs columns of b (N x nrhs, row-major). 0, or -1 when a
 * pivot is zero or not finite. */
static int lu_solve(double *a, int N, double *b, int nrhs, int *piv)
{
	for (int c = 0; c < N; c++) {
		int p = c;

		for (int r = c + 1; r < N; r++)
			if (fabs(a[r * N + c]) > fabs(a[p * N + c]))
				p = r;
		if (!(fabs(a[p * N + c]) > 0) || !isfinite(a[p * N + c]))
			return -1;
		piv[c] = p;
		if (p != c) {
			for (int k = 0; k < N; k++) {
				double t = a[c * N + k];

				a[c * N + k] = a[p * N + k];
				a[p * N + k] = t;
			}
			for (int k = 0; k < nrhs; k++) {
				double t = b[c * nrhs + k];

				b[c * nrhs + k] = b[p * nrhs + k];
				b[p * nrhs + k] = t;
			}
		}
		for (int r = c + 1; r < N; r++) {
			const double l = a[r * N + c] / a[c * N + c];

			a[r * N + c] = l;
			for (int k = c + 1; k < N; k++)
				a[r * N + k] -= l * a[c * N + k];
			for (int k = 0; k < nrhs; k++)
				b[r * nrhs + k] -= l * b[c * nrhs + k];
		}
	}
	for (int c = N - 1; c >= 0; c--)
		for (int k = 0; k < nrhs; k++) {
			double s = b[c * nrhs + k];

			for (int j = c + 1; j < N; j++)
				s -= a[c * N + j] * b[j * nrhs + k];
			b[c * nrhs + k] = s / a[c * N + c];
		}
	return 0;
}

/* One thread's scratch for linearising a window. */
struct work {
	int n, m, N;               /* dim, nodes, (m-1) n */
	const double *A, *offset;  /* (H/2) S [j][l], node offsets: shared */
	double *f, *J;             /* m*n, m*n*n: at the iterate's nodes */
	double *M, *rhs;           /* N*N; N*(n+1): [B | -R] -> [P | q] */
	double *dx;                /* n: a window start's change */
	int *piv;
};

static int work_alloc(struct work *wk)
{
	wk->f = malloc((size_t)wk->m * wk->n * sizeof(double));
	wk->J = malloc((size_t)wk->m * wk->n * wk->n * sizeof(double));
	wk->M = malloc((size_t)wk->N * wk->N * sizeof(double));
	wk->rhs = malloc((size_t)wk->N * (wk->n + 1) * sizeof(double));
	wk->piv = malloc(wk->N * sizeof(int));
	wk->dx = malloc(wk->n * sizeof(double));
	return wk->f && wk->J && wk->M && wk->rhs && wk->piv && wk->dx ? 0 : -1;
}

static void work_free(struct work *wk)
{
	free(wk->f), free(wk->J), free(wk->M), free(wk->rhs), free(wk->piv), free(wk->dx);
}

/* The linearly implicit Euler step's change from node 0, (I - H J_0)^-1 H
 * f_0 (src/schemes/newton/newton_rules.h), into dx; NaN when I - H J_0 is singular. Uses
 * wk->M as scratch, before the window's system is built in it. */
static void predict(const struct work *wk, double H, double *dx)
{
	const int n = wk->n;

	for (int i = 0; i < n; i++) {
		for (int k = 0; k < n; k++)
			wk->M[i * n + k] = (i == k) - H * wk->J[(size_t)i * n + k];
		dx[i] = H * wk->f[i];
	}
	if (lu_solve(wk->M, n, dx, 1, wk->piv))
		for (int i = 0; i < n; i++)
			dx[i] = NAN;
}

/* Window w's affine map around its iterate X (start X_0 included). */
static int linearise(const struct picard_newton_problem *pb, const struct work *wk, double tw,
		     struct window *win)
{
	const int n = wk->n, m = wk->m, N = wk->N;
	const picard_model *model = pb->model;
	const double *X = win->X;

	for (int l = 0; l < m; l++) {
		model->impl->rhs_double(tw + wk->offset[l], X + l * n, pb->params, wk->f + l * n);
		model->impl->jacobian[0](tw + wk->offset[l], X + l * n, pb->params,
					 wk->J + (size_t)l * n * n);
	}
	win->slope = picard_window_slope(wk->f, n, m);
	if (pb->check_predictor)
		predict(wk, pb->window, win->predicted);
	memset(wk->M, 0, (size_t)N * N * sizeof(double));
	memset(wk->rhs, 0, (size_t)N * (n + 1) * sizeof(double));
	for (int j = 1; j < m; j++)
		for (int i = 0; i < n; i++) {
			const int row = (j - 1) * n + i;
			double *b = wk->rhs + (size_t)row * (n + 1);

			wk->M[(size_t)row * N + row] = 1;
			b[i] = 1; /* B_j = I + A_j0 J_0 */
			for (int l = 0; l < m; l++) {
				const double a = wk->A[j * m + l];
				const double *Jl = wk->J + (size_t)l * n * n + (size_t)i * n;
				b[n] += a * wk->f[l * n + i];
				if (l == 0) {
					for (int k = 0; k < n; k++)
						b[k] += a * Jl[k];
				} else {
					for (int k = 0; k < n; k++)
						wk->M[(size_t)row * N + (l - 1) * n + k] -= a * Jl[k];
				}
			}
			b[n] += X[i] - X[j * n + i]; /* -R_j: the step's right-hand side */
		}
	if (lu_solve(wk->M, N, wk->rhs, n + 1, wk->piv))
		return -1;
	for (int r = 0; r < N; r++) {
		memcpy(win->P + (size_t)r * n, wk->rhs + (size_t)r * (n + 1), n * sizeof(double));
		win->q[r] = wk->rhs[(size_t)r * (n + 1) + n];
	}
	return 0;
}

/* The nodes of a window from its start: X_0 = x, and each node Y moved by
 * its Newton step, q + P (x - the old X_0). Moving the nodes by the step
 * (q solves M q = -R, small near the root) rather than placing them anew
 * (P x plus a constant of terms of the size of A J X, which cancel) keeps
 * the rounding of a converged window at that of its residual. The largest
 * scaled change into *change. */
static void place(const struct picard_newton_problem *pb, const struct work *wk,
		  struct window *win, const double *x, double *change)
{
	const int n = wk->n;
	double worst = 0, *dx = wk->dx;

	for (int k = 0; k < n; k++) {
		dx[k] = x[k] - win->X[k];
		win->X[k] = x[k];
	}
	for (int r = 0; r < wk->N; r++) {
		double step = win->q[r];

		for (int k = 0; k < n; k++)
			step += win->P[(size_t)r * n + k] * dx[k];
		const double v = win->X[r + n] + step;
		const double scaled = fabs(step) / (pb->atol + pb->rtol * fabs(v));

		worst = scaled > worst || isnan(scaled) ? scaled : worst;
		win->X[r + n] = v;
	}
	for (int k = 0; k < n; k++) { /* the start's own change */
		const double scaled = fabs(dx[k]) / (pb->atol + pb->rtol * fabs(x[k]));

		worst = scaled > worst || isnan(scaled) ? scaled : worst;
	}
	*change = worst;
}

/* Whether an untrusted window's root counts (src/schemes/newton/newton_rules.h). */
static bool plausible(const struct picard_newton_problem *pb, const struct window *win)
{
	const int n = pb->model->dim, m = pb->m;

	return picard_newton_plausible(win->X, n, m, pb->atol, pb->rtol) &&
	       (!pb->check_predictor ||
		picard_newton_near_predictor(win->X, win->predicted, n, m, pb->atol, pb->rtol));
}

/* The window afresh from its exact start x: every node x, trusted. */
static void restart(struct window *win, const double *x, int n, int m)
{
	for (int l = 0; l < m; l++)
		memcpy(win->X + l * n, x, n * sizeof(double));
	win->trusted = true;
}

/* A final window's verdict: its end finite and within the bound, and its
 * nodes a plausible solution (src/schemes/window_plausible.h): one at the
 * iteration limit goes on not-converged only while it is. */
static picard_traj_status window_status(const struct picard_newton_problem *pb,
					const struct window *win)
{
	const int n = pb->model->dim, m = pb->m;
	const double *x = win->X + (m - 1) * n;

	for (int k = 0; k < n; k++) {
		if (!isfinite(x[k]))
			return PICARD_TRAJ_NONFINITE;
		if (fabs(x[k]) > pb->bound)
			return PICARD_TRAJ_DIVERGED;
	}
	if (!picard_window_plausible(pb->window, win->slope, win->X, n, m, pb->atol, pb->rtol))
		return PICARD_TRAJ_IMPLAUSIBLE;
	return PICARD_TRAJ_OK;
}

/* Windows from..to-1 of a trajectory that stopped: NaN, if kept. */
static void nan_from(double *window_ends, long from, long to, int n)
{
	for (long v = from; window_ends && v < to; v++)
		for (int k = 0; k < n; k++)
			window_ends[(size_t)v * n + k] = NAN;
}

static int check_problem(const struct picard_newton_problem *pb)
{
	if (!pb || !pb->model || !pb->collocation || pb->m < 2 || pb->m > PICARD_LOBATTO_MAX_M || pb->windows < 1 ||
	    pb->block < 1 || pb->max_iterations < 1 || !(pb->window > 0) ||
	    !(pb->atol >= 0 && pb->rtol >= 0 && pb->atol + pb->rtol > 0))
		return picard_fail(PICARD_EINVAL, "newton: m = %d, windows = %ld, block = %d, "
				   "max_iterations = %d, window = %g, atol = %g, rtol = %g",
				   pb ? pb->m : 0, pb ? pb->windows : 0, pb ? pb->block : 0,
				   pb ? pb->max_iterations : 0, pb ? pb->window : 0,
				   pb ? pb->atol : 0, pb ? pb->rtol : 0);
	return PICARD_OK;
}

int picard_newton_trajectory(const struct picard_newton_problem *pb, const double *x0,
			     double *window_ends, struct picard_newton_result *res)
{
	const int n = pb && pb->model ? pb->model->dim : 0, m = pb ? pb->m : 0;
	const int B = pb && pb->block < pb->windows ? pb->block : pb ? (int)pb->windows : 0;
	struct picard_lobatto lob;
	const int nthreads = omp_get_max_threads();
	struct work *wk = NULL;     /* one per thread */
	struct window *ring = NULL; /* the block's windows, ring[w % B] */
	double *start = NULL, *x = NULL, *xtable = NULL, *A = NULL, *offset = NULL;
	long w0 = 0, next = 0; /* the block: windows w0 .. next-1 */
	long filled = 0;       /* windows below it entered the ring before */
	int span = B;          /* windows the iteration reaches, at most B */
	double last_lead = INFINITY; /* the first open window's last change */
	int err = check_problem(pb);

	if (err)
		return err;
	*res = (struct picard_newton_result){PICARD_TRAJ_OK, -1, 0, 0, 0, 0};
	err = pb->collocation(m, &lob);
	if (err)
		return err;
	A = malloc((size_t)m * m * sizeof(double));
	xtable = malloc((size_t)m * m * sizeof(double));
	offset = malloc(m * sizeof(double));
	wk = calloc(nthreads, sizeof(*wk));
	ring = calloc(B, sizeof(*ring));
	start = malloc(n * sizeof(double));
	x = malloc(n * sizeof(double));
	if (!A || !xtable || !offset || !wk || !ring || !start || !x) {
		err = picard_fail(PICARD_ENOMEM, "newton: scratch");
		goto out;
	}
	for (int i = 0; i < nthreads && !err; i++) {
		wk[i] = (struct work){.n = n, .m = m, .N = (m - 1) * n, .A = A, .offset = offset};
		if (work_alloc(&wk[i]))
			err = picard_fail(PICARD_ENOMEM, "newton: scratch");
	}
	for (int b = 0; b < B && !err; b++) {
		ring[b].X = malloc((size_t)m * n * sizeof(double));
		ring[b].P = malloc((size_t)(m - 1) * n * n * sizeof(double));
		ring[b].q = malloc((size_t)(m - 1) * n * sizeof(double));
		ring[b].predicted = malloc(n * sizeof(double));
		if (!ring[b].X || !ring[b].P || !ring[b].q || !ring[b].predicted)
			err = picard_fail(PICARD_ENOMEM, "newton: scratch");
	}
	if (err)
		goto out;
	picard_lobatto_tables(&lob, pb->window, true, m, false, A, xtable, offset);
	memcpy(start, x0, n * sizeof(double));

	while (w0 < pb->windows) {
		double change, lead = INFINITY;
		bool implausible;
		long converged, reached;

		/* fill the reach: a new window starts from the state before it */
		for (; next < pb->windows && next < w0 + span; next++) {
			struct window *win = &ring[next % B];
			const double *from = next == w0 ? start : ring[(next - 1) % B].X + (m - 1) * n;

			for (int l = 0; l < m; l++)
				memcpy(win->X + l * n, from, n * sizeof(double));
			win->trusted = next == w0;
			win->age = 0;
			if (next >= filled)
				win->linearised = 0;
			win->change = INFINITY;
		}
		filled = next > filled ? next : filled;
		/* one Newton iteration over it; a window whose linearisation
		 * fails ends the reach there (its iterate was far off) */
		reached = next;
#pragma omp parallel for schedule(static) if (next - w0 > 1)
		for (long w = w0; w < next; w++)
			if (linearise(pb, &wk[omp_get_thread_num()], pb->t0 + (double)w * pb->window,
				      &ring[w % B]))
#pragma omp critical(picard_newton_reach)
				reached = w < reached ? w : reached;
		if (reached == w0) {
			struct window *win = &ring[w0 % B];

			if (win->age == 0) { /* from its exact start: f or J is not finite */
				res->status = PICARD_TRAJ_NONFINITE;
				res->fail_window = w0;
				nan_from(window_ends, w0, pb->windows, n);
				goto out;
			}
			next = w0; /* start it afresh, alone */
			span = 1;
			continue;
		}
		if (reached < next) {
			next = reached;
			span = (int)(reached - w0 > 1 ? (reached - w0) / 2 : 1);
		}
		res->iterations++;
		res->linearisations += next - w0;
		for (long w = w0; w < next; w++)
			ring[w % B].linearised++;
		memcpy(x, start, n * sizeof(double));
		converged = w0; /* the windows converged from the block's start on */
		implausible = false;
		for (long w = w0; w < next; w++) {
			struct window *win = &ring[w % B];

			place(pb, &wk[0], win, x, &change);
			win->change = change;
			win->age++;
			memcpy(x, win->X + (m - 1) * n, n * sizeof(double));
			if (converged == w && change <= 1 && (win->trusted || plausible(pb, win))) {
				converged = w + 1;
			} else if (converged == w) {
				lead = change;
				implausible = change <= 1;
			}
		}
		/* the reach as a trust region: wider while the iteration gains,
		 * narrower (the windows past it dropped, to start again from
		 * their predecessors) while the first open window's change does
		 * not shrink: a full Newton step over a long reach from a poor
		 * start can throw the far windows anywhere */
		if (converged > w0)
			span = span < B / 2 ? 2 * span : B;
		else if (!(lead < last_lead)) {
			span = span > 1 ? span / 2 : 1;
			next = next < w0 + span ? next : w0 + span;
		}
		last_lead = converged > w0 ? INFINITY : lead;
		const bool stuck = ring[w0 % B].age == PICARD_NEWTON_STUCK_AGE &&
				   pb->max_iterations > PICARD_NEWTON_STUCK_AGE;

		if (converged == w0 && (implausible || stuck)) {
			restart(&ring[w0 % B], start, n, m);
			next = w0 + 1;
			span = 1;
			last_lead = INFINITY;
		}
		/* a window at the limit goes as it is: not converged */
		if (converged == w0 && ring[w0 % B].age >= pb->max_iterations) {
			if (res->status == PICARD_TRAJ_OK) {
				res->status = PICARD_TRAJ_NOT_CONVERGED;
				res->fail_window = w0;
			}
			converged = w0 + 1;
			last_lead = INFINITY;
		}
		for (long w = w0; w < converged; w++) {
			const struct window *win = &ring[w % B];
			const picard_traj_status s = window_status(pb, win);

			if (w == w0 && win->age > res->iterations_max)
				res->iterations_max = win->age;
			if (win->linearised > res->linearisations_max)
				res->linearisations_max = win->linearised;
			if (window_ends)
				memcpy(window_ends + (size_t)w * n, win->X + (m - 1) * n,
				       n * sizeof(double));
			if (pb->window_done)
				pb->window_done(pb->ctx, w, win->X);
			if (s != PICARD_TRAJ_OK) {
				/* an implausible window past one that did not
				 * converge stops the trajectory, whose first
				 * failure that was */
				if (s != PICARD_TRAJ_IMPLAUSIBLE ||
				    res->status != PICARD_TRAJ_NOT_CONVERGED) {
					res->status = s;
					res->fail_window = w;
				}
				nan_from(window_ends, w + 1, pb->windows, n);
				goto out;
			}
		}
		if (converged > w0) {
			memcpy(start, ring[(converged - 1) % B].X + (m - 1) * n, n * sizeof(double));
			if (converged < next) {
				struct window *first = &ring[converged % B];

				first->age = 0;
				if (!(first->change <= PICARD_NEWTON_FAR_CHANGE)) {
					restart(first, start, n, m);
					next = converged + 1; /* and the windows after it */
				}
			}
		}
		w0 = converged;
	}
out:
	for (int b = 0; ring && b < B; b++) {
		free(ring[b].X);
		free(ring[b].P);
		free(ring[b].q);
		free(ring[b].predicted);
	}
	for (int i = 0; wk && i < nthreads; i++)
		work_free(&wk[i]);
	free(ring), free(wk), free(A), free(xtable), free(offset), free(start), free(x);
	return err;
}
