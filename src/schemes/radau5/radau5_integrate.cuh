/* radau5_integrate.cuh - one trajectory of the radau5 scheme (src/
 * scheme_rk.c): the 3-stage Radau IIA method, order 5, L-stable, as Hairer
 * & Wanner's RADAU5 runs it (Solving ODEs II, IV.8): the stages' equations
 * solved by simplified Newton iterations with the Jacobian at the step's
 * start, decoupled by the eigen-decomposition of the Radau matrix into one
 * real and one complex n x n system (E1 = (u1/h) I - J, E2 = ((alpha + i
 * beta)/h) I - J, LU with partial pivoting), the step from the embedded
 * error estimate (filtered by E1, so it stays bounded on stiff
 * components), Gustafsson's predictive controller, the Jacobian kept from
 * one step to the next while the iteration contracts fast. Written once
 * for the device (rk_kernel.cuh, one thread per trajectory) and the host
 * (the CPU backend, rk_host.h), through rk_trajectory, and over a team
 * (team.cuh): one thread, or a warp per trajectory (rk_warp_kernel.cuh),
 * whose lanes split each vector and E1's and E2's LUs and solves
 * (team_lu.cuh), lanes 0-2 evaluating the three stages' right-hand sides
 * at once, the leader J, the step in the warp's shared memory.
 *
 * Tolerances: iter_rtol and iter_atol scale the local error as they do
 * for the explicit pairs. RADAU5 itself holds the local error to rtol' =
 * 0.1 rtol^(2/3), atol' = atol rtol'/rtol, for a user's rtol
 * (hairer_tolerances below); picard does not: measured on test_rk's
 * model, that transform leaves a global error 100 to 200 times rtol at
 * rtol 1e-9 to 1e-11, and the tuner picks the tolerance that meets an
 * error bound either way. Given RADAU5's own tolerances, this code takes
 * RADAU5's steps. The Newton iteration stops at kappa tol, fnewt =
 * max(10 eps/rtol, min(0.03, sqrt(rtol))), and is abandoned early when
 * its contraction cannot reach that within nit iterations.
 *
 * RADAU5's other economies: the Jacobian kept while the iteration
 * contracts fast (theta <= thet), and then E1, E2 and the step too while
 * the step would barely grow (1 <= h_new/h <= 1.2), so a smooth stretch
 * runs on one LU; each step's iteration starts from the previous step's
 * collocation polynomial, after a rejection as well (zero only at the
 * first step and for fixed steps). The controller's factors are computed
 * in float, as rk_adaptive's: double pow() made the GPU kernel 19% slower
 * (H200, 2026-11-28) and changes no count below. Verified against radau5.f's counts on
 * its own driver's problem (tests/schemes/radau5_hairer.cpp).
 *
 * A step whose iteration fails (too slow, diverging, singular matrices)
 * is retried shorter; a trajectory whose step falls below 16 eps |t| is
 * PICARD_TRAJ_STEP_UNDERFLOW. Fixed steps (--steps) have no shorter step
 * to fall back on: their iteration goes on while it contracts, up to
 * nit_fixed iterations, else the trajectory is PICARD_TRAJ_NOT_CONVERGED.
 *
 * The outcome's steps count Newton iterations (3 right-hand sides each:
 * the scheme's rhs_per_sweep), over all step attempts; max_steps bounds
 * the step attempts.
 *
 * Dense output at a record's time: a Radau step from the start of the
 * step that holds it to the time (the scheme's order there, as the
 * explicit pairs do), or, should that iteration not converge, the
 * accepted step's collocation polynomial (RADAU5's CONTR5).
 *
 * Events (docs/models.md, "Events"; events_step.cuh) in one thread's
 * layout: located on the same dense output (dense_step), the step cut
 * there; the restart evaluates f0, the weights and J afresh, refactors,
 * and starts the Newton iteration from zero (the last polynomial's
 * starting values belong to the state before the event), with a fresh
 * starting step and controller; fixed steps finish the cut step first.
 * The warp layout refuses a model with events (solver.c).
 */
#ifndef PICARD_RADAU5_INTEGRATE_CUH
#define PICARD_RADAU5_INTEGRATE_CUH

#include <math.h>

#include "jacobian.cuh"
#include "picard.h"
#include "portable.h"
#include "rk_integrate.cuh"
#include "team.cuh"
#include "team_lu.cuh"

namespace picard {

namespace radau {

/* The nodes (4 -+ sqrt 6)/10 and 1; the error estimate's weights; the
 * real eigenvalue's inverse 1/gamma and the complex pair alpha +- i beta
 * of the inverse Radau matrix; T (its eigenvectors, third row of the
 * real block 0.966..., 1, 0) and T^-1. Values from radau5.f (Hairer,
 * 1996), the derived ones computed from its formulas. */
constexpr double c1 = 0.15505102572168222, c2 = 0.6449489742783178;
constexpr double c1m1 = c1 - 1, c2m1 = c2 - 1, c1mc2 = c1 - c2;
constexpr double dd1 = -10.048809399827414, dd2 = 1.382142733160748, dd3 = -1.0 / 3;
constexpr double u1 = 3.6378342527444962, alpha = 2.6810828736277523, beta = 3.0504301992474105;
constexpr double T11 = 9.1232394870892942792e-02, T12 = -0.14125529502095420843,
		 T13 = -3.0029194105147424492e-02, T21 = 0.24171793270710701896,
		 T22 = 0.20412935229379993199, T23 = 0.38294211275726193779,
		 T31 = 0.96604818261509293619;
constexpr double TI11 = 4.3255798900631553510, TI12 = 0.33919925181580986954,
		 TI13 = 0.54177053993587487119, TI21 = -4.1787185915519047273,
		 TI22 = -0.32768282076106238708, TI23 = 0.47662355450055045196,
		 TI31 = -0.50287263494578687595, TI32 = 2.5719269498556054292,
		 TI33 = -0.59603920482822492497;

constexpr int nit = 7;           /* Newton iterations a step, at most */
constexpr int nit_fixed = 30;    /* fixed steps: while it contracts */
constexpr double thet = 0.001;   /* keep J while the contraction is below */
constexpr double safe = 0.9, fac_min = 0.125, fac_max = 5; /* 1/8 <= hnew/h <= 5 ... */
constexpr int max_singular = 6;  /* singular matrices in a row before failing */
constexpr double quot1 = 1, quot2 = 1.2; /* keep h and the LU for h_new/h in here */

/* RADAU5's local tolerances for a user's rtol and atol (radau5.f's
 * transform, which picard's own runs do not apply: the header comment). */
__host__ __device__ inline void hairer_tolerances(double &rtol, double &atol)
{
	const double r = 0.1 * pow(rtol, 2.0 / 3);

	atol *= r / rtol;
	rtol = r;
}

/* What a trajectory spent, counted as radau5.f counts it (NFCN, NJAC,
 * NSTEP, NACCPT, NREJCT, NDEC, NSOL): for tests that hold the scheme to
 * Hairer's code; the engine passes none. */
struct counts {
	long fcn, jac, step, accept, reject, dec, sol;
};

/* A step's linear algebra and iterates: J at the step's start, E1 and E2
 * factored for the step h, the stage increments z (x + z_s at t + c_s
 * h) and their transform w = T^-1 z. */
template <int n, typename real>
struct work {
	real J[n * n], e1[n * n], e2r[n * n], e2i[n * n];
	real z[3][n], w[3][n];
	int p1[n], p2[n];
};

/* The last accepted step's collocation polynomial (polynomial_* below):
 * the next step's starting values, and a dense output's fallback. */
template <int n, typename real>
struct polynomial {
	real k[3][n];
};

/* The vectors a step works on. One thread's scratch (the iteration's
 * stage arguments and f there, the estimate's, a dense output's state)
 * is declared where it is used, so it lives in registers for that call
 * alone: kept for the whole trajectory it stayed live and spilled
 * (bench/results/h200-2026-11-28-issue38-radau5-warp). A warp's is all in
 * its slice of the block's shared memory (rk_warp_kernel.cuh), whose
 * size is the sum of these arrays' (reals first). */
template <int n, typename real>
struct stage_vectors {
	real u[3][n], f[3][n]; /* the stages' arguments, and f there */
};

template <int n, typename real>
struct estimate_vectors {
	real e[n], f2[n], xe[n], f1[n]; /* the estimate, and its refiltering */
};

template <int n, typename real>
struct dense_vector {
	real xd[n];
};

template <int n, typename real>
struct vectors {
	real f0[n], wt[n], xn[n]; /* f at the step's start, the weights, the new state */
	stage_vectors<n, real> stages;
	estimate_vectors<n, real> estimate;
	dense_vector<n, real> dense;
};

/* Where a function's scratch lives: one thread's own, else the team's
 * shared copy. */
template <class Team, class S>
__host__ __device__ inline S &scratch(S &own, S &shared)
{
	if constexpr (Team::lanes == 1)
		return own;
	else
		return shared;
}

/* E1 and E2 for a step h from J; false: singular (the team's verdict). */
template <int n, class Team, typename real>
__host__ __device__ inline bool factor(const Team &T, work<n, real> &W, double h)
{
	const real f1 = (real)(u1 / h), ar = (real)(alpha / h), ai = (real)(beta / h);

	for (int i = T.lane(); i < n * n; i += T.lanes) {
		W.e1[i] = -W.J[i];
		W.e2r[i] = -W.J[i];
		W.e2i[i] = 0;
	}
	T.sync();
	for (int i = T.lane(); i < n; i += T.lanes) {
		W.e1[i * n + i] += f1;
		W.e2r[i * n + i] += ar;
		W.e2i[i * n + i] = ai;
	}
	T.sync();
	return team_lu<n>(T, W.e1, W.p1) && team_lu_complex<n>(T, W.e2r, W.e2i, W.p2);
}

/* How a step's iteration ended. */
enum newton_end { CONVERGED, TOO_SLOW, DIVERGED };

struct newton_result {
	newton_end end;
	int iterations;
	double theta;  /* the last contraction */
	double hhfac;  /* TOO_SLOW: the step's factor RADAU5 advises */
};

/* The simplified Newton iteration of a step h from (t, x), starting from
 * W.z (and W.w = T^-1 z), with E1, E2 factored; faccon is carried from
 * step to step as RADAU5 does. patient (fixed steps): no shorter step to
 * ask for, so it goes on while it contracts, up to nit_fixed. The three
 * stages' right-hand sides are independent: a warp's lanes 0-2 evaluate
 * one each. */
template <class Model, typename real, class Team>
__host__ __device__ inline newton_result iterate(const Team &T, work<Model::dim, real> &W,
						vectors<Model::dim, real> &V, double t, double h, const real *x, const real *p,
						double fnewt, double rounding, double &faccon,
						bool patient)
{
	constexpr int n = Model::dim;
	const double cs[3] = {c1, c2, 1};
	const real fac1 = (real)(u1 / h), alphn = (real)(alpha / h), betan = (real)(beta / h);
	newton_result r = {DIVERGED, 0, thet, 0.5};
	double dynold = 0, thqold = 0;

	/* factors need no more than float (as rk_adaptive's) */
	faccon = expf(0.8f * logf((float)fmax(faccon, (double)rk_eps<real>::value)));
	const int most = patient ? nit_fixed : nit;
	const double inv_fnewt = 1 / fnewt;

	while (r.iterations < most) {
		stage_vectors<n, real> own;
		stage_vectors<n, real> &S = scratch<Team>(own, V.stages);

		for (int s = 0; s < 3; s++)
			for (int i = T.lane(); i < n; i += T.lanes)
				S.u[s][i] = x[i] + W.z[s][i];
		T.sync();
RK_UNROLL
		for (int s = T.lane(); s < 3; s += T.lanes)
			Model::rhs((real)(t + cs[s] * h), S.u[s], p, S.f[s]);
		T.sync();
		for (int i = T.lane(); i < n; i += T.lanes) {
			const real a1 = S.f[0][i], a2 = S.f[1][i], a3 = S.f[2][i];
			const real w2 = W.w[1][i], w3 = W.w[2][i];

			W.z[0][i] = -W.w[0][i] * fac1 + (real)TI11 * a1 + (real)TI12 * a2 +
				    (real)TI13 * a3;
			W.z[1][i] = -w2 * alphn + w3 * betan + (real)TI21 * a1 + (real)TI22 * a2 +
				    (real)TI23 * a3;
			W.z[2][i] = -w3 * alphn - w2 * betan + (real)TI31 * a1 + (real)TI32 * a2 +
				    (real)TI33 * a3;
		}
		T.sync();
		team_lu_solve<n>(T, W.e1, W.p1, W.z[0]);
		team_lu_solve_complex<n>(T, W.e2r, W.e2i, W.p2, W.z[1], W.z[2]);
		r.iterations++;
		double dyno = 0;

		for (int s = 0; s < 3; s++)
			for (int i = T.lane(); i < n; i += T.lanes) {
				const double d = (double)W.z[s][i] * (double)V.wt[i];

				dyno += d * d;
			}
		dyno = sqrt(T.sum(dyno) * (1.0 / (3 * n)));
		if (!isfinite(dyno))
			return r;
		/* an increment at the precision's rounding has converged as
		 * far as it can: its noise is no contraction to judge */
		const bool rounded = dyno <= rounding;

		if (r.iterations > 1 && r.iterations < most && !rounded) {
			const double thq = dyno / dynold;

			r.theta = r.iterations == 2 ? thq : sqrt(thq * thqold);
			thqold = thq;
			if (!(r.theta < 0.99))
				return r;
			faccon = r.theta / (1 - r.theta);
			double dyth = faccon * dyno * inv_fnewt;

			for (int q = r.iterations; q < nit - 1; q++) /* theta^(nit-1-it) */
				dyth *= r.theta;

			if (dyth >= 1 && !patient) {
				const double qnewt = fmax(1e-4, fmin(20.0, dyth));

				r.end = TOO_SLOW;
				r.hhfac = 0.8 * expf(-logf((float)qnewt) / (4 + nit - 1 - r.iterations));
				return r;
			}
		}
		dynold = fmax(dyno, (double)rk_eps<real>::value);
		for (int i = T.lane(); i < n; i += T.lanes) {
			const real w1 = W.w[0][i] + W.z[0][i], w2 = W.w[1][i] + W.z[1][i],
				   w3 = W.w[2][i] + W.z[2][i];

			W.w[0][i] = w1;
			W.w[1][i] = w2;
			W.w[2][i] = w3;
			W.z[0][i] = (real)T11 * w1 + (real)T12 * w2 + (real)T13 * w3;
			W.z[1][i] = (real)T21 * w1 + (real)T22 * w2 + (real)T23 * w3;
			W.z[2][i] = (real)T31 * w1 + w2;
		}
		T.sync();
		if (rounded || faccon * dyno <= fnewt) {
			r.end = CONVERGED;
			return r;
		}
	}
	return r;
}

/* The RMS, weighed by wt, of e (the team's). */
template <int n, class Team, typename real>
__host__ __device__ inline double estimate_norm(const Team &T, const real *e, const real *wt)
{
	double err = 0;

	for (int i = T.lane(); i < n; i += T.lanes)
		err += ((double)e[i] * wt[i]) * ((double)e[i] * wt[i]);
	return fmax(sqrt(T.sum(err) / n), 1e-10);
}

/* The scaled error of a converged step: RMS, weighed by wt, of E1^-1 (f0 +
 * (dd . z)/h), and, on a first or rejected step whose estimate fails, the
 * estimate once more through f at the filtered point (RADAU5's ESTRAD). */
template <class Model, typename real, class Team>
__host__ __device__ inline double estimate(const Team &T, work<Model::dim, real> &W,
					   vectors<Model::dim, real> &V, double t, double h, const real *x, const real *p, bool refilter,
					   long &fcn)
{
	constexpr int n = Model::dim;
	estimate_vectors<n, real> own;
	estimate_vectors<n, real> &E = scratch<Team>(own, V.estimate);

	for (int i = T.lane(); i < n; i += T.lanes) {
		E.f2[i] = (real)(dd1 / h) * W.z[0][i] + (real)(dd2 / h) * W.z[1][i] +
			  (real)(dd3 / h) * W.z[2][i];
		E.e[i] = E.f2[i] + V.f0[i];
	}
	T.sync();
	team_lu_solve<n>(T, W.e1, W.p1, E.e);
	double err = estimate_norm<n>(T, E.e, V.wt);

	if (refilter && err >= 1) {
		for (int i = T.lane(); i < n; i += T.lanes)
			E.xe[i] = x[i] + E.e[i];
		T.sync();
		team_rhs<Model>(T, (real)t, E.xe, p, E.f1);
		fcn++;
		for (int i = T.lane(); i < n; i += T.lanes)
			E.e[i] = E.f1[i] + E.f2[i];
		T.sync();
		team_lu_solve<n>(T, W.e1, W.p1, E.e);
		err = estimate_norm<n>(T, E.e, V.wt);
	}
	return isfinite(err) ? err : INFINITY;
}

/* The collocation polynomial of an accepted step ending at (t_new, xn),
 * h long, in P.k: xn + s (k1 + (s - c2m1) (k2 + (s - c1m1) k3)), s = (t -
 * t_new)/h (RADAU5's CONT). Also the next step's starting values. */
template <int n, class Team, typename real>
__host__ __device__ inline void polynomial_fit(const Team &T, const work<n, real> &W,
					       polynomial<n, real> &P)
{
	for (int i = T.lane(); i < n; i += T.lanes) {
		const real z1 = W.z[0][i], z2 = W.z[1][i], z3 = W.z[2][i];
		const real ak = (z1 - z2) / (real)c1mc2;

		P.k[0][i] = (z2 - z3) / (real)c2m1;
		P.k[1][i] = (ak - P.k[0][i]) / (real)c1m1;
		P.k[2][i] = P.k[1][i] - (ak - z1 / (real)c1) / (real)c2;
	}
	T.sync();
}

/* The polynomial's component i at s minus xn's (an increment). */
template <int n, typename real>
__host__ __device__ inline real polynomial_increment(const polynomial<n, real> &P, int i, double s)
{
	return (real)s * (P.k[0][i] + (real)(s - c2m1) * (P.k[1][i] + (real)(s - c1m1) * P.k[2][i]));
}

/* Starting values of the step h after one of length hold: the
 * polynomial at the new stages. */
template <int n, class Team, typename real>
__host__ __device__ inline void polynomial_start(const Team &T, work<n, real> &W,
						 const polynomial<n, real> &P, double h, double hold)
{
	const double q = h / hold, cq[3] = {c1 * q, c2 * q, q};

	for (int i = T.lane(); i < n; i += T.lanes) {
		const real z1 = polynomial_increment(P, i, cq[0]);
		const real z2 = polynomial_increment(P, i, cq[1]);
		const real z3 = polynomial_increment(P, i, cq[2]);

		W.z[0][i] = z1;
		W.z[1][i] = z2;
		W.z[2][i] = z3;
		W.w[0][i] = (real)TI11 * z1 + (real)TI12 * z2 + (real)TI13 * z3;
		W.w[1][i] = (real)TI21 * z1 + (real)TI22 * z2 + (real)TI23 * z3;
		W.w[2][i] = (real)TI31 * z1 + (real)TI32 * z2 + (real)TI33 * z3;
	}
	T.sync();
}

template <int n, class Team, typename real>
__host__ __device__ inline void zero_start(const Team &T, work<n, real> &W)
{
	for (int s = 0; s < 3; s++)
		for (int i = T.lane(); i < n; i += T.lanes)
			W.z[s][i] = W.w[s][i] = 0;
	T.sync();
}

/* The weights 1 / (atol + rtol |x_k|) of the error and the iteration. */
template <int n, class Team, typename real>
__host__ __device__ inline void weights(const Team &T, double atol, double rtol, const real *x,
					real *wt)
{
	for (int i = T.lane(); i < n; i += T.lanes)
		wt[i] = (real)(1 / (atol + rtol * fabs((double)x[i])));
	T.sync();
}

/* The dense output inside an accepted step from (t, x) to (t_new, V.xn),
 * for the record times it holds (step_dense_until) and its events
 * (events_step.cuh): a Radau step from t to the time (J kept, E1 and E2
 * refactored), else the step's collocation polynomial P. spent: W's
 * factors and iterates are spent (J is kept). */
template <class Model, typename real, class Team>
struct dense_step {
	const Team &T;
	work<Model::dim, real> &W;
	vectors<Model::dim, real> &V;
	const polynomial<Model::dim, real> &P;
	double t, t_new;
	const real *x, *p;
	double fnewt, rounding;
	bool spent;

	/* After an event: nothing here (run restarts the scheme). */
	__host__ __device__ void restart(double, const real *) {}

	/* The state at tc, t < tc < t_new, into xc (where the team reads it). */
	__host__ __device__ void state(double tc, real *xc)
	{
		double faccon = 1;

		spent = true;
		zero_start<Model::dim>(T, W);
		const bool solved = factor<Model::dim>(T, W, tc - t) &&
				    iterate<Model, real>(T, W, V, t, tc - t, x, p, fnewt, rounding, faccon,
							 false).end == CONVERGED;
		for (int i = T.lane(); i < Model::dim; i += T.lanes)
			xc[i] = solved ? x[i] + W.z[2][i] :
				  V.xn[i] + polynomial_increment(P, i, (tc - t_new) / (t_new - t));
		T.sync();
	}
};

/* Integrate one trajectory by Radau IIA with the team T, its work W and
 * vectors V (radau5_trajectory's contract; x where the whole team reads
 * it). */
PICARD_EXEC_CHECK_DISABLE
template <class Model, typename real, class Team, class Out>
__host__ __device__ inline rk_outcome run(const Team &T, work<Model::dim, real> &W,
					  vectors<Model::dim, real> &V, polynomial<Model::dim, real> &P,
					  const rk_run &run, real *x, const real *p, Out &out,
					  counts *cnt)
{
	constexpr int n = Model::dim;
	const double rtol = run.rtol, atol = run.atol;
	const double eps = rk_eps<real>::value;
	/* RADAU5's: no tighter than 10 eps/rtol, the weights' rounding */
	const double rounding = 10 * eps / rtol;
	const double fnewt = fmax(rounding, fmin(0.03, sqrt(rtol)));
	const double cfac = safe * (1 + 2 * nit);
	const bool fixed = run.steps > 0;
	counts c = {};
	rk_outcome o = rk_outcome_ok(0);
	const real lim = rk_limit<real>(run.bound);
	double t = run.t0, h, hold = 0, faccon = 1, hacc = 0, erracc = 1e-2;
	double lu_h = NAN; /* the step E1 and E2 are factored for; NaN: none */
	bool first = true, reject = false, need_jac = true, jac_fresh = false;
	int singular = 0;
	long attempts = 0;
	double resume = -INFINITY; /* fixed steps: the end of a step an event cut */
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
	team_rhs<Model>(T, (real)t, x, p, V.f0);
	c.fcn++;
	/* every lane alike: the same rhs on the same state */
	h = fixed ? run.window / run.steps :
	    run.h0 > 0 ? fmin(run.h0, run.t1 - run.t0) :
			 rk_first_step<Model, rk_radau5, real>(run, t, x, p, V.f0);
	weights<n>(T, atol, rtol, x, V.wt);
	for (long w = 0; w < run.windows && o.status == PICARD_TRAJ_OK; w++) {
		const double tb = rk_window_end(run, w);
		int tried = 0;

		while (t < tb) {
			/* fixed steps: an event's cut step is finished first */
			const bool resuming = with_events && resume > t;
			const bool last = resuming ? resume == tb :
					  fixed ? t + 1.5 * h >= tb : t + 1.01 * h >= tb;
			const double hs = last ? tb - t : resuming ? resume - t : h;

			if ((!fixed && attempts >= run.max_steps) || hs <= 0 ||
			    hs < 16 * eps * fabs(t)) {
				/* the step it cannot take */
				rk_fail(o, !fixed && attempts >= run.max_steps ? PICARD_TRAJ_MAX_STEPS :
					   PICARD_TRAJ_STEP_UNDERFLOW, w, t, t + hs);
				rk_flush(out, t, x);
				break;
			}
			if (need_jac) {
				if (T.leader())
					jacobian<Model, real>((real)t, x, p, W.J);
				T.sync();
				c.jac++;
				need_jac = false;
				jac_fresh = true;
				lu_h = NAN;
			}
			if (!(hs == lu_h)) {
				if (!factor<n>(T, W, hs)) {
					lu_h = NAN;
					if (++singular >= max_singular || fixed) {
						rk_fail(o, fixed ? PICARD_TRAJ_NOT_CONVERGED :
							   PICARD_TRAJ_STEP_UNDERFLOW, w, t, t + hs);
						rk_flush(out, t, x);
						break;
					}
					h = 0.5 * hs;
					reject = true;
					need_jac = !jac_fresh;
					continue;
				}
				c.dec++;
				lu_h = hs;
			}
			singular = 0;
			attempts++;
			if (first || fixed)
				zero_start<n>(T, W);
			else
				polynomial_start<n>(T, W, P, hs, hold);
			const newton_result nr = iterate<Model, real>(T, W, V, t, hs, x, p, fnewt, rounding,
								      faccon, fixed);

			tried += nr.iterations;
			o.steps += nr.iterations;
			c.fcn += 3 * nr.iterations;
			c.sol += nr.iterations;

			if (nr.end != CONVERGED) {
				if (fixed) {
					rk_fail(o, PICARD_TRAJ_NOT_CONVERGED, w, t, t + hs);
					rk_flush(out, t, x);
					break;
				}
				h = (nr.end == TOO_SLOW ? nr.hhfac : 0.5) * hs;
				reject = true;
				need_jac = !jac_fresh;
				continue;
			}
			const double err = fixed ? 0 :
				estimate<Model, real>(T, W, V, t, hs, x, p, first || reject, c.fcn);
			const double fac = fmin(safe, cfac / (nr.iterations + 2 * nit));
			double quot = fmax(fac_min, fmin(fac_max, sqrt(sqrt(err)) / fac));
			double hnew = hs / quot;

			if (!(err < 1)) {
				if (c.accept > 0)
					c.reject++;
				h = first ? 0.1 * hs : hnew;
				reject = true;
				need_jac = !jac_fresh;
				continue;
			}
			/* accepted */
			if (!fixed && !first) { /* Gustafsson's predictive controller */
				double facgus = (hacc / hs) * sqrt(sqrt(err * err / erracc)) / safe;

				facgus = fmax(fac_min, fmin(fac_max, facgus));
				quot = fmax(quot, facgus);
				hnew = hs / quot;
			}
			hacc = hs;
			erracc = fmax(1e-2, err);
			c.accept++;
			const double t_new = last ? tb : t + hs;

			for (int i = T.lane(); i < n; i += T.lanes)
				V.xn[i] = x[i] + W.z[2][i];
			T.sync();
			if (!team_within<n>(T, V.xn, lim)) { /* the record times after t: none */
				rk_flush(out, t, x);
				for (int i = T.lane(); i < n; i += T.lanes)
					x[i] = V.xn[i];
				T.sync();
				rk_fail(o, rk_state_status<n>(x), w, t, t_new);
				break;
			}
			polynomial_fit<n>(T, W, P);
			dense_step<Model, real, Team> D = {T, W, V, P, t, t_new, x, p, fnewt, rounding,
							   false};

			if constexpr (with_events)
				if (!events_quiet<Model, real>(ev, t_new, V.xn, p, g_end)) {
					const event_result r = events_step<Model, real>(
						ev, run, w, t, t_new, x, p, V.xn, g_end, lim, D, out, o);

					if (r == EVENT_STOP)
						break;
					if (r == EVENT_CUT) {
						/* a fresh start from the event: the state
						 * changed, so f0, J, the LU and the
						 * polynomial's starting values are stale */
						team_rhs<Model>(T, (real)t, x, p, V.f0);
						c.fcn++;
						weights<n>(T, atol, rtol, x, V.wt);
						need_jac = true;
						jac_fresh = false;
						lu_h = NAN;
						first = true;
						reject = false;
						erracc = 1e-2;
						if (fixed)
							resume = t < t_new ? t_new : resume;
						else
							h = rk_first_step<Model, rk_radau5, real>(run, t, x, p, V.f0);
						continue;
					}
				}
			{
				dense_vector<n, real> own;

				step_dense_until(D, t, t_new, x, V.xn, scratch<Team>(own, V.dense).xd, out);
			}
			if (D.spent)
				lu_h = NAN;
			for (int i = T.lane(); i < n; i += T.lanes)
				x[i] = V.xn[i];
			T.sync();
			t = t_new;
			hold = hs;
			if (t < run.t1) {
				team_rhs<Model>(T, (real)t, x, p, V.f0);
				c.fcn++;
			}
			weights<n>(T, atol, rtol, x, V.wt);
			/* the Jacobian is kept while the iteration contracts fast
			 * (RADAU5's THET), and fixed steps always refresh it */
			need_jac = fixed || nr.theta > thet;
			jac_fresh = false;
			if (!fixed) {
				if (reject)
					hnew = fmin(hnew, hs);
				const double qt = hnew / hs;

				/* a step shortened to end the window says nothing
				 * of the step the trajectory can take; one that
				 * would barely grow keeps h, J and the LU */
				if (last)
					h = fmax(h, hnew);
				else if (!need_jac && qt >= quot1 && qt <= quot2)
					h = hs;
				else
					h = hnew;
			}
			first = reject = false;
		}
		o.steps_max = tried > o.steps_max ? tried : o.steps_max;
		if (o.status != PICARD_TRAJ_OK)
			break;
		out.window_end(w, x);
	}
	c.step = attempts;
	if (cnt)
		*cnt = c;
	return o;
}

} /* namespace radau */

/* Integrate one trajectory by Radau IIA, adaptive or run.steps fixed
 * steps a window, in one thread; rk_trajectory's contract
 * (rk_integrate.cuh), which calls it for the tag rk_radau5. cnt, if
 * given, counts as radau5.f. */
PICARD_EXEC_CHECK_DISABLE
template <class Model, typename real, class Out>
__host__ __device__ inline rk_outcome radau5_trajectory(const rk_run &run, real *x,
							const real *p, Out &out,
							radau::counts *cnt)
{
	radau::work<Model::dim, real> W;
	radau::vectors<Model::dim, real> V;
	radau::polynomial<Model::dim, real> P;

	return radau::run<Model, real>(team_one(), W, V, P, run, x, p, out, cnt);
}

} /* namespace picard */

#endif
