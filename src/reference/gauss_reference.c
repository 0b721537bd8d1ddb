/* gauss_reference.c - Gauss-Legendre collocation of 8 stages (order 16)
 * in binary128: the judge where GSL's rk8pd in double is not accurate
 * enough to check a tolerance (over kepler's 100 periods rk8pd's error
 * stays near 1e-9 however tight its tolerance: round-off of double over
 * its many steps).
 *
 * Every number is a __float128 (113-bit significand): the model's rhs
 * runs in it (picard_model_impl.rhs_quad, picard::hp::quad), the stages
 * are iterated by fixed point to convergence far below double's
 * precision, and the state is carried in it, so that round-off stays
 * some 1e-30 per step. The steps are equal, h = (t1 - t0) / N: a
 * collocation method of order 16 needs few of them, and equal steps let
 * the stages of one step be predicted from the last (their collocation
 * polynomial extrapolated), which saves most iterations.
 *
 * Its own error is measured, not assumed: the run of N steps and the run
 * of 2N steps are compared at every step end of the latter (half of them
 * are midpoints of the former's steps, where its dense output is used),
 * the difference taken as the error of the coarser run, a bound for the
 * finer one, which is kept; N is doubled until that meets the target.
 *
 * Dense output: between step ends, the Hermite polynomial of degree 15
 * through the states and slopes of the 8 nearest step ends (4 on each
 * side where there are), of error of order h^16; its error enters the
 * measured one. Measured on kepler (e = 0.5, 100 periods): at the step
 * ends the runs of 8204 and 16408 steps agree to 2e-16, while the dense
 * output needs 32816 steps for 4e-13 at midpoints: the dense output, not
 * the integration, sets the step. */
#include <math.h>
#include <pthread.h>
#include <quadmath.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "errors.h"
#include "gauss_reference.h"
#include "model_impl.h"
#include "reference.h"

#define S 8                  /* stages */
#define GAUSS_MAX_ITER 100   /* fixed-point sweeps of one step */
/* A step's stages are converged when a sweep changes their slopes by at
 * most this part of their size: far below double's 1.1e-16, so that the
 * step's error is the method's and the state's rounding binary128's. */
#define GAUSS_ITER_TOL 1e-22
#define GAUSS_MIN_STEPS 16
#define GAUSS_MAX_STEPS (1L << 22)
/* Halvings of a step whose stages do not converge, in a row, before the
 * solution is taken to blow up (or be too stiff for fixed point). */
#define GAUSS_MAX_NOCONV 10
/* The first run's steps: this many times the smallest rk8pd step at
 * GAUSS_PILOT_TOL, order 16 against order 8 (the pilot sees where the
 * solution is fast; the measured error then halves the step as needed). */
#define GAUSS_PILOT_TOL 1e-8
#define GAUSS_PILOT_STRETCH 4
/* The pilot's first steps, left out: its controller starts from a tiny
 * step (1e-6 of the span) and grows it. */
#define GAUSS_PILOT_RAMP 16
#define NODES 8              /* step ends of the dense output's Hermite */
/* The dense output's error at half the step is taken as the measured one
 * at the step over 2^16 (the Hermite's h^16 law) times this. */
#define GAUSS_DENSE_MARGIN 16

typedef __float128 quad;

/* Nodes c, weights b, the collocation matrix A, and P, the stage
 * polynomial of one step extrapolated to the next one's nodes
 * (P[i][j] = l_j(1 + c_i), l_j the Lagrange basis on c). */
static quad gc[S], gb[S], gA[S][S], gP[S][S];
static pthread_once_t gauss_once = PTHREAD_ONCE_INIT;

/* Shifted Legendre P_S(2c - 1) and its derivative in c. */
static void legendre(quad c, quad *p, quad *dp)
{
	const quad x = 2 * c - 1;
	quad p0 = 1, p1 = x;

	for (int n = 2; n <= S; n++) {
		const quad p2 = ((2 * n - 1) * x * p1 - (n - 1) * p0) / n;

		p0 = p1;
		p1 = p2;
	}
	*p = p1;
	*dp = 2 * S * (x * p1 - p0) / (x * x - 1);
}

/* Solve M a = r (S x S, partial pivoting) in place: r becomes a. */
static void solve(quad M[S][S], quad *r)
{
	for (int k = 0; k < S; k++) {
		int piv = k;

		for (int i = k + 1; i < S; i++)
			if (fabsq(M[i][k]) > fabsq(M[piv][k]))
				piv = i;
		for (int j = 0; j < S; j++) {
			const quad tmp = M[k][j];

			M[k][j] = M[piv][j];
			M[piv][j] = tmp;
		}
		const quad tr = r[k];

		r[k] = r[piv];
		r[piv] = tr;
		for (int i = k + 1; i < S; i++) {
			const quad m = M[i][k] / M[k][k];

			for (int j = k; j < S; j++)
				M[i][j] -= m * M[k][j];
			r[i] -= m * r[k];
		}
	}
	for (int k = S - 1; k >= 0; k--) {
		for (int j = k + 1; j < S; j++)
			r[k] -= M[k][j] * r[j];
		r[k] /= M[k][k];
	}
}

/* The weights w with sum_j w_j c_j^k = upto^(k+1) / (k+1), k < S: the
 * integral of the polynomial through the c_j from 0 to upto. */
static void integral_weights(quad upto, quad *w)
{
	quad M[S][S];

	for (int k = 0; k < S; k++) {
		for (int j = 0; j < S; j++)
			M[k][j] = powq(gc[j], k);
		w[k] = powq(upto, k + 1) / (k + 1);
	}
	solve(M, w);
}

static void gauss_init(void)
{
	for (int i = 0; i < S; i++) {
		/* Newton from the asymptotic guess of the i-th root */
		quad c = (1 - cosq(M_PIq * (i + 0.75Q) / (S + 0.5Q))) / 2;

		for (int it = 0; it < 100; it++) {
			quad p, dp, dc;

			legendre(c, &p, &dp);
			dc = p / dp;
			c -= dc;
			if (fabsq(dc) < 1e-33Q)
				break;
		}
		gc[i] = c;
	}
	integral_weights(1, gb);
	for (int i = 0; i < S; i++)
		integral_weights(gc[i], gA[i]);
	for (int i = 0; i < S; i++)
		for (int j = 0; j < S; j++) {
			quad l = 1;

			for (int m = 0; m < S; m++)
				if (m != j)
					l *= (1 + gc[i] - gc[m]) / (gc[j] - gc[m]);
			gP[i][j] = l;
		}
}

bool gauss_available(const picard_model *model)
{
	return model && model->impl && model->impl->rhs_quad;
}

/* What one run needs. */
struct gauss_run {
	const picard_model *model;
	int n;
	quad *p;     /* parameters */
	quad *x;     /* [n] the state */
	quad *F;     /* [S * n] stage slopes */
	quad *Fnew;  /* [S * n] */
	quad *Y;     /* [n] a stage's state */
	long traj;
	double t_stuck; /* where the last step's stages did not converge */
};

/* Whose judge failed: "of trajectory 3" or the model's name in front. */
static int gauss_fail(const struct gauss_run *r, double t, const char *why)
{
	if (r->traj >= 0)
		return picard_fail(PICARD_EREF, "the reference solution (" GAUSS_JUDGE_NAME
				   ") of trajectory %ld %s near t = %g", r->traj, why, t);
	return picard_fail(PICARD_EREF, "%s: the reference solution (" GAUSS_JUDGE_NAME
			   ") %s near t = %g", r->model->name, why, t);
}


/* The word that a step's stages did not converge: the step is too long. */
#define GAUSS_NOCONV 1

static bool finite_q(quad v)
{
	return !isnanq(v) && !isinfq(v);
}

/* One step of h from r->x at t: the stages from the prediction in r->F
 * iterated to convergence, r->x advanced. */
static int gauss_step(struct gauss_run *r, quad t, quad h)
{
	const int n = r->n;

	for (int it = 0; it < GAUSS_MAX_ITER; it++) {
		quad change = 0, size = 0;

		for (int i = 0; i < S; i++) {
			const quad ti = t + gc[i] * h;

			for (int k = 0; k < n; k++) {
				quad sum = 0;

				for (int j = 0; j < S; j++)
					sum += gA[i][j] * r->F[j * n + k];
				r->Y[k] = r->x[k] + h * sum;
			}
			r->model->impl->rhs_quad(&ti, r->Y, r->p, r->Fnew + i * n);
		}
		for (int k = 0; k < S * n; k++) {
			if (!finite_q(r->Fnew[k]))
				return gauss_fail(r, (double)t, "blows up (a slope is not finite)");
			change = fmaxq(change, fabsq(r->Fnew[k] - r->F[k]));
			size = fmaxq(size, fabsq(r->Fnew[k]));
		}
		memcpy(r->F, r->Fnew, S * n * sizeof(quad));
		if (change <= GAUSS_ITER_TOL * size) {
			for (int k = 0; k < n; k++) {
				quad sum = 0;

				for (int j = 0; j < S; j++)
					sum += gb[j] * r->F[j * n + k];
				r->x[k] += h * sum;
				if (!finite_q(r->x[k]))
					return gauss_fail(r, (double)(t + h), "blows up (the state is not finite)");
			}
			return PICARD_OK;
		}
	}
	r->t_stuck = (double)t;
	return GAUSS_NOCONV;
}

/* The next step's stage slopes predicted from this one's (equal steps). */
static void gauss_predict(struct gauss_run *r)
{
	const int n = r->n;

	for (int i = 0; i < S; i++)
		for (int k = 0; k < n; k++) {
			quad sum = 0;

			for (int j = 0; j < S; j++)
				sum += gP[i][j] * r->F[j * n + k];
			r->Fnew[i * n + k] = sum;
		}
	memcpy(r->F, r->Fnew, S * n * sizeof(quad));
}

/* N equal steps from x0 over [g->t0, g->t1] into g (its arrays
 * allocated here). */
static int gauss_run_steps(struct gauss_run *r, struct gauss_traj *g, const double *x0, long N)
{
	const int n = r->n;
	const quad t0 = g->t0, h = ((quad)g->t1 - t0) / N;
	int err = PICARD_OK;

	g->nsteps = N;
	g->h = (double)h;
	g->hq = h;
	g->x = malloc((N + 1) * n * sizeof(double));
	g->f = malloc((N + 1) * n * sizeof(double));
	if (!g->x || !g->f)
		return picard_fail(PICARD_ENOMEM, "reference: %ld steps of dim %d", N, n);
	for (int k = 0; k < n; k++)
		r->x[k] = x0[k];
	r->model->impl->rhs_quad(&t0, r->x, r->p, r->F);
	for (int k = 0; k < n; k++) {
		g->x[k] = x0[k];
		g->f[k] = (double)r->F[k];
	}
	for (int j = 1; j < S; j++)
		memcpy(r->F + j * n, r->F, n * sizeof(quad));
	for (long s = 0; s < N && !err; s++) {
		const quad t = t0 + s * h;

		if (s > 0)
			gauss_predict(r);
		err = gauss_step(r, t, h);
		if (err)
			break;
		for (int k = 0; k < n; k++)
			g->x[(s + 1) * n + k] = (double)r->x[k];
		r->model->impl->rhs_quad(&(quad){ t + h }, r->x, r->p, r->Y);
		for (int k = 0; k < n; k++)
			g->f[(s + 1) * n + k] = (double)r->Y[k];
	}
	return err;
}

void gauss_traj_free(struct gauss_traj *g)
{
	free(g->x);
	free(g->f);
	g->x = g->f = NULL;
}

/* The state at u steps from t0 (u in [0, nsteps]) into x. */
static void gauss_traj_at(const struct gauss_traj *g, quad u, double *x)
{
	const int n = g->dim;
	const int q = g->nsteps + 1 < NODES ? (int)g->nsteps + 1 : NODES;
	long k = (long)floorq(u), j0;
	double z[2 * NODES], d[2 * NODES], s;

	if (k < 0)
		k = 0;
	if (k > g->nsteps - 1)
		k = g->nsteps - 1;
	j0 = k - (q / 2 - 1);
	if (j0 < 0)
		j0 = 0;
	if (j0 > g->nsteps + 1 - q)
		j0 = g->nsteps + 1 - q;
	s = (double)(u - j0);
	for (int c = 0; c < n; c++) {
		/* Newton's divided differences on the doubled nodes 0..q-1 */
		for (int m = 0; m < q; m++) {
			z[2 * m] = z[2 * m + 1] = m;
			d[2 * m] = d[2 * m + 1] = g->x[(j0 + m) * n + c];
		}
		for (int o = 1; o < 2 * q; o++)
			for (int i = 2 * q - 1; i >= o; i--)
				d[i] = o == 1 && (i & 1) ? g->h * g->f[(j0 + i / 2) * n + c] :
				       (d[i] - d[i - 1]) / (z[i] - z[i - o]);
		double p = d[2 * q - 1];

		for (int i = 2 * q - 2; i >= 0; i--)
			p = p * (s - z[i]) + d[i];
		x[c] = p;
	}
}

/* The position in steps is taken in binary128: in double, t / h would
 * be off by a rounding of t (1e-13 at t = 600), which a fast state turns
 * into an error of that order. */
void gauss_traj_eval(const struct gauss_traj *g, double t, double *x)
{
	gauss_traj_at(g, ((quad)t - g->t0) / g->hq, x);
}

/* The error of fine, measured against coarse (half its steps): at the
 * step ends they share, |coarse - fine| (coarse's error of order 16, a
 * bound for fine's); at fine's other step ends, coarse's dense output's
 * error, scaled to fine's by the h^16 law of the Hermite polynomial
 * with a margin (GAUSS_DENSE_MARGIN). */
static double gauss_difference(const struct gauss_traj *coarse, const struct gauss_traj *fine,
			       double *scratch)
{
	const int n = fine->dim;
	double ends = 0, between = 0;

	for (long s = 1; s <= fine->nsteps; s++) {
		double worst = 0;

		gauss_traj_at(coarse, (quad)s / 2, scratch);
		for (int k = 0; k < n; k++)
			worst = fmax(worst, fabs(scratch[k] - fine->x[s * n + k]));
		if (s % 2)
			between = fmax(between, worst);
		else
			ends = fmax(ends, worst);
	}
	return fmax(ends, GAUSS_DENSE_MARGIN * between / 65536);
}

/* The first run's steps: GAUSS_PILOT_STRETCH times rk8pd's smallest
 * step at GAUSS_PILOT_TOL (its first GAUSS_PILOT_RAMP and its last, cut
 * short to land on t1, left out). */
static long gauss_first_steps(const picard_model *model, const double *params,
			      const double *x0, double t0, double t1)
{
	double *times = NULL, smallest = t1 - t0, prev = t0;
	long nsteps = 0, N = GAUSS_MIN_STEPS;

	if (picard_reference_steps(model, params, x0, t0, t1, GAUSS_PILOT_TOL, -1, &times,
				   &nsteps) == PICARD_OK) {
		for (long i = 0; i + 1 < nsteps; i++) {
			if (i >= GAUSS_PILOT_RAMP || nsteps <= 2 * GAUSS_PILOT_RAMP)
				smallest = fmin(smallest, times[i] - prev);
			prev = times[i];
		}
		if (smallest > 0)
			N = (long)ceil((t1 - t0) / (GAUSS_PILOT_STRETCH * smallest));
	}
	free(times);
	return N < GAUSS_MIN_STEPS ? GAUSS_MIN_STEPS : N > GAUSS_MAX_STEPS ? GAUSS_MAX_STEPS : N;
}

/* Runs of N steps, N doubled until its stages converge and the error
 * measured against the next meets target. */
static int gauss_refine(struct gauss_run *r, struct gauss_traj *g, const double *x0,
			double target, long N)
{
	struct gauss_traj coarse = *g, fine = *g;
	double *scratch = malloc(r->n * sizeof(double));
	int err = scratch ? PICARD_OK : picard_fail(PICARD_ENOMEM, "reference: dim %d", r->n);
	bool have_coarse = false;
	int stuck = 0; /* runs in a row whose stages did not converge */

	g->own_error = INFINITY;
	while (!err) {
		fine.x = fine.f = NULL;
		err = gauss_run_steps(r, &fine, x0, N);
		if (err == GAUSS_NOCONV && 2 * N <= GAUSS_MAX_STEPS && ++stuck <= GAUSS_MAX_NOCONV) {
			gauss_traj_free(&fine);
			gauss_traj_free(&coarse);
			have_coarse = false;
			err = PICARD_OK;
			N *= 2;
			continue;
		}
		if (err == GAUSS_NOCONV)
			err = gauss_fail(r, r->t_stuck, "blows up or is stiff (its stages do not "
					 "converge however short the step)");
		stuck = 0;
		if (err) {
			gauss_traj_free(&fine);
			break;
		}
		if (have_coarse) {
			fine.own_error = gauss_difference(&coarse, &fine, scratch);
			gauss_traj_free(&coarse);
		}
		coarse = fine;
		have_coarse = true;
		if (fine.own_error <= target || 2 * N > GAUSS_MAX_STEPS)
			break;
		N *= 2;
	}
	if (!err) {
		*g = coarse;
		have_coarse = false;
	}
	if (have_coarse)
		gauss_traj_free(&coarse);
	free(scratch);
	return err;
}

int gauss_reference_build(struct gauss_traj *g, const picard_model *model,
			  const double *params, const double *x0, double t0, double t1,
			  double target, long traj)
{
	struct timespec start, end;
	struct gauss_run r = { .model = model, .traj = traj };
	int n, err = PICARD_OK;

	memset(g, 0, sizeof(*g));
	if (!gauss_available(model))
		return picard_fail(PICARD_EINVAL, "reference: model %s has no rhs in binary128",
				   model ? model->name : "(none)");
	if (!x0 || !isfinite(t0) || !isfinite(t1) || !(t1 > t0) || !(target > 0))
		return picard_fail(PICARD_EINVAL, "reference: span [%g, %g], target %g", t0, t1,
				   target);
	clock_gettime(CLOCK_MONOTONIC, &start);
	pthread_once(&gauss_once, gauss_init);
	n = r.n = model->dim;
	*g = (struct gauss_traj){ .dim = n, .t0 = t0, .t1 = t1, .own_error = INFINITY };
	if (!params)
		params = model->param_defaults;
	r.p = malloc((model->nparams + 1) * sizeof(quad));
	r.x = malloc(n * sizeof(quad));
	r.Y = malloc(n * sizeof(quad));
	r.F = malloc(S * n * sizeof(quad));
	r.Fnew = malloc(S * n * sizeof(quad));
	if (!r.p || !r.x || !r.Y || !r.F || !r.Fnew)
		err = picard_fail(PICARD_ENOMEM, "reference: dim %d", n);
	for (int k = 0; !err && k < model->nparams; k++)
		r.p[k] = params[k];
	if (!err)
		err = gauss_refine(&r, g, x0, target, gauss_first_steps(model, params, x0, t0, t1));
	free(r.p);
	free(r.x);
	free(r.Y);
	free(r.F);
	free(r.Fnew);
	clock_gettime(CLOCK_MONOTONIC, &end);
	g->seconds = (double)(end.tv_sec - start.tv_sec) + 1e-9 * (double)(end.tv_nsec - start.tv_nsec);
	return err;
}

int gauss_reference_times(const picard_model *model, const double *params, const double *x0,
			  double t0, const double *times, long ntimes, double target,
			  long traj, double *out, double *own_error)
{
	struct gauss_traj g;
	int err;

	if (ntimes < 1)
		return PICARD_OK;
	if (!(times[ntimes - 1] > t0)) { /* every time at t0: the start */
		for (long i = 0; i < ntimes; i++)
			memcpy(out + i * model->dim, x0, model->dim * sizeof(double));
		*own_error = 0;
		return PICARD_OK;
	}
	err = gauss_reference_build(&g, model, params, x0, t0, times[ntimes - 1], target, traj);
	if (!err)
		for (long i = 0; i < ntimes; i++)
			gauss_traj_eval(&g, times[i], out + i * model->dim);
	*own_error = g.own_error;
	gauss_traj_free(&g);
	return err;
}
