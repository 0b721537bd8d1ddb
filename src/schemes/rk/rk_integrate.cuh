/* rk_integrate.cuh - one trajectory of a per-thread explicit Runge-Kutta
 * scheme (src/scheme_rk.c), written once for the device (kernels/
 * rk_kernel.cuh, one thread per trajectory) and the host (the CPU backend
 * calls the same template, instantiated in the model's file): the same
 * operations in the same order on both, fused multiply-adds spelled out.
 *
 * The grid's windows are output intervals. Fixed step: each window is
 * `steps` equal steps. Adaptive: steps chosen per trajectory by an
 * embedded error estimate, RMS norm over sc_k = atol + rtol max(|x_k|,
 * |x_new_k|) (HNW I, II.4, as GSL and CVODE weigh components), PI control
 * (Gustafsson; HNW II, IV.2), the last step of a window shortened to end on
 * it, HNW's starting step. No lockstep: each thread accepts and rejects its
 * own steps.
 *
 * Dense output at a record's times: a step of the scheme itself from the
 * start of the step that holds the time to the time, so a time gets the
 * scheme's order, at the price of stages - 1 evaluations per time.
 */
#ifndef PICARD_RK_INTEGRATE_CUH
#define PICARD_RK_INTEGRATE_CUH

#include <float.h>
#include <math.h>

#include "launch.h" /* PICARD_MAX_RECORDS */
#include "picard.h"
#include "portable.h"
#include "rk_tableaus.cuh"
#include "traits.cuh"

/* Unrolled on the device, where the stages live in registers, and on the
 * host (the CPU backend's instance), where gcc would otherwise build the
 * tableau in a stack array at every step and loop over it (perf: half
 * the CPU solve in that memset); unrolled, the coefficients are literals
 * and the zeros vanish. */
#if defined(__CUDA_ARCH__)
#define RK_UNROLL _Pragma("unroll")
#else
#if defined(__CUDACC__)
#pragma nv_diag_suppress 1675 /* nvcc's front end does not know gcc's pragma */
#endif
#define RK_UNROLL _Pragma("GCC unroll 16")
#endif

namespace picard {

/* What one trajectory's integration needs, from the grid. */
struct rk_run {
	double t0, t1, window; /* span, output interval */
	long windows;
	int steps;             /* fixed: steps per window; 0: adaptive */
	long max_steps;        /* adaptive: steps tried over the span, at most */
	double atol, rtol;     /* adaptive: the local error's scale */
	double bound;          /* |x| past this is divergence */
	double h0;             /* adaptive: the first step; 0: estimated */
};

/* What a trajectory integrates to. */
struct rk_outcome {
	picard_traj_status status;
	long fail_window;  /* -1 when it did not fail */
	double fail_start; /* the step that failed: its start (the last good
			      state's time) ... */
	double fail_end;   /* ... and its end; both NaN when it did not fail */
	long steps;        /* steps tried, over all windows */
	int steps_max;     /* most steps tried in one window */
};

/* An outcome that has not failed (yet). */
__host__ __device__ inline rk_outcome rk_outcome_ok(int steps_max)
{
	rk_outcome o = {PICARD_TRAJ_OK, -1, (double)NAN, (double)NAN, 0, steps_max};
	return o;
}

/* Mark o failed with status in window w, in the step from t to t_end:
 * where it happened, not the window's end. */
__host__ __device__ inline void rk_fail(rk_outcome &o, picard_traj_status status, long w,
					double t, double t_end)
{
	o.status = status;
	o.fail_window = w;
	o.fail_start = t;
	o.fail_end = t_end;
}

template <typename real> struct rk_eps;
template <> struct rk_eps<float> { static constexpr double value = FLT_EPSILON; };
template <> struct rk_eps<double> { static constexpr double value = DBL_EPSILON; };
template <typename real> struct rk_huge;
template <> struct rk_huge<float> { static constexpr double value = FLT_MAX; };
template <> struct rk_huge<double> { static constexpr double value = DBL_MAX; };

__host__ __device__ inline float rk_fma(float a, float b, float c) { return fmaf(a, b, c); }
__host__ __device__ inline double rk_fma(double a, double b, double c) { return fma(a, b, c); }

/* The step's stages 1 .. stages-1 from the first, k[0] = f(t, x), and the
 * new solution x + h sum_j b_j k_j into xn. */
template <class Model, class Tab, typename real>
__host__ __device__ inline void rk_stages(double t, double h, const real *x, const real *p,
					  real (*k)[Model::dim], real *xn)
{
	constexpr int n = Model::dim;
	const real hr = (real)h;
	real xs[n];

RK_UNROLL
	for (int s = 1; s < Tab::stages; s++) {
		for (int i = 0; i < n; i++) {
			real acc = 0;
RK_UNROLL
			for (int j = 0; j < s; j++)
				if (Tab::a(s, j) != 0)
					acc = rk_fma((real)Tab::a(s, j), k[j][i], acc);
			xs[i] = rk_fma(hr, acc, x[i]);
		}
		Model::rhs((real)(t + Tab::c(s) * h), xs, p, k[s]);
	}
	for (int i = 0; i < n; i++) {
		real acc = 0;
RK_UNROLL
		for (int j = 0; j < Tab::stages; j++)
			if (Tab::b(j) != 0)
				acc = rk_fma((real)Tab::b(j), k[j][i], acc);
		xn[i] = rk_fma(hr, acc, x[i]);
	}
}

/* The scaled error of a step (<= 1: accept): h times the RMS of the
 * estimate over sc_k = atol + rtol max(|x_k|, |xn_k|), DOP853's two
 * estimates combined as dop853.f does; +Inf when xn is not finite. In
 * the solve's precision, as the estimate itself is. */
template <class Model, class Tab, typename real>
__host__ __device__ inline real rk_error(const rk_run &run, double h, const real *x,
					 const real *xn, real (*k)[Model::dim])
{
	constexpr int n = Model::dim;
	const real atol = (real)run.atol, rtol = (real)run.rtol;
	real sum = 0, sum3 = 0;

	for (int i = 0; i < n; i++) {
		real est = 0, est3 = 0;
RK_UNROLL
		for (int j = 0; j < Tab::stages; j++) {
			if (Tab::e(j) != 0)
				est = rk_fma((real)Tab::e(j), k[j][i], est);
			if (Tab::two_estimates && Tab::e3(j) != 0)
				est3 = rk_fma((real)Tab::e3(j), k[j][i], est3);
		}
		if (!isfinite(xn[i]))
			return (real)INFINITY;
		const real inv = (real)1 / (atol + rtol * fmax(fabs(x[i]), fabs(xn[i])));
		sum = rk_fma(est * inv, est * inv, sum);
		sum3 = rk_fma(est3 * inv, est3 * inv, sum3);
	}
	if (Tab::two_estimates) {
		const real denom = sum + (real)0.01 * sum3;
		return denom > 0 ? (real)fabs(h) * sum / sqrt(denom * (real)n) : (real)0;
	}
	return (real)fabs(h) * sqrt(sum / (real)n);
}

/* Whether every |x_k| is within lim (the bound, at most the largest finite
 * real): one comparison a component, NaN and Inf fail it; one branch a
 * step where the step loops test it. */
template <int n, typename real>
__host__ __device__ inline bool rk_state_ok(const real *x, real lim)
{
	bool ok = true;

	for (int i = 0; i < n; i++)
		ok &= fabs(x[i]) <= lim;
	return ok;
}

/* Why a state failed rk_state_ok: not finite, or past the bound. */
template <int n, typename real>
__host__ __device__ inline picard_traj_status rk_state_status(const real *x)
{
	for (int i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return PICARD_TRAJ_NONFINITE;
	return PICARD_TRAJ_DIVERGED;
}

/* rk_state_ok's lim for a bound. */
template <typename real>
__host__ __device__ inline real rk_limit(double bound)
{
	return (real)fmin(bound, rk_huge<real>::value);
}

/* HNW I, II.4's starting step (one evaluation besides k0 = f(t0, x0)). */
template <class Model, class Tab, typename real>
__host__ __device__ inline double rk_first_step(const rk_run &run, double t, const real *x,
						const real *p, const real *k0)
{
	constexpr int n = Model::dim;
	real x1[n], f1[n];
	double d0 = 0, d1 = 0, d2 = 0, h0, h1;
	const double span = run.t1 - run.t0;

	for (int i = 0; i < n; i++) {
		const double sc = run.atol + run.rtol * fabs((double)x[i]);
		d0 += ((double)x[i] / sc) * ((double)x[i] / sc);
		d1 += ((double)k0[i] / sc) * ((double)k0[i] / sc);
	}
	d0 = sqrt(d0 / n);
	d1 = sqrt(d1 / n);
	h0 = d0 < 1e-5 || d1 < 1e-5 ? 1e-6 : 0.01 * d0 / d1;
	h0 = fmin(h0, span);
	for (int i = 0; i < n; i++)
		x1[i] = rk_fma((real)h0, k0[i], x[i]);
	Model::rhs((real)(t + h0), x1, p, f1);
	for (int i = 0; i < n; i++) {
		const double sc = run.atol + run.rtol * fabs((double)x[i]);
		const double d = ((double)f1[i] - (double)k0[i]) / sc;
		d2 += d * d;
	}
	d2 = sqrt(d2 / n) / h0;
	h1 = fmax(d1, d2) <= 1e-15 ? fmax(1e-6, h0 * 1e-3) :
	     pow(0.01 / fmax(d1, d2), 1.0 / (Tab::err_order + 1));
	h1 = fmin(100 * h0, h1);
	return isfinite(h1) && h1 > 0 ? fmin(h1, span) : fmin(h0, span);
}

/* A trajectory that fails at t with the good state x there: the record
 * times due up to t get x (a failure in the first step has stored none),
 * so the states saved before the fault are the solution's; those after
 * it stay unwritten (NaN, as picard_solve fills them). */
PICARD_EXEC_CHECK_DISABLE
template <typename real, class Out>
__host__ __device__ inline void rk_flush(Out &out, double t, const real *x)
{
	if (Out::dense)
		for (double td = out.due(t); !isnan(td); td = out.due(t))
			out.store(x);
}

/* The record times due up to t_end of a step from (t, x) that ends at
 * x_end: the ends stored as they are, a time between them from the
 * step's dense output, D.state(td, xd) (a scheme's own: rk_dense_step
 * below, ros::dense_step, radau::dense_step), in xd. The explicit pairs,
 * the stiff schemes and the events' cut (events_step.cuh) share it. */
PICARD_EXEC_CHECK_DISABLE
template <typename real, class Dense, class Out>
__host__ __device__ inline void step_dense_until(Dense &D, double t, double t_end, const real *x,
						 const real *x_end, real *xd, Out &out)
{
	if (Out::dense)
		for (double td = out.due(t_end); !isnan(td); td = out.due(t_end)) {
			if (td <= t || td == t_end) {
				out.store(td <= t ? x : x_end);
				continue;
			}
			D.state(td, xd);
			out.store(xd);
		}
}

/* An explicit pair's dense output inside a step from (t, x) whose first
 * stage is k[0]: a step of the scheme itself to the time (k[1..]
 * overwritten); and its restart after an event (events_step.cuh). */
template <class Model, class Tab, typename real>
struct rk_dense_step {
	double t;
	const real *x, *p;
	real (*k)[Model::dim];

	__host__ __device__ void state(double tc, real *xc) const
	{
		rk_stages<Model, Tab, real>(t, tc - t, x, p, k, xc);
	}
	/* After an event at (te, xe): the first stage there. */
	__host__ __device__ void restart(double te, const real *xe) const
	{
		Model::rhs((real)te, xe, p, k[0]);
	}
};

/* The record times due up to t_end of a step from (t, x) that ends at
 * x_end, its first stage in k[0]. */
PICARD_EXEC_CHECK_DISABLE
template <class Model, class Tab, typename real, class Out>
__host__ __device__ inline void rk_dense_until(double t, double t_end, const real *x,
					       const real *x_end, const real *p,
					       real (*k)[Model::dim], Out &out)
{
	rk_dense_step<Model, Tab, real> D = {t, x, p, k};
	real xd[Model::dim];

	step_dense_until(D, t, t_end, x, x_end, xd, out);
}

/* An accepted step from (t, x) to (t_new, xn), stages in k: the record
 * times it holds first (by steps of the scheme from its start; k[0] is
 * kept, the others are free once the FSAL slope is saved), then x = xn
 * and k[0] = f(t_new, x). False when the new state fails rk_state_ok: x
 * = xn, the record times up to t stored (rk_flush), none after, k[0] not
 * evaluated. */
PICARD_EXEC_CHECK_DISABLE
template <class Model, class Tab, typename real, class Out>
__host__ __device__ inline bool rk_accept(double t, double t_new, real *x, const real *p,
					  real (*k)[Model::dim], const real *xn, real lim, Out &out)
{
	constexpr int n = Model::dim;
	real k_end[n];

	if (!rk_state_ok<n>(xn, lim)) {
		rk_flush(out, t, x);
		for (int i = 0; i < n; i++)
			x[i] = xn[i];
		return false;
	}
	if (Tab::fsal)
		for (int i = 0; i < n; i++)
			k_end[i] = k[Tab::stages - 1][i];
	rk_dense_until<Model, Tab, real>(t, t_new, x, xn, p, k, out);
	for (int i = 0; i < n; i++)
		x[i] = xn[i];
	if (Tab::fsal) {
		for (int i = 0; i < n; i++)
			k[0][i] = k_end[i];
	} else {
		Model::rhs((real)t_new, x, p, k[0]);
	}
	return true;
}

} /* namespace picard */

/* A model's events in the integration: after the helpers above, which
 * the location uses. */
#include "events_step.cuh"

namespace picard {

/* A step from (t, x) to (t_new, xn), stages in k, g at its end g_end,
 * that events_quiet did not pass: its events (events_step), after a cut
 * k[0] = f at the event. */
PICARD_EXEC_CHECK_DISABLE
template <class Model, class Tab, typename real, class Out>
__host__ __device__ inline event_result rk_events_step(event_state<Model, real> &ev,
						       const rk_run &run, long w, double &t,
						       double t_new, real *x, const real *p,
						       real (*k)[Model::dim], const real *xn,
						       const real *g_end, real lim, Out &out,
						       rk_outcome &o)
{
	rk_dense_step<Model, Tab, real> D = {t, x, p, k};
	return events_step<Model, real>(ev, run, w, t, t_new, x, p, xn, g_end, lim, D, out, o);
}

/* The end of window w (the last one ends on t1, not on t0 + windows h). */
__host__ __device__ inline double rk_window_end(const rk_run &run, long w)
{
	return w + 1 == run.windows ? run.t1 : run.t0 + (double)(w + 1) * run.window;
}

/* Fixed steps: run.steps equal steps a window, the last ending on it. A
 * loop of its own, with nothing of the adaptive controller in it: at
 * one step a window the per-step work besides the stages is a window's
 * end, one comparison of the state and one branch. */
PICARD_EXEC_CHECK_DISABLE
template <class Model, class Tab, typename real, class Out>
__host__ __device__ inline rk_outcome rk_fixed(const rk_run &run, real *x, const real *p,
					       Out &out)
{
	constexpr int n = Model::dim;
	real k[Tab::stages][n], xn[n];
	rk_outcome o = rk_outcome_ok(run.steps);
	const double h = run.window / run.steps; /* computed once */
	const real lim = rk_limit<real>(run.bound);
	double t = run.t0;
	double t_grid = t; /* the planned step's start: t, but after an event */
	event_state<Model, real> ev;
	real g_end[event_state<Model, real>::ne]; /* g at a step's end */

	if constexpr (runs_events<Model>::value)
		if (!events_start(ev, t, x, p)) {
			rk_flush(out, t, x);
			rk_fail(o, PICARD_TRAJ_EVENT_FAILED, 0, t, t);
			o.steps_max = 0;
			return o;
		}
	Model::rhs((real)t, x, p, k[0]);
	for (long w = 0; w < run.windows; w++) {
		const double tb = rk_window_end(run, w);

		for (int s = 1; s <= run.steps; s++) {
			const bool last = s == run.steps;
			const double t_new = last ? tb : t_grid + h;

			o.steps++;
			/* after an event the planned step is finished from it */
			rk_stages<Model, Tab, real>(t, t == t_grid ? (last ? tb - t : h) : t_new - t, x,
						    p, k, xn);
			if constexpr (runs_events<Model>::value)
				if (rk_state_ok<n>(xn, lim) &&
				    !events_quiet<Model, real>(ev, t_new, xn, p, g_end)) {
					const event_result r = rk_events_step<Model, Tab, real>(
						ev, run, w, t, t_new, x, p, k, xn, g_end, lim, out, o);

					if (r == EVENT_STOP) {
						o.steps_max = w ? run.steps : s;
						return o;
					}
					if (r == EVENT_CUT) {
						if (t < t_new)
							s--;
						else
							t_grid = t_new;
						continue;
					}
				}
			if (!rk_accept<Model, Tab, real>(t, t_new, x, p, k, xn, lim, out)) {
				rk_fail(o, rk_state_status<n>(x), w, t, t_new);
				o.steps_max = w ? run.steps : s;
				return o;
			}
			t = t_new;
			t_grid = t_new;
		}
		out.window_end(w, x);
	}
	return o;
}

/* Adaptive steps: per trajectory, as the header says. */
PICARD_EXEC_CHECK_DISABLE
template <class Model, class Tab, typename real, class Out>
__host__ __device__ inline rk_outcome rk_adaptive(const rk_run &run, real *x, const real *p,
						  Out &out)
{
	constexpr int n = Model::dim;
	/* PI control (HNW II, IV.2, eq. 2.43): h err^-alpha errold^beta, in
	 * float (a step factor needs no more), log errold carried */
	constexpr float k_exp = Tab::err_order + 1;
	constexpr float alpha = 0.7f / k_exp, beta = 0.4f / k_exp;
	constexpr float safety = 0.9f, fac_min = 0.2f, fac_max = 10;
	constexpr float log_err_min = -9.2103404f; /* log 1e-4: errold >= 1e-4 */
	real k[Tab::stages][n], xn[n];
	rk_outcome o = rk_outcome_ok(0);
	const real lim = rk_limit<real>(run.bound);
	double t = run.t0, h;
	float log_err_old = log_err_min;
	bool rejected = false, nonfinite = false;
	event_state<Model, real> ev;
	real g_end[event_state<Model, real>::ne]; /* g at a step's end */

	if constexpr (runs_events<Model>::value)
		if (!events_start(ev, t, x, p)) {
			rk_flush(out, t, x);
			rk_fail(o, PICARD_TRAJ_EVENT_FAILED, 0, t, t);
			return o;
		}
	Model::rhs((real)t, x, p, k[0]);
	h = rk_first_step<Model, Tab, real>(run, t, x, p, k[0]);
	for (long w = 0; w < run.windows; w++) {
		const double tb = rk_window_end(run, w);
		int tried = 0;

		while (t < tb) {
			const bool last = t + 1.01 * h >= tb;
			const double hs = last ? tb - t : h;

			if (o.steps >= run.max_steps || hs < 16 * rk_eps<real>::value * fabs(t) ||
			    hs <= 0) {
				/* the step it cannot take */
				rk_fail(o, o.steps >= run.max_steps ? PICARD_TRAJ_MAX_STEPS :
					   nonfinite ? PICARD_TRAJ_NONFINITE : PICARD_TRAJ_STEP_UNDERFLOW,
					w, t, t + hs);
				rk_flush(out, t, x);
				break;
			}
			tried++;
			o.steps++;
			rk_stages<Model, Tab, real>(t, hs, x, p, k, xn);
			const float err = (float)rk_error<Model, Tab, real>(run, hs, x, xn, k);
			nonfinite = !(err < INFINITY);
			if (!(err <= 1)) {
				h = hs * (nonfinite ? fac_min :
					  fmaxf(fac_min, safety * expf(-logf(err) / k_exp)));
				rejected = true;
				continue;
			}
			const double t_new = last ? tb : t + hs;

			if constexpr (runs_events<Model>::value)
				if (rk_state_ok<n>(xn, lim) &&
				    !events_quiet<Model, real>(ev, t_new, xn, p, g_end)) {
					const event_result r = rk_events_step<Model, Tab, real>(
						ev, run, w, t, t_new, x, p, k, xn, g_end, lim, out, o);

					if (r == EVENT_STOP)
						break;
					if (r == EVENT_CUT) { /* a fresh start from the event */
						h = rk_first_step<Model, Tab, real>(run, t, x, p, k[0]);
						log_err_old = log_err_min;
						rejected = false;
						continue;
					}
				}
			if (!rk_accept<Model, Tab, real>(t, t_new, x, p, k, xn, lim, out)) {
				rk_fail(o, rk_state_status<n>(x), w, t, t_new);
				break;
			}
			t = t_new;
			const float log_err = logf(fmaxf(err, 1e-10f));
			float fac = safety * expf(beta * log_err_old - alpha * log_err);

			fac = fminf(rejected ? 1.0f : fac_max, fmaxf(fac_min, fac));
			/* a step shortened to end the window says nothing about
			 * the step the trajectory can take */
			h = last ? fmax(h, hs * fac) : hs * fac;
			log_err_old = fmaxf(log_err, log_err_min);
			rejected = false;
		}
		o.steps_max = tried > o.steps_max ? tried : o.steps_max;
		if (o.status != PICARD_TRAJ_OK)
			break;
		out.window_end(w, x);
	}
	return o;
}

/* The integration's settings from a grid's: K steps per window, or
 * adaptive with K steps tried at most over the span and the iteration
 * tolerances as the local error's scale (src/scheme_rk.c). */
__host__ __device__ inline rk_run rk_run_of(double t0, double t1, double window, long windows,
					    bool adaptive, int K, double atol, double rtol,
					    double bound)
{
	rk_run run = {t0, t1, window, windows, adaptive ? 0 : K, adaptive ? (long)K : 0, atol,
		      rtol, bound, 0};
	return run;
}

/* run on a member's own span [t0, t1] (picard_solver_set_spans): as many
 * windows over it, each as the grid's window is of the grid's span. */
__host__ __device__ inline rk_run rk_run_spanning(rk_run run, double t0, double t1)
{
	run.t0 = t0;
	run.t1 = t1;
	run.window = (t1 - t0) / (double)run.windows;
	return run;
}

/* Which record times are due: each record of times that keeps the
 * trajectory has a cursor; the smallest pending time is due first, and
 * every record holding it gets the state. Device and host alike. */
struct rk_dense_cursors {
	long next[PICARD_MAX_RECORDS];
	double pending;

	template <class Records>
	__host__ __device__ double due(const Records &recs, int nrecords, long traj, double t)
	{
		pending = NAN;
		for (int r = 0; r < nrecords; r++) {
			const double *times = recs[r].times;

			if (times && traj % recs[r].traj_stride == 0 && next[r] < recs[r].ntimes &&
			    times[next[r]] <= t && !(times[next[r]] >= pending))
				pending = times[next[r]];
		}
		return pending;
	}

	/* Each cursor past its record's times before t0 (a member's own span
	 * starts after them): their rows are never written (NaN). */
	template <class Records>
	__host__ __device__ void start_at(const Records &recs, int nrecords, long traj, double t0)
	{
		for (int r = 0; r < nrecords; r++) {
			long lo = 0, hi = recs[r].ntimes;

			if (!recs[r].times || traj % recs[r].traj_stride != 0)
				continue;
			while (lo < hi) {
				const long mid = lo + (hi - lo) / 2;

				if (recs[r].times[mid] < t0)
					lo = mid + 1;
				else
					hi = mid;
			}
			next[r] = lo;
		}
	}

	/* Calls put(r, row) for each record whose next time is the pending
	 * one, and moves past it. */
PICARD_EXEC_CHECK_DISABLE
	template <class Records, class Put>
	__host__ __device__ void take(const Records &recs, int nrecords, long traj, Put put)
	{
		for (int r = 0; r < nrecords; r++)
			if (recs[r].times && traj % recs[r].traj_stride == 0 &&
			    next[r] < recs[r].ntimes && recs[r].times[next[r]] == pending)
				put(r, next[r]++);
	}
};

/* An implicit scheme's tag (rk_tableaus.cuh's rk_radau5) declares
 * implicit = true: rk_trajectory hands it to its own integration. */
template <class Tab, class = void>
struct rk_is_implicit { static constexpr bool value = false; };
template <class Tab>
struct rk_is_implicit<Tab, void_t<decltype(&Tab::implicit)>> {
	static constexpr bool value = Tab::implicit;
};

/* A Rosenbrock scheme's tableau (src/schemes/rosenbrock/
 * rosenbrock_tableaus.cuh) declares rosenbrock = true: rk_trajectory
 * hands it to the Rosenbrock integration. */
template <class Tab, class = void>
struct rk_is_rosenbrock { static constexpr bool value = false; };
template <class Tab>
struct rk_is_rosenbrock<Tab, void_t<decltype(&Tab::rosenbrock)>> {
	static constexpr bool value = Tab::rosenbrock;
};

/* Radau IIA (radau5_integrate.cuh, which whoever instantiates it for
 * rk_radau5 includes). */
namespace radau { struct counts; }
template <class Model, typename real, class Out>
__host__ __device__ rk_outcome radau5_trajectory(const rk_run &run, real *x, const real *p,
						 Out &out, radau::counts *cnt = nullptr);

/* A Rosenbrock scheme (rosenbrock_integrate.cuh, which whoever
 * instantiates it for a Rosenbrock tableau includes). */
template <class Model, class Tab, typename real, class Out>
__host__ __device__ rk_outcome rosenbrock_trajectory(const rk_run &run, real *x, const real *p,
						     Out &out);

/* Integrate one trajectory: x (dim reals) from t0 to t1, in place, with
 * parameters p. out receives the window ends, out.window_end(w, x), and
 * when Out::dense the record times: out.due(t) is the next pending time
 * <= t (NaN: none), out.store(x) the state at it. On failure x is the
 * state that failed, the outcome names the step where it failed
 * (fail_start, fail_end), and the record times after fail_start are not
 * stored. (Out is the host's or the device's: each instance runs on its
 * own side.) */
PICARD_EXEC_CHECK_DISABLE
template <class Model, class Tab, typename real, class Out>
__host__ __device__ inline rk_outcome rk_trajectory(const rk_run &run, real *x, const real *p,
						    Out &out)
{
	if constexpr (rk_is_implicit<Tab>::value)
		return radau5_trajectory<Model, real>(run, x, p, out);
	else if constexpr (rk_is_rosenbrock<Tab>::value)
		return rosenbrock_trajectory<Model, Tab, real>(run, x, p, out);
	else
		return run.steps ? rk_fixed<Model, Tab, real>(run, x, p, out) :
				   rk_adaptive<Model, Tab, real>(run, x, p, out);
}

} /* namespace picard */

#endif
