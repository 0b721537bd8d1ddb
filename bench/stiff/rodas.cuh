/* rodas.cuh - a per-thread Rosenbrock ensemble integrator, Rodas5P, the
 * stiff baseline of GitHub issue 18: one thread (or one OpenMP iteration)
 * integrates one trajectory, the model's right-hand side and Jacobian
 * compile-time template arguments, as rk_ensemble.cuh does for the explicit
 * Runge-Kutta methods.
 *
 * The method (Hairer & Wanner, Solving ODEs II, IV.7, the form (7.25) that
 * needs no matrix-vector product): with W = I / (h gamma) - J, J = df/dx
 * and f_t = df/dt at (t0, y0), for stages i = 1 .. s
 *
 *	u_i = y0 + sum_{j<i} a_ij k_j,
 *	W k_i = f(t0 + c_i h, u_i) + h d_i f_t + sum_{j<i} (C_ij / h) k_j,
 *
 * y1 = y0 + sum_j b_j k_j and the error estimate k_s (the method is
 * stiffly accurate: b_j = a_sj for j < s, b_s = 1; the embedded solution
 * is u_s). Rodas5P: s = 8, order 5, embedded order 4 (G. Steinebach,
 * "Construction of Rosenbrock-Wanner method Rodas5P and numerical
 * benchmarks within the Julia Differential Equations package", BIT Numer.
 * Math. 63 (2023) 27; the coefficients as published in OrdinaryDiffEq.jl's
 * Rodas5PTableau, the a and C of stages 6 to 8 from its perform_step:
 * u_7 = u_6 + k_6, u_8 = u_7 + k_7, y1 = u_8 + k_8).
 *
 * Evaluated once per step at (t0, y0): f, J (picard::jacobian: the model's
 * own, else forward-mode AD) and f_t by forward-mode AD in t (one pass of
 * the rhs on dual numbers; zero for an autonomous model, computed all the
 * same: the model struct does not say whether it is autonomous). A
 * rejected step keeps them and refactors W only. W is factored by LU with
 * partial pivoting (in registers for small dim), then 8 solves.
 *
 * Step-size control as Hairer's rodas.f (HW II, IV.8 and Hairer's code):
 * err = RMS of k_s / sc, sc_i = atol + rtol max(|y0_i|, |y1_i|); accept
 * when err <= 1; fac = clamp(err^(1/(q+1)) / 0.9, 1/6, 5) with q = 4,
 * h_new = h / fac, with Gustafsson's predictive controller (rodas.f's
 * default) after the first accepted step, no growth right after a
 * rejection, h / 10 after a rejected first step. Starting step: HNW I,
 * II.4. The integration passes through nout output times, ending each
 * step exactly at the next (a step within 1% of it is stretched), and
 * stores the state there.
 *
 * Failures, per trajectory, never silent: a step below 16 eps |t| (a
 * trial step with a singular W or a non-finite state is rejected and
 * retried at h / 5, so a blow-up ends here), more than max_steps steps.
 */
#ifndef BENCH_STIFF_RODAS_CUH
#define BENCH_STIFF_RODAS_CUH

#include <float.h>
#include <math.h>
#include <omp.h>

#include "dual.cuh"
#include "jacobian.cuh"
#include "portable.h"
#include "small_lu.cuh"

#ifdef __CUDA_ARCH__
#define RODAS_UNROLL _Pragma("unroll")
#elif defined(__CUDACC__)
/* nvcc's front end does not know gcc's pragma (warning 1675). */
#pragma nv_diag_suppress 1675
#define RODAS_UNROLL _Pragma("GCC unroll 16")
#else
#define RODAS_UNROLL _Pragma("GCC unroll 16")
#endif

namespace stiffens {

/* Outcome of one trajectory. */
enum rodas_status {
	RODAS_OK = 0,
	RODAS_STEP_UNDERFLOW = 2, /* the step fell below 16 eps |t| */
	RODAS_MAX_STEPS = 3,      /* more steps (accepted + rejected) than allowed */
};

/* Most output times of one run. */
#define RODAS_MAX_OUT 16

/* ---- the tableau --------------------------------------------------------------
 * Rodas5P (Steinebach 2023), 0-based stage indices. a(i, j), C(i, j) for
 * j < i; c(i) the stage's time fraction, d(i) its f_t weight (the
 * gamma_i = sum_j gamma_ij of HW (7.25)); b(j) the solution's weights;
 * e(j) the error estimate's (k_8). constexpr, so that after unrolling
 * every coefficient is a literal. */
struct rodas5p {
	static constexpr const char *name = "rodas5p";
	static constexpr int stages = 8, order = 5, err_order = 4;
	static constexpr double gamma = 0.21193756319429014;

	__host__ __device__ static constexpr double a6(int j)
	{
		constexpr double A6[5] = {-7.502846399306121, 2.561846144803919,
					  -11.627539656261098, -0.18268767659942256,
					  0.030198172008377946};
		return A6[j];
	}
	__host__ __device__ static constexpr double a(int i, int j)
	{
		constexpr double A[5][4] = {
			{0},
			{3.0},
			{2.849394379747939, 0.45842242204463923},
			{-6.954028509809101, 2.489845061869568, -10.358996098473584},
			{2.8029986275628964, 0.5072464736228206, -0.3988312541770524,
			 -0.04721187230404641},
		};
		/* stage 6: a6j; stage 7: u_6 + k_6; stage 8: u_7 + k_7 */
		return i < 5 ? (j < 4 ? A[i][j] : 0.0) : j < 5 ? a6(j) : j < i ? 1.0 : 0.0;
	}
	__host__ __device__ static constexpr double C(int i, int j)
	{
		constexpr double Cm[8][7] = {
			{0},
			{-14.155112264123755},
			{-17.97296035885952, -2.859693295451294},
			{147.12150275711716, -1.41221402718213, 71.68940251302358},
			{165.43517024871676, -0.4592823456491126, 42.90938336958603,
			 -5.961986721573306},
			{24.854864614690072, -3.0009227002832186, 47.4931110020768,
			 5.5814197821558125, -0.6610691825249471},
			{30.91273214028599, -3.1208243349937974, 77.79954646070892,
			 34.28646028294783, -19.097331116725623, -28.087943162872662},
			{37.80277123390563, -3.2571969029072276, 112.26918849496327,
			 66.9347231244047, -40.06618937091002, -54.66780262877968,
			 -9.48861652309627},
		};
		return j < 7 ? Cm[i][j] : 0.0;
	}
	__host__ __device__ static constexpr double c(int i)
	{
		constexpr double Cv[8] = {0, 0.6358126895828704, 0.4095798393397535,
					  0.9769306725060716, 0.4288403609558664, 1, 1, 1};
		return Cv[i];
	}
	__host__ __device__ static constexpr double d(int i)
	{
		constexpr double D[8] = {0.21193756319429014, -0.42387512638858027,
					 -0.3384627126235924, 1.8046452872882734,
					 2.325825639765069, 0, 0, 0};
		return D[i];
	}
	__host__ __device__ static constexpr double b(int j)
	{
		return j < 5 ? a6(j) : 1.0;
	}
	__host__ __device__ static constexpr double e(int j)
	{
		return j == 7 ? 1.0 : 0.0;
	}
};

/* ---- small maths ----------------------------------------------------------------- */

template <typename real> __host__ __device__ inline real ro_abs(real v) { return v < 0 ? -v : v; }
template <typename real> __host__ __device__ inline real ro_max(real u, real v) { return u > v ? u : v; }
template <typename real> __host__ __device__ inline real ro_min(real u, real v) { return u < v ? u : v; }
/* v - v is 0 exactly when v is finite. */
template <typename real> __host__ __device__ inline bool ro_finite(real v) { return v - v == real(0); }
template <typename real> struct ro_eps;
template <> struct ro_eps<float> { static constexpr float value = FLT_EPSILON; };
template <> struct ro_eps<double> { static constexpr double value = DBL_EPSILON; };
template <> struct ro_eps<long double> { static constexpr long double value = LDBL_EPSILON; };

/* RMS norm of v / sc (HNW I, (4.11)). */
template <int n, typename real>
__host__ __device__ inline real ro_norm(const real *v, const real *sc)
{
	real sum = 0;

RODAS_UNROLL
	for (int k = 0; k < n; k++)
		sum += (v[k] / sc[k]) * (v[k] / sc[k]);
	return sqrt(sum / real(n));
}

/* ---- the linear algebra: W = I / (h gamma) - J, LU with partial pivoting ------ */

/* LU with partial pivoting: src/schemes/radau5/small_lu.cuh, picard's own (radau5's). */

/* ---- one step -------------------------------------------------------------------- */

/* df/dt at (t, x) by forward-mode AD in t (one dual pass of the rhs). */
template <class Model, typename real>
__host__ __device__ inline void ro_dfdt(real t, const real *x, const real *p, real *ft)
{
	constexpr int n = Model::dim, np = Model::nparams;
	typedef picard::ad::dual<real, 1> D;
	D xd[n], pd[np > 0 ? np : 1], fd[n];

RODAS_UNROLL
	for (int k = 0; k < n; k++)
		xd[k] = D(x[k]);
RODAS_UNROLL
	for (int q = 0; q < np; q++)
		pd[q] = D(p[q]);
	Model::template rhs<D>(D::variable(t, 0), xd, pd, fd);
RODAS_UNROLL
	for (int k = 0; k < n; k++)
		ft[k] = fd[k].d[0];
}

/* One Rosenbrock step of Tab from (t, x) with step h: f0 = f(t, x), J and
 * ft given; xnew the solution, err the embedded estimate. false when W is
 * singular. S - 1 evaluations of f. */
template <class Tab, class Model, typename real>
__host__ __device__ inline bool ro_step(real t, real h, const real *x, const real *p,
					const real *f0, const real *J, const real *ft,
					real *xnew, real *err)
{
	constexpr int S = Tab::stages, n = Model::dim;
	real W[n * n], k[S][n];
	int piv[n];
	const real ihg = real(1) / (h * real(Tab::gamma)), ih = real(1) / h;

RODAS_UNROLL
	for (int r = 0; r < n * n; r++)
		W[r] = -J[r];
RODAS_UNROLL
	for (int r = 0; r < n; r++)
		W[r * n + r] += ihg;
	if (!picard::small_lu<n>(W, piv))
		return false;
RODAS_UNROLL
	for (int s = 0; s < S; s++) {
		real u[n], rhs[n];

		if (s == 0) {
RODAS_UNROLL
			for (int q = 0; q < n; q++)
				rhs[q] = f0[q];
		} else {
RODAS_UNROLL
			for (int q = 0; q < n; q++) {
				real acc = 0;

RODAS_UNROLL
				for (int j = 0; j < s; j++)
					if (Tab::a(s, j) != 0)
						acc += real(Tab::a(s, j)) * k[j][q];
				u[q] = x[q] + acc;
			}
			Model::rhs(t + real(Tab::c(s)) * h, u, p, rhs);
		}
RODAS_UNROLL
		for (int q = 0; q < n; q++) {
			real acc = 0;

RODAS_UNROLL
			for (int j = 0; j < s; j++)
				acc += real(Tab::C(s, j)) * k[j][q];
			rhs[q] += ih * acc;
			if (Tab::d(s) != 0)
				rhs[q] += h * real(Tab::d(s)) * ft[q];
		}
		picard::small_lu_solve<n>(W, piv, rhs);
RODAS_UNROLL
		for (int q = 0; q < n; q++)
			k[s][q] = rhs[q];
	}
RODAS_UNROLL
	for (int q = 0; q < n; q++) {
		real acc = 0, est = 0;

RODAS_UNROLL
		for (int j = 0; j < S; j++) {
			if (Tab::b(j) != 0)
				acc += real(Tab::b(j)) * k[j][q];
			if (Tab::e(j) != 0)
				est += real(Tab::e(j)) * k[j][q];
		}
		xnew[q] = x[q] + acc;
		err[q] = est;
	}
	return true;
}

/* ---- one trajectory ------------------------------------------------------------- */

/* What one trajectory's integration did. */
struct rodas_counts {
	int status;     /* rodas_status */
	long evals;     /* right-hand side evaluations (the starting step's included) */
	long jacs;      /* Jacobian (and f_t) evaluations */
	long accepted;  /* steps taken */
	long rejected;  /* steps rejected */
};

/* Tolerances and limits. */
struct rodas_control {
	double rtol, atol; /* sc_i = atol + rtol max(|x_i|, |xnew_i|) */
	double h0;         /* first step; 0: HNW I, II.4's starting step */
	long max_steps;    /* accepted + rejected steps before RODAS_MAX_STEPS */
	int fixed;         /* non-zero: every step h0 (cut at the outputs), no
			      control (the order check) */
};

/* HNW I, II.4, "Starting step size" for a method of order q (one
 * evaluation). f0 = f(t0, x0). */
template <class Model, typename real>
__host__ __device__ inline real ro_start_step(real t0, real span, const real *x0,
					      const real *f0, const real *p,
					      real rtol, real atol, int q)
{
	constexpr int n = Model::dim;
	real sc[n], x1[n], f1[n], df[n];
	real d0, d1, d2, h0, h1;

RODAS_UNROLL
	for (int k = 0; k < n; k++)
		sc[k] = atol + rtol * ro_abs(x0[k]);
	d0 = ro_norm<n>(x0, sc);
	d1 = ro_norm<n>(f0, sc);
	h0 = (d0 < real(1e-5) || d1 < real(1e-5)) ? real(1e-6) : real(0.01) * d0 / d1;
	h0 = ro_min(h0, span);
RODAS_UNROLL
	for (int k = 0; k < n; k++)
		x1[k] = x0[k] + h0 * f0[k];
	Model::rhs(t0 + h0, x1, p, f1);
RODAS_UNROLL
	for (int k = 0; k < n; k++)
		df[k] = f1[k] - f0[k];
	d2 = ro_norm<n>(df, sc) / h0;
	if (!ro_finite(d2))
		return h0;
	if (ro_max(d1, d2) <= real(1e-15))
		h1 = ro_max(real(1e-6), h0 * real(1e-3));
	else
		h1 = pow(real(0.01) / ro_max(d1, d2), real(1) / real(q + 1));
	return ro_min(ro_min(real(100) * h0, h1), span);
}

/* Integrate x from t0 through the nout increasing output times tout
 * (the last is the end), storing component k of the state at output o in
 * xout[(o * n + k) * stride]; where the trajectory fails, the last
 * output's slots get the state it reached (the others not reached are
 * left alone). */
template <class Tab, class Model, typename real>
__host__ __device__ inline rodas_counts rodas_integrate(real *x, const real *p, real t0,
							const real *tout, int nout,
							const rodas_control &ctl, real *xout,
							long stride)
{
	constexpr int n = Model::dim;
	const real rtol = real(ctl.rtol), atol = real(ctl.atol);
	const real safe = real(0.9), facl = real(5), facr = real(1) / real(6);
	const real expo = real(1) / real(Tab::err_order + 1);
	rodas_counts out = {RODAS_OK, 0, 0, 0, 0};
	real f0[n], J[n * n] = {}, ft[n] = {}, xnew[n], err[n], sc[n];
	real t = t0, h, hacc = 0, erracc = 0;
	bool fresh = false, rejected_last = false;
	int o = 0;

	Model::rhs(t, x, p, f0);
	out.evals = 1;
	if (ctl.h0 > 0) {
		h = real(ctl.h0);
	} else {
		h = ro_start_step<Model, real>(t0, tout[nout - 1] - t0, x, f0, p, rtol, atol,
					       Tab::order);
		out.evals++;
	}
	while (o < nout) {
		const real tend = tout[o];
		bool hit = false;
		real hstep = h, en;

		if (out.accepted + out.rejected >= ctl.max_steps) {
			out.status = RODAS_MAX_STEPS;
			break;
		}
		if (t + real(1.01) * hstep >= tend) {
			hstep = tend - t;
			hit = true;
		}
		if (!(hstep > real(16) * ro_eps<real>::value * ro_abs(t)) || !(hstep > 0)) {
			out.status = RODAS_STEP_UNDERFLOW;
			break;
		}
		if (!fresh) {
			picard::jacobian<Model, real>(t, x, p, J);
			ro_dfdt<Model, real>(t, x, p, ft);
			out.jacs++;
			fresh = true;
		}
		if (!ro_step<Tab, Model, real>(t, hstep, x, p, f0, J, ft, xnew, err)) {
			out.rejected++; /* W singular */
			h = hstep * real(0.2);
			rejected_last = true;
			continue;
		}
		out.evals += Tab::stages - 1;
		bool finite = true;
RODAS_UNROLL
		for (int k = 0; k < n; k++) {
			sc[k] = atol + rtol * ro_max(ro_abs(x[k]), ro_abs(xnew[k]));
			finite = finite && ro_finite(xnew[k]);
		}
		en = ro_norm<n>(err, sc);
		if (!finite || !ro_finite(en)) {
			out.rejected++;
			h = hstep * real(0.2);
			rejected_last = true;
			continue;
		}
		/* rodas.f: fac = err^(1/(q+1)) / safe, clamped; h_new = h / fac */
		real fac = ro_max(facr, ro_min(facl, pow(en, expo) / safe));
		real hnew = hstep / fac;

		if (ctl.fixed) {
			en = 0;
			fac = 1;
			hnew = real(ctl.h0);
		}
		if (en > 1) {
			out.rejected++;
			h = out.accepted == 0 ? hstep * real(0.1) : hnew;
			rejected_last = true;
			continue;
		}
		if (out.accepted > 0 && !ctl.fixed) { /* Gustafsson's predictive controller */
			real facgus = (hacc / hstep) * pow(en * en / erracc, expo) / safe;

			facgus = ro_max(facr, ro_min(facl, facgus));
			fac = ro_max(fac, facgus);
			hnew = hstep / fac;
		}
		hacc = hstep;
		erracc = ro_max(real(1e-2), en);
		out.accepted++;
		t = hit ? tend : t + hstep;
RODAS_UNROLL
		for (int k = 0; k < n; k++)
			x[k] = xnew[k];
		Model::rhs(t, x, p, f0);
		out.evals++;
		fresh = false;
		if (rejected_last)
			hnew = ro_min(hnew, hstep);
		rejected_last = false;
		/* a step cut short to hit an output does not shrink the next */
		h = hit ? ro_max(hnew, h) : hnew;
		if (hit) {
RODAS_UNROLL
			for (int k = 0; k < n; k++)
				xout[(o * n + k) * stride] = x[k];
			o++;
		}
	}
	if (out.status != RODAS_OK)
		for (int k = 0; k < n; k++)
			xout[((nout - 1) * n + k) * stride] = x[k];
	return out;
}

/* ---- the ensemble --------------------------------------------------------------- */

/* Output times by value (a kernel argument: constant bank). */
template <typename real>
struct rodas_times {
	real t0;                /* start */
	real t[RODAS_MAX_OUT];  /* increasing output times, the last the end */
	int n;                  /* how many */
};

/* Where an ensemble run reads and writes; SoA, x[k * ntraj + i]. Device
 * or host memory. */
template <typename real>
struct rodas_ensemble {
	const real *x0;     /* dim * ntraj initial states */
	const real *params; /* nparams * ntraj parameters, or NULL: the defaults */
	real *xout;         /* nout * dim * ntraj: xout[(o * dim + k) * ntraj + i] */
	long ntraj;         /* trajectories */
	int *status;        /* rodas_status per trajectory */
	long *evals;        /* right-hand side evaluations per trajectory */
	long *jacs;         /* Jacobian evaluations per trajectory */
	long *accepted;     /* steps per trajectory */
	long *rejected;     /* rejected steps per trajectory */
};

/* The model's default parameters by value. */
template <class Model, typename real>
struct rodas_params {
	real v[Model::nparams > 0 ? Model::nparams : 1];
};

/* Trajectory i: load (coalesced), integrate, store. */
template <class Tab, class Model, typename real>
__host__ __device__ inline void rodas_trajectory(const rodas_ensemble<real> &ens, long i,
						 const rodas_params<Model, real> &defaults,
						 const rodas_times<real> &times,
						 const rodas_control &ctl)
{
	constexpr int n = Model::dim, np = Model::nparams;
	real x[n], p[np > 0 ? np : 1];

RODAS_UNROLL
	for (int q = 0; q < np; q++)
		p[q] = ens.params ? ens.params[q * ens.ntraj + i] : defaults.v[q];
RODAS_UNROLL
	for (int k = 0; k < n; k++)
		x[k] = ens.x0[k * ens.ntraj + i];
	for (int r = 0; r < times.n * n; r++)
		ens.xout[r * ens.ntraj + i] = real(NAN);
	rodas_counts c = rodas_integrate<Tab, Model, real>(x, p, times.t0, times.t, times.n,
							   ctl, ens.xout + i, ens.ntraj);
	ens.status[i] = c.status;
	ens.evals[i] = c.evals;
	ens.jacs[i] = c.jacs;
	ens.accepted[i] = c.accepted;
	ens.rejected[i] = c.rejected;
}

/* On the host only: Model::param_defaults is host data. */
template <class Model, typename real>
inline rodas_params<Model, real> rodas_default_params()
{
	rodas_params<Model, real> p = {};

	for (int q = 0; q < Model::nparams; q++)
		p.v[q] = real(Model::param_defaults[q]);
	return p;
}

/* The ensemble on the host, OpenMP over trajectories (threads: 0 =
 * OpenMP's default). */
template <class Tab, class Model, typename real>
void rodas_host(const rodas_ensemble<real> &ens, const rodas_times<real> &times,
		const rodas_control &ctl, int threads)
{
	const rodas_params<Model, real> defaults = rodas_default_params<Model, real>();

#pragma omp parallel for schedule(dynamic, 16) num_threads(threads > 0 ? threads : omp_get_max_threads())
	for (long i = 0; i < ens.ntraj; i++)
		rodas_trajectory<Tab, Model, real>(ens, i, defaults, times, ctl);
}

#if defined(__CUDACC__)
/* ---- kernels --------------------------------------------------------------------- */

template <class Tab, class Model, typename real>
__global__ void rodas_kernel(const rodas_ensemble<real> ens,
			     const rodas_params<Model, real> defaults,
			     const rodas_times<real> times, const rodas_control ctl)
{
	const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < ens.ntraj)
		rodas_trajectory<Tab, Model, real>(ens, i, defaults, times, ctl);
}

/* ---- launchers ------------------------------------------------------------------- */

/* One thread per trajectory, block threads per block, on stream; the
 * launch's error (the kernel's own show at the next synchronisation). */
template <class Tab, class Model, typename real>
cudaError_t rodas_launch(const rodas_ensemble<real> &ens, const rodas_times<real> &times,
			 const rodas_control &ctl, int block, cudaStream_t stream)
{
	const long blocks = (ens.ntraj + block - 1) / block;

	rodas_kernel<Tab, Model, real><<<(unsigned)blocks, block, 0, stream>>>(
		ens, rodas_default_params<Model, real>(), times, ctl);
	return cudaGetLastError();
}
#endif

} /* namespace stiffens */

#endif
