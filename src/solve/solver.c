/* solver.c - picard_solver: checks options, fits the grid to the time span,
 * picks the backend, and runs picard_solve on it. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "dense_output.h"
#include "errors.h"
#include "tolerance.h"
#include "launch.h"
#include "lobatto.h"
#include "device_counts.h"
#include "model_impl.h"
#include "scheme.h"
#include "solver.h"

#define DEFAULT_BOUND 1e12

struct picard_solver {
	const picard_model *model;  /* what is integrated */
	picard_grid grid;           /* fitted discretisation */
	picard_precision precision; /* arithmetic of the sweeps */
	picard_backend backend;     /* CUDA or CPU, never AUTO */
	double bound;               /* divergence bound on |x| */
	long ntraj;                 /* ensemble size: what choices go by */
	long batch;                 /* trajectories one solve holds (ntraj,
				       or options.batch) */
	struct picard_cuda_solver *cuda; /* device side, CUDA backend only */
	char device[128];           /* name for the summary */
	long *sweeps;               /* per trajectory, of the last solve */
	int *sweeps_max;            /* per trajectory, of the last solve */
	picard_traj_status *status; /* per trajectory, when the caller passes
				       none (allocated once, not per solve) */
	long *fail_window;          /* likewise */
	double *fail_time;          /* 2 per trajectory, of the last solve
				       (picard_solver_fail_times) */
	struct picard_solve_companion companion; /* what runs beside each
				       solve (the error estimate), or all
				       NULL (picard_solver_attach) */
	double *drawn_x0, *drawn_params; /* CPU backend: a batch drawn here
				       (picard_solve_drawn), made on first use */
	struct picard_event_store events; /* a model with events: the log's
				       arrays, batch members (else all NULL) */
	picard_event_log event_log; /* their view of the last solve */
	double *span_t0, *span_t1;  /* span_count members' own spans
				       (picard_solver_set_spans), or NULL */
	long span_count;
};

static const char *const layout_names[] = { "auto", "paper", "warp", "thread" };
static const char *const scan_names[] = { "auto", "parallel", "serial" };

const char *picard_layout_name(picard_layout layout)
{
	return layout >= PICARD_LAYOUT_AUTO && layout <= PICARD_LAYOUT_THREAD ?
		layout_names[layout] : NULL;
}

int picard_layout_parse(const char *name)
{
	for (int i = 0; name && i <= PICARD_LAYOUT_THREAD; i++)
		if (strcmp(name, layout_names[i]) == 0)
			return i;
	return -1;
}

const char *picard_scan_name(picard_scan scan)
{
	return scan >= PICARD_SCAN_AUTO && scan <= PICARD_SCAN_SERIAL ? scan_names[scan] : NULL;
}

/* The layout options: known values, and m and the block within what the
 * layout can run (checked here, for every backend, so a request that a GPU
 * would refuse is refused alike without one). */
static int check_layout(const picard_options *o)
{
	const picard_scheme_type *scheme = picard_scheme_of(o->scheme);
	int lanes = 1, max_m, err;

	if (!picard_layout_name(o->layout))
		return picard_fail(PICARD_EINVAL, "layout %d unknown (auto, paper, warp or thread)",
				   (int)o->layout);
	if (!picard_scan_name(o->scan))
		return picard_fail(PICARD_EINVAL, "scan %d unknown (auto, parallel or serial)",
				   (int)o->scan);
	if (o->traj_per_block < 0)
		return picard_fail(PICARD_EINVAL, "traj_per_block = %d: must be >= 0 (0: the layout's default)",
				   o->traj_per_block);
	err = scheme->check_layout(o);
	if (err)
		return err;
	max_m = scheme->layout_max_m(o->layout);
	if (max_m && o->m > max_m)
		return picard_fail(PICARD_EINVAL, "%s %s layout with m = %d: it holds a window's nodes in %s, at most m = %d (auto picks a layout that holds them)",
				   scheme->name, layout_names[o->layout], o->m,
				   o->layout == PICARD_LAYOUT_WARP ? "the lanes of a warp" : "one thread's registers",
				   max_m);
	if (o->scan != PICARD_SCAN_AUTO && o->layout != PICARD_LAYOUT_WARP &&
	    o->layout != PICARD_LAYOUT_AUTO)
		return picard_fail(PICARD_EINVAL, "scan %s: only the warp layout has a choice of scan (layout %s)",
				   scan_names[o->scan], layout_names[o->layout]);
	if (o->traj_per_block && o->layout == PICARD_LAYOUT_PAPER)
		return picard_fail(PICARD_EINVAL, "traj_per_block = %d: the paper layout runs one trajectory per block",
				   o->traj_per_block);
	if (o->layout == PICARD_LAYOUT_WARP)
		while (lanes < o->m)
			lanes <<= 1;
	if (o->traj_per_block > PICARD_MAX_BLOCK_THREADS / lanes)
		return picard_fail(PICARD_EBLOCK, "traj_per_block = %d with %d thread%s each: over %d threads per block",
				   o->traj_per_block, lanes, lanes > 1 ? "s" : "", PICARD_MAX_BLOCK_THREADS);
	return PICARD_OK;
}

static bool locates_events(const picard_scheme_type *scheme)
{
	return scheme->locates_events;
}

/* A model with events: the schemes that locate them (their tables'
 * locates_events): the per-thread schemes in one thread's layout,
 * src/schemes/events_step.cuh, on either backend, the kernels writing
 * the log: device_events.c; lobatto and the trapezoid on the CPU backend
 * alone, src/schemes/host_events.c. Without the error estimate (its
 * companion's window ends after a terminal event are not the solve's);
 * event_log entries per member, 0: min(limit, 16). A model without
 * events must leave event_log 0. */
static int resolve_events(const picard_model *model, picard_options *o)
{
	const picard_events *ev = model->events;
	const picard_scheme_type *scheme = picard_scheme_of(o->scheme);
	char names[256];

	if (!ev) {
		if (o->event_log)
			return picard_fail(PICARD_EINVAL, "event_log = %d: model %s has no events",
					   o->event_log, model->name);
		return PICARD_OK;
	}
	if (!scheme->locates_events)
		return picard_fail(PICARD_EINVAL, "model %s has events: the %s scheme does not "
				   "locate them yet (%s do)", model->name, scheme->name,
				   picard_scheme_names_if(names, sizeof(names), locates_events));
	if (o->backend == PICARD_BACKEND_CUDA && scheme->events_cpu_only)
		return picard_fail(PICARD_EINVAL, "model %s has events: the %s scheme locates them "
				   "on the CPU backend alone (backend cpu or auto runs it there)",
				   model->name, scheme->name);
	if (o->layout == PICARD_LAYOUT_WARP)
		return picard_fail(PICARD_EINVAL, "layout warp: model %s has events, which %s does "
				   "not locate in the warp layout yet (layout thread does)",
				   model->name, scheme->name);
	if (o->estimate_error)
		return picard_fail(PICARD_EINVAL, "model %s has events: no error estimate (its "
				   "companion solve's window ends after a terminal event, and its "
				   "event times, are not compared); check the events against the "
				   "reference instead (picard_check_each with the event log)",
				   model->name);
	if (o->event_log < 0)
		return picard_fail(PICARD_EINVAL, "event_log = %d: entries per member, >= 0 (0: "
				   "the model's limit, at most 16)", o->event_log);
	if (o->event_log == 0)
		o->event_log = ev->limit < 16 ? ev->limit : 16;
	if (o->event_log > ev->limit)
		o->event_log = ev->limit; /* a member has no more */
	return PICARD_OK;
}

/* Fill defaults and check every option; a clear detail for each refusal. */
static int resolve_options(const picard_model *model, const picard_options *in,
			   picard_options *out)
{
	const picard_scheme_type *scheme = picard_scheme_of(in->scheme);
	char names[256];
	int err;

	*out = *in;
	if (!scheme)
		return picard_fail(PICARD_EINVAL, "scheme %d unknown (%s)", (int)in->scheme,
				   picard_scheme_names(names, sizeof(names)));
	if (out->K_max && out->K)
		return picard_fail(PICARD_EINVAL, "K = %d and K_max = %d: a fixed K or an adaptive K_max, not both",
				   out->K, out->K_max);
	if (out->K_max < 0)
		return picard_fail(PICARD_EINVAL, "K_max = %d: at least one sweep per window", out->K_max);
	if (out->t0 == 0 && out->t1 == 0) {
		out->t0 = model->t0;
		out->t1 = model->t1;
	}
	if (!isfinite(out->t0) || !isfinite(out->t1) || out->t1 <= out->t0)
		return picard_fail(PICARD_EINVAL, "time span [%g, %g]: need finite t0 < t1", out->t0, out->t1);
	if (out->block && !scheme->takes_block && !scheme->windows_in_flight)
		return picard_fail(PICARD_EINVAL, "block = %d: the %s scheme solves one window after "
				   "the other (block is the newton schemes' and lobatto's)", out->block,
				   scheme->name);
	if (out->block < 0)
		return picard_fail(PICARD_EINVAL, "block = %d: at least one window", out->block);
	if (!scheme->takes_linsolve && (out->linsolve || out->precond || out->linsolve_rtol ||
					out->linsolve_maxit))
		return picard_fail(PICARD_EINVAL, "linsolve = %s, precond = %s, linsolve_rtol = %g, "
				   "linsolve_maxit = %d: the %s scheme solves no linear systems (the "
				   "imex schemes do)", picard_linsolver_name(out->linsolve) ?
				   picard_linsolver_name(out->linsolve) : "?",
				   picard_preconditioner_name(out->precond) ?
				   picard_preconditioner_name(out->precond) : "?", out->linsolve_rtol,
				   out->linsolve_maxit, scheme->name);
	err = resolve_events(model, out);
	if (err)
		return err;
	err = scheme->resolve(model, out);
	if (err)
		return err;
	err = picard_iteration_check("iter_rtol", out->iter_rtol, out->precision);
	if (err)
		return err;
	if (out->iter_atol == 0)
		out->iter_atol = model->default_atol > 0 ? model->default_atol : out->iter_rtol;
	if (!(out->iter_rtol >= 0) || !(out->iter_atol > 0) || !isfinite(out->iter_rtol) ||
	    !isfinite(out->iter_atol))
		return picard_fail(PICARD_EINVAL, "iteration tolerances rtol %g, atol %g: need rtol >= 0, atol > 0",
				   out->iter_rtol, out->iter_atol);
	if (out->bound == 0)
		out->bound = DEFAULT_BOUND;
	if (out->m < 2)
		return picard_fail(PICARD_EINVAL, "m = %d: a window needs at least 2 nodes", out->m);
	if (!out->K_max && out->K < 1)
		return picard_fail(PICARD_EINVAL, "K = %d: at least one sweep per window", out->K);
	if (!isfinite(out->h) || out->h <= 0)
		return picard_fail(PICARD_EINVAL, "h = %g: must be finite and > 0", out->h);
	if (!(out->bound > 0))
		return picard_fail(PICARD_EINVAL, "bound = %g: must be > 0", out->bound);
	if (out->max_work == 0)
		out->max_work = PICARD_MAX_WORK_DEFAULT;
	if (!(out->max_work > 0))
		return picard_fail(PICARD_EINVAL, "max_work = %g: must be > 0 (0: the default, %g)",
				   out->max_work, PICARD_MAX_WORK_DEFAULT);
	if (out->precision != PICARD_FLOAT && out->precision != PICARD_DOUBLE)
		return picard_fail(PICARD_EINVAL, "precision %d unknown", (int)out->precision);
	if (out->backend < PICARD_BACKEND_AUTO || out->backend > PICARD_BACKEND_CPU)
		return picard_fail(PICARD_EINVAL, "backend %d unknown", (int)out->backend);
	if (!(out->error_scale.atol >= 0) || !(out->error_scale.rtol >= 0) ||
	    !isfinite(out->error_scale.atol) || !isfinite(out->error_scale.rtol))
		return picard_fail(PICARD_EINVAL, "error scale atol %g, rtol %g: need finite values >= 0",
				   out->error_scale.atol, out->error_scale.rtol);
	return check_layout(out);
}

/* Whole windows from t0 to t1: stp = ceil(span / ((m-1) h)), then h shrunk
 * so the last window ends at t1 exactly (up to rounding). */
static int fit_grid(const picard_options *o, picard_grid *g)
{
	double span = o->t1 - o->t0;
	double windows = ceil(span / ((o->m - 1) * o->h) * (1 - 1e-12));

	if (!(windows <= 1e15))
		return picard_fail(PICARD_EINVAL, "h = %g over [%g, %g] makes %g windows",
				   o->h, o->t0, o->t1, windows);
	g->scheme = o->scheme;
	g->m = o->m;
	g->adaptive = o->K_max > 0;
	g->warm_start = o->warm_start;
	g->K = g->adaptive ? o->K_max : o->K;
	g->iter_rtol = o->iter_rtol;
	g->iter_atol = o->iter_atol;
	g->t0 = o->t0;
	g->t1 = o->t1;
	g->windows = windows < 1 ? 1 : (long)windows;
	g->h = span / ((double)g->windows * (o->m - 1));
	/* as asked; the CUDA backend settles them */
	g->layout = o->layout;
	g->traj_per_block = o->traj_per_block;
	g->scan = o->scan;
	g->window = span / (double)g->windows;
	g->block = o->block > g->windows ? (int)g->windows : o->block;
	g->linsolve = o->linsolve;
	g->precond = o->precond;
	g->linsolve_rtol = o->linsolve_rtol;
	g->linsolve_maxit = o->linsolve_maxit;
	return PICARD_OK;
}

/* Right-hand sides a sweep (a step, an iteration) of a window of m nodes
 * evaluates under scheme type. */
static int rhs_per_sweep(const picard_scheme_type *type, int m)
{
	return type->rhs_per_sweep ? type->rhs_per_sweep :
	       type->rhs_per_step ? type->rhs_per_step * (m - 1) : m;
}

/* The work grid g fixes, windows x K x right-hand sides per sweep x dim
 * per trajectory, within o's max_work: refused before any work, as CVODE's
 * mxstep and GSL's driver nmax bound theirs. An adaptive per-thread pair's
 * K_max bounds its steps per trajectory instead (MAX_STEPS). */
static int check_work(const picard_model *model, const picard_options *o, const picard_grid *g)
{
	const picard_scheme_type *type = picard_scheme_of(g->scheme);
	const int per_sweep = rhs_per_sweep(type, g->m);
	const double work = (double)g->windows * g->K * per_sweep * model->dim;

	if ((g->adaptive && type->steps_per_span) || work <= o->max_work)
		return PICARD_OK;
	return picard_fail(PICARD_EWORK, "%ld windows x %s %d x %d right-hand sides x dim %d = "
			   "%.3g evaluations per trajectory, over the work limit max_work = %.3g",
			   g->windows, g->adaptive ? "K_max" : "K", g->K, per_sweep, model->dim,
			   work, o->max_work);
}

/* The event log's arrays for a model with events, capacity entries per
 * member of a batch; nothing for one without. */
static int make_event_store(picard_solver *s, int capacity)
{
	struct picard_event_store *e = &s->events;
	const size_t entries = (size_t)s->batch * (size_t)capacity;
	const size_t dim = (size_t)s->model->dim;

	if (!s->model->events)
		return PICARD_OK;
	e->capacity = capacity;
	e->count = calloc((size_t)s->batch, sizeof(*e->count));
	e->index = malloc((entries ? entries : 1) * sizeof(*e->index));
	e->time = malloc((entries ? entries : 1) * sizeof(*e->time));
	e->before = malloc((entries ? entries : 1) * dim * sizeof(*e->before));
	e->after = malloc((entries ? entries : 1) * dim * sizeof(*e->after));
	if (!e->count || !e->index || !e->time || !e->before || !e->after)
		return picard_fail(PICARD_ENOMEM, "event log: %d entries for each of %ld members",
				   capacity, s->batch);
	s->event_log = (picard_event_log){
		.ntraj = 0, .dim = s->model->dim, .capacity = capacity, .count = e->count,
		.index = e->index, .time = e->time, .before = e->before, .after = e->after,
	};
	return PICARD_OK;
}

static void free_event_store(struct picard_event_store *e)
{
	free(e->count);
	free(e->index);
	free(e->time);
	free(e->before);
	free(e->after);
}

const picard_event_log *picard_solver_event_log(const picard_solver *s)
{
	return s->model->events ? &s->event_log : NULL;
}

int picard_solver_create_plain(picard_solver **out, const picard_model *model,
			       const picard_options *options, long ntraj, picard_options *resolved)
{
	picard_options opt;
	picard_solver *s;
	int err;

	if (!out || !model)
		return picard_fail(PICARD_EINVAL, "solver: no model");
	*out = NULL;
	if (ntraj < 1)
		return picard_fail(PICARD_EINVAL, "%ld trajectories: need at least one", ntraj);
	if (options && options->batch < 0)
		return picard_fail(PICARD_EINVAL, "batch = %ld: must be >= 0 (0: all %ld at once)",
				   options->batch, ntraj);
	err = resolve_options(model, options, &opt);
	if (err)
		return err;
	/* a scheme without a CUDA side, a model without the text its
	 * kernels are compiled from (one built in C), or one with events a
	 * scheme locates on the CPU alone, runs on the CPU when the backend
	 * is the solver's to choose */
	if (opt.backend == PICARD_BACKEND_AUTO)
		opt.backend = picard_scheme_of(opt.scheme)->cuda && model->impl &&
			!(model->events && picard_scheme_of(opt.scheme)->events_cpu_only) &&
			model->impl->source && picard_cuda_available() ?
			PICARD_BACKEND_CUDA : PICARD_BACKEND_CPU;
	if (opt.backend == PICARD_BACKEND_CUDA && !picard_scheme_of(opt.scheme)->cuda)
		return picard_fail(PICARD_EINVAL, "backend cuda: the %s scheme has no CUDA side yet "
				   "(backend cpu or auto runs it on the CPU)",
				   picard_scheme_of(opt.scheme)->name);

	s = calloc(1, sizeof(*s));
	if (!s)
		return picard_fail(PICARD_ENOMEM, "solver");
	s->model = model;
	s->precision = opt.precision;
	s->backend = opt.backend;
	s->bound = opt.bound;
	s->ntraj = ntraj;
	s->batch = opt.batch && opt.batch < ntraj ? opt.batch : ntraj;
	err = fit_grid(&opt, &s->grid);
	if (!err)
		err = check_work(model, &opt, &s->grid);
	if (err)
		goto fail;
	if (s->backend == PICARD_BACKEND_CUDA) {
		picard_options_layout layout = {
			.layout = opt.layout, .traj_per_block = opt.traj_per_block,
			.scan = opt.scan,
		};
		err = picard_cuda_create(&s->cuda, model, &s->grid, &layout, s->precision,
					 ntraj, s->batch, opt.device_memory, opt.event_log);
		if (err)
			goto fail;
		err = picard_cuda_device_name(s->device, sizeof(s->device));
		if (err)
			goto fail;
	} else {
		snprintf(s->device, sizeof(s->device), "CPU (%d threads)", omp_get_max_threads());
	}
	/* after the device has accepted the ensemble; sweep counts per
	 * trajectory on the host for the CPU backend alone (the CUDA backend
	 * adds them up on the device) */
	if (s->backend == PICARD_BACKEND_CPU) {
		s->sweeps = malloc(s->batch * sizeof(*s->sweeps));
		s->sweeps_max = malloc(s->batch * sizeof(*s->sweeps_max));
	}
	s->status = malloc(s->batch * sizeof(*s->status));
	s->fail_window = malloc(s->batch * sizeof(*s->fail_window));
	s->fail_time = malloc(2 * s->batch * sizeof(*s->fail_time));
	if ((s->backend == PICARD_BACKEND_CPU && (!s->sweeps || !s->sweeps_max)) || !s->status ||
	    !s->fail_window || !s->fail_time) {
		err = picard_fail(PICARD_ENOMEM, "sweep counts of %ld trajectories", s->batch);
		goto fail;
	}
#pragma omp parallel for
	for (long i = 0; i < 2 * s->batch; i++) /* no solve yet: none failed */
		s->fail_time[i] = NAN;
	err = make_event_store(s, opt.event_log);
	if (err)
		goto fail;
	*out = s;
	*resolved = opt;
	return PICARD_OK;
fail:
	picard_solver_free(s);
	return err;
}

int picard_solver_kernel_name(const picard_model *model, const picard_options *options,
			      long ntraj, char *buf, size_t len)
{
	picard_options opt;
	picard_grid grid;
	int err = resolve_options(model, options, &opt);

	if (!err)
		err = fit_grid(&opt, &grid);
	if (err)
		return err;
	return picard_cuda_kernel_name(model, &grid,
				       &(picard_options_layout){.layout = opt.layout,
								.traj_per_block = opt.traj_per_block,
								.scan = opt.scan},
				       opt.precision, ntraj, buf, len);
}

void picard_solver_free(picard_solver *s)
{
	if (!s)
		return;
	picard_cuda_free(s->cuda);
	if (s->companion.free)
		s->companion.free(s->companion.state);
	free(s->sweeps);
	free(s->sweeps_max);
	free(s->status);
	free(s->fail_window);
	free(s->fail_time);
	free(s->drawn_x0);
	free(s->drawn_params);
	free_event_store(&s->events);
	free(s->span_t0);
	free(s->span_t1);
	free(s);
}

const picard_grid *picard_solver_grid(const picard_solver *s)
{
	return &s->grid;
}

const double *picard_solver_error_estimates(const picard_solver *s)
{
	return s->companion.results ? s->companion.results(s->companion.state) : NULL;
}

const double *picard_solver_fail_times(const picard_solver *s)
{
	return s->fail_time;
}

/* Member i's span, from the arrays given (NULL: the grid's end). */
static double span_end(const double *given, long i, double grid_end)
{
	return given ? given[i] : grid_end;
}

int picard_solver_set_spans(picard_solver *s, long count, const double *t0, const double *t1)
{
	const picard_scheme_type *type;
	char names[256];

	if (!s)
		return picard_fail(PICARD_EINVAL, "spans: no solver");
	type = picard_scheme_of(s->grid.scheme);
	free(s->span_t0);
	free(s->span_t1);
	s->span_t0 = s->span_t1 = NULL;
	s->span_count = 0;
	if (!t0 && !t1)
		return PICARD_OK;
	if (!type->per_member_spans)
		return picard_fail(PICARD_EINVAL, "per-member spans: the %s scheme integrates on "
				   "one span for all (%s take spans of their own)", type->name,
				   picard_scheme_names_if(names, sizeof(names), picard_scheme_takes_spans));
	if (s->companion.after)
		return picard_fail(PICARD_EINVAL, "per-member spans: not with the error estimate "
				   "(its companion solves on the grid's span)");
	if (count < 1 || count > s->batch)
		return picard_fail(PICARD_EINVAL, "spans of %ld members: this solver solves 1 to "
				   "%ld at once", count, s->batch);
	for (long i = 0; i < count; i++) {
		const double a = span_end(t0, i, s->grid.t0), b = span_end(t1, i, s->grid.t1);

		if (!isfinite(a) || !isfinite(b))
			return picard_fail(PICARD_EINVAL, "span of member %ld: t0[%ld] = %g, t1[%ld] "
					   "= %g: need finite numbers", i, i, a, i, b);
		if (!(b > a))
			return picard_fail(PICARD_EINVAL, "t1[%ld] = %.17g is not after t0[%ld] = "
					   "%.17g: a member's span needs t1 > t0", i, b, i, a);
	}
	s->span_t0 = malloc((size_t)count * sizeof(double));
	s->span_t1 = malloc((size_t)count * sizeof(double));
	if (!s->span_t0 || !s->span_t1) {
		free(s->span_t0);
		free(s->span_t1);
		s->span_t0 = s->span_t1 = NULL;
		return picard_fail(PICARD_ENOMEM, "spans of %ld members", count);
	}
	for (long i = 0; i < count; i++) {
		s->span_t0[i] = span_end(t0, i, s->grid.t0);
		s->span_t1[i] = span_end(t1, i, s->grid.t1);
	}
	s->span_count = count;
	return PICARD_OK;
}

/* Where a trajectory that failed (or met a terminal event) did: the step
 * a per-thread scheme wrote (job->fail_time), else its failing window's
 * start and end. NaN for one that did not fail. */
static void settle_fail_times(const picard_solver *s, const struct picard_job *job)
{
	const picard_grid *g = &s->grid;

#pragma omp parallel for
	for (long i = 0; i < job->ntraj; i++) {
		double *t = s->fail_time + 2 * i;
		const long w = job->fail_window[i];

		if (job->status[i] == PICARD_TRAJ_OK || w < 0) {
			t[0] = t[1] = NAN;
		} else if (isnan(t[0])) {
			t[0] = picard_window_start(job->lobatto_grid, g->t0, g->m, g->h, g->window, w);
			t[1] = w + 1 < g->windows ?
			       picard_window_start(job->lobatto_grid, g->t0, g->m, g->h, g->window, w + 1) :
			       g->t1;
		}
	}
}

size_t picard_record_size(const picard_solver *s, const picard_record *rec)
{
	if (rec->traj_stride < 1 || (rec->times ? rec->ntimes < 1 : rec->every < 1))
		return 0;
	return (size_t)picard_record_rows(&s->grid, rec) *
	       picard_record_slots(s->batch, rec->traj_stride) * s->model->dim;
}

long picard_grid_window(const picard_grid *grid, double t)
{
	const bool lobatto = picard_scheme_of(grid->scheme)->lobatto_grid;
	const double length = (grid->t1 - grid->t0) / grid->windows;
	double guess = floor((t - grid->t0) / length);
	long w = guess < 0 ? 0 : guess >= grid->windows ? grid->windows - 1 : (long)guess;

	/* the guess is off by at most one; the rule decides */
	while (w > 0 && t <= picard_window_start(lobatto, grid->t0, grid->m, grid->h,
						 grid->window, w))
		w--;
	while (t > picard_window_last_time(lobatto, grid->t0, grid->m, grid->h, grid->window,
					   w, grid->windows))
		w++;
	return w;
}

/* A record is window ends (every >= 1) or times within the span, in
 * order (every 0); r names it in the message. With per-member spans a
 * time may lie anywhere finite: a member's rows outside its own span stay
 * NaN. */
static int check_record(const picard_solver *s, const picard_record *rec, int r)
{
	if (rec->traj_stride < 1 || !rec->states)
		return picard_fail(PICARD_EINVAL, "record %d: stride %d, buffer %p", r,
				   rec->traj_stride, (void *)rec->states);
	if (!rec->times) {
		if (rec->every < 1)
			return picard_fail(PICARD_EINVAL, "record %d: every %ld (need >= 1)", r,
					   rec->every);
		return PICARD_OK;
	}
	if (rec->every != 0 || rec->ntimes < 1)
		return picard_fail(PICARD_EINVAL,
				   "record %d: %ld times with every %ld (need >= 1 times, every 0)",
				   r, rec->ntimes, rec->every);
	for (long i = 0; i < rec->ntimes; i++) {
		const double t = rec->times[i];

		if (s->span_t0 && !isfinite(t))
			return picard_fail(PICARD_EINVAL, "record %d: time %ld = %g is not a finite "
					   "number", r, i, t);
		if (!s->span_t0 && !(t >= s->grid.t0 && t <= s->grid.t1))
			return picard_fail(PICARD_EINVAL, "record %d: time %ld = %g outside [%g, %g]",
					   r, i, t, s->grid.t0, s->grid.t1);
		if (i > 0 && t < rec->times[i - 1])
			return picard_fail(PICARD_EINVAL,
					   "record %d: time %ld = %g before time %ld = %g (need non-decreasing)",
					   r, i, t, i - 1, rec->times[i - 1]);
	}
	return PICARD_OK;
}

/* The first of count values past limit in size, or not a number; -1 if
 * none. */
static long first_beyond(const double *v, long count, double limit)
{
	long first = LONG_MAX;

#pragma omp parallel for reduction(min : first)
	for (long i = 0; i < count; i++)
		if (!(fabs(v[i]) <= limit) && i < first)
			first = i;
	return first == LONG_MAX ? -1 : first;
}

/* Inputs (count trajectories of them) must be finite, and records
 * (check_records) well formed, before any backend runs. */
static int check_inputs(const picard_solver *s, long count, const double *x0,
			const double *params)
{
	const int n = s->model->dim, np = s->model->nparams;

	/* a float solve rounds its inputs to binary32: one past its range
	 * would become Inf and fail later as if the solve had diverged */
	const double limit = s->precision == PICARD_FLOAT ? FLT_MAX : DBL_MAX;
	const char *fits = s->precision == PICARD_FLOAT ? " in float (|v| <= 3.4e38)" : "";
	long i;

	if (!x0)
		return picard_fail(PICARD_EINVAL, "no initial states");
	i = first_beyond(x0, count * n, limit);
	if (i >= 0)
		return picard_fail(PICARD_EINVAL, "x0: initial state x[%ld] = %g of trajectory %ld is not a finite number%s",
				   i % n, x0[i], i / n, fits);
	i = params ? first_beyond(params, count * np, limit) : -1;
	if (i >= 0)
		return picard_fail(PICARD_EINVAL, "params: parameter %s = %g of trajectory %ld is not a finite number%s",
				   s->model->param_names[i % np], params[i], i / np, fits);
	for (int q = 0; !params && q < np; q++)
		if (!(fabs(s->model->param_defaults[q]) <= limit))
			return picard_fail(PICARD_EINVAL, "model %s: parameter %s = %g is not a finite number%s",
					   s->model->name, s->model->param_names[q],
					   s->model->param_defaults[q], fits);
	return PICARD_OK;
}

/* A draw's centres and spreads must be finite, and no member can pass
 * what the precision holds (picard_draw_value_fits). */
static int check_draw(const picard_solver *s, const struct picard_draw *draw)
{
	const int n = s->model->dim, np = s->model->nparams;
	const char *fits = s->precision == PICARD_FLOAT ? " in float (|v| <= 3.4e38)" : "";

	if (!draw->start || draw->first < 0 || !(draw->spread < INFINITY) ||
	    (np && !draw->param_values))
		return picard_fail(PICARD_EINVAL, "draw: start %p, first member %ld, spread %g, "
				   "parameter values %p", (const void *)draw->start, draw->first,
				   draw->spread, (const void *)draw->param_values);
	for (int k = 0; k < n; k++)
		if (!picard_draw_value_fits(draw->start[k], draw->spread, s->precision))
			return picard_fail(PICARD_EINVAL, "draw: x[%d] = %g spread by %g may not be "
					   "a finite number%s", k, draw->start[k], draw->spread,
					   fits);
	for (int q = 0; q < np; q++) {
		const double spread = draw->param_spreads ? draw->param_spreads[q] : 0;

		if (!(spread < INFINITY) ||
		    !picard_draw_value_fits(draw->param_values[q], spread, s->precision))
			return picard_fail(PICARD_EINVAL, "draw: parameter %s = %g spread by %g "
					   "may not be a finite number%s", s->model->param_names[q],
					   draw->param_values[q], spread, fits);
	}
	return PICARD_OK;
}

/* The CPU backend's draw: count members into the solver's own arrays,
 * made on first use, which *x0 and *params then point to: a row of
 * parameters for every member, the shared values copied where they have
 * none of their own, so that the estimate's companion gets them too. */
static int draw_here(picard_solver *s, const struct picard_draw *draw, long count,
		     const double **x0, const double **params)
{
	const int n = s->model->dim, np = s->model->nparams;

	if (!s->drawn_x0)
		s->drawn_x0 = malloc((size_t)s->batch * n * sizeof(double));
	if (np && !s->drawn_params)
		s->drawn_params = malloc((size_t)s->batch * np * sizeof(double));
	if (!s->drawn_x0 || (np && !s->drawn_params))
		return picard_fail(PICARD_ENOMEM, "draw: %ld members", s->batch);
	*x0 = s->drawn_x0;
	*params = np ? s->drawn_params : NULL;
	return picard_draw_host(draw, n, np, 0, count, s->drawn_x0, s->drawn_params);
}

static int check_records(const picard_solver *s, const picard_record *records, int nrecords)
{
	if (nrecords < 0 || nrecords > PICARD_MAX_USER_RECORDS || (nrecords && !records))
		return picard_fail(PICARD_EINVAL, "%d records: at most %d", nrecords,
				   PICARD_MAX_USER_RECORDS);
	for (int r = 0; r < nrecords; r++) {
		int err = check_record(s, &records[r], r);

		if (err)
			return err;
	}
	return PICARD_OK;
}

/* Sweeps per window (over the windows run: a trajectory that became
 * non-finite or diverged stopped there) and right-hand side evaluations. */
static void sweep_stats(const picard_solver *s, const struct picard_job_totals *totals,
			picard_stats *stats)
{
	stats->windows = s->grid.windows;
	stats->sweeps_mean = totals->sweeps / totals->windows_run;
	stats->sweeps_max = totals->sweeps_max;
	stats->rhs_evals = totals->sweeps * rhs_per_sweep(picard_scheme_of(s->grid.scheme), s->grid.m);
}

int picard_solve(picard_solver *s, const double *x0, const double *params,
		 double *x_final, picard_traj_status *status, long *fail_window,
		 const picard_record *records, int nrecords, picard_stats *stats)
{
	if (s->batch < s->ntraj)
		return picard_fail(PICARD_EINVAL, "this solver holds %ld of its %ld trajectories at "
				   "once: picard_solve_batch solves them", s->batch, s->ntraj);
	return picard_solve_batch(s, s->ntraj, x0, params, x_final, status, fail_window,
				  records, nrecords, stats);
}

struct picard_cuda_solver *picard_solver_cuda(const picard_solver *s)
{
	return s->cuda;
}

long picard_solver_batch(const picard_solver *s)
{
	return s->batch;
}

void picard_solver_attach(picard_solver *s, const struct picard_solve_companion *companion)
{
	s->companion = *companion;
}

/* Whether a solve's members have parameters of their own: given rows, or
 * drawn ones. */
static bool draw_params_own(const picard_solver *s, const struct picard_draw *draw,
			    const double *params)
{
	return draw ? picard_draw_own_params(draw, s->model->nparams) : params != NULL;
}

/* The job's params: the rows given, NULL where the device draws each
 * member's, else the one row every member shares. */
static const double *draw_params(const picard_solver *s, const struct picard_draw *draw,
				 const double *params)
{
	if (draw_params_own(s, draw, params))
		return draw ? NULL : params;
	return draw && draw->param_values ? draw->param_values : s->model->param_defaults;
}

/* picard_solve_batch, picard_solve_drawn or picard_solve_from: where
 * inputs_of is not NULL, the inputs are those of its last solve, checked
 * by it; where draw is, the members are drawn where they are solved (the
 * CPU backend's here, first); with outcomes_on_device, the members'
 * statuses and failing windows and times stay on the device. */
static int solve(picard_solver *s, const picard_solver *inputs_of,
		 const struct picard_draw *draw, bool outcomes_on_device, long count,
		 const double *x0, const double *params, double *x_final,
		 picard_traj_status *status, long *fail_window, const picard_record *records,
		 int nrecords, picard_stats *stats)
{
	picard_record all[PICARD_MAX_RECORDS];
	struct picard_failure_note note = { .traj = -1 };
	struct picard_job_totals totals = {0};
	double seconds = 0, estimate_seconds = 0;
	long failed = 0;
	int err;

	if (count < 1 || count > s->batch)
		return picard_fail(PICARD_EINVAL, "%ld trajectories: this solver holds 1 to %ld at "
				   "once", count, s->batch);
	if (inputs_of && !(s->cuda && inputs_of->cuda &&
			   picard_cuda_shares_inputs(s->cuda, inputs_of->cuda, count)))
		return picard_fail(PICARD_EINVAL, "a solve from another solver's inputs: both CUDA, "
				   "in the same precision, %ld members in one chunk", count);
	if (outcomes_on_device && !(s->cuda && picard_cuda_one_chunk(s->cuda, count)))
		return picard_fail(PICARD_EINVAL, "outcomes kept on the device: a CUDA solver, "
				   "%ld members in one chunk", count);
	err = inputs_of ? PICARD_OK : draw ? check_draw(s, draw) :
	      check_inputs(s, count, x0, params);
	if (!err && draw && s->backend == PICARD_BACKEND_CPU) {
		err = draw_here(s, draw, count, &x0, &params);
		draw = NULL;
	}
	if (!err)
		err = check_records(s, records, nrecords);
	if (!err && s->span_t0 && count != s->span_count)
		err = picard_fail(PICARD_EINVAL, "a solve of %ld members with the spans of %ld "
				  "(picard_solver_set_spans)", count, s->span_count);
	if (err)
		return err;
	if (!status)
		status = s->status;
	if (!fail_window)
		fail_window = s->fail_window;
	/* the caller's records, then the window ends the estimate compares */
	for (int r = 0; r < nrecords; r++)
		all[r] = records[r];
	if (s->companion.after) {
		const picard_record *compared = s->companion.record(s->companion.state);

		if (compared)
			all[nrecords++] = *compared;
		if (!x_final)
			x_final = s->companion.final_states(s->companion.state);
	}
	for (int r = 0; r < nrecords; r++) {
		const long size = (long)picard_record_size(s, &all[r]);
		double *states = all[r].states;

#pragma omp parallel for
		for (long i = 0; i < size; i++)
			states[i] = NAN;
	}
	if (!outcomes_on_device) {
#pragma omp parallel for
		for (long i = 0; i < 2 * count; i++)
			s->fail_time[i] = NAN;
	}

	struct picard_job job = {
		.model = s->model, .grid = &s->grid,
		.lobatto_grid = picard_scheme_of(s->grid.scheme)->lobatto_grid,
		.precision = s->precision, .bound = s->bound, .ntraj = count, .x0 = x0,
		.draw = draw, .params = draw_params(s, draw, params),
		.param_stride = draw_params_own(s, draw, params) ? s->model->nparams : 0,
		.x_final = x_final, .span_t0 = s->span_t0, .span_t1 = s->span_t1,
		.status = status, .fail_window = fail_window, .fail_time = s->fail_time,
		.sweeps = s->sweeps, .sweeps_max = s->sweeps_max,
		.totals = &totals, .records = all, .nrecords = nrecords, .note = &note,
		.events = s->model->events ? &s->events : NULL,
		.inputs_of = inputs_of ? inputs_of->cuda : NULL,
		.outcomes_on_device = outcomes_on_device, .single_pass = s->companion.after != NULL,
	};
	const struct picard_device_counts before = picard_device_counts_now();
	err = s->backend == PICARD_BACKEND_CUDA ? picard_cuda_solve(s->cuda, &job, &seconds) :
						  picard_cpu_solve(&job, &seconds);
	const struct picard_device_counts after = picard_device_counts_now();
	if (err)
		goto out;
	failed = totals.failed;
	s->event_log.ntraj = s->model->events ? count : 0;
	if ((failed || s->model->events) && !outcomes_on_device) /* a terminal event's time */
		settle_fail_times(s, &job);
	/* before the sweep statistics are read: the companion has its own */
	if (s->companion.after) {
		double start = omp_get_wtime();

		err = s->companion.after(s->companion.state, s, count, x0, params, draw, x_final,
					 status);
		estimate_seconds = omp_get_wtime() - start;
		if (err)
			goto out;
	}
	if (failed && note.traj >= 0)
		err = picard_fail(PICARD_EFAILED, "%ld of %ld trajectories failed; trajectory %ld: %s",
				  failed, count, note.traj, note.message);
	else if (failed)
		err = picard_fail(PICARD_EFAILED, "%ld of %ld trajectories failed", failed, count);
out:
	if (stats) {
		memset(stats, 0, sizeof(*stats));
		if (!err || err == PICARD_EFAILED)
			sweep_stats(s, &totals, stats);
		stats->solve_seconds = seconds;
		stats->estimate_seconds = estimate_seconds;
		stats->failed = failed;
		stats->chunks = s->cuda ? picard_cuda_chunks(s->cuda, count) : 1;
		stats->launches = after.launches - before.launches;
		stats->host_waits = after.host_waits - before.host_waits;
		stats->backend = s->backend;
		snprintf(stats->device, sizeof(stats->device), "%s", s->device);
	}
	return err;
}

int picard_solve_batch(picard_solver *s, long count, const double *x0, const double *params,
		       double *x_final, picard_traj_status *status, long *fail_window,
		       const picard_record *records, int nrecords, picard_stats *stats)
{
	return solve(s, NULL, NULL, false, count, x0, params, x_final, status, fail_window,
		     records, nrecords, stats);
}

int picard_solve_drawn(picard_solver *s, long count, const struct picard_draw *draw,
		       double *x_final, picard_traj_status *status, long *fail_window,
		       const picard_record *records, int nrecords, picard_stats *stats)
{
	if (!draw)
		return picard_fail(PICARD_EINVAL, "a drawn solve without its draw");
	return solve(s, NULL, draw, false, count, NULL, NULL, x_final, status, fail_window,
		     records, nrecords, stats);
}

int picard_solve_from(picard_solver *s, const picard_solver *inputs_of,
		      const struct picard_draw *draw, long count, const double *x0,
		      const double *params, double *x_final, picard_traj_status *status,
		      const picard_record *records, int nrecords)
{
	return solve(s, inputs_of, draw, !status, count, x0, params, x_final, status, NULL,
		     records, nrecords, NULL);
}
