/* scheme_trapezoid.c - the paper's scheme: m equally spaced nodes h apart,
 * trapezoid slopes and a prefix sum (its equations (4)-(5)), a fixed K or
 * adaptive sweeps; order 2 once converged. */
#include <float.h>
#include <math.h>

#include "backend.h"
#include "errors.h"
#include "launch.h"
#include "scheme.h"

#define DEFAULT_M 8      /* the paper's optimum (Table 1) */
#define DEFAULT_K 2
#define DEFAULT_H 0.06   /* Table 1, E* = 1e-3 */
#define DEFAULT_RTOL_FLOAT 1e-5   /* a few hundred float roundings */
#define DEFAULT_RTOL_DOUBLE 1e-9
/* The sweep's sum over m nodes rounds by up to ~m eps |x|: a default
 * tolerance below a few times that would call rounding noise "not
 * converging" (float, m = 512: changes of ~3e-5 measured on an H100). */
#define ROUNDING_FLOOR(m, eps) (4.0 * (m) * (eps))
/* The step-doubling difference bounds the error of order p >= 1 times
 * 1 / (1 - 2^-p), 2 at p = 1. */
#define ESTIMATE_FACTOR 2.0

static const int tune_ms[] = {4, 8, 16, 32, 64, 128, 256};
static const picard_layout tune_layouts[] = {
	PICARD_LAYOUT_PAPER, PICARD_LAYOUT_WARP, PICARD_LAYOUT_THREAD,
};

static double order(const picard_grid *g)
{
	(void)g;
	return 2;
}

static double length(const picard_grid *g)
{
	return g->h;
}

static int resolve(const picard_model *model, picard_options *o)
{
	(void)model;
	if (o->window != 0)
		return picard_fail(PICARD_EINVAL, "window = %g: the trapezoid scheme takes h (its window is (m-1) h)",
				   o->window);
	if (!o->m)
		o->m = DEFAULT_M;
	if (!o->K && !o->K_max)
		o->K = DEFAULT_K;
	if (o->iter_rtol == 0)
		o->iter_rtol = o->precision == PICARD_DOUBLE ?
			fmax(DEFAULT_RTOL_DOUBLE, ROUNDING_FLOOR(o->m, DBL_EPSILON)) :
			fmax(DEFAULT_RTOL_FLOAT, ROUNDING_FLOOR(o->m, FLT_EPSILON));
	if (o->h == 0)
		o->h = DEFAULT_H;
	return PICARD_OK;
}

/* Every layout: the paper's block, and the warp and thread layouts up to
 * their m (layout_max_m, checked in solver.c). */
static int check_layout(const picard_options *o)
{
	(void)o;
	return PICARD_OK;
}

picard_options picard_refined_h(const picard_options *o, const picard_grid *g, double shrink,
				double rtol_share, double rtol_floor, int k_max)
{
	picard_options r = *o;

	(void)k_max;
	r.window = 0;
	r.h = g->h * shrink;
	if (g->adaptive) {
		r.K = 0;
		r.K_max = g->K;
		r.iter_rtol = fmax(rtol_share * g->iter_rtol, rtol_floor);
		r.iter_atol = fmax(rtol_share * g->iter_atol, rtol_floor);
	} else {
		r.K = g->K;
		r.K_max = 0;
	}
	return r;
}

static picard_options tune_point(int m, int K, double h, double rtol, double span)
{
	(void)span;
	(void)rtol;
	return (picard_options){.scheme = PICARD_SCHEME_TRAPEZOID, .m = m, .K = K, .h = h};
}

/* K = 1 .. kmax fixed sweeps, at the solver's default tolerance. */
int picard_tune_candidates_k(int kmax)
{
	return kmax;
}

double picard_tune_rtol_default(int K, double tol, picard_precision precision)
{
	(void)K;
	(void)tol;
	(void)precision;
	return 0;
}

/* The paper's block takes any m the device does; the warp and thread
 * layouts hold a window's nodes in a warp's lanes or one thread. */
static int layout_max_m(picard_layout layout)
{
	return layout == PICARD_LAYOUT_PAPER || layout == PICARD_LAYOUT_AUTO ? 0 :
	       PICARD_LAYOUT_MAX_M;
}

/* The thread layout's kernel unrolls its loops over a bound of m nodes (4,
 * 8, 16 or 32) and keeps bound x dim values per thread: past 256 (where
 * the auto layout stops choosing it, its registers spilling), NVRTC took 4
 * to 21 s on one core; under it at most 2.8 s. The paper's and the warp
 * layout's kernels compiled in under 1.6 s at 51 components. */
#define QUICK_THREAD_MAX_STATE 256

static bool quick_compiles(picard_layout layout, int m, int dim)
{
	const int bound = m <= 4 ? 4 : m <= 8 ? 8 : m <= 16 ? 16 : PICARD_LAYOUT_MAX_M;

	return layout != PICARD_LAYOUT_THREAD || bound * dim <= QUICK_THREAD_MAX_STATE;
}

const picard_scheme_type picard_scheme_trapezoid = {
	.id = PICARD_SCHEME_TRAPEZOID,
	.name = "trapezoid",
	.summary = "the paper's Picard iteration: m equally spaced nodes h apart, trapezoid "
		   "slopes and a prefix sum",
	.options = "--m (2.., default 8), --h (default: the model's, else 0.06), --K (default 2) or --K-max, "
		   "--iter-rtol/--iter-atol (default 1e-5 float, 1e-9 double), --warm-start, "
		   "--layout paper|warp|thread, --scan",
	.order_name = "2",
	.length_name = "h",
	.max_m = 0,
	/* the CPU backend's windows locate them (cpu_sweep.inc); the kernels
	 * do not yet */
	.locates_events = true,
	.events_cpu_only = true,
	.estimate_factor = ESTIMATE_FACTOR,
	.order = order,
	.length = length,
	.resolve = resolve,
	.check_layout = check_layout,
	.refined = picard_refined_h,
	.tune_point = tune_point,
	.tune_candidates = picard_tune_candidates_k,
	.tune_rtol = picard_tune_rtol_default,
	.tune_ms = tune_ms,
	.tune_nms = sizeof(tune_ms) / sizeof(tune_ms[0]),
	.tune_layouts = tune_layouts,
	.tune_nlayouts = sizeof(tune_layouts) / sizeof(tune_layouts[0]),
	.layout_max_m = layout_max_m,
	.quick_compiles = quick_compiles,
	.cpu = &picard_cpu_trapezoid,
	.cuda = &picard_cuda_trapezoid,
};
