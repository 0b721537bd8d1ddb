/* impact_oscillator.cu - a forced, damped linear oscillator against a
 * rigid stop at x = d, the classic impacting system (S. W. Shaw and
 * P. J. Holmes, "A periodically forced piecewise linear oscillator",
 * J. Sound Vib. 90 (1983) 129-155):
 *
 *	x' = v,  v' = A cos(Omega t) - 2 zeta w v - w^2 x;
 *	when x rises to d: v <- -r v  (restitution r)
 *
 * Between impacts the motion is the linear ODE's (zeta < 1): x = xp + xh,
 * xp = X cos(Omega t) + Y sin(Omega t) with X = A (w^2 - Omega^2) / D,
 * Y = 2 A zeta w Omega / D, D = (w^2 - Omega^2)^2 + (2 zeta w Omega)^2,
 * and from (x_k, v_k) at t_k
 * xh = exp(-zeta w s) (C1 cos(wd s) + C2 sin(wd s)), s = t - t_k,
 * wd = w sqrt(1 - zeta^2), C1 = x_k - xp(t_k),
 * C2 = (v_k - xp'(t_k) + zeta w C1) / wd: the next impact is the first
 * root of x(t) = d rising, the closed form the impact times are tested
 * against. At the defaults the forced amplitude 2.7 is past the stop
 * at 1.3 and the mass hits it once a forcing period (7.9). Where the
 * forcing holds the mass against the stop the impacts accumulate
 * (chatter, as the bouncing ball's): the member ends event-limit. */
#include <math.h>

#include "picard_model.cuh"

struct impact_oscillator {
	static constexpr int dim = 2, nparams = 6;
	static constexpr const char *param_names[] = {"w", "zeta", "A", "Omega", "d", "r"};
	static constexpr double param_defaults[] = {1, 0.05, 1, 0.8, 1.3, 0.8};
	static constexpr double x0[] = {0, 0};
	static constexpr double t0 = 0, t1 = 100;
	static constexpr double default_h = 0.01;
	static constexpr const char *summary =
		"x' = v, v' = A cos(Omega t) - 2 zeta w v - w^2 x; at x = d rising: v <- -r v";
	static constexpr const char *reference =
		"Shaw & Holmes, J. Sound Vib. 90 (1983) 129-155; closed form between impacts";

	template <typename real>
	__host__ __device__ static void rhs(real t, const real *x, const real *p, real *dxdt)
	{
		dxdt[0] = x[1];
		dxdt[1] = p[2] * cos(p[3] * t) - 2 * p[1] * p[0] * x[1] - p[0] * p[0] * x[0];
	}

	/* J[i*dim + k] = d f_i / d x_k */
	template <typename real>
	__host__ __device__ static void jacobian(real, const real *, const real *p, real *J)
	{
		J[0] = 0;
		J[1] = 1;
		J[2] = -p[0] * p[0];
		J[3] = -2 * p[1] * p[0];
	}

	/* one event: the stop, met moving towards it */
	static constexpr int nevents = 1;
	static constexpr const char *event_names[] = {"impact"};
	static constexpr picard_event_direction event_directions[] = {PICARD_EVENT_RISING};
	static constexpr picard_event_action event_actions[] = {PICARD_EVENT_JUMP};
	static constexpr int event_limit = 500;

	template <typename real>
	__host__ __device__ static void events(real, const real *x, const real *p, real *g)
	{
		g[0] = x[0] - p[4];
	}

	/* On the stop (the event's time is past the root by up to the
	 * location's tolerance), moving away. */
	template <typename real>
	__host__ __device__ static void jump(int, real, real *x, const real *p)
	{
		x[0] = p[4];
		x[1] = -p[5] * x[1];
	}
};

PICARD_REGISTER_MODEL(impact_oscillator)
