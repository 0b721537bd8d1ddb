/* izhikevich.cu - the Izhikevich neuron, a quadratic integrate-and-fire
 * model with a recovery variable and a reset (E. M. Izhikevich, "Simple
 * model of spiking neurons", IEEE Trans. Neural Netw. 14 (2003)
 * 1569-1572), membrane potential v in mV, time in ms:
 *
 *	v' = 0.04 v^2 + 5 v + 140 - u + I,  u' = a (b v - u);
 *	when v rises to 30: v <- c, u <- u + d  (a spike)
 *
 * The defaults are the paper's regular spiking cell; fast spiking is
 * a = 0.1, d = 2, chattering c = -50, d = 2, intrinsically bursting
 * c = -55, d = 4. The start is the rest of the default cell (v = -65,
 * u = b v). v blows up in finite time past the peak, so the reset must
 * happen at 30: the spike is an event, located on the step's dense
 * output. No closed form: the tests hold the spike times against a GSL
 * rk8pd reference that locates the spikes on its own. */
#include <math.h>

#include "picard_model.cuh"

struct izhikevich {
	static constexpr int dim = 2, nparams = 5;
	static constexpr const char *param_names[] = {"a", "b", "c", "d", "I"};
	static constexpr double param_defaults[] = {0.02, 0.2, -65, 8, 10};
	static constexpr double x0[] = {-65, -13};
	static constexpr double t0 = 0, t1 = 300;
	static constexpr double default_h = 0.01;
	static constexpr const char *summary =
		"v' = 0.04 v^2 + 5 v + 140 - u + I, u' = a (b v - u); at v = 30 rising: v <- c, u <- u + d";
	static constexpr const char *reference =
		"Izhikevich, IEEE Trans. Neural Netw. 14 (2003) 1569-1572";

	template <typename real>
	__host__ __device__ static void rhs(real, const real *x, const real *p, real *dxdt)
	{
		dxdt[0] = real(0.04) * x[0] * x[0] + 5 * x[0] + 140 - x[1] + p[4];
		dxdt[1] = p[0] * (p[1] * x[0] - x[1]);
	}

	/* J[i*dim + k] = d f_i / d x_k */
	template <typename real>
	__host__ __device__ static void jacobian(real, const real *x, const real *p, real *J)
	{
		J[0] = real(0.08) * x[0] + 5;
		J[1] = -1;
		J[2] = p[0] * p[1];
		J[3] = -p[0];
	}

	/* one event: the spike's peak */
	static constexpr int nevents = 1;
	static constexpr const char *event_names[] = {"spike"};
	static constexpr picard_event_direction event_directions[] = {PICARD_EVENT_RISING};
	static constexpr picard_event_action event_actions[] = {PICARD_EVENT_JUMP};
	static constexpr int event_limit = 1000;

	template <typename real>
	__host__ __device__ static void events(real, const real *x, const real *, real *g)
	{
		g[0] = x[0] - 30;
	}

	template <typename real>
	__host__ __device__ static void jump(int, real, real *x, const real *p)
	{
		x[0] = p[2];
		x[1] += p[3];
	}
};

PICARD_REGISTER_MODEL(izhikevich)
