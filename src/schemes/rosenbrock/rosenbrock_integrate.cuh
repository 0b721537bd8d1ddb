/* rosenbrock_integrate.cuh - one trajectory of a per-thread Rosenbrock
 * scheme (scheme_rosenbrock.c: rodas5p, rodas4, ros23), one integrator for
 * every tableau of rosenbrock_tableaus.cuh, written once for the device
 * (rk_kernel.cuh, one thread per trajectory) and the host (the CPU
 * backend, rk_host.h), through rk_trajectory (rk_integrate.cuh): the same
 * operations in the same order on both.
 *
 * A step (Hairer & Wanner, Solving ODEs II, IV.7, eq. (7.25), the
 * tableau's header): at its start (t, x), f0 = f(t, x), J = df/dx (the
 * model's own Jacobian, else forward-mode automatic differentiation:
 * jacobian.cuh) and f_t = df/dt (one pass of the rhs on dual numbers in t:
 * zero for an autonomous model, computed all the same, as a model does not
 * say it is autonomous); W = I / (h gamma) - J factored by LU with partial
 * pivoting (small_lu.cuh), then one solve a stage. A rejected step keeps
 * J and f_t and refactors W alone.
 *
 * Step-size control as Hairer's rodas.f (HW II, IV.8 and the code): err =
 * RMS of the estimate over sc_i = atol + rtol max(|x_i|, |xn_i|); accept
 * when err <= 1; fac = clamp(err^(1/(q+1)) / 0.9, 1/6, 5), q the
 * embedded order, h_new = h / fac; Gustafsson's predictive controller
 * after the first accepted step (rodas.f's default), no growth right after
 * a rejection, h / 10 after a rejected first step. Starting step: HNW I,
 * II.4 (rk_first_step). A step shortened to end an output interval says
 * nothing of the step the trajectory can take (as rk_adaptive and
 * radau5). Fixed steps (--steps): run.steps a window, the last ending on
 * it, no estimate (ros23 skips its third stage there).
 *
 * Failures, per trajectory, never silent:
 * - f, J or f_t not finite at a step's start (a model singular there, such
 *   as sqrt(x) at x = 0): PICARD_TRAJ_NONFINITE at once, the step it
 *   could not take named; no shorter step would mend it;
 * - W singular: the step is retried at half its length (rodas.f), and
 *   after max_singular in a row (rodas.f's NSING), or at once with fixed
 *   steps, PICARD_TRAJ_LINSOLVE_FAILED. With finite J, W = I/(h gamma) - J
 *   is regular for all short enough h: this is a Jacobian past what the
 *   precision's LU can take;
 * - a trial step whose state or estimate is not finite is rejected and
 *   retried at a fifth of its length; a step below 16 eps |t| is
 *   PICARD_TRAJ_STEP_UNDERFLOW (PICARD_TRAJ_NONFINITE when the last trial
 *   was not finite: a blow-up);
 * - an accepted state past the bound or not finite: DIVERGED or NONFINITE;
 * - more than max_steps step attempts: PICARD_TRAJ_MAX_STEPS.
 *
 * Dense output at a record's time inside an accepted step: the scheme's
 * own continuous extension where the tableau has one (ros23: Shampine &
 * Reichelt's, of order 2, no extra work); else (rodas5p, rodas4) a step
 * of the scheme from the start of the step that holds the time to the
 * time (J and f_t kept, W refactored: the scheme's order there, as the
 * explicit pairs and radau5 do), not the published Rodas interpolation
 * coefficients, which picard has not verified; should that W be singular,
 * the line between the step's ends.
 *
 * Events (docs/models.md, "Events"; events_step.cuh) in one thread's
 * layout: after each accepted step, located on the dense output above
 * (dense_step), the step cut there; the restart evaluates f0, J and f_t
 * afresh and starts the controller over (integrator::restart), a fresh
 * starting step; fixed steps finish the cut step first. The warp layout
 * refuses a model with events (solver.c).
 *
 * The outcome's steps count step attempts (stages right-hand sides each,
 * the Jacobian and f_t besides: the scheme's rhs_per_sweep); max_steps
 * bounds them.
 *
 * Written over a team (team.cuh): one thread, as above, or a warp per
 * trajectory (rk_warp_kernel.cuh), whose lanes split each vector and
 * W's LU and solves (team_lu.cuh), its leader evaluating f, J and f_t,
 * the step in the warp's shared memory. There J is not kept beside W (a
 * matrix fewer, twice the trajectories an SM holds): a rejected step and
 * a dense output's step evaluate J again, at the same point.
 */
#ifndef PICARD_ROSENBROCK_INTEGRATE_CUH
#define PICARD_ROSENBROCK_INTEGRATE_CUH

#include <math.h>

#include "dual.cuh"
#include "jacobian.cuh"
#include "picard.h"
#include "portable.h"
#include "rk_integrate.cuh"
#include "rosenbrock_tableaus.cuh"
#include "team.cuh"
#include "team_lu.cuh"

namespace picard {

namespace ros {

constexpr double safe = 0.9;                /* rodas.f's SAFE */
constexpr double fac_l = 5, fac_r = 1.0 / 6; /* 1/5 <= h_new / h <= 6 (FACL, FACR) */
constexpr double shrink_singular = 0.5;     /* rodas.f: H * 0.5 */
constexpr double shrink_nonfinite = 0.2;    /* a trial step gone non-finite */
constexpr double shrink_first = 0.1;        /* a rejected first step */
constexpr int max_singular = 5;             /* rodas.f's NSING */

/* A step's linear algebra and vectors, S stages, n components; with
 * keep_J, J beside W (else J is evaluated into W, which factor()
 * turns into W in place). Its reals first, so its size is the sum of its
 * arrays' (rk_warp_kernel.cuh's shared memory). */
template <int n, typename real, int S, bool keep_J = true>
struct work {
	static constexpr bool keeps_jacobian = keep_J;
	typedef real value_type;
	real W[n * n];    /* I / (h gamma) - J, factored in place */
	real J[keep_J ? n * n : 1]; /* df/dx at the step's start (row-major) */
	real k[S][n];     /* the stages' increments */
	real ft[n];       /* df/dt at the step's start */
	real f0[n];       /* f at the current point */
	real xn[n];       /* an accepted step's new state */
	real fend[n];     /* fsal: f at the step's end, the last stage's */
	real u[n], r[n];  /* a stage's argument, and f there */
	real xd[n];       /* a dense output's state */
	int piv[n];       /* W's row swaps */

	/* Where an evaluation of J goes. */
	__host__ __device__ real *jacobian_out() { return keep_J ? J : W; }
};

/* df/dt at (t, x; p) by forward-mode automatic differentiation in t (one
 * pass of the rhs on dual numbers). */
template <class Model, typename real>
__host__ __device__ inline void dfdt(real t, const real *x, const real *p, real *ft)
{
	constexpr int n = Model::dim, np = Model::nparams;
	typedef ad::dual<real, 1> D;
	D xd[n], pd[np > 0 ? np : 1], fd[n];

	for (int k = 0; k < n; k++)
		xd[k] = D(x[k]);
	for (int q = 0; q < np; q++)
		pd[q] = D(p[q]);
	Model::template rhs<D>(D::variable(t, 0), xd, pd, fd);
	for (int k = 0; k < n; k++)
		ft[k] = fd[k].d[0];
}

/* J = df/dx at (t, x) into Wk.jacobian_out(), by the leader. */
template <class Model, class Team, class Work, typename real>
__host__ __device__ inline void evaluate_jacobian(const Team &T, Work &Wk, double t,
						  const real *x, const real *p)
{
	if (T.leader())
		jacobian<Model, real>((real)t, x, p, Wk.jacobian_out());
	T.sync();
}

/* W = I / (h gamma) - J, factored; false: singular. Without keep_J, W
 * holds J, evaluated since the last factor. */
template <int n, class Tab, class Team, class Work>
__host__ __device__ inline bool factor(const Team &T, Work &Wk, double h)
{
	typedef typename Work::value_type real;
	const real ihg = (real)(1 / (h * Tab::gamma));

	if constexpr (Work::keeps_jacobian)
		for (int i = T.lane(); i < n * n; i += T.lanes)
			Wk.W[i] = -Wk.J[i];
	else
		for (int i = T.lane(); i < n * n; i += T.lanes)
			Wk.W[i] = -Wk.W[i];
	T.sync();
	for (int i = T.lane(); i < n; i += T.lanes)
		Wk.W[i * n + i] += ihg;
	T.sync();
	return team_lu<n>(T, Wk.W, Wk.piv);
}

/* The first count stages of a step h from (t, x), f0 = f(t, x), W
 * factored for h, into Wk.k; with Tab::fsal and with_fend the last
 * stage's f (f at the step's end) into Wk.fend. */
template <class Model, class Tab, typename real, int count, bool with_fend, class Team,
	  class Work>
__host__ __device__ inline void stages(const Team &T, Work &Wk, double t, double h,
				       const real *x, const real *p, const real *f0)
{
	constexpr int n = Model::dim;
	const real ih = (real)(1 / h), hr = (real)h;

RK_UNROLL
	for (int s = 0; s < count; s++) {
		if (s == 0) {
			for (int q = T.lane(); q < n; q += T.lanes)
				Wk.r[q] = f0[q];
		} else {
			for (int q = T.lane(); q < n; q += T.lanes) {
				real acc = 0;
RK_UNROLL
				for (int j = 0; j < s; j++)
					if (Tab::a(s, j) != 0)
						acc = rk_fma((real)Tab::a(s, j), Wk.k[j][q], acc);
				Wk.u[q] = x[q] + acc;
			}
			T.sync();
			team_rhs<Model>(T, (real)(t + Tab::c(s) * h), Wk.u, p, Wk.r);
			if (with_fend && Tab::fsal && s == Tab::stages - 1)
				for (int q = T.lane(); q < n; q += T.lanes)
					Wk.fend[q] = Wk.r[q];
		}
		for (int q = T.lane(); q < n; q += T.lanes) {
			real acc = 0;
RK_UNROLL
			for (int j = 0; j < s; j++)
				if (Tab::C(s, j) != 0)
					acc = rk_fma((real)Tab::C(s, j), Wk.k[j][q], acc);
			real v = rk_fma(ih, acc, Wk.r[q]);

			if (Tab::d(s) != 0)
				v = rk_fma(hr * (real)Tab::d(s), Wk.ft[q], v);
			Wk.k[s][q] = v;
		}
		T.sync();
		team_lu_solve<n>(T, Wk.W, Wk.piv, Wk.k[s]);
	}
}

/* The solution x + sum_j b(j) k_j into xn (summed as the stages sum
 * their u: with fsal, xn is the last stage's u to the bit). */
template <class Model, class Tab, typename real, class Team, class Work>
__host__ __device__ inline void solution(const Team &T, const Work &Wk, const real *x, real *xn)
{
	for (int q = T.lane(); q < Model::dim; q += T.lanes) {
		real acc = 0;
RK_UNROLL
		for (int j = 0; j < Tab::solution_stages; j++)
			if (Tab::b(j) != 0)
				acc = rk_fma((real)Tab::b(j), Wk.k[j][q], acc);
		xn[q] = x[q] + acc;
	}
	T.sync();
}

/* The scaled error of a step: RMS of the estimate over atol + rtol
 * max(|x_i|, |xn_i|) (rodas.f); +Inf when it or xn is not finite. */
template <class Model, class Tab, typename real, class Team, class Work>
__host__ __device__ inline double error(const Team &T, const Work &Wk, const real *x,
					const real *xn, double atol, double rtol)
{
	constexpr int n = Model::dim;
	double sum = 0;
	bool ok = true;

	for (int q = T.lane(); q < n; q += T.lanes) {
		real est = 0;
RK_UNROLL
		for (int j = 0; j < Tab::stages; j++)
			if (Tab::e(j) != 0)
				est = rk_fma((real)Tab::e(j), Wk.k[j][q], est);
		const double sc = atol + rtol * fmax(fabs((double)x[q]), fabs((double)xn[q]));
		const double v = (double)est / sc;

		sum += v * v;
		ok &= (bool)isfinite(xn[q]);
	}
	const double err = sqrt(T.sum(sum) / n);
	const bool xn_finite = T.all(ok);

	return isfinite(err) && xn_finite ? err : INFINITY;
}

/* The dense output inside an accepted step from (t, x) to (t_new, xn)
 * (the header says how), for the record times it holds
 * (step_dense_until) and its events (events_step.cuh). Without the
 * scheme's own extension Wk's factors and stages are spent (and, without
 * keep_J, J is evaluated again at (t, x)); J and f_t are kept. */
template <class Model, class Tab, typename real, class Team, class Work>
struct dense_step {
	const Team &T;
	Work &Wk;
	double t, t_new;
	const real *x, *xn, *p, *f0;

	/* After an event: nothing here (run restarts the scheme). */
	__host__ __device__ void restart(double, const real *) {}

	/* The state at tc, t < tc < t_new, into xc (where the team reads it). */
	__host__ __device__ void state(double tc, real *xc)
	{
		constexpr int n = Model::dim;
		const double theta = (tc - t) / (t_new - t);

		if constexpr (Tab::own_dense) {
			for (int q = T.lane(); q < n; q += T.lanes) {
				real acc = 0;
RK_UNROLL
				for (int j = 0; j < Tab::solution_stages; j++)
					acc = rk_fma((real)Tab::dense(j, theta), Wk.k[j][q], acc);
				xc[q] = x[q] + acc;
			}
			T.sync();
		} else {
			if constexpr (!Work::keeps_jacobian)
				evaluate_jacobian<Model>(T, Wk, t, x, p);
			if (factor<Model::dim, Tab>(T, Wk, tc - t)) {
				stages<Model, Tab, real, Tab::solution_stages, false>(T, Wk, t, tc - t,
										      x, p, f0);
				solution<Model, Tab, real>(T, Wk, x, xc);
			} else {
				for (int q = T.lane(); q < n; q += T.lanes)
					xc[q] = x[q] + (real)theta * (xn[q] - x[q]);
				T.sync();
			}
		}
	}
};

/* How a step attempt ended. */
enum attempt_end {
	ACCEPTED, /* the new state in W.xn */
	REJECTED, /* retry from the same point at the length advised */
	FAILED,   /* no step can be taken from here: the status says why */
};

/* A trajectory's integration from step attempt to step attempt, the
 * loop's own state left to its driver (rosenbrock_run below for picard's
 * windows and records; bench/stiff/rodas.cuh's for its output times and
 * counts): the stages and vectors in W (a work, the driver's: a thread's
 * own, or a warp's shared memory), the controller of rodas.f (the header
 * says how), and two counts a driver may read. Every lane of a team holds
 * the same controller. */
template <class Model, class Tab, typename real, class Team = team_one,
	  class Work = work<Model::dim, real, Tab::stages>>
struct integrator {
	static constexpr int n = Model::dim;
	Work &W;
	Team T;
	double hacc, erracc; /* the last accepted step and its error (Gustafsson) */
	long accepted;       /* steps accepted */
	bool reject;         /* the last attempt was rejected */
	bool nonfinite;      /* ... for a state or estimate not finite */
	bool need_jac;       /* J and f_t are due (a new point) */
	int singular;        /* attempts in a row whose W was singular */
	long rhs_evals;      /* right-hand sides evaluated (a driver's count) */
	long jacobians;      /* J evaluated (f_t with each at a new point) */

	__host__ __device__ integrator(Work &work, Team team = Team()) : W(work), T(team) {}

	/* At (t, x): f0 = f(t, x). */
	__host__ __device__ void start(double t, const real *x, const real *p)
	{
		/* set before use (need_jac, fsal); zeroed once, for the
		 * compiler's sake */
		if constexpr (Work::keeps_jacobian)
			for (int i = T.lane(); i < n * n; i += T.lanes)
				W.J[i] = 0;
		for (int i = T.lane(); i < n; i += T.lanes)
			W.fend[i] = W.ft[i] = 0;
		T.sync();
		rhs_evals = 0;
		jacobians = 0;
		restart(t, x, p);
	}

	/* A fresh start at (t, x), as at t0 (after an event: the state
	 * changed, so f0, J, f_t and the controller's history are stale). */
	__host__ __device__ void restart(double t, const real *x, const real *p)
	{
		team_rhs<Model>(T, (real)t, x, p, W.f0);
		rhs_evals++;
		hacc = 0;
		erracc = 1e-2;
		accepted = 0;
		reject = nonfinite = false;
		need_jac = true;
		singular = 0;
	}

	/* One attempt of a step hs from (t, x): ACCEPTED, W.xn the new state
	 * and *hnew the step after it (fixed: hs; at most hs after a
	 * rejection); REJECTED, *hnew the retry's length; FAILED, *status
	 * why. fixed: no estimate, every finite step accepted. The state's
	 * own checks (the bound) are the driver's. */
	__host__ __device__ attempt_end attempt(double t, double hs, const real *x, const real *p,
						bool fixed, double atol, double rtol, double *hnew,
						picard_traj_status *status)
	{
		/* rodas.f's exponent 1/(q+1), q the embedded order; factors
		 * in float, as rk_adaptive's and radau5's */
		constexpr float expo = 1.0f / (Tab::err_order + 1);

		if (need_jac || !Work::keeps_jacobian) {
			evaluate_jacobian<Model>(T, W, t, x, p);
			jacobians++;
		}
		if (need_jac) {
			if (T.leader())
				dfdt<Model, real>((real)t, x, p, W.ft);
			T.sync();
			need_jac = false;
			if (!team_finite<n * n>(T, W.jacobian_out()) || !team_finite<n>(T, W.ft) ||
			    !team_finite<n>(T, W.f0)) {
				*status = PICARD_TRAJ_NONFINITE;
				return FAILED;
			}
		}
		if (!factor<n, Tab>(T, W, hs)) {
			if (fixed || ++singular >= max_singular) {
				*status = PICARD_TRAJ_LINSOLVE_FAILED;
				return FAILED;
			}
			*hnew = shrink_singular * hs;
			reject = true;
			return REJECTED;
		}
		singular = 0;
		if (fixed) {
			stages<Model, Tab, real, Tab::solution_stages, true>(T, W, t, hs, x, p, W.f0);
			rhs_evals += Tab::solution_stages - 1;
		} else {
			stages<Model, Tab, real, Tab::stages, true>(T, W, t, hs, x, p, W.f0);
			rhs_evals += Tab::stages - 1;
		}
		solution<Model, Tab, real>(T, W, x, W.xn);
		*hnew = hs;
		if (fixed) {
			accepted++;
			return ACCEPTED;
		}
		const double err = error<Model, Tab, real>(T, W, x, W.xn, atol, rtol);

		nonfinite = !(err < INFINITY);
		if (nonfinite) {
			*hnew = shrink_nonfinite * hs;
			reject = true;
			return REJECTED;
		}
		/* rodas.f: fac = err^(1/(q+1)) / safe, clamped */
		double fac = fmax(fac_r, fmin(fac_l, expf(expo * logf((float)fmax(err, 1e-10))) / safe));

		*hnew = hs / fac;
		if (err > 1) {
			if (accepted == 0)
				*hnew = shrink_first * hs;
			reject = true;
			return REJECTED;
		}
		if (accepted > 0) { /* Gustafsson's predictive controller */
			const double q = fmax(err * err / erracc, 1e-20);
			const double facgus = fmax(fac_r, fmin(fac_l, (hacc / hs) *
							      expf(expo * logf((float)q)) / safe));

			fac = fmax(fac, facgus);
			*hnew = hs / fac;
		}
		hacc = hs;
		erracc = fmax(1e-2, err);
		if (reject)
			*hnew = fmin(*hnew, hs);
		reject = false;
		accepted++;
		return ACCEPTED;
	}

	/* After an accepted step to t_new: x = W.xn, f0 = f(t_new, x) (with
	 * fsal, adaptive, the last stage's), J and f_t due. */
	__host__ __device__ void advance(double t_new, real *x, const real *p, bool fixed)
	{
		for (int i = T.lane(); i < n; i += T.lanes)
			x[i] = W.xn[i];
		if (Tab::fsal && !fixed) {
			for (int i = T.lane(); i < n; i += T.lanes)
				W.f0[i] = W.fend[i];
			T.sync();
		} else {
			T.sync();
			team_rhs<Model>(T, (real)t_new, x, p, W.f0);
			rhs_evals++;
		}
		need_jac = true;
	}
};

/* Integrate one trajectory by the Rosenbrock scheme Tab with the team T
 * and its work Wk (x, p and out as rosenbrock_trajectory's; x where the
 * whole team reads it). */
PICARD_EXEC_CHECK_DISABLE
template <class Model, class Tab, typename real, class Team, class Work, class Out>
__host__ __device__ inline rk_outcome run(const Team &T, Work &Wk, const rk_run &run, real *x,
					  const real *p, Out &out)
{
	constexpr int n = Model::dim;
	const double eps = rk_eps<real>::value;
	const bool fixed = run.steps > 0;
	integrator<Model, Tab, real, Team, Work> I(Wk, T);
	rk_outcome o = rk_outcome_ok(0);
	const real lim = rk_limit<real>(run.bound);
	double t = run.t0, h;
	double resume = -INFINITY; /* fixed steps: the end of a step an event cut */
	long attempts = 0;
	/* events in one thread's layout (the warp layout refuses them:
	 * solver.c) */
	constexpr bool with_events = runs_events<Model>::value && Team::lanes == 1;
	event_state<Model, real> ev;
	real g_end[event_state<Model, real>::ne]; /* g at a step's end */

	if constexpr (with_events)
		if (!events_start(ev, t, x, p)) {
			rk_flush(out, t, x);
			rk_fail(o, PICARD_TRAJ_EVENT_FAILED, 0, t, t);
			return o;
		}
	I.start(t, x, p);
	/* every lane alike: the same rhs on the same state */
	h = fixed ? run.window / run.steps : rk_first_step<Model, Tab, real>(run, t, x, p, Wk.f0);
	for (long w = 0; w < run.windows && o.status == PICARD_TRAJ_OK; w++) {
		const double tb = rk_window_end(run, w);
		int tried = 0;

		while (t < tb) {
			/* fixed steps: an event's cut step is finished first */
			const bool resuming = with_events && resume > t;
			const bool last = resuming ? resume == tb :
					  fixed ? t + 1.5 * h >= tb : t + 1.01 * h >= tb;
			const double hs = last ? tb - t : resuming ? resume - t : h;
			picard_traj_status status = PICARD_TRAJ_OK;
			double hnew;

			if ((!fixed && attempts >= run.max_steps) || hs <= 0 ||
			    hs < 16 * eps * fabs(t)) {
				/* the step it cannot take */
				rk_fail(o, !fixed && attempts >= run.max_steps ? PICARD_TRAJ_MAX_STEPS :
					   I.nonfinite ? PICARD_TRAJ_NONFINITE : PICARD_TRAJ_STEP_UNDERFLOW,
					w, t, t + hs);
				rk_flush(out, t, x);
				break;
			}
			attempts++;
			tried++;
			o.steps++;
			const attempt_end end =
				I.attempt(t, hs, x, p, fixed, run.atol, run.rtol, &hnew, &status);

			if (end == FAILED) {
				rk_fail(o, status, w, t, t + hs);
				rk_flush(out, t, x);
				break;
			}
			if (end == REJECTED) {
				h = hnew;
				continue;
			}
			const double t_new = last ? tb : t + hs;

			if (!team_within<n>(T, Wk.xn, lim)) { /* the record times after t: none */
				rk_flush(out, t, x);
				for (int i = T.lane(); i < n; i += T.lanes)
					x[i] = Wk.xn[i];
				T.sync();
				rk_fail(o, rk_state_status<n>(x), w, t, t_new);
				break;
			}
			dense_step<Model, Tab, real, Team, Work> D = {T, Wk, t, t_new, x, Wk.xn, p, Wk.f0};

			if constexpr (with_events)
				if (!events_quiet<Model, real>(ev, t_new, Wk.xn, p, g_end)) {
					const event_result r = events_step<Model, real>(
						ev, run, w, t, t_new, x, p, Wk.xn, g_end, lim, D, out, o);

					if (r == EVENT_STOP)
						break;
					if (r == EVENT_CUT) { /* a fresh start from the event */
						I.restart(t, x, p);
						if (fixed)
							resume = t < t_new ? t_new : resume;
						else
							h = rk_first_step<Model, Tab, real>(run, t, x, p, Wk.f0);
						continue;
					}
				}
			step_dense_until(D, t, t_new, x, Wk.xn, Wk.xd, out);
			I.advance(t_new, x, p, fixed);
			t = t_new;
			/* a step shortened to end the window says nothing of
			 * the step the trajectory can take */
			if (!fixed)
				h = last ? fmax(h, hnew) : hnew;
		}
		o.steps_max = tried > o.steps_max ? tried : o.steps_max;
		if (o.status != PICARD_TRAJ_OK)
			break;
		out.window_end(w, x);
	}
	return o;
}

} /* namespace ros */

/* Integrate one trajectory by the Rosenbrock scheme Tab, adaptive or
 * run.steps fixed steps a window, in one thread; rk_trajectory's
 * contract (rk_integrate.cuh), which calls it for a tableau that declares
 * rosenbrock = true. */
PICARD_EXEC_CHECK_DISABLE
template <class Model, class Tab, typename real, class Out>
__host__ __device__ inline rk_outcome rosenbrock_trajectory(const rk_run &run, real *x,
							    const real *p, Out &out)
{
	ros::work<Model::dim, real, Tab::stages> Wk;

	return ros::run<Model, Tab, real>(team_one(), Wk, run, x, p, out);
}

} /* namespace picard */

#endif
