/* radau5_hairer.cpp - radau5_integrate.cuh's trajectory on the host for
 * the problems of Hairer's RADAU5 drivers (radau5_hairer.h), built by the
 * system C++ compiler like a model's host side. */
/* gcc, inlining the whole trajectory into solve() below, cannot see that
 * W.J and the LU are written before first read (need_jac starts true, and
 * the first step always factors): a false alarm here alone, where a
 * model's own build of the same template is clean. */
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "picard_model.cuh"
#include "radau5_hairer.h"
#include "radau5_integrate.cuh"


namespace {

struct vdp_hairer {
	static constexpr int dim = 2, nparams = 0;

	template <typename real>
	static void rhs(real, const real *y, const real *, real *f)
	{
		f[0] = y[1];
		f[1] = ((1 - y[0] * y[0]) * y[1] - y[0]) / 1e-6;
	}

	template <typename real>
	static void jacobian(real, const real *y, const real *, real *J)
	{
		J[0] = 0;
		J[1] = 1;
		J[2] = (-2 * y[0] * y[1] - 1) / 1e-6;
		J[3] = (1 - y[0] * y[0]) / 1e-6;
	}
};

struct robertson_hairer {
	static constexpr int dim = 3, nparams = 0;

	template <typename real>
	static void rhs(real, const real *y, const real *, real *f)
	{
		f[0] = -0.04 * y[0] + 1e4 * y[1] * y[2];
		f[2] = 3e7 * y[1] * y[1];
		f[1] = -f[0] - f[2];
	}

	template <typename real>
	static void jacobian(real, const real *y, const real *, real *J)
	{
		J[0] = -0.04;
		J[1] = 1e4 * y[2];
		J[2] = 1e4 * y[1];
		J[3] = 0.04;
		J[4] = -1e4 * y[2] - 6e7 * y[1];
		J[5] = -1e4 * y[1];
		J[6] = 0;
		J[7] = 6e7 * y[1];
		J[8] = 0;
	}
};

/* Only the end state: no record times, no window ends kept. */
struct end_only {
	static constexpr bool dense = false;
	void window_end(long, const double *) {}
	double due(double) { return NAN; }
	void store(const double *) {}
};

template <class Model>
radau5_hairer_run solve(const double *y0, double t1, double rtol, double atol, double h0)
{
	picard::rk_run run;

	picard::radau::hairer_tolerances(rtol, atol);
	run = picard::rk_run_of(0, t1, t1, 1, true, 100000, atol, rtol, 1e300);
	double y[Model::dim];
	end_only out;
	picard::radau::counts c = {};
	radau5_hairer_run r = {};

	for (int i = 0; i < Model::dim; i++)
		y[i] = y0[i];
	run.h0 = h0;
	r.status = picard::radau5_trajectory<Model, double>(run, y, nullptr, out, &c).status;
	r.fcn = c.fcn;
	r.jac = c.jac;
	r.step = c.step;
	r.accept = c.accept;
	r.reject = c.reject;
	r.dec = c.dec;
	r.sol = c.sol;
	for (int i = 0; i < Model::dim; i++)
		r.y[i] = y[i];
	return r;
}

} /* namespace */

radau5_hairer_run radau5_hairer_solve(radau5_hairer_problem problem, const double *y0, double t1,
				      double rtol, double atol, double h0)
{
	return problem == RADAU5_HAIRER_VDP ? solve<vdp_hairer>(y0, t1, rtol, atol, h0) :
					      solve<robertson_hairer>(y0, t1, rtol, atol, h0);
}
