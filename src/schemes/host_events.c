/* host_events.c - a model's events over a Picard window on the host
 * (host_events.h): events_step.cuh's scan of a step, with the window's
 * dense output for the step's and the model's picard_events (in double)
 * for its template. */
#include <math.h>
#include <string.h>

#include "cpu_records.h"
#include "event_rules.h"
#include "host_events.h"

/* Whether g's count values are all finite. */
static bool finite_all(int count, const double *g)
{
	bool ok = true;

	for (int k = 0; k < count; k++)
		ok &= isfinite(g[k]) != 0;
	return ok;
}

/* The sides from g after an event or at the start: a 0 keeps the side. */
static void read_sides(int count, const double *g, signed char *side)
{
	for (int k = 0; k < count; k++)
		if (g[k] != 0)
			side[k] = (signed char)rk_sign(g[k]);
}

/* Whether a crossing in direction dir counts for event k. */
static bool wanted(const struct picard_host_events *he, int k, int dir)
{
	const unsigned long long bits = dir > 0 ? he->rising : dir < 0 ? he->falling : 0;

	return (bits >> k) & 1u;
}

static bool action_is(const struct picard_host_events *he, int k, picard_event_action action)
{
	return he->ev->actions[k] == action;
}

bool picard_host_events_start(struct picard_host_events *he, const picard_events *ev, double t,
			      const double *x, const double *p)
{
	he->ev = ev;
	he->rising = he->falling = 0;
	for (int k = 0; k < ev->count; k++) {
		he->rising |= (unsigned long long)(ev->directions[k] != PICARD_EVENT_FALLING) << k;
		he->falling |= (unsigned long long)(ev->directions[k] != PICARD_EVENT_RISING) << k;
		he->side[k] = 0;
		he->last_dir[k] = 0;
		he->last_time[k] = NAN;
	}
	he->count = 0;
	ev->g(t, x, p, he->g);
	read_sides(ev->count, he->g, he->side);
	return finite_all(ev->count, he->g);
}

/* Event j's root in [t, tb], where g_j goes from ga (at t, nonzero) to gb
 * (at tb, nonzero, the other side), to within tol: Illinois on the dense
 * output. The bracket's end past the root (g_j there 0 or past it), its
 * state in xb and g there in gb_all; NaN when g was not finite
 * (event_locate's steps). */
static double locate(const struct picard_host_events *he, int n, int j, double t, double tb,
		     double ga, double gb, double tol, const double *p,
		     const struct picard_host_dense *dense, double *xb, double *gb_all)
{
	const int ne = he->ev->count;
	double a = t, b = tb, fa = ga, fb = gb;
	int kept = 0; /* +1: a was kept last time, -1: b */
	double xc[n], gc[PICARD_HOST_EVENTS_MAX];

	for (int it = 0; it < 200 && b - a > tol; it++) {
		double c = b - fb * (b - a) / (fb - fa);

		if (!(c > a && c < b))
			c = a + 0.5 * (b - a);
		dense->at(dense->ctx, c, xc);
		he->ev->g(c, xc, p, gc);
		const double fc = gc[j];

		if (!finite_all(ne, gc))
			return NAN;
		if (rk_sign(fc) == rk_sign(fa)) {
			a = c;
			fa = fc;
			if (kept == -1)
				fb *= 0.5;
			kept = -1;
		} else {
			b = c;
			fb = fc;
			memcpy(xb, xc, n * sizeof(double));
			memcpy(gb_all, gc, ne * sizeof(double));
			if (fc == 0)
				break;
			if (kept == 1)
				fa *= 0.5;
			kept = 1;
		}
	}
	return b;
}

static enum picard_host_event_result stop(struct picard_host_event_step *step,
					  picard_traj_status status, double t, double t_end)
{
	step->status = status;
	step->t = t;
	step->t_end = t_end;
	return PICARD_HOST_EVENT_STOP;
}

/* Whether every |x_k| is within lim (NaN and Inf fail). */
static bool state_ok(int n, const double *x, double lim)
{
	bool ok = true;

	for (int i = 0; i < n; i++)
		ok &= fabs(x[i]) <= lim;
	return ok;
}

enum picard_host_event_result picard_host_events_step(struct picard_host_events *he,
						       const struct picard_host_event_run *run,
						       double t, const double *x, double t_new,
						       const double *xn, double *p,
						       const struct picard_host_dense *dense,
						       double *x_out,
						       struct picard_host_event_step *step)
{
	const picard_events *ev = he->ev;
	const int n = run->dim, ne = ev->count;
	const double spacing = ev->min_spacing;
	double g_end[PICARD_HOST_EVENTS_MAX], ge[PICARD_HOST_EVENTS_MAX], xe[n];
	double te = t_new;
	bool any = false;
	int first = -1;

	ev->g(t_new, xn, p, g_end);
	if (!finite_all(ne, g_end)) {
		memcpy(x_out, x, n * sizeof(double));
		return stop(step, PICARD_TRAJ_EVENT_FAILED, t, t_new);
	}
	for (int j = 0; j < ne; j++)
		any |= wanted(he, j, rk_event_dir(he->side[j], he->g[j], g_end[j]));
	if (any) {
		/* the earliest wanted crossing: each located within the
		 * earliest so far (te, its state xe, g there ge), where it
		 * has crossed by then */
		const double tol = fmax(16 * run->eps * (fabs(t) + fabs(t_new - t)),
					1e-3 * run->rtol * fabs(t_new - t));

		memcpy(xe, xn, n * sizeof(double));
		memcpy(ge, g_end, ne * sizeof(double));
		for (int j = 0; j < ne; j++) {
			const int dir = rk_event_dir(he->side[j], he->g[j], g_end[j]);

			if (!wanted(he, j, dir))
				continue;
			/* leaving the surface its own jump left the state on */
			if (he->last_dir[j] == -dir && t < he->last_time[j] + spacing)
				continue;
			if (he->side[j] == 0 || he->g[j] == 0) { /* on zero at the start */
				if (te > t) {
					te = t;
					memcpy(xe, x, n * sizeof(double));
					ev->g(t, xe, p, ge);
				}
			} else if (rk_event_crossing(he->side[j], ge[j]) == dir && ge[j] != 0) {
				double xb[n], gb[PICARD_HOST_EVENTS_MAX];

				memcpy(xb, xe, n * sizeof(double));
				memcpy(gb, ge, ne * sizeof(double));
				const double tj = locate(he, n, j, t, te, he->g[j], ge[j], tol, p, dense,
							 xb, gb);
				if (isnan(tj)) {
					memcpy(x_out, x, n * sizeof(double));
					return stop(step, PICARD_TRAJ_EVENT_FAILED, t, t_new);
				}
				te = tj;
				memcpy(xe, xb, n * sizeof(double));
				memcpy(ge, gb, ne * sizeof(double));
			} else if (rk_event_crossing(he->side[j], ge[j]) != dir) {
				continue;
			}
			first = j;
		}
	}
	if (first < 0) {
		memcpy(he->g, g_end, ne * sizeof(double));
		read_sides(ne, g_end, he->side);
		return PICARD_HOST_EVENT_NONE;
	}
	/* the events that have crossed at te, in index order */
	signed char fired_dir[PICARD_HOST_EVENTS_MAX];

	memcpy(x_out, xe, n * sizeof(double));
	for (int j = 0; j < ne; j++) {
		/* from zero at the start: at te = t alone, by where g goes */
		const bool zero_start = he->side[j] == 0 || he->g[j] == 0;
		const int dir = zero_start ? (te == t ? rk_event_dir(he->side[j], 0.0, g_end[j]) : 0) :
				rk_event_dir(he->side[j], he->g[j], ge[j]);
		double before[n];

		fired_dir[j] = 0;
		if (!wanted(he, j, dir) ||
		    (he->last_dir[j] == -dir && te < he->last_time[j] + spacing))
			continue;
		/* chattering: fired the same way within its spacing */
		if (he->last_dir[j] == dir && te - he->last_time[j] < spacing)
			return stop(step, PICARD_TRAJ_EVENT_LIMIT, te, te);
		if (he->count >= ev->limit)
			return stop(step, PICARD_TRAJ_EVENT_LIMIT, te, te);
		memcpy(before, x_out, n * sizeof(double));
		if (action_is(he, j, PICARD_EVENT_JUMP))
			ev->jump(j, te, x_out, p);
		record_event(run->log, run->traj, he->count++, j, te, before, x_out, n);
		fired_dir[j] = (signed char)dir;
		he->last_dir[j] = (signed char)dir;
		he->last_time[j] = te;
		if (action_is(he, j, PICARD_EVENT_TERMINATE))
			return stop(step, PICARD_TRAJ_EVENT, te, te);
		if (!state_ok(n, x_out, run->lim)) {
			bool finite = true;

			for (int i = 0; i < n; i++)
				finite &= isfinite(x_out[i]) != 0;
			return stop(step, finite ? PICARD_TRAJ_DIVERGED : PICARD_TRAJ_NONFINITE, te, te);
		}
	}
	/* restart: g and the sides after the actions */
	step->t = te;
	ev->g(te, x_out, p, he->g);
	if (!finite_all(ne, he->g))
		return stop(step, PICARD_TRAJ_EVENT_FAILED, te, te);
	for (int j = 0; j < ne; j++)
		if (fired_dir[j])
			he->side[j] = fired_dir[j];
	read_sides(ne, he->g, he->side);
	return PICARD_HOST_EVENT_CUT;
}

enum picard_host_event_result picard_host_events_window(struct picard_host_events *he,
							 const struct picard_host_event_run *run,
							 const struct picard_host_dense *window,
							 double *p, double *x_out,
							 struct picard_host_event_step *step)
{
	const int n = run->dim;
	double x[n], xn[n], t, t_new;

	window->node(window->ctx, 0, &t, x);
	for (int j = 1; j < window->m; j++) {
		window->node(window->ctx, j, &t_new, xn);
		const enum picard_host_event_result r =
			picard_host_events_step(he, run, t, x, t_new, xn, p, window, x_out, step);

		if (r != PICARD_HOST_EVENT_NONE)
			return r;
		memcpy(x, xn, sizeof(x));
		t = t_new;
	}
	return PICARD_HOST_EVENT_NONE;
}
