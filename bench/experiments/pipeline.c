/* pipeline.c - can the serial chain of the lobatto scheme be cut by
 * pipelining windows? A CPU experiment in double, not part of the library.
 *
 * The scheme (src/schemes/lobatto/lobatto.h) sweeps one window until it converges, then
 * starts the next from its end: the serial chain is the total number of
 * sweeps. Pipelined, a band of up to B consecutive windows is swept at
 * once, Jacobi across windows: in global sweep g every open window does one
 * Picard sweep from its own iterate of g-1, starting from the end state its
 * predecessor had after g-1. The front window retires when its last sweep
 * changed it within the tolerance and its start is within the tolerance of
 * its predecessor's final end (--retire strict: equal to it, so each window
 * needs a sweep after its predecessor retired); retiring may cascade down
 * the band in one global sweep. Windows open at the back to keep B open,
 * started from the predecessor's current end state, constant or
 * extrapolated from its current polynomial (the warm start's table E). On
 * a GPU the B windows of a trajectory would run side by side, so the
 * serial chain is the number of global sweeps and the work the number of
 * window sweeps.
 *
 * --gate G: open a window only once its predecessor's last sweep changed
 * it by at most G times the tolerance (far windows on a wild start blow
 * up on lotka's quadratic rhs). --skip: a window whose last sweep was
 * within the tolerance is not swept again until its start has moved
 * beyond the tolerance from the start that sweep used (saves work, not
 * chain); --loose F widens that skip test to F^d times the tolerance for
 * a window d places behind the front (retiring still needs the plain
 * tolerance). --retire start: retire on the start test alone, unsound,
 * there to show why the window's own change must be tested.
 *
 * Models inline (models/lotka.cu and models/kepler.cu at their defaults);
 * references: lotka RK4 at H/4000 (checked against H/2000 at startup),
 * kepler the exact orbit from Kepler's equation.
 *
 * Build: gcc -O2 -std=c11 -Wall -Wextra -Iinclude -Isrc \
 *	bench/experiments/pipeline.c src/schemes/lobatto/lobatto.c src/common/errors.c -lm \
 *	-o bin/exp-pipeline
 */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convergence.h"
#include "lobatto.h"

#define MAX_N 4
#define PI 3.14159265358979323846
#define K_MAX 40 /* the engine's default for lobatto (src/solve/solver.c) */

struct model {
	const char *name;
	int n;                                      /* state dimension */
	double t0, t1;                              /* default span */
	double x0[MAX_N];                           /* default start */
	void (*rhs)(const double *x, double *dxdt); /* autonomous */
	void (*exact)(double t, double *x);         /* NULL: RK4 reference */
};

static void lotka_rhs(const double *x, double *f)
{
	const double a1 = 0.25, b1 = 0.01, c1 = 0.001, a2 = -0.3, b2 = 0.01, c2 = 0.002;

	f[0] = a1 * x[0] - b1 * x[0] * x[1] - c1 * x[0] * x[0];
	f[1] = a2 * x[1] + b2 * x[0] * x[1] - c2 * x[1] * x[1];
}

static void kepler_rhs(const double *x, double *f)
{
	const double r2 = x[0] * x[0] + x[1] * x[1];
	const double c = -1.0 / (r2 * sqrt(r2));

	f[0] = x[2];
	f[1] = x[3];
	f[2] = c * x[0];
	f[3] = c * x[1];
}

/* mu = 1, a = 1, e = 0.5 from periapsis at t = 0: mean anomaly t, Newton
 * on E - e sin E = t */
static void kepler_exact(double t, double *x)
{
	const double e = 0.5, b = sqrt(1 - e * e);
	const double M = fmod(t, 2 * PI);
	double E = M + e * sin(M);

	for (int i = 0; i < 50; i++) {
		const double step = (E - e * sin(E) - M) / (1 - e * cos(E));

		E -= step;
		if (fabs(step) < 1e-16)
			break;
	}
	const double Edot = 1 / (1 - e * cos(E));

	x[0] = cos(E) - e;
	x[1] = b * sin(E);
	x[2] = -sin(E) * Edot;
	x[3] = b * cos(E) * Edot;
}

static const struct model models[] = {
	{ "lotka", 2, 0, 100, { 50, 30 }, lotka_rhs, NULL },
	{ "kepler", 4, 0, 200 * PI, { 0.5, 0, 0, 1.7320508075688772 }, kepler_rhs,
	  kepler_exact },
};

/* What one run is asked to do. */
struct config {
	const struct model *model;
	int m;           /* nodes per window */
	long windows;    /* over [t0, t1] */
	double H;        /* window length */
	double rtol, atol; /* the window's convergence test */
	bool warm;       /* new windows extrapolated (else constant) */
	bool strict;     /* retire only once the start equals the final end */
	bool start_only; /* retire on the start test alone (unsound: to measure) */
	bool skip;       /* do not re-sweep a converged window whose start held */
	double loose;    /* F: tolerance F^d for a window d behind the front */
	double gate;     /* open a window once its predecessor's last scaled
			    change is at most this (INFINITY: at once) */
};

/* The window tables of lobatto.h for H, [j][l], in double. */
struct tables {
	double A[PICARD_LOBATTO_MAX_M * PICARD_LOBATTO_MAX_M];
	double X[PICARD_LOBATTO_MAX_M * PICARD_LOBATTO_MAX_M];
	double offset[PICARD_LOBATTO_MAX_M];
};

/* What a run measured. */
struct result {
	long chain;        /* global sweeps (B = 1: all sweeps) */
	long work;         /* window sweeps */
	long open_sum;     /* open windows summed over global sweeps */
	long max_window;   /* most sweeps one window took */
	long closed;       /* windows closed after blowing up */
	bool failed;       /* a window hit K_MAX (sequential), the cap, or the
			      front blew up */
	double *ends;      /* window ends, windows x n */
};

/* One Picard sweep of a window from the iterate states (node 0 is the
 * start the previous sweep used) with start xw, in place, in the order of
 * src/schemes/lobatto/cpu_lobatto.inc (fma from l = 0, the sum added to x_w once).
 * Returns the largest scaled change over nodes 0..m-1 (node 0: the move of
 * the start); *within: every change passed picard_change_within(). */
static double sweep(const struct config *c, const struct tables *tab, const double *xw,
		    double *states, bool *within)
{
	const int m = c->m, n = c->model->n;
	double slopes[PICARD_LOBATTO_MAX_M * MAX_N], worst = 0;

	*within = true;
	for (int j = 0; j < m; j++)
		c->model->rhs(states + j * n, slopes + j * n);
	for (int j = 0; j < m; j++)
		for (int k = 0; k < n; k++) {
			double acc = 0, x_new;

			if (j > 0)
				for (int l = 0; l < m; l++)
					acc = fma(tab->A[j * m + l], slopes[l * n + k], acc);
			x_new = j > 0 ? xw[k] + acc : xw[k];
			*within &= picard_change_within(x_new, states[j * n + k], c->atol, c->rtol);
			worst = fmax(worst, fabs(x_new - states[j * n + k]) /
					    (c->atol + c->rtol * fabs(x_new)));
			states[j * n + k] = x_new;
		}
	return worst;
}

/* First iterate of a window starting at xw: constant, or warm, the
 * predecessor's polynomial (its iterate prev) extrapolated as the engine's
 * warm start does, xw + sum_l X_jl (prev_l - xw). */
static void open_window(const struct config *c, const struct tables *tab, const double *xw,
			const double *prev, double *states)
{
	const int m = c->m, n = c->model->n;
	double deltas[PICARD_LOBATTO_MAX_M * MAX_N];

	if (prev && c->warm)
		for (int l = 0; l < m * n; l++)
			deltas[l] = prev[l] - xw[l % n];
	for (int j = 1; j < m; j++)
		for (int k = 0; k < n; k++) {
			double acc = 0;

			if (prev && c->warm)
				for (int l = 0; l < m; l++)
					acc = fma(tab->X[j * m + l], deltas[l * n + k], acc);
			states[j * n + k] = xw[k] + acc;
		}
	for (int k = 0; k < n; k++)
		states[k] = xw[k];
}

/* The engine's scheme, window after window (src/schemes/lobatto/cpu_lobatto.inc). */
static void sequential(const struct config *c, const struct tables *tab, struct result *r)
{
	const int m = c->m, n = c->model->n;
	double states[PICARD_LOBATTO_MAX_M * MAX_N], xw[MAX_N];

	memset(r, 0, sizeof(*r));
	r->ends = calloc(c->windows * n, sizeof(double));
	memcpy(xw, c->model->x0, n * sizeof(double));
	for (long w = 0; w < c->windows; w++) {
		bool within = false;
		int i;

		open_window(c, tab, xw, w > 0 ? states : NULL, states);
		for (i = 0; i < K_MAX && !within; i++)
			sweep(c, tab, xw, states, &within);
		r->failed |= !within;
		r->work += i;
		if (i > r->max_window)
			r->max_window = i;
		memcpy(xw, states + (m - 1) * n, n * sizeof(double));
		memcpy(r->ends + w * n, xw, n * sizeof(double));
	}
	r->chain = r->work;
	r->open_sum = r->work;
}

/* One open window of the band. */
struct slot {
	double states[PICARD_LOBATTO_MAX_M * MAX_N]; /* iterate; node 0 its start */
	double start[MAX_N];  /* start for this global sweep (snapshot) */
	double scaled;        /* last sweep's largest scaled change */
	bool within;          /* last sweep within the plain tolerance */
	long sweeps;          /* sweeps so far */
};

/* Whether every node value of an iterate is finite. */
static bool finite_states(const struct config *c, const double *states)
{
	for (int l = 0; l < c->m * c->model->n; l++)
		if (!isfinite(states[l]))
			return false;
	return true;
}

/* Whether start moved from the one the window's last sweep used (node 0)
 * by at most factor times the tolerance. */
static bool start_held(const struct config *c, const struct slot *s, const double *start,
		       double factor)
{
	for (int k = 0; k < c->model->n; k++)
		if (!(fabs(start[k] - s->states[k]) <= factor * (c->atol + c->rtol * fabs(start[k]))))
			return false;
	return true;
}

/* The pipelined scheme with a band of B windows (see the head of this
 * file). B = 1 is the sequential scheme, bit for bit. Safeguards, counted
 * in r->closed: a window whose iterate turns non-finite is closed with
 * those behind it (they reopen from sound predecessors), and a front that
 * has not converged in K_MAX sweeps since it became the front is reopened
 * from its predecessor's final iterate, as the sequential scheme would. */
static void pipelined(const struct config *c, const struct tables *tab, int B,
		      struct result *r)
{
	const int m = c->m, n = c->model->n;
	const long cap = 200 * c->windows + 1000;
	struct slot *band = calloc(B, sizeof(*band));
	double retired[PICARD_LOBATTO_MAX_M * MAX_N]; /* last retired window */
	double prev[PICARD_LOBATTO_MAX_M * MAX_N];
	long front = 0, back = 0; /* open: windows front .. back-1, slot w % B */
	long front_sweeps = 0;    /* global sweeps since front became the front */

	memset(r, 0, sizeof(*r));
	r->ends = calloc(c->windows * n, sizeof(double));
	while (front < c->windows) {
		/* open windows at the back from their predecessor's current
		 * iterate, once that has settled within the gate */
		for (; back < c->windows && back - front < B; back++) {
			struct slot *s = &band[back % B];

			if (back > front && !(band[(back - 1) % B].scaled <= c->gate))
				break;
			if (back == 0) {
				open_window(c, tab, c->model->x0, NULL, s->states);
			} else {
				memcpy(prev, back == front ? retired : band[(back - 1) % B].states,
				       sizeof(prev));
				open_window(c, tab, prev + (m - 1) * n, prev, s->states);
			}
			s->within = false;
			s->scaled = INFINITY;
			s->sweeps = 0;
		}
		if (r->chain >= cap) {
			r->failed = true;
			break;
		}
		/* Jacobi: every start from the state after the previous sweep */
		for (long w = front; w < back; w++) {
			const double *from = w == 0 ? c->model->x0 :
					     w == front ? retired + (m - 1) * n :
					     band[(w - 1) % B].states + (m - 1) * n;

			memcpy(band[w % B].start, from, n * sizeof(double));
		}
		for (long w = front; w < back; w++) {
			struct slot *s = &band[w % B];
			const double factor = pow(c->loose, (double)(w - front));

			if (c->skip && s->sweeps > 0 && s->scaled <= factor &&
			    start_held(c, s, s->start, factor))
				continue;
			s->scaled = sweep(c, tab, s->start, s->states, &s->within);
			s->sweeps++;
			r->work++;
			if (!finite_states(c, s->states)) {
				r->closed += back - w;
				back = w;
				break;
			}
		}
		r->chain++;
		r->open_sum += back - front;
		front_sweeps++;
		/* retire from the front while converged against a final start */
		while (front < back) {
			struct slot *s = &band[front % B];
			const double *final = front == 0 ? c->model->x0 : retired + (m - 1) * n;

			if (!s->within && !c->start_only)
				break;
			if (c->strict ? memcmp(final, s->states, n * sizeof(double)) != 0 :
					!start_held(c, s, final, 1))
				break;
			memcpy(r->ends + front * n, s->states + (m - 1) * n, n * sizeof(double));
			memcpy(retired, s->states, sizeof(retired));
			if (s->sweeps > r->max_window)
				r->max_window = s->sweeps;
			front++;
			front_sweeps = 0;
		}
		if (front < back && front_sweeps >= K_MAX) {
			r->closed += back - front;
			back = front;
			front_sweeps = 0;
		}
	}
	free(band);
}

/* Classical RK4 with steps of H/substeps, the state at every window end. */
static void rk4_reference(const struct config *c, int substeps, double *ends)
{
	const int n = c->model->n;
	const double h = c->H / substeps;
	double x[MAX_N], k1[MAX_N], k2[MAX_N], k3[MAX_N], k4[MAX_N], y[MAX_N];

	memcpy(x, c->model->x0, n * sizeof(double));
	for (long w = 0; w < c->windows; w++) {
		for (int s = 0; s < substeps; s++) {
			c->model->rhs(x, k1);
			for (int k = 0; k < n; k++)
				y[k] = x[k] + 0.5 * h * k1[k];
			c->model->rhs(y, k2);
			for (int k = 0; k < n; k++)
				y[k] = x[k] + 0.5 * h * k2[k];
			c->model->rhs(y, k3);
			for (int k = 0; k < n; k++)
				y[k] = x[k] + h * k3[k];
			c->model->rhs(y, k4);
			for (int k = 0; k < n; k++)
				x[k] += h / 6 * (k1[k] + 2 * k2[k] + 2 * k3[k] + k4[k]);
		}
		memcpy(ends + w * n, x, n * sizeof(double));
	}
}

/* Largest absolute difference over all window ends and components. */
static double max_diff(const struct config *c, const double *a, const double *b)
{
	double worst = 0;

	for (long i = 0; i < c->windows * c->model->n; i++)
		worst = fmax(worst, fabs(a[i] - b[i]));
	return worst;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: exp-pipeline MODEL [--m M] [--windows W] [--rtol R] [--atol A]\n"
		"       [--bands 1,2,4,...] [--init const|extrap] [--retire tol|strict|start]\n"
		"       [--gate G] [--skip] [--loose F] [--header]\n"
		"MODEL: lotka or kepler (e = 0.5). Prints one CSV row per band B.\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct config c = { .m = 6, .windows = 15, .rtol = 1e-6, .warm = true, .loose = 1,
			    .gate = INFINITY };
	const char *bands = "1,2,4,8,16,32";
	bool header = false;
	struct picard_lobatto lob;
	struct tables tab;
	struct result seq, tight;
	double *ref;

	if (argc < 2)
		usage();
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		if (!strcmp(argv[1], models[i].name))
			c.model = &models[i];
	if (!c.model)
		usage();
	for (int i = 2; i < argc; i++) {
		const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(opt, "--skip")) {
			c.skip = true;
			continue;
		}
		if (!strcmp(opt, "--header")) {
			header = true;
			continue;
		}
		if (!val)
			usage();
		i++;
		if (!strcmp(opt, "--m"))
			c.m = atoi(val);
		else if (!strcmp(opt, "--windows"))
			c.windows = atol(val);
		else if (!strcmp(opt, "--rtol"))
			c.rtol = atof(val);
		else if (!strcmp(opt, "--atol"))
			c.atol = atof(val);
		else if (!strcmp(opt, "--bands"))
			bands = val;
		else if (!strcmp(opt, "--init"))
			c.warm = !strcmp(val, "extrap");
		else if (!strcmp(opt, "--retire")) {
			c.strict = !strcmp(val, "strict");
			c.start_only = !strcmp(val, "start");
		} else if (!strcmp(opt, "--gate"))
			c.gate = atof(val);
		else if (!strcmp(opt, "--loose"))
			c.loose = atof(val);
		else
			usage();
	}
	if (c.atol == 0)
		c.atol = c.rtol; /* the engine's default */
	if (picard_lobatto_build(c.m, &lob) || c.windows < 1)
		usage();
	c.H = (c.model->t1 - c.model->t0) / c.windows;
	picard_lobatto_tables(&lob, c.H, true, c.m, false, tab.A, tab.X, tab.offset);

	/* references: the ODE's, and the collocation solution (the sequential
	 * scheme iterated to 1e-14, or the engine's rounding floor 4 m eps) */
	ref = malloc(c.windows * c.model->n * sizeof(double));
	if (c.model->exact) {
		for (long w = 0; w < c.windows; w++)
			c.model->exact(c.H * (w + 1), ref + w * c.model->n);
	} else {
		double *coarse = malloc(c.windows * c.model->n * sizeof(double));

		rk4_reference(&c, 2000, coarse);
		rk4_reference(&c, 4000, ref);
		fprintf(stderr, "# RK4 reference: H/2000 vs H/4000 differ by %.1e\n",
			max_diff(&c, coarse, ref));
		free(coarse);
	}
	{
		struct config t = c;

		t.rtol = t.atol = fmax(1e-14, 4 * c.m * DBL_EPSILON);
		sequential(&t, &tab, &tight);
	}
	sequential(&c, &tab, &seq);
	fprintf(stderr, "# %s m=%d windows=%ld H=%.6g rtol=%g atol=%g: sequential %ld sweeps "
		"(%.2f per window, max %ld)%s; collocation (%.1e%s) vs ODE reference %.2e\n",
		c.model->name, c.m, c.windows, c.H, c.rtol, c.atol, seq.work,
		(double)seq.work / c.windows, seq.max_window, seq.failed ? " NOT CONVERGED" : "",
		fmax(1e-14, 4 * c.m * DBL_EPSILON), tight.failed ? " NOT CONVERGED" : "",
		max_diff(&c, tight.ends, ref));
	if (header)
		printf("model,m,windows,rtol,init,retire,gate,skip,loose,B,global_sweeps,window_sweeps,"
		       "mean_open,max_window_sweeps,chain_cut,work_ratio,err_vs_seq,"
		       "err_vs_colloc,err_vs_ref,closed,failed\n");
	for (const char *p = bands; *p;) {
		const int B = atoi(p);
		struct result r;

		if (B < 1)
			usage();
		pipelined(&c, &tab, B, &r);
		if (B == 1 && memcmp(r.ends, seq.ends, c.windows * c.model->n * sizeof(double)))
			fprintf(stderr, "# B = 1 differs from the sequential scheme\n");
		printf("%s,%d,%ld,%g,%s,%s,%g,%d,%g,%d,%ld,%ld,%.2f,%ld,%.2f,%.2f,%.2e,%.2e,%.2e,%ld,%d\n",
		       c.model->name, c.m, c.windows, c.rtol, c.warm ? "extrap" : "const",
		       c.strict ? "strict" : c.start_only ? "start" : "tol", c.gate, c.skip, c.loose, B, r.chain, r.work,
		       (double)r.open_sum / r.chain, r.max_window, (double)seq.chain / r.chain,
		       (double)r.work / seq.work, max_diff(&c, r.ends, seq.ends),
		       max_diff(&c, r.ends, tight.ends), max_diff(&c, r.ends, ref), r.closed, r.failed);
		free(r.ends);
		p = strchr(p, ',');
		if (!p)
			break;
		p++;
	}
	free(seq.ends);
	free(tight.ends);
	free(ref);
	return 0;
}
