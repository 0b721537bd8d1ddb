#include "rk_kernel.cuh"
#include "rk_ensemble.cuh"
struct lotka {
	static constexpr int dim = 2, nparams = 6;
	static constexpr double param_defaults[] = {0.25, 0.01, 0.001, -0.3, 0.01, 0.002};
	template <typename real>
	__host__ __device__ static void rhs(real, const real *x, const real *p, real *dxdt)
	{
		dxdt[0] = p[0] * x[0] - p[1] * x[0] * x[1] - p[2] * x[0] * x[0];
		dxdt[1] = p[3] * x[1] + p[4] * x[0] * x[1] - p[5] * x[1] * x[1];
	}
};
#define I(T, R, D) template __global__ void picard::picard_rk_kernel<lotka, picard::T, R, D, false>(const picard_launch); template __global__ void picard::picard_rk_kernel<lotka, picard::T, R, D, true>(const picard_launch);
I(rk_dp5, float, false) I(rk_dp5, double, false) I(rk_dp8, float, false) I(rk_dp8, double, false) I(rk_vern9, float, false) I(rk_vern9, double, false)
I(rk_dp5, double, true) I(rk_dp8, double, true) I(rk_vern9, double, true)
template __global__ void rkens::rk_ensemble_kernel<rkens::dp8, lotka, double, false>(const rkens::rk_ensemble<double>, const rkens::rk_params<lotka,double>, double, double, long, const rkens::rk_control);
template __global__ void rkens::rk_ensemble_kernel<rkens::dp8, lotka, float, false>(const rkens::rk_ensemble<float>, const rkens::rk_params<lotka,float>, float, float, long, const rkens::rk_control);
