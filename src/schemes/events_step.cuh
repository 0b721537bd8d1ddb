/* events_step.cuh - events of a model (docs/models.md, "Events") in
 * the per-thread schemes with a dense output: the explicit Runge-Kutta
 * pairs (rk_integrate.cuh), the Rosenbrock schemes (rosenbrock_integrate.
 * cuh) and radau5 (radau5_integrate.cuh). Written once for them all: a
 * sign change of g_k(t, x, p) over an accepted step is located on the
 * step's dense output by the Illinois method (Dowell & Jarratt, BIT 11
 * (1971) 168-174, as CVODE's rootfinding), the step is cut at the
 * earliest root, the events there act in index order, and the scheme
 * restarts from there. For host and device: fixed-size arrays, no
 * allocation, no recursion.
 *
 * What is a scheme's own is its dense output, a Dense object: D.state(tc,
 * xc) puts the state at a time tc strictly inside the accepted step into
 * xc (the explicit pairs: a step of the scheme from the step's start;
 * Rosenbrock: its interpolant or a step; radau5: a Radau step, else the
 * collocation polynomial). The record times up to the event come from
 * the same (step_dense_until, rk_integrate.cuh). D.restart(te, xe) redoes
 * at the event what the next step needs at once (an RK's first stage:
 * called here, the kernel keeps the registers it had with the call in
 * place); the stiff schemes restart in their own loops, where their
 * controller lives (a Rosenbrock's f0, Jacobian and history; radau5's
 * f0, Jacobian, LU and starting values).
 *
 * Sides: each event remembers the side of zero its g was last seen on
 * (+1, -1; 0 only from t0 while g is exactly 0 there). A step whose end
 * value is on the other side, or exactly 0, crosses; from 0 at t0 any
 * nonzero end crosses, its root at t0 (so an event can fire at t0). After
 * an event every side is read again at the event, after the actions (a
 * jump across a surface fires nothing); a 0 there keeps the side it had,
 * the post-crossing side for the events that fired. */
#ifndef PICARD_EVENTS_STEP_CUH
#define PICARD_EVENTS_STEP_CUH

#include <math.h>

#include "event_rules.h" /* rk_sign, rk_event_crossing, rk_event_dir */
#include "model_events.cuh"
#include "picard.h"
#include "portable.h"

namespace picard {

/* ---- one trajectory's events --------------------------------------------- */

/* What events_step decided about an accepted step. */
enum event_result {
	EVENT_NONE, /* no event in it: accept it as it is */
	EVENT_CUT,  /* cut at an event: x and t are the restart's */
	EVENT_STOP, /* the trajectory stopped (its outcome says why) */
};

template <class Model, typename real>
struct event_state {
	static constexpr int ne = nevents_of<Model>::value > 0 ? nevents_of<Model>::value : 1;
	real g[ne];         /* g at the current time t */
	signed char side[ne]; /* +1, -1; 0: exactly 0 at t0 so far */
	signed char last_dir[ne]; /* the direction it last fired, 0: never */
	double last_time[ne]; /* when */
	int count;          /* events fired */
};

/* Whether g's values are all finite. */
template <int ne, typename real>
__host__ __device__ inline bool events_finite(const real *g)
{
	bool ok = true;

	for (int k = 0; k < ne; k++)
		ok &= isfinite(g[k]) != 0;
	return ok;
}

/* The sides from g after an event or at the start: a 0 keeps the side. */
template <int ne, typename real>
__host__ __device__ inline void events_read_sides(const real *g, signed char *side)
{
	for (int k = 0; k < ne; k++)
		if (g[k] != 0)
			side[k] = (signed char)rk_sign((double)g[k]);
}

/* Whether a crossing in direction dir counts for event k. */
template <class Model>
__host__ __device__ inline bool event_wanted(int k, int dir)
{
	const unsigned long long bits = dir > 0 ? event_masks<Model>::rising :
					dir < 0 ? event_masks<Model>::falling : 0;

	return (bits >> k) & 1u;
}

/* Whether some event crosses, in a direction it wants, over a step whose
 * g ends at g_end: the test every step makes, kept apart from the
 * location so a step without a crossing does no more. */
template <class Model, typename real>
__host__ __device__ inline bool events_cross(const event_state<Model, real> &ev,
						const real *g_end)
{
	bool any = false;

	for (int j = 0; j < event_state<Model, real>::ne; j++)
		any |= event_wanted<Model>(j, rk_event_dir(ev.side[j], (double)ev.g[j],
							   (double)g_end[j]));
	return any;
}

/* Start: g at (t0, x0) and the sides it gives; false when g is not
 * finite there. */
template <class Model, typename real>
__host__ __device__ inline bool events_start(event_state<Model, real> &ev, double t,
						const real *x, const real *p)
{
	constexpr int ne = event_state<Model, real>::ne;

	Model::template events<real>((real)t, x, p, ev.g);
	for (int k = 0; k < ne; k++) {
		ev.side[k] = 0;
		ev.last_dir[k] = 0;
		ev.last_time[k] = (double)NAN;
	}
	ev.count = 0;
	events_read_sides<ne>(ev.g, ev.side);
	return events_finite<ne>(ev.g);
}

/* The state at time tc of the step from (t, x) (its dense output D
 * inside it), and g there. */
template <class Model, typename real, class Dense>
__host__ __device__ inline void event_state_at(Dense &D, double t, double tc, const real *x,
					       const real *p, real *xc, real *gc)
{
	if (tc == t) {
		for (int i = 0; i < Model::dim; i++)
			xc[i] = x[i];
	} else {
		D.state(tc, xc);
	}
	Model::template events<real>((real)tc, xc, p, gc);
}

/* Event j's root in [t, tb], where g_j goes from ga (at t, nonzero) to gb
 * (at tb, nonzero, the other side), to within tol: Illinois on the dense
 * output. Returns the bracket's end past the root (g_j there 0 or past
 * it), its state in xb and g there in gb_all; NaN when g was not finite. */
template <class Model, typename real, class Dense>
__host__ __device__ inline double event_locate(int j, double t, double tb, double ga, double gb,
					       double tol, const real *x, const real *p, Dense &D,
					       real *xb, real *gb_all)
{
	constexpr int n = Model::dim, ne = event_state<Model, real>::ne;
	double a = t, b = tb, fa = ga, fb = gb;
	int kept = 0; /* +1: a was kept last time, -1: b */
	real xc[n], gc[ne];

	for (int it = 0; it < 200 && b - a > tol; it++) {
		double c = b - fb * (b - a) / (fb - fa);

		/* Illinois' secant, or the midpoint when it is not inside */
		if (!(c > a && c < b))
			c = a + 0.5 * (b - a);
		event_state_at<Model, real>(D, t, c, x, p, xc, gc);
		const double fc = (double)gc[j];

		if (!events_finite<ne>(gc))
			return (double)NAN;
		if (rk_sign(fc) == rk_sign(fa)) {
			a = c;
			fa = fc;
			if (kept == -1) /* b kept twice running: halve its value */
				fb *= 0.5;
			kept = -1;
		} else {
			b = c;
			fb = fc;
			for (int i = 0; i < n; i++)
				xb[i] = xc[i];
			for (int q = 0; q < ne; q++)
				gb_all[q] = gc[q];
			if (fc == 0)
				break;
			if (kept == 1)
				fa *= 0.5;
			kept = 1;
		}
	}
	return b;
}

/* The test every accepted step makes, g at its end (t_new, xn) into
 * g_end: true when nothing happens in the step (g finite, no wanted
 * crossing), ev then holding g there and its sides; false when the step
 * needs events_step. Apart from it so that the usual step never runs
 * through the location's paths, which change x, t and the scheme's
 * state: merged with them, it paid register moves at every step (ncu,
 * float dp5 on lotka: bench/results/h200-2026-11-29-issue39-hot). */
template <class Model, typename real>
__host__ __device__ inline bool events_quiet(event_state<Model, real> &ev, double t_new,
					     const real *xn, const real *p, real *g_end)
{
	constexpr int ne = event_state<Model, real>::ne;

	Model::template events<real>((real)t_new, xn, p, g_end);
	if (!events_finite<ne>(g_end) || events_cross<Model>(ev, g_end))
		return false;
	for (int q = 0; q < ne; q++)
		ev.g[q] = g_end[q];
	events_read_sides<ne>(g_end, ev.side);
	return true;
}

/* A step from (t, x) to (t_new, xn) was accepted, D its dense output, xn
 * a good state, g at its end g_end, and events_quiet said something
 * happens in it: look for events in it. NONE: ev.g holds g at t_new (the
 * caller accepts the step). CUT: the record times up to the event are
 * stored, the actions applied and logged, x and t are the event's, D
 * restarted there. STOP: o says why, x the state it stopped in. */
PICARD_EXEC_CHECK_DISABLE
template <class Model, typename real, class Dense, class Out>
__host__ __device__ inline event_result events_step(event_state<Model, real> &ev,
						    const rk_run &run, long w, double &t,
						    double t_new, real *x, const real *p,
						    const real *xn, const real *g_end, real lim,
						    Dense &D, Out &out, rk_outcome &o)
{
	constexpr int n = Model::dim, ne = event_state<Model, real>::ne;
	real xe[n], ge[ne];
	double te = t_new;
	int first = -1; /* an event crosses in the step */

	if (!events_finite<ne>(g_end)) {
		rk_flush(out, t, x);
		rk_fail(o, PICARD_TRAJ_EVENT_FAILED, w, t, t_new);
		return EVENT_STOP;
	}
	/* the earliest wanted crossing: each located within the earliest so
	 * far (te, its state xe, g there ge), where it has crossed by then */
	const double tol = fmax(16 * rk_eps<real>::value * (fabs(t) + fabs(t_new - t)),
				run.steps ? 0.0 : 1e-3 * run.rtol * fabs(t_new - t));
	for (int i = 0; i < n; i++)
		xe[i] = xn[i];
	for (int q = 0; q < ne; q++)
		ge[q] = g_end[q];
	for (int j = 0; j < ne; j++) {
		const int dir = rk_event_dir(ev.side[j], (double)ev.g[j], (double)g_end[j]);

		if (!event_wanted<Model>(j, dir))
			continue;
		/* leaving the surface its own jump left the state on */
		if (ev.last_dir[j] == -dir && t < ev.last_time[j] + event_min_spacing_of<Model>::value)
			continue;
		if (ev.side[j] == 0 || ev.g[j] == 0) { /* on zero at the step's start */
			if (te > t) {
				te = t;
				event_state_at<Model, real>(D, t, te, x, p, xe, ge);
			}
		} else if (rk_event_crossing(ev.side[j], (double)ge[j]) == dir && ge[j] != 0) {
			/* crossed by te (else its root is after it): locate it */
			real xb[n], gb[ne];

			for (int i = 0; i < n; i++)
				xb[i] = xe[i];
			for (int q = 0; q < ne; q++)
				gb[q] = ge[q];
			const double tj = event_locate<Model, real>(j, t, te, (double)ev.g[j],
								    (double)ge[j], tol, x, p, D, xb,
								    gb);
			if (isnan(tj)) {
				rk_flush(out, t, x);
				rk_fail(o, PICARD_TRAJ_EVENT_FAILED, w, t, t_new);
				return EVENT_STOP;
			}
			te = tj;
			for (int i = 0; i < n; i++)
				xe[i] = xb[i];
			for (int q = 0; q < ne; q++)
				ge[q] = gb[q];
		} else if (rk_event_crossing(ev.side[j], (double)ge[j]) != dir) {
			continue;
		}
		first = j;
	}
	if (first < 0) {
		for (int q = 0; q < ne; q++)
			ev.g[q] = g_end[q];
		events_read_sides<ne>(g_end, ev.side);
		return EVENT_NONE;
	}
	/* the record times up to the event, from the step's start */
	{
		real xd[n];

		step_dense_until(D, t, te, x, xe, xd, out);
	}
	for (int i = 0; i < n; i++)
		x[i] = xe[i];
	t = te;
	/* the events that have crossed at te, in index order */
	signed char fired_dir[ne];
	for (int j = 0; j < ne; j++) {
		/* from zero at the step's start: at te = t alone, by where g goes */
		const bool zero_start = ev.side[j] == 0 || ev.g[j] == 0;
		const int dir = zero_start ? (te == t ? rk_event_dir(ev.side[j], 0.0, (double)g_end[j]) : 0) :
				rk_event_dir(ev.side[j], (double)ev.g[j], (double)ge[j]);

		fired_dir[j] = 0;
		if (!event_wanted<Model>(j, dir) ||
		    (ev.last_dir[j] == -dir && te < ev.last_time[j] + event_min_spacing_of<Model>::value))
			continue;
		if (ev.last_dir[j] == dir && te - ev.last_time[j] < event_min_spacing_of<Model>::value) {
			/* chattering: fired the same way within its spacing */
			rk_fail(o, PICARD_TRAJ_EVENT_LIMIT, w, te, te);
			return EVENT_STOP;
		}
		if (ev.count >= event_limit_of<Model>::value) {
			rk_fail(o, PICARD_TRAJ_EVENT_LIMIT, w, te, te);
			return EVENT_STOP;
		}
		real before[n];

		for (int i = 0; i < n; i++)
			before[i] = x[i];
		/* p is the member's own copy, a local array of every caller
		 * of the explicit, Rosenbrock and radau5 loops (rk_kernel.cuh,
		 * rk_warp_kernel.cuh, rk_host.h): a jump of the parameters
		 * changes it for the rest of the member's span */
		if ((event_masks<Model>::jump >> j) & 1u)
			event_jump<Model, real>::apply(j, (real)te, x, const_cast<real *>(p));
		out.event(ev.count++, j, te, before, x);
		fired_dir[j] = (signed char)dir;
		ev.last_dir[j] = (signed char)dir;
		ev.last_time[j] = te;
		if ((event_masks<Model>::terminate >> j) & 1u) {
			rk_fail(o, PICARD_TRAJ_EVENT, w, te, te);
			return EVENT_STOP;
		}
		if (!rk_state_ok<n>(x, lim)) {
			rk_fail(o, rk_state_status<n>(x), w, te, te);
			return EVENT_STOP;
		}
	}
	/* restart: g and the sides after the actions */
	Model::template events<real>((real)te, x, p, ev.g);
	if (!events_finite<ne>(ev.g)) {
		rk_fail(o, PICARD_TRAJ_EVENT_FAILED, w, te, te);
		return EVENT_STOP;
	}
	for (int j = 0; j < ne; j++)
		if (fired_dir[j])
			ev.side[j] = fired_dir[j];
	events_read_sides<ne>(ev.g, ev.side);
	D.restart(te, x);
	return EVENT_CUT;
}

} /* namespace picard */

#endif
