/* reference_events.c - the GSL reference of a model with events, and one
 * member's events compared with it (reference_events.h).
 *
 * gsl_odeiv2's rk8pd has no dense output, so the reference never steps
 * past a record time (each step aims at the next one, as reference.c's
 * march does, and is at most REF_EVENT_MAX_STEP of the span) and locates a crossing inside an accepted step from
 * (t_a, x_a) to t_b by Illinois on g over rk8pd steps of its own from
 * (t_a, x_a) to each trial time: one step of at most the accepted length
 * is at least as accurate as it, so the root is found to the reference's
 * accuracy, down to REF_EVENT_TIME_ULPS units in the last place of t.
 *
 * The rules are the engine's (src/schemes/events_step.cuh, its head):
 * each event keeps the side of zero g was last seen on (0 only from t0
 * while g is exactly 0); a step ending on the other side, or on 0,
 * crosses; from 0 any nonzero end crosses with its root at the step's
 * start; the earliest wanted crossing cuts the step; the events crossed
 * there act in index order (log, jump, terminate), a crossing the other
 * way within the minimum spacing after its own firing does not count, one
 * the same way is chattering (EVENT_LIMIT), as is one past the limit; the
 * sides are read again after the actions, a 0 keeping the post-crossing
 * side. Written apart from the engine's on purpose: a reference that
 * shared its code would share its mistakes. It is rk8pd alone (the
 * schemes that locate events are explicit); a stiff stretch is stepped
 * through, slowly, rather than handed to msbdf.
 */
#include <float.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "errors.h"
#include "reference_events.h"
#include "reference_run.h"
#include "scaled_error.h"

/* Illinois' bracket is closed to this many units in the last place of
 * |t| + the step (the engine's rule, with double's epsilon) ... */
#define REF_EVENT_TIME_ULPS 16
/* ... in at most this many trial steps. */
#define REF_EVENT_ITERATIONS 200
/* After an event the step restarts at this fraction of the span, and
 * grows from there: a step as long as the one cut could carry the state
 * off a surface and back across it unseen (a bounce's whole flight in one
 * step of a parabola, which rk8pd integrates exactly). */
#define REF_EVENT_RESTART 1e-6
/* A step is at most this fraction of the span: g that leaves zero's side
 * and comes back within one step shows no crossing, to the engine or the
 * reference, and a long step (rk8pd's on a polynomial solution) makes
 * that likelier. */
#define REF_EVENT_MAX_STEP (1.0 / 64)
/* A model declares at most this many events (docs/models.md). */
#define REF_MAX_EVENTS 64

/* What a step's look for events decided. */
enum ev_result {
	EV_NONE, /* no event in the step */
	EV_CUT,  /* cut at an event, acted on, the state the restart's */
	EV_STOP, /* the member stopped: ev->status says why */
};

/* One member's march: the GSL run, where it is, the events' memory, and
 * the records and the log it fills. */
struct ev_march {
	struct ref_run r;
	const struct ref_who *who;
	const picard_events *events;
	double *params;               /* the member's own copy, the one its
					 right-hand side reads: a jump may
					 change it (main's parameter jumps) */
	gsl_odeiv2_step *probe;       /* the trial steps of the location */
	double *yerr, *x_start, *xe, *xc, *xb; /* dim each */
	double t_start;               /* the step's start */
	double g[REF_MAX_EVENTS];     /* g at the step's start */
	double g_end[REF_MAX_EVENTS], ge[REF_MAX_EVENTS], gc[REF_MAX_EVENTS],
	       gb[REF_MAX_EVENTS];
	signed char side[REF_MAX_EVENTS], last_dir[REF_MAX_EVENTS];
	double last_time[REF_MAX_EVENTS];
	const double *times;          /* record times */
	long ntimes, next;            /* and the next one due */
	double *out;                  /* ntimes * dim */
	struct ref_events *ev;        /* the log */
};

static int sign_of(double v)
{
	return v > 0 ? 1 : v < 0 ? -1 : 0;
}

/* The direction an event on side `side` crosses in when g ends a step at
 * `end` (from side 0: any nonzero end): +1, -1, or 0 for none. */
static int crossing(int side, double end)
{
	if (side == 0)
		return sign_of(end);
	return end == 0 || sign_of(end) == -side ? -side : 0;
}

/* The crossing of a step from start to end: none from zero to zero. */
static int crossing_dir(int side, double start, double end)
{
	if ((side == 0 || start == 0) && end == 0)
		return 0;
	return crossing(side, end);
}

/* Whether event k counts a crossing in direction dir. */
static bool wanted(const picard_events *events, int k, int dir)
{
	const picard_event_direction d = events->directions[k];

	return dir != 0 && (d == PICARD_EVENT_BOTH || (d == PICARD_EVENT_RISING) == (dir > 0));
}

static bool all_finite(const double *v, int n)
{
	for (int k = 0; k < n; k++)
		if (!isfinite(v[k]))
			return false;
	return true;
}

/* The sides from g: a 0 keeps the side it had. */
static void read_sides(struct ev_march *m, const double *g)
{
	for (int k = 0; k < m->events->count; k++)
		if (g[k] != 0)
			m->side[k] = (signed char)sign_of(g[k]);
}

static void eval_g(const struct ev_march *m, double t, const double *x, double *g)
{
	m->events->g(t, x, m->r.rs.params, g);
}

/* The record times due up to t get state x. */
static void store_due(struct ev_march *m, double t, const double *x)
{
	const int n = m->who->model->dim;

	for (; m->next < m->ntimes && m->times[m->next] <= t; m->next++)
		memcpy(m->out + m->next * n, x, n * sizeof(*x));
}

/* The member stops at t with status. */
static enum ev_result stop(struct ev_march *m, picard_traj_status status, double t)
{
	m->ev->status = status;
	m->ev->t_stop = t;
	return EV_STOP;
}

/* The state at tc in the step from (t_start, x_start) into xc, g there
 * into gc: one rk8pd step; false when it cannot be taken or g is not
 * finite. */
static bool state_at(struct ev_march *m, double tc)
{
	const int n = m->who->model->dim;

	memcpy(m->xc, m->x_start, n * sizeof(double));
	if (tc != m->t_start) {
		gsl_odeiv2_step_reset(m->probe);
		if (gsl_odeiv2_step_apply(m->probe, m->t_start, tc - m->t_start, m->xc, m->yerr, NULL,
					  NULL, &m->r.sys) != GSL_SUCCESS || !all_finite(m->xc, n))
			return false;
	}
	eval_g(m, tc, m->xc, m->gc);
	return all_finite(m->gc, m->events->count);
}

/* Event j's root in [t_start, tb], g_j going from ga to gb (both nonzero,
 * opposite sides): the bracket's end past the root, its state in xb and
 * g there in gb; NaN when a trial state or g is not finite. */
static double locate(struct ev_march *m, int j, double tb, double ga, double gb)
{
	const int n = m->who->model->dim, ne = m->events->count;
	const double tol = REF_EVENT_TIME_ULPS * DBL_EPSILON * (fabs(m->t_start) +
								 fabs(tb - m->t_start));
	double a = m->t_start, b = tb, fa = ga, fb = gb;
	int kept = 0; /* +1: a was kept last time, -1: b */

	for (int it = 0; it < REF_EVENT_ITERATIONS && b - a > tol; it++) {
		double c = b - fb * (b - a) / (fb - fa);

		if (!(c > a && c < b))
			c = a + 0.5 * (b - a);
		if (!state_at(m, c))
			return NAN;
		const double fc = m->gc[j];

		if (sign_of(fc) == sign_of(fa)) {
			a = c;
			fa = fc;
			if (kept == -1)
				fb *= 0.5;
			kept = -1;
		} else {
			b = c;
			fb = fc;
			memcpy(m->xb, m->xc, n * sizeof(double));
			memcpy(m->gb, m->gc, ne * sizeof(double));
			if (fc == 0)
				break;
			if (kept == 1)
				fa *= 0.5;
			kept = 1;
		}
	}
	return b;
}

/* The earliest wanted crossing in the step from t_start to t (state y,
 * g there g_end): its time, its state in xe and g there in ge, *first
 * the last event that crosses there (-1: none). NaN: g not finite. */
static double earliest(struct ev_march *m, double t, int *first)
{
	const int n = m->who->model->dim, ne = m->events->count;
	const double spacing = m->events->min_spacing;
	double te = t;

	*first = -1;
	memcpy(m->xe, m->r.y, n * sizeof(double));
	memcpy(m->ge, m->g_end, ne * sizeof(double));
	for (int j = 0; j < ne; j++) {
		const int dir = crossing_dir(m->side[j], m->g[j], m->g_end[j]);

		if (!wanted(m->events, j, dir) ||
		    (m->last_dir[j] == -dir && m->t_start < m->last_time[j] + spacing))
			continue;
		if (m->side[j] == 0 || m->g[j] == 0) { /* on zero at the step's start */
			if (te > m->t_start) {
				te = m->t_start;
				memcpy(m->xe, m->x_start, n * sizeof(double));
				eval_g(m, te, m->xe, m->ge);
			}
		} else if (crossing(m->side[j], m->ge[j]) == dir && m->ge[j] != 0) {
			memcpy(m->xb, m->xe, n * sizeof(double));
			memcpy(m->gb, m->ge, ne * sizeof(double));
			te = locate(m, j, te, m->g[j], m->ge[j]);
			if (isnan(te))
				return NAN;
			memcpy(m->xe, m->xb, n * sizeof(double));
			memcpy(m->ge, m->gb, ne * sizeof(double));
		} else if (crossing(m->side[j], m->ge[j]) != dir) {
			continue;
		}
		*first = j;
	}
	return te;
}

/* Log an event of index j at te, the state after its action x. */
static void log_event(struct ev_march *m, int j, double te, const double *x)
{
	struct ref_events *ev = m->ev;
	const int n = m->who->model->dim;

	if (ev->count < ev->capacity) {
		ev->index[ev->count] = j;
		ev->time[ev->count] = te;
		memcpy(ev->after + (size_t)ev->count * n, x, n * sizeof(double));
	}
	ev->count++;
}

/* The events crossed at te act in index order on the state y. */
static enum ev_result act(struct ev_march *m, double te, signed char *fired)
{
	const picard_events *events = m->events;
	const int n = m->who->model->dim;

	for (int j = 0; j < events->count; j++) {
		const bool zero_start = m->side[j] == 0 || m->g[j] == 0;
		const int dir = zero_start ? (te == m->t_start ? crossing_dir(m->side[j], 0,
									     m->g_end[j]) : 0) :
				crossing_dir(m->side[j], m->g[j], m->ge[j]);

		fired[j] = 0;
		if (!wanted(events, j, dir) ||
		    (m->last_dir[j] == -dir && te < m->last_time[j] + events->min_spacing))
			continue;
		if ((m->last_dir[j] == dir && te - m->last_time[j] < events->min_spacing) ||
		    m->ev->count >= events->limit)
			return stop(m, PICARD_TRAJ_EVENT_LIMIT, te);
		if (events->actions[j] == PICARD_EVENT_JUMP)
			events->jump(j, te, m->r.y, m->params);
		log_event(m, j, te, m->r.y);
		fired[j] = (signed char)dir;
		m->last_dir[j] = (signed char)dir;
		m->last_time[j] = te;
		if (events->actions[j] == PICARD_EVENT_TERMINATE)
			return stop(m, PICARD_TRAJ_EVENT, te);
		if (!all_finite(m->r.y, n))
			return stop(m, PICARD_TRAJ_NONFINITE, te);
	}
	return EV_CUT;
}

/* An accepted step from (t_start, x_start) to (*t, y): its events. */
static enum ev_result events_step(struct ev_march *m, double *t)
{
	const int n = m->who->model->dim, ne = m->events->count;
	signed char fired[REF_MAX_EVENTS];
	enum ev_result res;
	int first;
	double te;

	eval_g(m, *t, m->r.y, m->g_end);
	if (!all_finite(m->g_end, ne)) {
		store_due(m, m->t_start, m->x_start);
		return stop(m, PICARD_TRAJ_EVENT_FAILED, m->t_start);
	}
	te = earliest(m, *t, &first);
	if (isnan(te)) {
		store_due(m, m->t_start, m->x_start);
		return stop(m, PICARD_TRAJ_EVENT_FAILED, m->t_start);
	}
	if (first < 0) {
		memcpy(m->g, m->g_end, ne * sizeof(double));
		read_sides(m, m->g_end);
		return EV_NONE;
	}
	/* cut at te: the records due by then get the state before the actions */
	store_due(m, te, m->xe);
	memcpy(m->r.y, m->xe, n * sizeof(double));
	*t = te;
	res = act(m, te, fired);
	if (res == EV_STOP)
		return res;
	eval_g(m, te, m->r.y, m->g);
	if (!all_finite(m->g, ne))
		return stop(m, PICARD_TRAJ_EVENT_FAILED, te);
	for (int j = 0; j < ne; j++)
		if (fired[j])
			m->side[j] = fired[j];
	read_sides(m, m->g);
	return EV_CUT;
}

/* March from t0 to t_end: steps aimed at the next record time, each
 * looked at for events. */
static int march(struct ev_march *m, double t0, double t_end)
{
	const int n = m->who->model->dim, ne = m->events->count;
	gsl_odeiv2_driver *d = m->r.driver;
	const double longest = REF_EVENT_MAX_STEP * (t_end - t0);
	double t = t0;

	eval_g(m, t, m->r.y, m->g);
	if (!all_finite(m->g, ne)) {
		stop(m, PICARD_TRAJ_EVENT_FAILED, t0);
		return PICARD_OK;
	}
	read_sides(m, m->g);
	store_due(m, t, m->r.y);
	while (t < t_end) {
		const double due = m->next < m->ntimes ? fmin(m->times[m->next], t_end) : t_end;
		const double target = t + longest < due ? t + longest : due;
		enum ev_result res;
		int err;

		m->t_start = t;
		memcpy(m->x_start, m->r.y, n * sizeof(double));
		err = ref_step(&m->r, m->who, &t, target);
		if (err == REF_STIFF)
			err = PICARD_OK;
		if (!err)
			err = ref_check_state(m->who, t, m->r.y);
		if (err)
			return err;
		res = events_step(m, &t);
		if (res == EV_STOP)
			return PICARD_OK;
		if (res == EV_CUT) { /* restart fresh from the event */
			gsl_odeiv2_step_reset(d->s);
			gsl_odeiv2_evolve_reset(d->e);
			d->n = 0;
			d->h = REF_EVENT_RESTART * (t_end > t0 ? t_end - t0 : 1);
		}
		if (m->next < m->ntimes && m->times[m->next] <= t)
			d->n = 0; /* REF_MAX_STEPS per interval */
		store_due(m, t, m->r.y);
	}
	return PICARD_OK;
}

int picard_reference_events(const picard_model *model, const double *params,
			    const double *x0, double t0, double t_end,
			    const double *times, long ntimes, double tol, long traj,
			    double *out, struct ref_events *ev)
{
	const struct ref_who who = {model, traj};
	const int n = model ? model->dim : 0;
	struct ev_march m = {.who = &who, .times = times, .ntimes = ntimes, .out = out, .ev = ev};
	double *scratch;
	int err;

	if (!model || !model->events || !x0 || !ev || (ntimes && (!times || !out)) || ntimes < 0)
		return picard_fail(PICARD_EINVAL, "reference: a model with events, its state, "
				   "times and log");
	if (model->events->count > REF_MAX_EVENTS)
		return picard_fail(PICARD_EINVAL, "reference: %d events (at most %d)",
				   model->events->count, REF_MAX_EVENTS);
	if (!(t_end >= t0) || !isfinite(t0) || !isfinite(t_end) || (ntimes && !(times[0] >= t0)))
		return picard_fail(PICARD_EINVAL, "reference: times before t0 = %g, or t_end %g",
				   t0, t_end);
	/* a grid's last window end may round past its t1 */
	if (ntimes && times[ntimes - 1] > t_end)
		t_end = times[ntimes - 1];
	m.events = model->events;
	m.params = malloc(((size_t)model->nparams + 1) * sizeof(double));
	if (!m.params)
		return picard_fail(PICARD_ENOMEM, "reference: %d parameters", model->nparams);
	if (model->nparams)
		memcpy(m.params, params ? params : model->param_defaults,
		       (size_t)model->nparams * sizeof(double));
	ev->count = 0;
	ev->status = PICARD_TRAJ_OK;
	ev->t_stop = INFINITY;
	for (int k = 0; k < REF_MAX_EVENTS; k++)
		m.last_time[k] = NAN;
	err = ref_open(&m.r, model, m.params, x0, tol, REF_RK8PD);
	scratch = malloc(5 * (size_t)n * sizeof(double));
	m.probe = gsl_odeiv2_step_alloc(gsl_odeiv2_step_rk8pd, (size_t)n);
	if (!err && (!scratch || !m.probe))
		err = picard_fail(PICARD_ENOMEM, "reference: the events' scratch of dim %d", n);
	if (!err) {
		m.yerr = scratch;
		m.x_start = scratch + n;
		m.xe = scratch + 2 * n;
		m.xc = scratch + 3 * n;
		m.xb = scratch + 4 * n;
		err = march(&m, t0, t_end);
	}
	/* past where it stopped: nothing */
	for (long i = m.next; out && i < ntimes; i++)
		for (int k = 0; k < n; k++)
			out[i * n + k] = NAN;
	if (m.probe)
		gsl_odeiv2_step_free(m.probe);
	free(scratch);
	free(m.params);
	ref_close(&m.r);
	return err;
}

int ref_events_alloc(struct ref_events *ev, int capacity, int dim)
{
	*ev = (struct ref_events){
		.capacity = capacity,
		.index = malloc(((size_t)capacity + 1) * sizeof(*ev->index)),
		.time = malloc(((size_t)capacity + 1) * sizeof(*ev->time)),
		.after = malloc(((size_t)capacity * dim + 1) * sizeof(*ev->after)),
	};
	if (ev->index && ev->time && ev->after)
		return PICARD_OK;
	ref_events_free(ev);
	return picard_fail(PICARD_ENOMEM, "reference: an event log of %d", capacity);
}

void ref_events_free(struct ref_events *ev)
{
	free(ev->index);
	free(ev->time);
	free(ev->after);
	*ev = (struct ref_events){.capacity = 0};
}

bool picard_event_status(picard_traj_status status)
{
	return status == PICARD_TRAJ_OK || status == PICARD_TRAJ_EVENT ||
	       status == PICARD_TRAJ_EVENT_LIMIT || status == PICARD_TRAJ_EVENT_FAILED;
}

double picard_event_stop(picard_traj_status status, double fail_time)
{
	return picard_event_status(status) && status != PICARD_TRAJ_OK ? fail_time : INFINITY;
}

/* The first difference, kept: later ones are not worth a line. */
static void differ(struct event_compare *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void differ(struct event_compare *c, const char *fmt, ...)
{
	va_list ap;

	if (c->mismatch)
		return;
	c->mismatch = true;
	va_start(ap, fmt);
	vsnprintf(c->detail, sizeof(c->detail), fmt, ap);
	va_end(ap);
}

void picard_events_compare(const picard_model *model, const struct ref_events *ref,
			   const picard_event_log *log, long i, picard_traj_status status,
			   const picard_tolerance *tol, long member, struct event_compare *c)
{
	const int n = model->dim, count = log->count[i];
	const int kept = count < log->capacity ? count : log->capacity;
	const int both = kept < ref->capacity ? kept : ref->capacity;
	const bool absolute = !tol || (tol->atol == 0 && tol->rtol == 0);

	*c = (struct event_compare){.events = 0};
	if (count != ref->count)
		differ(c, "member %ld: %d event%s, the reference %d", member, count,
		       count == 1 ? "" : "s", ref->count);
	if (picard_event_status(status) && status != ref->status)
		differ(c, "member %ld: status %s, the reference %s", member,
		       picard_traj_status_name(status), picard_traj_status_name(ref->status));
	for (int j = 0; j < both && j < ref->count; j++) {
		const size_t at = (size_t)i * log->capacity + j;
		const double t = log->time[at], t_ref = ref->time[j];

		if (log->index[at] != ref->index[j]) {
			differ(c, "member %ld: event %d is %s at t = %.9g, the reference's %s at "
			       "t = %.9g", member, j, model->events->names[log->index[at]], t,
			       model->events->names[ref->index[j]], t_ref);
			break; /* the rest pair up no more */
		}
		c->events++;
		c->time_error = fmax(c->time_error, isnan(t) ? INFINITY : fabs(t - t_ref));
		c->time_scaled = fmax(c->time_scaled, picard_component_error(
			tol ? tol->atol : 0, tol ? tol->rtol : 0, absolute, t, t_ref));
		c->after_scaled = fmax(c->after_scaled, picard_scaled_error(
			tol, log->after + at * n, ref->after + (size_t)j * n, n));
		const double after = picard_scaled_error(NULL, log->after + at * n,
							 ref->after + (size_t)j * n, n);
		double scale = 0;

		for (int k = 0; k < n; k++)
			scale = fmax(scale, fabs(ref->after[(size_t)j * n + k]));
		c->after_error = fmax(c->after_error, after);
		c->after_rel_error = fmax(c->after_rel_error, scale > 0 ? after / scale :
					  after == 0 ? 0 : INFINITY);
	}
}
