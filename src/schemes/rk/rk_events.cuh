/* rk_events.cuh - events of a model (docs/models.md, "Events") in the
 * per-thread explicit Runge-Kutta integration (rk_integrate.cuh): a sign
 * change of g_k(t, x, p) over an accepted step is located on the step's
 * dense output (a step of the scheme itself from the step's start, the
 * scheme's order) by the Illinois method (Dowell & Jarratt, BIT 11 (1971)
 * 168-174, as CVODE's rootfinding), the step is cut at the earliest root,
 * the events there act in index order, and the integration restarts from
 * there. Written once for host and device: fixed-size arrays, no
 * allocation, no recursion.
 *
 * Sides: each event remembers the side of zero its g was last seen on
 * (+1, -1; 0 only from t0 while g is exactly 0 there). A step whose end
 * value is on the other side, or exactly 0, crosses; from 0 at t0 any
 * nonzero end crosses, its root at t0 (so an event can fire at t0). After
 * an event every side is read again at the event, after the actions (a
 * jump across a surface fires nothing); a 0 there keeps the side it had,
 * the post-crossing side for the events that fired. */
#ifndef PICARD_RK_EVENTS_CUH
#define PICARD_RK_EVENTS_CUH

#include <math.h>

#include "model_events.cuh"
#include "picard.h"
#include "portable.h"

namespace picard {

/* ---- one trajectory's events --------------------------------------------- */

/* What rk_events_step decided about an accepted step. */
enum rk_event_result {
	RK_EVENT_NONE, /* no event in it: accept it as it is */
	RK_EVENT_CUT,  /* cut at an event: x, t and k[0] are the restart's */
	RK_EVENT_STOP, /* the trajectory stopped (its outcome says why) */
};

template <class Model, typename real>
struct rk_events {
	static constexpr int ne = nevents_of<Model>::value > 0 ? nevents_of<Model>::value : 1;
	real g[ne];         /* g at the current time t */
	signed char side[ne]; /* +1, -1; 0: exactly 0 at t0 so far */
	signed char last_dir[ne]; /* the direction it last fired, 0: never */
	double last_time[ne]; /* when */
	int count;          /* events fired */
};

__host__ __device__ inline int rk_sign(double v)
{
	return v > 0 ? 1 : v < 0 ? -1 : 0;
}

/* Whether g's values are all finite. */
template <int ne, typename real>
__host__ __device__ inline bool rk_events_finite(const real *g)
{
	bool ok = true;

	for (int k = 0; k < ne; k++)
		ok &= isfinite(g[k]) != 0;
	return ok;
}

/* The sides from g after an event or at the start: a 0 keeps the side. */
template <int ne, typename real>
__host__ __device__ inline void rk_events_read_sides(const real *g, signed char *side)
{
	for (int k = 0; k < ne; k++)
		if (g[k] != 0)
			side[k] = (signed char)rk_sign((double)g[k]);
}

/* The direction an event with side `side` crosses in when g ends a step
 * at value `end`: +1 rising, -1 falling, 0 none. */
__host__ __device__ inline int rk_event_crossing(int side, double end)
{
	if (side == 0)
		return rk_sign(end);
	return end == 0 || rk_sign(end) == -side ? -side : 0;
}

/* The crossing of a step whose g goes from start (on side `side`) to
 * end: from zero at the start, none when it ends on zero too. */
__host__ __device__ inline int rk_event_dir(int side, double start, double end)
{
	if ((side == 0 || start == 0) && end == 0)
		return 0;
	return rk_event_crossing(side, end);
}

/* Whether a crossing in direction dir counts for event k. */
template <class Model>
__host__ __device__ inline bool rk_event_wanted(int k, int dir)
{
	const unsigned long long bits = dir > 0 ? event_masks<Model>::rising :
					dir < 0 ? event_masks<Model>::falling : 0;

	return (bits >> k) & 1u;
}

/* Whether some event crosses, in a direction it wants, over a step whose
 * g ends at g_end: the test every step makes, kept apart from the
 * location so a step without a crossing does no more. */
template <class Model, typename real>
__host__ __device__ inline bool rk_events_cross(const rk_events<Model, real> &ev,
						const real *g_end)
{
	bool any = false;

	for (int j = 0; j < rk_events<Model, real>::ne; j++)
		any |= rk_event_wanted<Model>(j, rk_event_dir(ev.side[j], (double)ev.g[j],
							      (double)g_end[j]));
	return any;
}

/* Start: g at (t0, x0) and the sides it gives; false when g is not
 * finite there. */
template <class Model, typename real>
__host__ __device__ inline bool rk_events_start(rk_events<Model, real> &ev, double t,
						const real *x, const real *p)
{
	constexpr int ne = rk_events<Model, real>::ne;

	Model::template events<real>((real)t, x, p, ev.g);
	for (int k = 0; k < ne; k++) {
		ev.side[k] = 0;
		ev.last_dir[k] = 0;
		ev.last_time[k] = (double)NAN;
	}
	ev.count = 0;
	rk_events_read_sides<ne>(ev.g, ev.side);
	return rk_events_finite<ne>(ev.g);
}

/* The state at time tc inside the step from (t, x) whose first stage is
 * k[0], and g there: a step of the scheme itself (k[1..] overwritten). */
template <class Model, class Tab, typename real>
__host__ __device__ inline void rk_event_state(double t, double tc, const real *x, const real *p,
					       real (*k)[Model::dim], real *xc, real *gc)
{
	if (tc == t) {
		for (int i = 0; i < Model::dim; i++)
			xc[i] = x[i];
	} else {
		rk_stages<Model, Tab, real>(t, tc - t, x, p, k, xc);
	}
	Model::template events<real>((real)tc, xc, p, gc);
}

/* Event j's root in [t, tb], where g_j goes from ga (at t, nonzero) to gb
 * (at tb, nonzero, the other side), to within tol: Illinois on the dense
 * output. Returns the bracket's end past the root (g_j there 0 or past
 * it), its state in xb and g there in gb_all; NaN when g was not finite. */
template <class Model, class Tab, typename real>
__host__ __device__ inline double rk_event_locate(int j, double t, double tb, double ga, double gb,
						  double tol, const real *x, const real *p,
						  real (*k)[Model::dim], real *xb, real *gb_all)
{
	constexpr int n = Model::dim, ne = rk_events<Model, real>::ne;
	double a = t, b = tb, fa = ga, fb = gb;
	int kept = 0; /* +1: a was kept last time, -1: b */
	real xc[n], gc[ne];

	for (int it = 0; it < 200 && b - a > tol; it++) {
		double c = b - fb * (b - a) / (fb - fa);

		/* Illinois' secant, or the midpoint when it is not inside */
		if (!(c > a && c < b))
			c = a + 0.5 * (b - a);
		rk_event_state<Model, Tab, real>(t, c, x, p, k, xc, gc);
		const double fc = (double)gc[j];

		if (!rk_events_finite<ne>(gc))
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

/* A step from (t, x) to (t_new, xn) was accepted, its stages in k and xn
 * a good state: look for events in it. NONE: ev.g holds g at t_new
 * (the caller accepts the step). CUT: the dense output up to the event is
 * stored, the actions applied and logged, x and t are the event's, k[0]
 * = f there. STOP: o says why, x the state it stopped in. */
PICARD_EXEC_CHECK_DISABLE
template <class Model, class Tab, typename real, class Out>
__host__ __device__ inline rk_event_result rk_events_step(rk_events<Model, real> &ev,
							  const rk_run &run, long w, double &t,
							  double t_new, real *x, const real *p,
							  real (*k)[Model::dim], const real *xn,
							  real lim, Out &out, rk_outcome &o)
{
	constexpr int n = Model::dim, ne = rk_events<Model, real>::ne;
	real g_end[ne], xe[n], ge[ne];
	double te = t_new;
	int first = -1; /* an event crosses in the step */

	Model::template events<real>((real)t_new, xn, p, g_end);
	if (!rk_events_finite<ne>(g_end)) {
		rk_flush(out, t, x);
		rk_fail(o, PICARD_TRAJ_EVENT_FAILED, w, t, t_new);
		return RK_EVENT_STOP;
	}
	if (!rk_events_cross<Model>(ev, g_end)) { /* the usual step: nothing more */
		for (int q = 0; q < ne; q++)
			ev.g[q] = g_end[q];
		rk_events_read_sides<ne>(g_end, ev.side);
		return RK_EVENT_NONE;
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

		if (!rk_event_wanted<Model>(j, dir))
			continue;
		/* leaving the surface its own jump left the state on */
		if (ev.last_dir[j] == -dir && t < ev.last_time[j] + event_min_spacing_of<Model>::value)
			continue;
		if (ev.side[j] == 0 || ev.g[j] == 0) { /* on zero at the step's start */
			if (te > t) {
				te = t;
				rk_event_state<Model, Tab, real>(t, te, x, p, k, xe, ge);
			}
		} else if (rk_event_crossing(ev.side[j], (double)ge[j]) == dir && ge[j] != 0) {
			/* crossed by te (else its root is after it): locate it */
			real xb[n], gb[ne];

			for (int i = 0; i < n; i++)
				xb[i] = xe[i];
			for (int q = 0; q < ne; q++)
				gb[q] = ge[q];
			const double tj = rk_event_locate<Model, Tab, real>(j, t, te, (double)ev.g[j],
									    (double)ge[j], tol, x, p,
									    k, xb, gb);
			if (isnan(tj)) {
				rk_flush(out, t, x);
				rk_fail(o, PICARD_TRAJ_EVENT_FAILED, w, t, t_new);
				return RK_EVENT_STOP;
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
		rk_events_read_sides<ne>(g_end, ev.side);
		return RK_EVENT_NONE;
	}
	/* the record times up to the event, from the step's start */
	rk_dense_until<Model, Tab, real>(t, te, x, xe, p, k, out);
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
		if (!rk_event_wanted<Model>(j, dir) ||
		    (ev.last_dir[j] == -dir && te < ev.last_time[j] + event_min_spacing_of<Model>::value))
			continue;
		if (ev.last_dir[j] == dir && te - ev.last_time[j] < event_min_spacing_of<Model>::value) {
			/* chattering: fired the same way within its spacing */
			rk_fail(o, PICARD_TRAJ_EVENT_LIMIT, w, te, te);
			return RK_EVENT_STOP;
		}
		if (ev.count >= event_limit_of<Model>::value) {
			rk_fail(o, PICARD_TRAJ_EVENT_LIMIT, w, te, te);
			return RK_EVENT_STOP;
		}
		real before[n];

		for (int i = 0; i < n; i++)
			before[i] = x[i];
		/* p is the member's own copy, a local array of every caller
		 * (rk_kernel.cuh, rk_warp_kernel.cuh, rk_host.h): a jump of the
		 * parameters changes it for the rest of the member's span */
		if ((event_masks<Model>::jump >> j) & 1u)
			event_jump<Model, real>::apply(j, (real)te, x, const_cast<real *>(p));
		out.event(ev.count++, j, te, before, x);
		fired_dir[j] = (signed char)dir;
		ev.last_dir[j] = (signed char)dir;
		ev.last_time[j] = te;
		if ((event_masks<Model>::terminate >> j) & 1u) {
			rk_fail(o, PICARD_TRAJ_EVENT, w, te, te);
			return RK_EVENT_STOP;
		}
		if (!rk_state_ok<n>(x, lim)) {
			rk_fail(o, rk_state_status<n>(x), w, te, te);
			return RK_EVENT_STOP;
		}
	}
	/* restart: g and the sides after the actions */
	Model::template events<real>((real)te, x, p, ev.g);
	if (!rk_events_finite<ne>(ev.g)) {
		rk_fail(o, PICARD_TRAJ_EVENT_FAILED, w, te, te);
		return RK_EVENT_STOP;
	}
	for (int j = 0; j < ne; j++)
		if (fired_dir[j])
			ev.side[j] = fired_dir[j];
	rk_events_read_sides<ne>(ev.g, ev.side);
	Model::rhs((real)te, x, p, k[0]);
	return RK_EVENT_CUT;
}

} /* namespace picard */

#endif
