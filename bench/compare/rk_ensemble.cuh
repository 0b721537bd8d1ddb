/* rk_ensemble.cuh - per-thread explicit Runge-Kutta ensemble integrators, the
 * baseline picard is compared with (GitHub issue 6).
 *
 * One thread integrates one trajectory from t0 to t1, as MPGOS's
 * SingleSystem_PerThread solver and DiffEqGPU's EnsembleGPUKernel do. The
 * model's right-hand side is a compile-time template argument
 * (Model::rhs<real>, inlined, no function pointer), the state and the stage
 * slopes live in registers, and the ensemble is stored structure-of-arrays,
 * x[k * ntraj + i], so the loads and stores of a warp coalesce.
 *
 * Methods (Butcher tableaus below, each with its source):
 *   euler  explicit Euler, order 1 (the paper's CPU baseline)
 *   rk4    the classical 4-stage Runge-Kutta method, order 4
 *   dp5    Dormand-Prince 5(4), 7 stages, FSAL (Dormand & Prince 1980;
 *          Hairer, Norsett & Wanner I, Table II.5.2)
 *   dp8    Prince-Dormand 8(7), 13 stages (Prince & Dormand 1981, the
 *          rational coefficients of GSL's rk8pd)
 * each fixed step (rk_fixed) or, for the embedded pairs, adaptive
 * (rk_adaptive): the standard step-size control of Hairer, Norsett & Wanner
 * I, section II.4 (error norm (4.11) with atol/rtol, new step (4.13) with
 * safety factor 0.9 and factor limits, starting step of II.4 "Automatic
 * step size control", facmax = 1 after a rejection), ending exactly at t1.
 *
 * The per-trajectory integrators are __host__ __device__: the same code runs
 * in the kernels (rk_launch_*), on the host with OpenMP (rk_host_*), and in
 * bench-rk --selfcheck, which checks each method's order.
 *
 * Every failure is detected per trajectory and reported in its status: a
 * non-finite state (fixed step; adaptive: a non-finite trial step is
 * rejected and retried smaller until the step underflows), a step size
 * below 16 eps |t|, more steps than allowed.
 */
#ifndef BENCH_RK_ENSEMBLE_CUH
#define BENCH_RK_ENSEMBLE_CUH

#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <omp.h>

/* Unroll the loops over stages and components: on the device (nvcc) and on
 * the host (gcc), so the coefficients become literals. */
#ifdef __CUDA_ARCH__
#define BENCH_RK_UNROLL _Pragma("unroll")
#else
/* nvcc's front end does not know gcc's pragma (warning 1675). */
#pragma nv_diag_suppress 1675
#define BENCH_RK_UNROLL _Pragma("GCC unroll 16")
#endif

namespace rkens {

/* Outcome of one trajectory. */
enum rk_status {
	RK_OK = 0,
	RK_NONFINITE = 1,      /* NaN or Inf in the state (fixed step) */
	RK_STEP_UNDERFLOW = 2, /* adaptive: the step fell below 16 eps |t| */
	RK_MAX_STEPS = 3,      /* adaptive: more steps (accepted and rejected)
				  than rk_control.max_steps */
};

/* ---- Butcher tableaus -------------------------------------------------------
 * a(i, j): stage i's weight of slope j (j < i); b(j): the propagated
 * solution; e(j): b(j) minus the embedded solution's weight (the error
 * estimate is h sum_j e(j) k_j); c(i): stage i's time fraction. The
 * coefficients sit in constexpr functions so that, once the stage loops are
 * unrolled, every coefficient is a literal and zero ones vanish. */

/* Explicit Euler. */
struct euler {
	static constexpr const char *name = "euler";
	static constexpr int stages = 1, order = 1, err_order = 0;
	static constexpr bool embedded = false, fsal = false;
	__host__ __device__ static constexpr double a(int, int) { return 0; }
	__host__ __device__ static constexpr double b(int) { return 1; }
	__host__ __device__ static constexpr double c(int) { return 0; }
	__host__ __device__ static constexpr double e(int) { return 0; }
};

/* The classical Runge-Kutta method (Kutta 1901; HNW I, Table II.1.2). */
struct rk4 {
	static constexpr const char *name = "rk4";
	static constexpr int stages = 4, order = 4, err_order = 0;
	static constexpr bool embedded = false, fsal = false;
	__host__ __device__ static constexpr double a(int i, int j)
	{
		return (i == 1 && j == 0) ? 0.5 : (i == 2 && j == 1) ? 0.5 :
		       (i == 3 && j == 2) ? 1.0 : 0.0;
	}
	__host__ __device__ static constexpr double b(int j)
	{
		return (j == 0 || j == 3) ? 1.0 / 6 : 1.0 / 3;
	}
	__host__ __device__ static constexpr double c(int i)
	{
		return i == 0 ? 0.0 : i == 3 ? 1.0 : 0.5;
	}
	__host__ __device__ static constexpr double e(int) { return 0; }
};

/* Dormand-Prince 5(4), "DOPRI5": J. R. Dormand & P. J. Prince, A family of
 * embedded Runge-Kutta formulae, J. Comp. Appl. Math. 6 (1980) 19-26;
 * HNW I, Table II.5.2. Seven stages, the seventh at the new solution (FSAL):
 * six evaluations per step. Propagates the 5th-order solution. */
struct dp5 {
	static constexpr const char *name = "dp5";
	static constexpr int stages = 7, order = 5, err_order = 4;
	static constexpr bool embedded = true, fsal = true;
	__host__ __device__ static constexpr double a(int i, int j)
	{
		constexpr double A[7][6] = {
			{0},
			{1.0 / 5},
			{3.0 / 40, 9.0 / 40},
			{44.0 / 45, -56.0 / 15, 32.0 / 9},
			{19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729},
			{9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176,
			 -5103.0 / 18656},
			{35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784,
			 11.0 / 84},
		};
		return j < 6 ? A[i][j] : 0.0;
	}
	__host__ __device__ static constexpr double b(int j)
	{
		return a(6, j); /* b7 = 0 */
	}
	__host__ __device__ static constexpr double c(int i)
	{
		constexpr double C[7] = {0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1, 1};
		return C[i];
	}
	/* b - bhat, bhat = (5179/57600, 0, 7571/16695, 393/640,
	 * -92097/339200, 187/2100, 1/40). */
	__host__ __device__ static constexpr double e(int j)
	{
		constexpr double E[7] = {71.0 / 57600, 0, -71.0 / 16695, 71.0 / 1920,
					 -17253.0 / 339200, 22.0 / 525, -1.0 / 40};
		return E[j];
	}
};

/* Prince-Dormand 8(7): P. J. Prince & J. R. Dormand, High order embedded
 * Runge-Kutta formulae, J. Comp. Appl. Math. 7 (1981) 67-75, with the
 * rational approximations of its coefficients that GSL's rk8pd uses.
 * Thirteen stages, no FSAL; propagates the 8th-order solution. */
struct dp8 {
	static constexpr const char *name = "dp8";
	static constexpr int stages = 13, order = 8, err_order = 7;
	static constexpr bool embedded = true, fsal = false;
	__host__ __device__ static constexpr double a(int i, int j)
	{
		constexpr double A[13][12] = {
			{0},
			{1.0 / 18},
			{1.0 / 48, 1.0 / 16},
			{1.0 / 32, 0, 3.0 / 32},
			{5.0 / 16, 0, -75.0 / 64, 75.0 / 64},
			{3.0 / 80, 0, 0, 3.0 / 16, 3.0 / 20},
			{29443841.0 / 614563906, 0, 0, 77736538.0 / 692538347,
			 -28693883.0 / 1125000000, 23124283.0 / 1800000000},
			{16016141.0 / 946692911, 0, 0, 61564180.0 / 158732637,
			 22789713.0 / 633445777, 545815736.0 / 2771057229,
			 -180193667.0 / 1043307555},
			{39632708.0 / 573591083, 0, 0, -433636366.0 / 683701615,
			 -421739975.0 / 2616292301, 100302831.0 / 723423059,
			 790204164.0 / 839813087, 800635310.0 / 3783071287},
			{246121993.0 / 1340847787, 0, 0, -37695042795.0 / 15268766246,
			 -309121744.0 / 1061227803, -12992083.0 / 490766935,
			 6005943493.0 / 2108947869, 393006217.0 / 1396673457,
			 123872331.0 / 1001029789},
			{-1028468189.0 / 846180014, 0, 0, 8478235783.0 / 508512852,
			 1311729495.0 / 1432422823, -10304129995.0 / 1701304382,
			 -48777925059.0 / 3047939560, 15336726248.0 / 1032824649,
			 -45442868181.0 / 3398467696, 3065993473.0 / 597172653},
			{185892177.0 / 718116043, 0, 0, -3185094517.0 / 667107341,
			 -477755414.0 / 1098053517, -703635378.0 / 230739211,
			 5731566787.0 / 1027545527, 5232866602.0 / 850066563,
			 -4093664535.0 / 808688257, 3962137247.0 / 1805957418,
			 65686358.0 / 487910083},
			{403863854.0 / 491063109, 0, 0, -5068492393.0 / 434740067,
			 -411421997.0 / 543043805, 652783627.0 / 914296604,
			 11173962825.0 / 925320556, -13158990841.0 / 6184727034,
			 3936647629.0 / 1978049680, -160528059.0 / 685178525,
			 248638103.0 / 1413531060, 0},
		};
		return j < 12 ? A[i][j] : 0.0;
	}
	/* The 8th-order weights (GSL's Abar). */
	__host__ __device__ static constexpr double b(int j)
	{
		constexpr double B[13] = {
			14005451.0 / 335480064, 0, 0, 0, 0, -59238493.0 / 1068277825,
			181606767.0 / 758867731, 561292985.0 / 797845732,
			-1041891430.0 / 1371343529, 760417239.0 / 1151165299,
			118820643.0 / 751138087, -528747749.0 / 2220607170, 1.0 / 4};
		return B[j];
	}
	/* The 7th-order weights (GSL's A; zero for stage 13). */
	__host__ __device__ static constexpr double bhat(int j)
	{
		constexpr double B[13] = {
			13451932.0 / 455176623, 0, 0, 0, 0, -808719846.0 / 976000145,
			1757004468.0 / 5645159321, 656045339.0 / 265891186,
			-3867574721.0 / 1518517206, 465885868.0 / 322736535,
			53011238.0 / 667516719, 2.0 / 45, 0};
		return B[j];
	}
	__host__ __device__ static constexpr double e(int j)
	{
		return b(j) - bhat(j);
	}
	__host__ __device__ static constexpr double c(int i)
	{
		constexpr double C[13] = {
			0, 1.0 / 18, 1.0 / 12, 1.0 / 8, 5.0 / 16, 3.0 / 8, 59.0 / 400,
			93.0 / 200, 5490023248.0 / 9719169821, 13.0 / 20,
			1201146811.0 / 1299019798, 1, 1};
		return C[i];
	}
};

/* ---- small maths, overloaded for float and double ------------------------ */

__host__ __device__ inline float rk_abs(float v) { return fabsf(v); }
__host__ __device__ inline double rk_abs(double v) { return fabs(v); }
__host__ __device__ inline float rk_sqrt(float v) { return sqrtf(v); }
__host__ __device__ inline double rk_sqrt(double v) { return sqrt(v); }
__host__ __device__ inline float rk_pow(float v, float e) { return powf(v, e); }
__host__ __device__ inline double rk_pow(double v, double e) { return pow(v, e); }
__host__ __device__ inline bool rk_finite(float v) { return isfinite(v); }
__host__ __device__ inline bool rk_finite(double v) { return isfinite(v); }
/* Any other real (bench-rk --selfcheck runs the fixed-step integrators in
 * long double on the host): v - v is 0 exactly when v is finite. */
template <typename real> __host__ __device__ inline bool rk_finite(real v)
{
	return v - v == real(0);
}
template <typename real> __host__ __device__ inline real rk_max(real u, real v)
{
	return u > v ? u : v;
}
template <typename real> __host__ __device__ inline real rk_min(real u, real v)
{
	return u < v ? u : v;
}
template <typename real> struct rk_eps;
template <> struct rk_eps<float> { static constexpr float value = FLT_EPSILON; };
template <> struct rk_eps<double> { static constexpr double value = DBL_EPSILON; };

/* ---- one step ---------------------------------------------------------------- */

/* One step of Tab from (t, x) with step h. k[0] must hold f(t, x) on entry;
 * stages 1 .. S-1 are evaluated into k (for an FSAL tableau k[S-1] is then
 * f(t + h, xnew), the next step's k[0]). xnew: the propagated solution;
 * err: the embedded error estimate h sum_j e_j k_j (embedded tableaus
 * only). Straight-line code once unrolled: the zero coefficients drop out. */
template <class Tab, class Model, typename real>
__host__ __device__ __forceinline__ void rk_step(real t, real h, const real *x,
						 const real *p,
						 real (&k)[Tab::stages][Model::dim],
						 real *xnew, real *err)
{
	constexpr int S = Tab::stages, n = Model::dim;

BENCH_RK_UNROLL
	for (int s = 1; s < S; s++) {
		real xs[n];
BENCH_RK_UNROLL
		for (int d = 0; d < n; d++) {
			real acc = 0;
BENCH_RK_UNROLL
			for (int j = 0; j < s; j++)
				if (Tab::a(s, j) != 0)
					acc += real(Tab::a(s, j)) * k[j][d];
			xs[d] = x[d] + h * acc;
		}
		Model::rhs(t + real(Tab::c(s)) * h, xs, p, k[s]);
	}
BENCH_RK_UNROLL
	for (int d = 0; d < n; d++) {
		real acc = 0, est = 0;
BENCH_RK_UNROLL
		for (int j = 0; j < S; j++) {
			if (Tab::b(j) != 0)
				acc += real(Tab::b(j)) * k[j][d];
			if (Tab::embedded && Tab::e(j) != 0)
				est += real(Tab::e(j)) * k[j][d];
		}
		xnew[d] = x[d] + h * acc;
		if (Tab::embedded)
			err[d] = h * est;
	}
}

/* ---- one trajectory ---------------------------------------------------------- */

/* What one trajectory's integration did. */
struct rk_counts {
	int status;     /* rk_status */
	long evals;     /* right-hand side evaluations */
	long accepted;  /* steps taken */
	long rejected;  /* steps rejected (adaptive only) */
};

/* Step-size control of the adaptive integrators (HNW I, II.4). */
struct rk_control {
	double rtol, atol;  /* sc_i = atol + rtol max(|x_i|, |xnew_i|), (4.10) */
	double safety;      /* fac in (4.13): 0.9 */
	double facmin;      /* smallest step factor: 0.2 */
	double facmax;      /* largest step factor: 5 (1 right after a rejection) */
	double h0;          /* first step; 0: chosen by HNW's starting-step
			       algorithm (two evaluations, counted) */
	long max_steps;     /* accepted + rejected steps before RK_MAX_STEPS */
};

/* The n components of x, or false if any is NaN/Inf. */
template <int n, typename real>
__host__ __device__ inline bool rk_all_finite(const real *x)
{
	bool ok = true;
BENCH_RK_UNROLL
	for (int d = 0; d < n; d++)
		ok = ok && rk_finite(x[d]);
	return ok;
}

/* Integrate x from t0 to t1 in nsteps equal steps h = (t1 - t0) / nsteps.
 * Evaluations: S per step (FSAL tableaus: S - 1, plus one at the start).
 * Stops at the first non-finite state (status RK_NONFINITE, x holds it). */
template <class Tab, class Model, typename real>
__host__ __device__ inline rk_counts rk_fixed(real *x, const real *p, real t0,
					      real t1, long nsteps)
{
	constexpr int S = Tab::stages, n = Model::dim;
	const real h = (t1 - t0) / real(nsteps);
	rk_counts out = {RK_OK, 0, 0, 0};
	real k[S][n], xnew[n], err[n];

	if (Tab::fsal) {
		Model::rhs(t0, x, p, k[0]);
		out.evals++;
	}
	for (long i = 0; i < nsteps; i++) {
		const real t = t0 + real(i) * h;

		if (!Tab::fsal) {
			Model::rhs(t, x, p, k[0]);
			out.evals++;
		}
		rk_step<Tab, Model, real>(t, h, x, p, k, xnew, err);
		out.evals += S - 1;
		out.accepted++;
BENCH_RK_UNROLL
		for (int d = 0; d < n; d++)
			x[d] = xnew[d];
		if (!rk_all_finite<n>(x)) {
			out.status = RK_NONFINITE;
			break;
		}
		if (Tab::fsal) {
BENCH_RK_UNROLL
			for (int d = 0; d < n; d++)
				k[0][d] = k[S - 1][d];
		}
	}
	return out;
}

/* RMS norm of v scaled by sc (HNW I, (4.11)). */
template <int n, typename real>
__host__ __device__ inline real rk_norm(const real *v, const real *sc)
{
	real sum = 0;
BENCH_RK_UNROLL
	for (int d = 0; d < n; d++)
		sum += (v[d] / sc[d]) * (v[d] / sc[d]);
	return rk_sqrt(sum / real(n));
}

/* HNW I, II.4, "Starting step size": h from the size of x0, f0 and an
 * estimate of the second derivative (one evaluation, f(t0 + h0, x0 + h0 f0)),
 * for a method of order q. f0 = f(t0, x0). */
template <class Model, typename real>
__host__ __device__ inline real rk_start_step(real t0, real span, const real *x0,
					      const real *f0, const real *p,
					      real rtol, real atol, int q)
{
	constexpr int n = Model::dim;
	real sc[n], x1[n], f1[n], df[n];
	real d0, d1, d2, h0, h1;

BENCH_RK_UNROLL
	for (int d = 0; d < n; d++)
		sc[d] = atol + rtol * rk_abs(x0[d]);
	d0 = rk_norm<n>(x0, sc);
	d1 = rk_norm<n>(f0, sc);
	h0 = (d0 < real(1e-5) || d1 < real(1e-5)) ? real(1e-6) : real(0.01) * d0 / d1;
	h0 = rk_min(h0, span);
BENCH_RK_UNROLL
	for (int d = 0; d < n; d++)
		x1[d] = x0[d] + h0 * f0[d];
	Model::rhs(t0 + h0, x1, p, f1);
BENCH_RK_UNROLL
	for (int d = 0; d < n; d++)
		df[d] = f1[d] - f0[d];
	d2 = rk_norm<n>(df, sc) / h0;
	if (!rk_finite(d2))
		return h0;
	if (rk_max(d1, d2) <= real(1e-15))
		h1 = rk_max(real(1e-6), h0 * real(1e-3));
	else
		h1 = rk_pow(real(0.01) / rk_max(d1, d2), real(1) / real(q + 1));
	return rk_min(rk_min(real(100) * h0, h1), span);
}

/* Integrate x from t0 to t1 (> t0) with step-size control (HNW I, II.4):
 * accept a step when err = ||h sum e_j k_j / sc|| <= 1, then
 * h_new = h min(facmax, max(facmin, safety err^(-1/(q+1)))), q the lower
 * order of the pair; a rejected step retries with the same formula and
 * facmax = 1 on the step after it. A step that would end within 1% of a
 * step before t1 is stretched to end there; the last step ends exactly at
 * t1. A trial step with a non-finite state or error is rejected (h times
 * facmin), so a blow-up shows as RK_STEP_UNDERFLOW. */
template <class Tab, class Model, typename real>
__host__ __device__ inline rk_counts rk_adaptive(real *x, const real *p, real t0,
						 real t1, const rk_control &ctl)
{
	static_assert(Tab::embedded, "adaptive step needs an embedded pair");
	constexpr int S = Tab::stages, n = Model::dim;
	const real rtol = real(ctl.rtol), atol = real(ctl.atol);
	const real safety = real(ctl.safety), facmin = real(ctl.facmin);
	const real expo = real(-1) / real(Tab::err_order + 1);
	rk_counts out = {RK_OK, 0, 0, 0};
	real k[S][n], xnew[n], err[n], sc[n];
	real t = t0, h, facmax = real(ctl.facmax);
	bool k0_valid;

	Model::rhs(t, x, p, k[0]);
	out.evals = 1;
	k0_valid = true;
	if (ctl.h0 > 0) {
		h = real(ctl.h0);
	} else {
		h = rk_start_step<Model, real>(t0, t1 - t0, x, k[0], p, rtol, atol,
					       Tab::order);
		out.evals++;
	}
	for (;;) {
		bool last = false;
		real en;

		if (out.accepted + out.rejected >= ctl.max_steps) {
			out.status = RK_MAX_STEPS;
			break;
		}
		if (t + real(1.01) * h >= t1) {
			h = t1 - t;
			last = true;
		}
		if (!(h > real(16) * rk_eps<real>::value * rk_abs(t)) || !(h > 0)) {
			out.status = RK_STEP_UNDERFLOW;
			break;
		}
		if (!k0_valid) {
			Model::rhs(t, x, p, k[0]);
			out.evals++;
			k0_valid = true;
		}
		rk_step<Tab, Model, real>(t, h, x, p, k, xnew, err);
		out.evals += S - 1;
BENCH_RK_UNROLL
		for (int d = 0; d < n; d++)
			sc[d] = atol + rtol * rk_max(rk_abs(x[d]), rk_abs(xnew[d]));
		en = rk_norm<n>(err, sc);
		if (!rk_finite(en) || !rk_all_finite<n>(xnew)) {
			out.rejected++;
			h *= facmin;
			facmax = 1;
			continue;
		}
		if (en > 1) {
			out.rejected++;
			h *= rk_max(facmin, safety * rk_pow(en, expo));
			facmax = 1;
			continue;
		}
		out.accepted++;
		t = last ? t1 : t + h;
BENCH_RK_UNROLL
		for (int d = 0; d < n; d++)
			x[d] = xnew[d];
		if (Tab::fsal) {
BENCH_RK_UNROLL
			for (int d = 0; d < n; d++)
				k[0][d] = k[S - 1][d];
		} else {
			k0_valid = false;
		}
		if (last)
			break;
		h *= en > 0 ? rk_min(facmax, rk_max(facmin, safety * rk_pow(en, expo)))
			    : facmax;
		facmax = real(ctl.facmax);
	}
	return out;
}

/* ---- the ensemble ---------------------------------------------------------------- */

/* The model's parameters by value (a kernel argument: constant bank). */
template <class Model, typename real>
struct rk_params {
	real v[Model::nparams > 0 ? Model::nparams : 1]; /* Model::param_defaults */
};

/* On the host only: Model::param_defaults is host data. */
template <class Model, typename real>
inline rk_params<Model, real> rk_default_params()
{
	rk_params<Model, real> p = {};
	for (int q = 0; q < Model::nparams; q++)
		p.v[q] = real(Model::param_defaults[q]);
	return p;
}

/* Where an ensemble run reads and writes; all arrays of ntraj entries (x0,
 * x1: dim * ntraj, SoA x[k * ntraj + i]). Device or host memory. */
template <typename real>
struct rk_ensemble {
	const real *x0;  /* initial states */
	real *x1;        /* states at t1 (or where the trajectory failed) */
	long ntraj;      /* trajectories */
	int *status;     /* rk_status per trajectory */
	long *evals;     /* right-hand side evaluations per trajectory */
	long *accepted;  /* steps per trajectory */
	long *rejected;  /* rejected steps per trajectory */
};

/* Trajectory i: load (coalesced), integrate, store. fixed: nsteps > 0;
 * else adaptive under ctl. */
template <class Tab, class Model, typename real, bool adaptive>
__host__ __device__ inline void rk_trajectory(const rk_ensemble<real> &ens, long i,
					      const rk_params<Model, real> &par,
					      real t0, real t1, long nsteps,
					      const rk_control &ctl)
{
	constexpr int n = Model::dim;
	real x[n], p[Model::nparams > 0 ? Model::nparams : 1];
	rk_counts c;

BENCH_RK_UNROLL
	for (int q = 0; q < Model::nparams; q++)
		p[q] = par.v[q];
BENCH_RK_UNROLL
	for (int d = 0; d < n; d++)
		x[d] = ens.x0[d * ens.ntraj + i];
	if constexpr (adaptive)
		c = rk_adaptive<Tab, Model, real>(x, p, t0, t1, ctl);
	else
		c = rk_fixed<Tab, Model, real>(x, p, t0, t1, nsteps);
BENCH_RK_UNROLL
	for (int d = 0; d < n; d++)
		ens.x1[d * ens.ntraj + i] = x[d];
	ens.status[i] = c.status;
	ens.evals[i] = c.evals;
	ens.accepted[i] = c.accepted;
	ens.rejected[i] = c.rejected;
}

/* ---- kernels ------------------------------------------------------------------- */

template <class Tab, class Model, typename real, bool adaptive>
__global__ void rk_ensemble_kernel(const rk_ensemble<real> ens,
				   const rk_params<Model, real> par, real t0,
				   real t1, long nsteps, const rk_control ctl)
{
	const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < ens.ntraj)
		rk_trajectory<Tab, Model, real, adaptive>(ens, i, par, t0, t1,
							   nsteps, ctl);
}

/* ---- launchers ------------------------------------------------------------------ */

/* One thread per trajectory, block threads per block, on stream. Returns
 * the launch's cudaError_t (the kernel's own errors show at the next
 * synchronisation). */
template <class Tab, class Model, typename real, bool adaptive>
cudaError_t rk_launch(const rk_ensemble<real> &ens, real t0, real t1,
		      long nsteps, const rk_control &ctl, int block,
		      cudaStream_t stream)
{
	const long blocks = (ens.ntraj + block - 1) / block;

	rk_ensemble_kernel<Tab, Model, real, adaptive>
		<<<(unsigned)blocks, block, 0, stream>>>(
			ens, rk_default_params<Model, real>(), t0, t1, nsteps, ctl);
	return cudaGetLastError();
}

/* The same on the host, OpenMP over trajectories (threads: 0 = OpenMP's
 * default). */
template <class Tab, class Model, typename real, bool adaptive>
void rk_host(const rk_ensemble<real> &ens, real t0, real t1, long nsteps,
	     const rk_control &ctl, int threads)
{
	const rk_params<Model, real> par = rk_default_params<Model, real>();
	const int nthreads = threads > 0 ? threads : omp_get_max_threads();

#pragma omp parallel for schedule(dynamic, 16) num_threads(nthreads)
	for (long i = 0; i < ens.ntraj; i++)
		rk_trajectory<Tab, Model, real, adaptive>(ens, i, par, t0, t1, nsteps,
							   ctl);
}

} /* namespace rkens */

#endif
