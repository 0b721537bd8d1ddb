/* tune.c - the tolerance search: for each m and K the largest h whose
 * measured error E meets E*, then the fastest of those on the whole
 * ensemble, by a cost model: a point's predicted time is its counted
 * right-hand side evaluations on the ensemble times what one evaluation
 * costs its scheme at its m under its layout, timed once and cached
 * (src/tune/tune_cost.h). Timing every point picked by the noise between two
 * close ones: the same command chose dp5, vern9, dp5 adaptive and vern9 in
 * four runs (issue 34).
 *
 * The paper did this by brute force over a grid of (m, K, h)
 * (section 3, Fig. 4, Table 1); here h is found by a search on log h:
 * halve from one window per span until E meets E*, bisect the last
 * failing/passing pair, and confirm two smaller neighbours also meet E*
 * (inside the convergence region E falls with h; past the boundary h* it
 * explodes and need not be monotone, so a lucky pass is not trusted).
 *
 * E is the paper's measure as picard_check computes it (max |x - x_ref| at
 * every window end over a sample of the ensemble), against one dense rk8pd
 * reference integrated once for the sample and reused by every point. A
 * point meets E* when the sample's E is within TUNE_MARGIN of it, since the
 * rest of the ensemble may do slightly worse than the sample.
 *
 * A cost is timed at a grid fixed by the scheme, m and layout alone, not
 * at the point that first asks for it: a search that times it and one
 * that reads it back from the cache use the same value, and the same
 * counts then make the same choice.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "dense_reference.h"
#include "errors.h"
#include "jit.h"
#include "model_impl.h"
#include "tolerance.h"
#include "reference.h"
#include "reference_events.h"
#include "scheme.h"
#include "tune_cost.h"
#include "tune_prepare.h"

#define TUNE_BISECTIONS 4       /* h to within 2^(1/16), about 4% */
#define TUNE_CONFIRM 2          /* neighbours h*0.9, h*0.8 must pass too */
#define TUNE_REF_SHARE 0.05     /* reference interpolation error <= 5% E* */
#define TUNE_MARGIN 0.8         /* the sample must meet 0.8 E*: the rest of
				   the ensemble may be a little worse */
#define TEXT_OF(x) #x            /* a macro's value as text, for messages */
#define TEXT(x) TEXT_OF(x)
#define TUNE_STALL 0.7          /* halving h must cut E below 70% of E */
#define TUNE_COST_FACTOR 8      /* stop halving past 8x the best's sweeps */
#define TUNE_WIN_FACTOR 1.5     /* skip refining what cannot win */
#define TUNE_BEAT_FACTOR 2      /* stop halving once a point's predicted
				   time is this times the time to beat: the
				   sample's evaluations per trajectory
				   predict the ensemble's, not exactly */
#define TUNE_IN_FLIGHT_MAX_TRAJ 4096 /* windows in flight are searched
				   on the GPU up to this many trajectories:
				   beyond, the ensemble alone fills the
				   device and they only add work */
#define CALIBRATE_STEPS 256     /* a cost is timed on this many node
				   intervals over the span: a solve's
				   fixed overhead is a small part of it */
#define CALIBRATE_TRIES 3       /* and on grids 4 and 16 times finer
				   where that fails */
#define CALIBRATE_EVALS 2e5     /* and finer still until a solve of the
				   ensemble makes this many evaluations */
/* On the CPU backend a trajectory costs the same however many run beside
 * it, so a cost is timed on fewer of them where the ensemble would make
 * far more evaluations than needed: a first solve of CALIBRATE_PROBE_TRAJ
 * counts them, and at most CALIBRATE_EVALS_CPU are timed (a cost of the
 * scheme vern9 took 10 s on 1024 trajectories, of lobatto m = 32 14 s). */
#define CALIBRATE_PROBE_TRAJ 64L
#define CALIBRATE_EVALS_CPU 1e6
/* A per-thread scheme none of whose fixed-step grids the model allows (a
 * stiff model's initial layer inside their first step: radau5's iteration
 * does not converge there, a Rosenbrock step leaves the solution) is
 * timed on its adaptive steps at this local tolerance, its controller
 * and Jacobians in its cost: robertson's costs could not be timed before,
 * so that picard-run --tol found no configuration to meet the tolerance,
 * then ran the closest, which every member met. */
#define CALIBRATE_ADAPTIVE_RTOL 1e-6
#define KNOWN_COSTS (PICARD_TUNE_MAX_M * 4) /* (m, layout, block) of a search */
#define TUNE_ENSEMBLE_RETRIES 4 /* a point whose ensemble failed where its */
#define TUNE_ENSEMBLE_SHRINK 0.8 /* sample passed: h shrunk this often, so */
/* A point replaces the fastest so far only when it is predicted this much
 * faster: points are tried in a fixed order (m, then K, ascending), so
 * near-ties keep the earlier one, a larger h and a cheaper search. */
#define TUNE_SWITCH_MARGIN 0.9
/* What measure_error returns once options.seconds_limit has passed: not a
 * PICARD_E code (it is no error), it unwinds the search to picard_tune,
 * which keeps what was found before. */
#define TUNE_STOPPED 1

/* The search's fixed inputs. */
struct tuner {
	const picard_model *model;   /* what is tuned */
	picard_tune_options opt;     /* options with defaults filled in */
	double *x0;                  /* ntraj rows: the timed ensemble */
	double *params;              /* its parameters, or NULL: the defaults */
	double *sample_x0;           /* sample rows: extremes, then evenly spaced */
	double *sample_params;       /* theirs, or NULL */
	long *sample_index;          /* their rows in the ensemble tuned on */
	struct dense_reference ref;  /* reference of the sample */
	picard_tune_result *result;  /* filled as points are evaluated */
	picard_backend backend;      /* where the solves run (never AUTO) */
	struct timespec start;       /* when the search started */
	double m_error;              /* the smallest E at the m searched now */
	long m_points;               /* and the points measured there */
	/* the costs asked for in this search (seconds per evaluation at m
	 * under layout, block windows in flight; NaN: could not be timed),
	 * whether timed or read */
	struct {
		int m;
		picard_layout layout;
		int block;
		double seconds_per_eval;
	} known[KNOWN_COSTS];
	int nknown;                  /* entries of known */
};

/* Fill defaults and check the options. */
static int tune_defaults(const picard_model *model, const picard_tune_options *in,
			 picard_tune_options *o)
{
	const picard_scheme_type *scheme = picard_scheme_of(in->scheme);
	char names[256];

	*o = *in;
	if (!(o->tol >= 0) || !isfinite(o->tol) || !(o->rtol >= 0) || !isfinite(o->rtol) ||
	    (o->tol == 0 && o->rtol == 0))
		return picard_fail(PICARD_EINVAL, "tolerance atol %g, rtol %g: must be finite, >= 0, "
				   "not both 0", o->tol, o->rtol);
	if (o->x0 && o->nstates < 1)
		return picard_fail(PICARD_EINVAL, "tune: an ensemble of %ld states", o->nstates);
	if (o->t0 == 0 && o->t1 == 0) {
		o->t0 = model->t0;
		o->t1 = model->t1;
	}
	if (!(o->t1 > o->t0))
		return picard_fail(PICARD_EINVAL, "time span [%g, %g]", o->t0, o->t1);
	if (!o->ntraj)
		o->ntraj = 8192;
	if (!o->sample)
		o->sample = 32;
	if (o->sample > o->ntraj)
		o->sample = o->ntraj;
	if (o->spread == 0)
		o->spread = 0.1;
	if (!o->seed)
		o->seed = 1;
	if (!o->kmax)
		o->kmax = 9;
	if (!o->repeats)
		o->repeats = 5;
	if (!o->max_windows)
		o->max_windows = 100000;
	if (!scheme)
		return picard_fail(PICARD_EINVAL, "scheme %d unknown (%s)", (int)o->scheme,
				   picard_scheme_names(names, sizeof(names)));
	if (!scheme->tune_point)
		return picard_fail(PICARD_EINVAL, "the %s scheme is not in the tuner's search yet: "
				   "give its grid (m, window) instead of a tolerance", scheme->name);
	if (!o->nms) {
		o->nms = scheme->tune_nms;
		memcpy(o->ms, scheme->tune_ms, scheme->tune_nms * sizeof(o->ms[0]));
	}
	if (!(o->seconds_limit >= 0))
		return picard_fail(PICARD_EINVAL, "tune: a time limit of %g s", o->seconds_limit);
	if (o->ntraj < 1 || o->sample < 1 || o->kmax < 1 || o->repeats < 1 ||
	    o->max_windows < 1 || o->nms > PICARD_TUNE_MAX_M || o->spread < 0)
		return picard_fail(PICARD_EINVAL, "tune options: traj %ld sample %ld kmax %d repeats %d",
				   o->ntraj, o->sample, o->kmax, o->repeats);
	for (int i = 0; i < o->nms; i++) {
		if (o->ms[i] < 2)
			return picard_fail(PICARD_EINVAL, "m = %d: at least 2 nodes", o->ms[i]);
		if (scheme->max_m && o->ms[i] > scheme->max_m)
			return picard_fail(PICARD_EINVAL, "m = %d: the %s scheme takes at most %d nodes",
					   o->ms[i], scheme->name, scheme->max_m);
	}
	return PICARD_OK;
}

/* The window convergence tolerance of the K-th candidate, or 0 (the
 * solver's default). */
static double point_rtol(const struct tuner *t, int K)
{
	return picard_scheme_of(t->opt.scheme)->tune_rtol(K, t->opt.tol, t->opt.precision);
}

/* Solver options for a point (m, K, h, rtol), the scheme's own, over the
 * search's span, precision and backend. */
static picard_options point_options(const struct tuner *t, int m, int K, double h,
				    double rtol)
{
	picard_options o = picard_scheme_of(t->opt.scheme)->tune_point(m, K, h, rtol,
									t->opt.t1 - t->opt.t0);

	o.t0 = t->opt.t0;
	o.t1 = t->opt.t1;
	o.precision = t->opt.precision;
	o.backend = t->opt.backend;
	/* the search bounds its grids itself (max_windows) */
	o.max_work = HUGE_VAL;
	return o;
}

/* Note that p, which met E* (or came close), was refused by rule: the
 * refusal of smallest E is the one a report quotes. */
static void refuse(struct tuner *t, const picard_tune_point *p, const char *rule)
{
	if (p->error <= t->result->refused_error) {
		t->result->refused_error = p->error;
		t->result->refused_by = rule;
	}
}

/* Whether options.seconds_limit has passed since the search started. */
static bool out_of_time(const struct tuner *t)
{
	struct timespec now;

	if (!(t->opt.seconds_limit > 0))
		return false;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->start.tv_sec) +
	       1e-9 * (double)(now.tv_nsec - t->start.tv_nsec) > t->opt.seconds_limit;
}

/* A model with events: E and the scaled errors of a solve s of the
 * sample (its record rec of every window end, its statuses) by
 * picard_check_each against the reference that locates the events: the
 * states at the window ends up to where a member stopped, and each
 * event's time (its scaled error as a state component's), a member whose
 * events differ from the reference's in number or index at +Inf. E is
 * the largest of the states' and the event times' absolute errors. */
static int measure_events(struct tuner *t, const picard_solver *s, const picard_record *rec,
			  const picard_traj_status *status, picard_tune_point *p)
{
	double *member = malloc(t->opt.sample * sizeof(double));
	picard_check_options copts = {
		.tol = {.atol = t->opt.tol, .rtol = t->opt.rtol}, .traj_error = member,
		.events = picard_solver_event_log(s), .status = status,
		.fail_times = picard_solver_fail_times(s),
	};
	picard_check_result res;
	int err;

	if (!member)
		return picard_fail(PICARD_ENOMEM, "tune: errors of %ld members", t->opt.sample);
	err = picard_check_each(t->model, picard_solver_grid(s), t->opt.sample, t->sample_x0,
				t->sample_params, rec, &copts, &res);
	for (long i = 0; !err && i < t->opt.sample; i++) {
		p->scaled_error = fmax(p->scaled_error, member[i]);
		p->sample_meeting += member[i] <= TUNE_MARGIN;
	}
	if (!err)
		p->error = fmax(res.error, res.event_error);
	free(member);
	return err;
}

/* E of (m, K, h) on the sample, at every window end, against the dense
 * reference (a model with events: measure_events()); +Inf when a trajectory fails. Fills p (not its time).
 * TUNE_STOPPED, nothing measured, once the time allowed has passed. */
static int measure_error(struct tuner *t, int m, int K, double h,
			 picard_tune_point *p)
{
	const int n = t->model->dim;
	picard_options o = point_options(t, m, K, h, point_rtol(t, K));
	const picard_tolerance tol = {.atol = t->opt.tol, .rtol = t->opt.rtol};
	picard_record rec = {.every = 1, .traj_stride = 1};
	picard_solver *s = NULL;
	picard_stats stats = {0};
	picard_traj_status *status = NULL;
	double *x;
	int err;

	if (out_of_time(t))
		return TUNE_STOPPED;
	x = malloc(n * sizeof(double));
	if (t->model->events)
		status = malloc(t->opt.sample * sizeof(*status));
	if (!x || (t->model->events && !status))
		return picard_fail(PICARD_ENOMEM, "tune: a state of %d", n);
	err = picard_solver_create(&s, t->model, &o, t->opt.sample);
	if (err) {
		free(x);
		return err;
	}
	const picard_grid *g = picard_solver_grid(s);
	const picard_scheme_type *scheme = picard_scheme_of(t->opt.scheme);
	*p = (picard_tune_point){.scheme = t->opt.scheme, .m = m,
				 .K = g->K, /* lobatto: its K_max; a pair's steps */
				 .h = scheme->tune_h ? scheme->tune_h(g) : g->h,
				 .iter_rtol = point_rtol(t, K), .windows = g->windows,
				 .block = g->block};
	rec.states = malloc(picard_record_size(s, &rec) * sizeof(double));
	if (!rec.states) {
		err = picard_fail(PICARD_ENOMEM, "record of %ld windows", g->windows);
		goto out;
	}
	err = picard_solve(s, t->sample_x0, t->sample_params, NULL, status, NULL, &rec, 1, &stats);
	p->rhs_evals = stats.rhs_evals / (double)t->opt.sample;
	p->error = p->scaled_error = 0;
	if (err == PICARD_EFAILED) {
		p->error = p->scaled_error = INFINITY;
		err = PICARD_OK;
	} else if (err) {
		goto out;
	}
	if (t->model->events && isfinite(p->error)) {
		err = measure_events(t, s, &rec, status, p);
		if (err)
			goto out;
	}
	for (long i = 0; !t->model->events && i < t->opt.sample && isfinite(p->error); i++) {
		double member = 0; /* its own scaled error */

		for (long w = 0; w < g->windows; w++) {
			const double *xs = rec.states + (w * t->opt.sample + i) * n;
			dense_reference_eval(&t->ref, i, g->t0 + (w + 1) * (m - 1) * g->h, x);
			p->error = fmax(p->error, picard_scaled_error(NULL, xs, x, n));
			member = fmax(member, picard_scaled_error(&tol, xs, x, n));
		}
		p->scaled_error = fmax(p->scaled_error, member);
		p->sample_meeting += member <= TUNE_MARGIN;
	}
	p->meets = p->scaled_error <= TUNE_MARGIN;
	if (!p->meets && p->scaled_error <= 1)
		refuse(t, p, "the sample must meet " TEXT(TUNE_MARGIN) " of E* (a margin: the "
			     "members outside it may do a little worse)");
	t->result->points++;
	if (p->error < t->result->best_error)
		t->result->best_error = p->error;
	t->m_error = fmin(t->m_error, p->error);
	t->m_points++;
	if (picard_tune_closer(p, &t->result->closest))
		t->result->closest = *p;
	if (t->opt.on_point)
		t->opt.on_point(p, t->opt.ctx);
out:
	free(x);
	free(status);
	free(rec.states);
	picard_solver_free(s);
	return err;
}

/* Processor time of this process, all threads, in seconds. */
static double cpu_seconds(void)
{
	struct timespec now;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
	return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

/* The first ntraj trajectories of the ensemble solved at p under layout
 * once, then repeats times more: their median time into *seconds (0
 * without repeats, or when the ensemble failed: the sample met E*, the
 * ensemble did not), the last solve's right-hand side evaluations (all
 * trajectories) into *evals; *per_block gets the layout's trajectories per
 * block, *ran (if not NULL) the layout the solver settled (windows in
 * flight: see time_point).
 * times: room for repeats. PICARD_EBLOCK/ESHMEM when the layout cannot
 * run p. */
static int time_layout(struct tuner *t, const picard_tune_point *p, picard_layout layout,
		       long ntraj, int repeats, double *times, double *seconds, double *evals,
		       int *per_block, picard_layout *ran)
{
	picard_options o = point_options(t, p->m, p->K, p->h, p->iter_rtol);
	picard_solver *s = NULL;
	picard_stats stats;
	int err;

	/* the block its error was measured with (p->K is the grid's K_max
	 * there, no block candidate): newton's windows iterated together,
	 * lobatto's windows in flight */
	if (picard_scheme_of(t->opt.scheme)->takes_block ||
	    picard_scheme_of(t->opt.scheme)->windows_in_flight)
		o.block = p->block;
	o.layout = layout;
	/* windows in flight run the layout a solve of p runs (picard_choose
	 * leaves it AUTO: the paper layout where its block fits), not the
	 * group layout the search names them by */
	if (picard_scheme_of(t->opt.scheme)->windows_in_flight && o.block > 1 &&
	    layout == PICARD_LAYOUT_WARP)
		o.layout = PICARD_LAYOUT_AUTO;
	*seconds = 0;
	*evals = 0;
	err = picard_solver_create(&s, t->model, &o, ntraj);
	if (!err) {
		*per_block = picard_solver_grid(s)->traj_per_block;
		if (ran)
			*ran = picard_solver_grid(s)->layout;
	}
	for (int r = -1; !err && r < repeats; r++) {
		const double cpu_start = cpu_seconds();

		err = picard_solve(s, t->x0, t->params, NULL, NULL, NULL, NULL, 0, &stats);
		*evals = stats.rhs_evals;
		/* on the host, the processor time of all its threads: what
		 * the solve did, not what other work on the machine took */
		if (r >= 0)
			times[r] = t->backend == PICARD_BACKEND_CPU ? cpu_seconds() - cpu_start :
				   stats.solve_seconds;
	}
	if (!err && repeats > 0) {
		/* insertion sort: a handful of repeats */
		for (int i = 1; i < repeats; i++)
			for (int j = i; j > 0 && times[j] < times[j - 1]; j--) {
				double tmp = times[j];
				times[j] = times[j - 1];
				times[j - 1] = tmp;
			}
		*seconds = times[repeats / 2];
	}
	picard_solver_free(s);
	return err;
}

/* p's windows in flight, or 1: one window after the other. */
static int in_flight(const struct tuner *t, const picard_tune_point *p)
{
	return picard_scheme_of(t->opt.scheme)->windows_in_flight && p->block > 1 ? p->block : 1;
}

/* Whether the search runs m nodes of its scheme under layout, block
 * windows in flight (0 or 1: one after the other): the layout can (windows
 * in flight take a block per trajectory, not the thread layout), and in
 * the quick search on the CUDA backend its kernel is quick to compile
 * (picard_scheme_type.quick_compiles). */
static bool layout_fits(const struct tuner *t, picard_layout layout, int m, int block)
{
	const picard_scheme_type *scheme = picard_scheme_of(t->opt.scheme);
	const int max_m = scheme->layout_max_m(layout);

	if (scheme->windows_in_flight && block > 1 && layout == PICARD_LAYOUT_THREAD)
		return false;
	return (!max_m || m <= max_m) &&
	       picard_tune_compiles(&t->opt, t->backend, layout, m, t->model->dim);
}

/* Seconds per right-hand side evaluation of the scheme at m nodes under
 * layout, timed now: the fastest of repeats solves of the ensemble (after
 * a warm-up; the fastest, as other work on the machine only adds; on the
 * CPU backend the processor time of its threads, and of fewer trajectories
 * where the ensemble would make more than CALIBRATE_EVALS_CPU evaluations)
 * over their evaluations, at a grid fixed by m alone (its first candidate
 * K, CALIBRATE_STEPS node intervals over the span, or one window; finer
 * until the ensemble's evaluations reach CALIBRATE_EVALS), so the cost is
 * the same wherever the search first asks for it. Where that grid fails
 * (the solution blows up on so coarse a grid), up to CALIBRATE_TRIES
 * grids each 4 times finer; a per-thread scheme then its adaptive steps
 * at CALIBRATE_ADAPTIVE_RTOL. NaN when none could be timed. */
static int time_cost(struct tuner *t, int m, int block, picard_layout layout,
		     double *seconds_per_eval)
{
	const double span = t->opt.t1 - t->opt.t0;
	const double h_min = span / ((m - 1) * (double)t->opt.max_windows);
	const bool cpu = t->backend == PICARD_BACKEND_CPU;
	const long probe = cpu && t->opt.ntraj > CALIBRATE_PROBE_TRAJ ? CALIBRATE_PROBE_TRAJ :
			   t->opt.ntraj;
	picard_tune_point q = {.scheme = t->opt.scheme, .m = m, .K = 1,
			       .h = fmin(span / (m - 1), span / CALIBRATE_STEPS),
			       .iter_rtol = point_rtol(t, 1), .block = block};
	double *times = calloc(t->opt.repeats, sizeof(double));
	double seconds = 0, evals = 0;
	long timed = t->opt.ntraj;
	int per_block, err = PICARD_EFAILED;

	if (!times)
		return picard_fail(PICARD_ENOMEM, "timings");
	/* a grid that fails on the trajectories timed (past the probe's) is
	 * tried finer too */
	for (int i = 0; i <= CALIBRATE_TRIES && err == PICARD_EFAILED; i++) {
		if (i == CALIBRATE_TRIES) { /* the last resort: adaptive steps */
			if (!picard_scheme_of(t->opt.scheme)->steps_per_span)
				break;
			q.K = 2;
			q.h = span;
			q.iter_rtol = fmax(CALIBRATE_ADAPTIVE_RTOL,
					   picard_iteration_floor(t->opt.precision));
		} else if (i) {
			q.h /= 4;
		}
		err = time_layout(t, &q, layout, probe, 0, NULL, &seconds, &evals, &per_block,
				  NULL);
		evals *= (double)t->opt.ntraj / (double)probe; /* the whole ensemble's */
		if (!err && evals > 0 && evals < CALIBRATE_EVALS && q.h > h_min && q.K == 1)
			q.h = fmax(h_min, q.h * evals / CALIBRATE_EVALS);
		if (!err && cpu && evals > CALIBRATE_EVALS_CPU)
			timed = (long)fmax((double)probe,
					   ceil(t->opt.ntraj * CALIBRATE_EVALS_CPU / evals));
		if (!err)
			err = time_layout(t, &q, layout, timed, t->opt.repeats, times, &seconds,
					  &evals, &per_block, NULL);
	}
	*seconds_per_eval = NAN;
	if (err == PICARD_EFAILED)
		err = PICARD_OK;
	else if (!err && times[0] > 0 && evals > 0)
		*seconds_per_eval = times[0] / evals; /* sorted: the fastest */
	free(times);
	return err;
}

/* What one right-hand side evaluation costs the scheme at p's m (and its
 * windows in flight) under layout on this device (NaN: it could not be
 * timed): asked once in a search, read from the cache under cost_key,
 * else timed (time_cost) and stored there. PICARD_EBLOCK/ESHMEM when the
 * layout cannot run p. Windows in flight make every window of a step
 * count its evaluations, and a step's time is shared by them: a cost of
 * their own. */
static int eval_cost(struct tuner *t, const picard_tune_point *p, picard_layout layout,
		     double *seconds_per_eval)
{
	const picard_tune_key *key = t->opt.cost_key;
	struct tune_cost cost = {
		.model = key ? key->model : NULL, .precision = t->opt.precision,
		.device = key ? key->device : NULL, .ntraj = t->opt.ntraj,
		.scheme = t->opt.scheme, .m = p->m, .layout = layout, .block = in_flight(t, p),
	};
	int err = PICARD_ENOTFOUND;

	for (int i = 0; i < t->nknown; i++)
		if (t->known[i].m == p->m && t->known[i].layout == layout &&
		    t->known[i].block == cost.block) {
			*seconds_per_eval = t->known[i].seconds_per_eval;
			return PICARD_OK;
		}
	if (key)
		err = tune_cost_load(&cost);
	if (err) {
		err = time_cost(t, p->m, cost.block, layout, &cost.seconds_per_eval);
		if (err)
			return err;
		t->result->costs_timed++;
		/* not kept (no cache, or a full disk): the next search times
		 * it again, and may choose otherwise where two are close */
		if (key && isfinite(cost.seconds_per_eval) && tune_cost_store(&cost))
			t->result->costs_not_kept++;
	}
	if (t->nknown < KNOWN_COSTS) {
		t->known[t->nknown].m = p->m;
		t->known[t->nknown].layout = layout;
		t->known[t->nknown].block = cost.block;
		t->known[t->nknown++].seconds_per_eval = cost.seconds_per_eval;
	}
	*seconds_per_eval = cost.seconds_per_eval;
	return PICARD_OK;
}

/* The layouts the search costs: on the CUDA backend the scheme's own
 * (trapezoid: paper, and warp and thread for m <= 32; lobatto: warp, and
 * thread for m <= 16), on the CPU backend its one algorithm. */
static const picard_layout *search_layouts(const struct tuner *t, int *nlayouts)
{
	static const picard_layout cpu_layouts[] = { PICARD_LAYOUT_AUTO };
	const picard_scheme_type *scheme = picard_scheme_of(t->opt.scheme);

	if (t->backend != PICARD_BACKEND_CUDA) {
		*nlayouts = 1;
		return cpu_layouts;
	}
	*nlayouts = scheme->tune_nlayouts;
	return scheme->tune_layouts;
}

/* The predicted solve time of the whole ensemble at p: solved once under
 * each layout that can run p (the ensemble must not fail where the sample
 * met E*), its right-hand side evaluations times the layout's cost per
 * evaluation; the cheapest kept with its layout in p. */
static int time_point(struct tuner *t, picard_tune_point *p)
{
	const picard_scheme_type *scheme = picard_scheme_of(t->opt.scheme);
	const bool cuda = t->backend == PICARD_BACKEND_CUDA;
	int nlayouts, err = PICARD_OK, timed = 0;
	const picard_layout *layouts = search_layouts(t, &nlayouts);
	bool uncosted = false;

	p->seconds = 0;
	for (int l = 0; l < nlayouts; l++) {
		double seconds, evals, seconds_per_eval;
		int per_block = 0;
		picard_layout ran = layouts[l];

		if (!layout_fits(t, layouts[l], p->m, in_flight(t, p)))
			continue;
		err = time_layout(t, p, layouts[l], t->opt.ntraj, 0, NULL, &seconds, &evals,
				  &per_block, &ran);
		if (!err)
			err = eval_cost(t, p, layouts[l], &seconds_per_eval);
		if (err == PICARD_EBLOCK || err == PICARD_ESHMEM) {
			err = PICARD_OK; /* this layout cannot run p; another may */
			continue;
		}
		if (err == PICARD_EFAILED) { /* the sample met E*, the ensemble did not */
			p->meets = false;
			refuse(t, p, "a member outside the sample failed (diverged or not finite) "
			       "on the whole ensemble");
			err = PICARD_OK;
			break;
		}
		if (err)
			break;
		if (!isfinite(seconds_per_eval) || !(evals > 0)) {
			uncosted = true; /* no cost to predict it by */
			continue;
		}
		seconds = seconds_per_eval * evals;
		if (!timed++ || seconds < p->seconds) {
			p->seconds = seconds;
			p->rhs_evals = evals / (double)t->opt.ntraj;
			/* what ran: windows in flight in the paper layout
			 * where it fits, though costed under the group's name */
			p->layout = cuda ? ran : PICARD_LAYOUT_AUTO;
			/* lobatto's warp layout is shaped by the ensemble */
			p->traj_per_block = cuda && layouts[l] != PICARD_LAYOUT_PAPER &&
					    !(scheme->warp_block_own && layouts[l] == PICARD_LAYOUT_WARP) ?
					    per_block : 0;
		}
	}
	if (!err && p->meets && timed && t->opt.on_point)
		t->opt.on_point(p, t->opt.ctx);
	if (!err && !timed && uncosted) {
		p->meets = false; /* its cost could not be timed: not chosen */
		refuse(t, p, "its scheme's cost per right-hand side evaluation could not be "
		       "timed (the calibration grid failed)");
	} else if (!err && !timed && p->meets) {
		err = picard_fail(PICARD_EBLOCK, "m = %d: no layout can run it on this device", p->m);
	}
	return err;
}

/* Whether a point of windows*K sequential sweeps is hopeless: its serial
 * chain is factor times longer than that of the fastest point timed so far
 * (the solve time grows with the chain, and per sweep with m, and m is
 * searched upwards). */
static bool too_costly(const struct tuner *t, long windows, int K, double factor)
{
	const picard_tune_point *b = &t->result->best;

	return b->meets && (double)windows * K > factor * (double)b->windows * b->K;
}

/* Whether p, just measured on the sample, is predicted too slow to beat
 * the time to beat, this scheme's fastest point so far or the caller's:
 * its evaluations per trajectory on the whole ensemble at the cheapest
 * layout's cost. A smaller h only costs more. Costs are asked for only
 * where there is a time to beat. */
static int too_slow(struct tuner *t, const picard_tune_point *p, bool *slow)
{
	const picard_tune_point *b = &t->result->best;
	double beat = t->opt.seconds_to_beat > 0 ? t->opt.seconds_to_beat : INFINITY;
	double cheapest = INFINITY;
	int nlayouts;
	const picard_layout *layouts = search_layouts(t, &nlayouts);

	*slow = false;
	if (b->meets && b->seconds > 0)
		beat = fmin(beat, b->seconds);
	if (!isfinite(beat) || !(p->rhs_evals > 0))
		return PICARD_OK;
	for (int l = 0; l < nlayouts; l++) {
		double seconds_per_eval;
		int err;

		if (!layout_fits(t, layouts[l], p->m, in_flight(t, p)))
			continue;
		err = eval_cost(t, p, layouts[l], &seconds_per_eval);
		if (err == PICARD_EBLOCK || err == PICARD_ESHMEM)
			continue;
		if (err)
			return err;
		if (isfinite(seconds_per_eval))
			cheapest = fmin(cheapest, seconds_per_eval);
	}
	*slow = cheapest * p->rhs_evals * (double)t->opt.ntraj > TUNE_BEAT_FACTOR * beat;
	return PICARD_OK;
}

/* A passing h for (m, K) whose smaller neighbours pass too; confirmed stays
 * false when the search finds none above the smallest h allowed. */
static int confirm(struct tuner *t, int m, int K, picard_tune_point *best,
		   bool *confirmed)
{
	picard_tune_point q;
	int err;

	*confirmed = true;
	for (int c = 1; c <= TUNE_CONFIRM; c++) {
		err = measure_error(t, m, K, best->h * (1 - 0.1 * c), &q);
		if (err)
			return err;
		if (!q.meets) {
			*confirmed = false;
			refuse(t, best, "its smaller neighbours, h x 0.9 and x 0.8, must meet E* too, "
			       "and one did not (E does not fall with h there: past the "
			       "convergence region, or at the rounding floor)");
			return PICARD_OK;
		}
	}
	return PICARD_OK;
}

/* The largest h meeting E* for (m, K), in *best (meets false if none). */
static int search_h(struct tuner *t, int m, int K, picard_tune_point *best)
{
	const double span = t->opt.t1 - t->opt.t0;
	const double h_min = span / ((m - 1) * (double)t->opt.max_windows);
	const int first = picard_scheme_of(t->opt.scheme)->tune_first_windows;
	double h_fail = 0, h = span / ((m - 1) * (double)(first > 1 ? first : 1));
	picard_tune_point p = {.meets = false};
	bool confirmed = false, slow;
	int err;

	best->meets = false;
	while (!confirmed && h >= h_min) {
		/* halve until a point meets E*; stop where E no longer falls
		 * (the rounding floor) or the point would cost far more
		 * sweeps than the fastest one timed so far */
		double prev = INFINITY;
		int stalls = 0;
		for (; h >= h_min; h_fail = h, h /= 2) {
			err = measure_error(t, m, K, h, &p);
			if (err)
				return err;
			if (p.meets)
				break;
			stalls = isfinite(p.error) && p.error > TUNE_STALL * prev ? stalls + 1 : 0;
			prev = p.error;
			if (stalls >= 2 || too_costly(t, p.windows, K, TUNE_COST_FACTOR))
				return PICARD_OK;
			err = too_slow(t, &p, &slow);
			if (err || slow)
				return err;
		}
		if (!p.meets)
			return PICARD_OK;
		*best = p;
		/* even the h twice as large could not win: no bisection */
		err = too_slow(t, &p, &slow);
		if (err)
			return err;
		if (too_costly(t, p.windows / 2, K, TUNE_WIN_FACTOR) || slow) {
			best->meets = false;
			return PICARD_OK;
		}
		/* bisect on log h between the last failure and the pass */
		for (int b = 0; h_fail > 0 && b < TUNE_BISECTIONS; b++) {
			err = measure_error(t, m, K, sqrt(best->h * h_fail), &p);
			if (err)
				return err;
			if (p.meets)
				*best = p;
			else
				h_fail = p.h;
		}
		err = confirm(t, m, K, best, &confirmed);
		if (err)
			return err;
		if (!confirmed) { /* not monotone here: go on below */
			best->meets = false;
			h_fail = best->h;
			h = best->h / 2;
		}
	}
	return PICARD_OK;
}

/* Whether the search tries the K-th candidate at m: windows in flight only
 * on the GPU and for an ensemble too small to fill it, where the CPU or a
 * full device would spend their work in vain. */
static bool searches_candidate(const struct tuner *t, int m, int K)
{
	const picard_options o = point_options(t, m, K, 1, point_rtol(t, K));

	return !(picard_scheme_of(t->opt.scheme)->windows_in_flight && o.block > 1) ||
	       (t->backend == PICARD_BACKEND_CUDA && t->opt.ntraj <= TUNE_IN_FLIGHT_MAX_TRAJ);
}

/* Evaluate every K for one m; the fastest into result->per_m[slot]. */
static int tune_m(struct tuner *t, int m, int slot)
{
	picard_tune_result *res = t->result;
	picard_tune_point *per_m = &res->per_m[slot];
	int err;

	/* K numbers the scheme's candidates: sweeps, or lobatto's tolerances */
	const int kmax = picard_scheme_of(t->opt.scheme)->tune_candidates(t->opt.kmax);

	*per_m = (picard_tune_point){.scheme = t->opt.scheme, .m = m, .error = INFINITY};
	t->m_error = INFINITY;
	t->m_points = 0;
	for (int K = 1; K <= kmax; K++) {
		picard_tune_point p;

		if (!searches_candidate(t, m, K))
			continue;
		err = search_h(t, m, K, &p);
		if (err == PICARD_EBLOCK || err == PICARD_ESHMEM)
			return PICARD_OK; /* this m does not fit the device */
		if (err)
			return err;
		if (!p.meets)
			continue;
		err = time_point(t, &p);
		/* the sample met E*, a trajectory outside it failed (near the
		 * convergence boundary): a few steps of smaller h */
		for (int retry = 0; !err && !p.meets && p.scaled_error <= TUNE_MARGIN &&
				    retry < TUNE_ENSEMBLE_RETRIES; retry++) {
			err = measure_error(t, m, K, p.h * TUNE_ENSEMBLE_SHRINK, &p);
			if (!err && p.meets)
				err = time_point(t, &p);
		}
		if (err)
			return err;
		if (p.meets && (!per_m->meets || picard_tune_faster(&p, per_m)))
			*per_m = p;
		if (p.meets && (!res->best.meets || picard_tune_faster(&p, &res->best)))
			res->best = p;
	}
	return PICARD_OK;
}

/* tune_m, then what it found for the progress: per_m's error, where
 * nothing met E*, is the smallest E reached at m. A search stopped by the
 * time allowed reports the m it was in with what it had found, and counts
 * it among the m tried (result->nm) when a point of it was measured. */
static int tune_candidate(struct tuner *t, int m, int slot)
{
	picard_tune_point *per_m = &t->result->per_m[slot];
	int err = tune_m(t, m, slot);

	if (!per_m->meets)
		per_m->error = t->m_error;
	if (err == TUNE_STOPPED && !t->m_points)
		return err;
	t->result->nm = slot + 1;
	if ((!err || err == TUNE_STOPPED) && t->opt.on_candidate)
		t->opt.on_candidate(per_m, t->opt.ctx);
	return err;
}

bool picard_tune_faster(const picard_tune_point *p, const picard_tune_point *best)
{
	return p->seconds < TUNE_SWITCH_MARGIN * best->seconds;
}

bool picard_tune_closer(const picard_tune_point *p, const picard_tune_point *q)
{
	return p->sample_meeting > q->sample_meeting ||
	       (p->sample_meeting == q->sample_meeting && p->scaled_error < q->scaled_error);
}

/* Mark row as sampled unless it is already; true when it was added. */
static bool sample_add(struct tuner *t, long row, long *count)
{
	for (long j = 0; j < *count; j++)
		if (t->sample_index[j] == row)
			return false;
	t->sample_index[(*count)++] = row;
	return true;
}

/* The rows of the caller's ensemble to sample: all when it is no larger
 * than the sample; else the rows holding the smallest and the largest
 * value of every column (states, then parameters: the hard members of a
 * sweep are at its ends), then rows evenly spaced, until it is full. */
static void sample_rows(struct tuner *t, const double *x0, const double *params, long rows)
{
	const int n = t->model->dim, np = params ? t->model->nparams : 0;
	long count = 0;

	if (rows <= t->opt.sample) {
		t->opt.sample = rows;
		for (long i = 0; i < rows; i++)
			t->sample_index[i] = i;
		return;
	}
	for (int c = 0; c < n + np && count < t->opt.sample; c++) {
		const double *col = c < n ? x0 + c : params + (c - n);
		const int stride = c < n ? n : np;
		long lo = 0, hi = 0;

		for (long i = 1; i < rows; i++) {
			if (col[i * stride] < col[lo * stride])
				lo = i;
			if (col[i * stride] > col[hi * stride])
				hi = i;
		}
		sample_add(t, lo, &count);
		if (count < t->opt.sample)
			sample_add(t, hi, &count);
	}
	/* evenly spaced rows fill the rest, then any rows not yet taken */
	for (long k = 0; k < t->opt.sample && count < t->opt.sample; k++)
		sample_add(t, k * rows / t->opt.sample, &count);
	for (long i = 0; i < rows && count < t->opt.sample; i++)
		sample_add(t, i, &count);
}

/* picard-tune's own ensemble: the sample evenly spaced in it, as before
 * the ensemble could be the caller's. */
static void sample_spaced(struct tuner *t)
{
	const long stride = t->opt.ntraj / t->opt.sample;

	for (long i = 0; i < t->opt.sample; i++)
		t->sample_index[i] = i * stride;
}

/* The ensemble tuned on: the caller's (its first ntraj rows timed, cycled
 * when it has fewer), or spread around the model's start; and the sample. */
static int tune_ensemble(struct tuner *t)
{
	const int n = t->model->dim, np = t->model->nparams;
	const long rows = t->opt.x0 ? t->opt.nstates : t->opt.ntraj;
	const bool with_params = t->opt.x0 && t->opt.params && np > 0;
	const double *x0;
	int err = PICARD_OK;

	t->x0 = malloc(t->opt.ntraj * n * sizeof(double));
	t->sample_x0 = malloc(t->opt.sample * n * sizeof(double));
	t->sample_index = malloc(t->opt.sample * sizeof(long));
	if (with_params) {
		t->params = malloc(t->opt.ntraj * np * sizeof(double));
		t->sample_params = malloc(t->opt.sample * np * sizeof(double));
	}
	if (!t->x0 || !t->sample_x0 || !t->sample_index ||
	    (with_params && (!t->params || !t->sample_params)))
		return picard_fail(PICARD_ENOMEM, "ensemble of %ld", t->opt.ntraj);
	if (t->opt.x0) {
		for (long i = 0; i < t->opt.ntraj; i++) {
			memcpy(t->x0 + i * n, t->opt.x0 + (i % rows) * n, n * sizeof(double));
			if (with_params)
				memcpy(t->params + i * np, t->opt.params + (i % rows) * np,
				       np * sizeof(double));
		}
		x0 = t->opt.x0;
	} else {
		err = picard_ensemble_spread(n, t->model->x0, t->opt.ntraj, t->opt.spread,
					     t->opt.seed, t->opt.backend, t->x0);
		x0 = t->x0;
	}
	if (err)
		return err;
	if (t->opt.x0)
		sample_rows(t, x0, with_params ? t->opt.params : NULL, rows);
	else
		sample_spaced(t);
	for (long j = 0; j < t->opt.sample; j++) {
		memcpy(t->sample_x0 + j * n, x0 + t->sample_index[j] * n, n * sizeof(double));
		if (with_params)
			memcpy(t->sample_params + j * np, t->opt.params + t->sample_index[j] * np,
			       np * sizeof(double));
	}
	return PICARD_OK;
}

/* The timed ensemble made of the sample's rows, cycled: a member left out
 * of the sample because it blows up would fail every timed solve. */
static void time_on_sample(struct tuner *t)
{
	const int n = t->model->dim, np = t->model->nparams;

	for (long i = 0; i < t->opt.ntraj; i++) {
		const long j = i % t->opt.sample;

		memcpy(t->x0 + i * n, t->sample_x0 + j * n, n * sizeof(double));
		if (t->params)
			memcpy(t->params + i * np, t->sample_params + j * np, np * sizeof(double));
	}
}

/* Keep the sample rows j with drop[j] == 0, in order; returns how many
 * (t->opt.sample is the caller's to set). */
static long keep_sample_rows(struct tuner *t, const char *drop)
{
	const int n = t->model->dim, np = t->model->nparams;
	long kept = 0;

	for (long j = 0; j < t->opt.sample; j++) {
		if (drop[j])
			continue;
		memmove(t->sample_x0 + kept * n, t->sample_x0 + j * n, n * sizeof(double));
		if (t->sample_params)
			memmove(t->sample_params + kept * np, t->sample_params + j * np,
				np * sizeof(double));
		t->sample_index[kept++] = t->sample_index[j];
	}
	return kept;
}

/* Drop the sample rows whose reference fails (a member that blows up
 * inside the span: no configuration is tuned for it, and the run reports
 * it as that member's failure). PICARD_EREF, naming the first, when none
 * is left. */
static int screen_sample(struct tuner *t)
{
	const int n = t->model->dim, np = t->model->nparams;
	char *failed = calloc(t->opt.sample, 1);
	long kept = 0, first = -1, stiff = 0;
	char detail[320] = "";

	if (!failed)
		return picard_fail(PICARD_ENOMEM, "tune: sample of %ld", t->opt.sample);
#pragma omp parallel for schedule(dynamic, 1)
	for (long j = 0; j < t->opt.sample; j++) {
		double *end = malloc(n * sizeof(double));
		bool is_stiff = false;

		struct ref_events ev = {.capacity = 0};
		const double *params = t->sample_params ? t->sample_params + j * np : NULL;

		/* a model with events: its reference follows them (counted,
		 * none kept) */
		failed[j] = !end || (t->model->events ?
				     picard_reference_events(t->model, params, t->sample_x0 + j * n,
							     t->opt.t0, t->opt.t1, &t->opt.t1, 1,
							     REF_TOL, t->sample_index[j], end, &ev) :
				     picard_reference_tol_stiff(t->model, params, t->sample_x0 + j * n,
								t->opt.t0, &t->opt.t1, 1, REF_TOL,
								t->sample_index[j], end,
								&is_stiff)) != PICARD_OK;
		if (is_stiff) {
#pragma omp atomic
			stiff++;
		}
		if (failed[j]) {
#pragma omp critical
			if (first < 0 || j < first) {
				first = j;
				snprintf(detail, sizeof(detail), "%s", picard_error_detail());
			}
		}
		free(end);
	}
	kept = keep_sample_rows(t, failed);
	t->result->sample_dropped = t->opt.sample - kept;
	t->result->sample_stiff = stiff;
	free(failed);
	if (!kept)
		return picard_fail(PICARD_EREF, "%s; no sampled member is left to tune on", detail);
	t->opt.sample = kept;
	if (t->result->sample_dropped && t->opt.x0)
		time_on_sample(t);
	return PICARD_OK;
}

/* Leave out of the sample the members whose dense reference cannot tell
 * E* (its own error, at least tol, is what every E against it would
 * show), as long as one is left: the run judges them by their own error
 * estimate, member by member, as it does every member outside the
 * sample. When none is left, the search goes on over all and refuses
 * naming the reference's error. */
static int screen_unverifiable(struct tuner *t)
{
	char *unverifiable = calloc(t->opt.sample, 1);
	long count = 0;

	if (!unverifiable)
		return picard_fail(PICARD_ENOMEM, "tune: sample of %ld", t->opt.sample);
	for (long j = 0; j < t->opt.sample; j++) {
		unverifiable[j] = !(t->ref.traj[j].interp_error < t->opt.tol);
		count += unverifiable[j];
	}
	if (count && count < t->opt.sample) {
		dense_reference_keep(&t->ref, unverifiable);
		t->opt.sample = keep_sample_rows(t, unverifiable);
		t->result->sample_unverified = count;
	}
	free(unverifiable);
	return PICARD_OK;
}

/* The dense reference's interpolation error allowed: TUNE_REF_SHARE of
 * the tolerance at the sample's smallest scale (atol + rtol |x0|). */
static double reference_target(const struct tuner *t)
{
	const int n = t->model->dim;
	double smallest = INFINITY;

	for (long i = 0; i < t->opt.sample * n; i++)
		smallest = fmin(smallest, t->opt.tol + t->opt.rtol * fabs(t->sample_x0[i]));
	return TUNE_REF_SHARE * (smallest > 0 ? smallest : t->opt.tol + t->opt.rtol);
}

int picard_tune(const picard_model *model, const picard_tune_options *options,
		picard_tune_result *result)
{
	struct tuner t = {.model = model, .result = result};
	int err;

	clock_gettime(CLOCK_MONOTONIC, &t.start);
	if (!model || !options || !result)
		return picard_fail(PICARD_EINVAL, "picard_tune: NULL argument");
	memset(result, 0, sizeof(*result));
	result->best_error = INFINITY;
	result->refused_error = INFINITY;
	result->best.error = INFINITY;
	result->closest.error = result->closest.scaled_error = INFINITY;
	err = tune_defaults(model, options, &t.opt);
	if (err)
		return err;
	t.backend = t.opt.backend != PICARD_BACKEND_AUTO ? t.opt.backend :
		    picard_cuda_available() ? PICARD_BACKEND_CUDA : PICARD_BACKEND_CPU;
	err = tune_ensemble(&t);
	/* before the reference and the search: a tolerance below the
	 * precision's floor would tighten both without end */
	if (!err)
		err = picard_tolerance_check_ensemble(&(picard_tolerance){.atol = t.opt.tol,
									  .rtol = t.opt.rtol},
						      t.opt.precision, t.x0, t.opt.ntraj, model->dim);
	if (!err)
		err = screen_sample(&t);
	/* a model with events is judged by picard_check_each (measure_events),
	 * whose reference locates them: no dense reference across its jumps */
	if (!err && !model->events)
		err = dense_reference_build(&t.ref, model, t.sample_x0, t.sample_params,
					    t.opt.sample, t.sample_index, t.opt.t0, t.opt.t1,
					    reference_target(&t));
	if (!err && !model->events)
		err = screen_unverifiable(&t);
	result->reference_error = model->events ? REF_TOL : t.ref.interp_error;
	for (int i = 0; !err && i < t.opt.nms; i++) {
		err = tune_candidate(&t, t.opt.ms[i], i);
	}
	if (err == TUNE_STOPPED) {
		result->stopped = true;
		err = PICARD_OK;
	}
	if (!err && !result->best.meets)
		err = picard_fail(PICARD_ENOTFOUND, "no (m, K, h) meets atol %g, rtol %g (with its %g margin); the best E reached was %g",
				  t.opt.tol, t.opt.rtol, TUNE_MARGIN, result->best_error);
	dense_reference_free(&t.ref);
	free(t.x0);
	free(t.params);
	free(t.sample_x0);
	free(t.sample_params);
	free(t.sample_index);
	return err;
}

/* ---- what the searches compile, compiled first ------------------------------- */

/* Distinct names. */
struct name_list {
	char **names;
	int count, cap;
};

static int name_add(struct name_list *l, const char *name)
{
	for (int i = 0; i < l->count; i++)
		if (strcmp(l->names[i], name) == 0)
			return PICARD_OK;
	if (l->count == l->cap) {
		const int cap = 2 * l->cap + 16;
		char **grown = realloc(l->names, cap * sizeof(*grown));

		if (!grown)
			return picard_fail(PICARD_ENOMEM, "tune: a list of %d names", cap);
		l->names = grown;
		l->cap = cap;
	}
	if (!(l->names[l->count] = strdup(name)))
		return picard_fail(PICARD_ENOMEM, "tune: a name");
	l->count++;
	return PICARD_OK;
}

static void name_list_free(struct name_list *l)
{
	for (int i = 0; i < l->count; i++)
		free(l->names[i]);
	free(l->names);
}

/* The kernels a search solves with on the CUDA backend: each m and K
 * candidate on the sample (the solver's own layout), and on the timed
 * ensemble under each layout the search costs. h does not change the
 * instance. A shape the scheme or the device does not have is left for
 * the search to find out. */
static int search_kernels(const struct tuner *t, struct name_list *kernels)
{
	const picard_scheme_type *scheme = picard_scheme_of(t->opt.scheme);
	const int kmax = scheme->tune_candidates(t->opt.kmax);
	const double span = t->opt.t1 - t->opt.t0;
	int nlayouts, err = PICARD_OK;
	const picard_layout *layouts = search_layouts(t, &nlayouts);

	for (int i = 0; !err && i < t->opt.nms; i++)
		for (int K = 1; !err && K <= kmax; K++)
			for (int l = -1; !err && searches_candidate(t, t->opt.ms[i], K) &&
					 l < nlayouts; l++) {
				const int m = t->opt.ms[i];
				picard_options o = point_options(t, m, K, span / (m - 1),
								 point_rtol(t, K));
				char name[256];

				if (!layout_fits(t, l < 0 ? PICARD_LAYOUT_AUTO : layouts[l], m,
						 o.block))
					continue;
				o.layout = l < 0 ? PICARD_LAYOUT_AUTO : layouts[l];
				if (picard_solver_kernel_name(t->model, &o,
							      l < 0 ? t->opt.sample : t->opt.ntraj,
							      name, sizeof(name)) == PICARD_OK)
					err = name_add(kernels, name);
			}
	return err;
}

/* What picard_tune_prepare_start left compiling. */
struct picard_tune_prepared {
	const picard_model *model;
	struct name_list kernels;
	pthread_t thread;
	bool threaded;
	volatile int stop;  /* the search is done: start no more */
	int err;
	char detail[8192];  /* err's message, from the thread that had it */
};

/* The background compilation: one thread fewer than the cores, so that
 * the search that started it keeps one. */
static void *compile_kernels(void *arg)
{
	struct picard_tune_prepared *p = arg;
	const int procs = omp_get_num_procs();

	omp_set_num_threads(procs > 1 ? procs - 1 : 1);
	p->err = picard_jit_precompile_until(p->model, (const char *const *)p->kernels.names,
					     p->kernels.count, &p->stop);
	if (p->err)
		snprintf(p->detail, sizeof(p->detail), "%s", picard_error_detail());
	return NULL;
}

int picard_tune_prepare_start(const picard_model *model, const picard_tune_options *searches,
			      int n, int *prepared, struct picard_tune_prepared **out)
{
	struct picard_tune_prepared *p = calloc(1, sizeof(*p));
	struct name_list tableaus = {0};
	int err = PICARD_OK;

	*out = NULL;
	if (prepared)
		*prepared = 0;
	if (!p)
		return picard_fail(PICARD_ENOMEM, "picard_tune_prepare");
	if (!model || (n > 0 && !searches)) {
		free(p);
		return picard_fail(PICARD_EINVAL, "picard_tune_prepare: NULL argument");
	}
	p->model = model;
	for (int i = 0; !err && i < n; i++) {
		struct tuner t = {.model = model};
		const picard_scheme_type *scheme;

		err = tune_defaults(model, &searches[i], &t.opt);
		if (err)
			break;
		scheme = picard_scheme_of(t.opt.scheme);
		t.backend = t.opt.backend != PICARD_BACKEND_AUTO ? t.opt.backend :
			    picard_cuda_available() && scheme->cuda && model->impl &&
			    model->impl->source ? PICARD_BACKEND_CUDA : PICARD_BACKEND_CPU;
		if (t.backend == PICARD_BACKEND_CUDA)
			err = search_kernels(&t, &p->kernels);
		else if (scheme->tableau)
			err = name_add(&tableaus, scheme->tableau);
	}
	if (!err && tableaus.count)
		err = picard_model_prepare_rk_hosts(model, (const char *const *)tableaus.names,
						    tableaus.count);
	if (prepared)
		*prepared = p->kernels.count + tableaus.count;
	name_list_free(&tableaus);
	if (!err && p->kernels.count)
		p->threaded = pthread_create(&p->thread, NULL, compile_kernels, p) == 0;
	if (!err && p->kernels.count && !p->threaded)
		compile_kernels(p);
	*out = p;
	return err;
}

int picard_tune_prepare_finish(struct picard_tune_prepared *p)
{
	int err;

	if (!p)
		return PICARD_OK;
	p->stop = 1;
	if (p->threaded)
		pthread_join(p->thread, NULL);
	err = p->err ? picard_fail(p->err, "compiling the candidates' kernels: %s", p->detail) :
		       PICARD_OK;
	name_list_free(&p->kernels);
	free(p);
	return err;
}

int picard_tune_prepare(const picard_model *model, const picard_tune_options *searches, int n,
			int *prepared)
{
	struct picard_tune_prepared *p;
	int err = picard_tune_prepare_start(model, searches, n, prepared, &p);

	if (p && p->threaded) /* all of it compiled: wait, not stop */
		pthread_join(p->thread, NULL), p->threaded = false;
	int err_finish = picard_tune_prepare_finish(p);

	return err ? err : err_finish;
}
