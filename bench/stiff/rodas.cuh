/* rodas.cuh - bench/stiff's per-thread Rosenbrock ensemble driver, the
 * stiff baseline of GitHub issue 18 (bin/bench-rodas): one thread (or one
 * OpenMP iteration) integrates one trajectory through nout output times,
 * each step ending exactly on the next one, the model's right-hand side
 * and Jacobian compile-time template arguments, as rk_ensemble.cuh does
 * for the explicit Runge-Kutta methods.
 *
 * The method is picard's own, the code its rodas5p scheme runs: the
 * tableau (src/schemes/rosenbrock/rosenbrock_tableaus.cuh,
 * rosenbrock_rodas5p: Steinebach's Rodas5P), the step in Hairer &
 * Wanner's form without matrix-vector products, J by the model or AD,
 * f_t by AD, and rodas.f's step-size control with Gustafsson's predictive
 * controller (ros::integrator, rosenbrock_integrate.cuh, which says how).
 * This file keeps the driver alone: where steps end (the outputs, a step
 * within 1% of one stretched to it; HNW I, II.4's starting step), the
 * counts, the statuses, the ensemble's layout and launch.
 *
 * Failures, per trajectory, never silent, as picard_traj_status: the
 * integrator's (nonfinite, linsolve-failed), a step below 16 eps |t|
 * (step-underflow; nonfinite when its last trial was not finite), more
 * than max_steps step attempts (max-steps). Where it fails, the last
 * output's slots get the state it reached.
 */
#ifndef BENCH_STIFF_RODAS_CUH
#define BENCH_STIFF_RODAS_CUH

#include <float.h>
#include <math.h>
#include <omp.h>

#include "picard.h"
#include "rosenbrock_integrate.cuh"

namespace stiffens {

/* Most output times of one run. */
#define RODAS_MAX_OUT 16

/* Steps of Rodas5P, the method bench-rodas times. */
typedef picard::rosenbrock_rodas5p rodas5p;

/* What one trajectory's integration did. */
struct rodas_counts {
	int status;     /* picard_traj_status */
	long evals;     /* right-hand side evaluations (the starting step's included) */
	long jacs;      /* Jacobian (and f_t) evaluations */
	long accepted;  /* steps taken */
	long rejected;  /* steps rejected */
};

/* Tolerances and limits. */
struct rodas_control {
	double rtol, atol; /* sc_i = atol + rtol max(|x_i|, |xnew_i|) */
	double h0;         /* first step; 0: HNW I, II.4's starting step */
	long max_steps;    /* accepted + rejected steps before max-steps */
	int fixed;         /* non-zero: every step h0 (cut at the outputs), no
			      control (the order check) */
};

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
	const double eps = picard::rk_eps<real>::value;
	picard::ros::work<n, real, Tab::stages> Wk;
	picard::ros::integrator<Model, Tab, real> I(Wk);
	rodas_counts out = {PICARD_TRAJ_OK, 0, 0, 0, 0};
	double t = t0, h;
	long starting = 0; /* the starting step's evaluation */
	int o = 0;

	I.start(t, x, p);
	if (ctl.h0 > 0) {
		h = ctl.h0;
	} else {
		const picard::rk_run run = {(double)t0, (double)tout[nout - 1],
					    (double)(tout[nout - 1] - t0), 1, 0, ctl.max_steps,
					    ctl.atol, ctl.rtol, INFINITY, 0};

		h = picard::rk_first_step<Model, Tab, real>(run, t, x, p, Wk.f0);
		starting = 1;
	}
	while (o < nout) {
		const double tend = tout[o];
		bool hit = false;
		double hstep = h, hnew;
		picard_traj_status status = PICARD_TRAJ_OK;

		if (out.accepted + out.rejected >= ctl.max_steps) {
			out.status = PICARD_TRAJ_MAX_STEPS;
			break;
		}
		if (t + 1.01 * hstep >= tend) {
			hstep = tend - t;
			hit = true;
		}
		if (!(hstep > 16 * eps * fabs(t)) || !(hstep > 0)) {
			out.status = I.nonfinite ? PICARD_TRAJ_NONFINITE : PICARD_TRAJ_STEP_UNDERFLOW;
			break;
		}
		const picard::ros::attempt_end end =
			I.attempt(t, hstep, x, p, ctl.fixed, ctl.atol, ctl.rtol, &hnew, &status);

		if (end == picard::ros::FAILED) {
			out.status = status;
			break;
		}
		if (end == picard::ros::REJECTED) {
			out.rejected++;
			h = hnew;
			continue;
		}
		out.accepted++;
		t = hit ? tend : t + hstep;
		I.advance(t, x, p, ctl.fixed);
		/* a step cut short to hit an output does not shrink the next */
		h = ctl.fixed ? ctl.h0 : hit ? fmax(hnew, h) : hnew;
		if (hit) {
			for (int k = 0; k < n; k++)
				xout[(o * n + k) * stride] = x[k];
			o++;
		}
	}
	if (out.status != PICARD_TRAJ_OK)
		for (int k = 0; k < n; k++)
			xout[((nout - 1) * n + k) * stride] = x[k];
	out.evals = I.rhs_evals + starting;
	out.jacs = I.jacobians;
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
	int *status;        /* picard_traj_status per trajectory */
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

	for (int q = 0; q < np; q++)
		p[q] = ens.params ? ens.params[q * ens.ntraj + i] : defaults.v[q];
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
