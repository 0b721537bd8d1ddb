/* scheme_lobatto.c - collocation on the m Gauss-Lobatto-Legendre nodes of
 * a window of length H (src/schemes/lobatto/lobatto.h): x_j = x_w + (H/2) sum_l S_jl f_l,
 * solved by Picard sweeps until they converge; converged it is Lobatto
 * IIIA, of order 2m-2. */
#include <math.h>

#include "backend.h"
#include "errors.h"
#include "lobatto.h"
#include "scheme.h"

#define DEFAULT_M 8
/* adaptive sweeps by default, and a window from the span: 200 windows; a
 * model whose dynamics are faster than that needs options.window (the
 * iteration then reports NOT_CONVERGED windows) */
#define DEFAULT_K_MAX 40
#define DEFAULT_WINDOWS 200
/* The iteration error left when a window stops is about the last change,
 * and the scheme's discretisation error is far below the trapezoid's:
 * measured on lotka (m = 8, H = 1, CPU) double rtol 1e-9 gives E = 1.3e-8,
 * 1e-12 gives 1.0e-11 (the scheme's own error) for 2 more sweeps per
 * window; float rtol 1e-5 gives E = 2.0e-4, 1e-6 2.5e-5, 3e-7 1.5e-5, and
 * 1e-7 no longer converges (float rounding). */
#define DEFAULT_RTOL_FLOAT 1e-6
#define DEFAULT_RTOL_DOUBLE 1e-12
/* Its companion's difference is the error itself: the companion's own
 * error is 2^(2m-2) times smaller. */
#define ESTIMATE_FACTOR 1.0
/* The tuner's sweeps at most: adaptive, from a warm start. */
#define TUNE_K_MAX 60

static const int tune_ms[] = {4, 6, 8, 12, 16, 24, 32};
static const picard_layout tune_layouts[] = {PICARD_LAYOUT_WARP, PICARD_LAYOUT_THREAD};
/* The tuner varies the window's iteration tolerance, a fraction of E*
 * (issue 7: iteration errors add up over the windows), no finer than the
 * precision allows. */
static const double tune_rtol_fractions[] = {1e-3, 1e-5};
#define TUNE_RTOL_FLOOR_FLOAT 1e-6
#define TUNE_RTOL_FLOOR_DOUBLE 1e-14
/* The last candidate: windows in flight (parallel in time), whose front
 * converges a sweep or two after its start settles, so its error follows
 * the tolerance more closely than one window after the other's: kepler
 * (m = 16, 8 in flight) is 4.7e-8 off at 1e-13 and 1.1e-10 at 1e-15. */
#define TUNE_IN_FLIGHT 8
#define TUNE_IN_FLIGHT_FRACTION 1e-7
#define TUNE_IN_FLIGHT_FLOOR_DOUBLE 1e-15
#define TUNE_NCANDIDATES (int)(sizeof(tune_rtol_fractions) / sizeof(tune_rtol_fractions[0]) + 1)

double picard_lobatto_grid_order(const picard_grid *g)
{
	return 2.0 * g->m - 2;
}

double picard_radau_grid_order(const picard_grid *g)
{
	return 2.0 * g->m - 3;
}

double picard_lobatto_grid_length(const picard_grid *g)
{
	return g->window;
}

static int resolve(const picard_model *model, picard_options *o)
{
	if (o->block > PICARD_LOBATTO_MAX_IN_FLIGHT)
		return picard_fail(PICARD_EINVAL, "block = %d: the lobatto scheme sweeps 1..%d windows "
				   "at once", o->block, PICARD_LOBATTO_MAX_IN_FLIGHT);
	if (o->block > 1 && model->events)
		return picard_fail(PICARD_EINVAL, "block = %d: model %s has events, which the lobatto "
				   "scheme locates one window after the other (block 1)", o->block,
				   model->name);
	if (!o->m)
		o->m = DEFAULT_M;
	if (!o->K && !o->K_max)
		o->K_max = DEFAULT_K_MAX;
	if (o->iter_rtol == 0)
		o->iter_rtol = o->precision == PICARD_DOUBLE ? DEFAULT_RTOL_DOUBLE :
			       DEFAULT_RTOL_FLOAT;
	if (o->h != 0)
		return picard_fail(PICARD_EINVAL, "h = %g: the lobatto scheme takes a window length, not h",
				   o->h);
	if (o->m > PICARD_LOBATTO_MAX_M)
		return picard_fail(PICARD_EINVAL, "m = %d: the lobatto scheme takes 2..%d nodes",
				   o->m, PICARD_LOBATTO_MAX_M);
	if (o->window == 0)
		o->window = (o->t1 - o->t0) / DEFAULT_WINDOWS;
	if (!isfinite(o->window) || o->window <= 0)
		return picard_fail(PICARD_EINVAL, "window = %g: must be finite and > 0", o->window);
	/* the grid's mean node spacing, checked like the trapezoid's h */
	o->h = o->window / (o->m - 1);
	return PICARD_OK;
}

/* Its own kernels: a group of lanes per trajectory, shaped by the
 * ensemble, or one thread per trajectory (m up to 16: layout_max_m); with
 * windows in flight a group per window, or a thread per node and component
 * (the paper layout, lobatto_time_paper_kernel.cuh). */
static int check_layout(const picard_options *o)
{
	if (o->layout == PICARD_LAYOUT_PAPER && o->block <= 1)
		return picard_fail(PICARD_EINVAL, "layout paper with block 1: the lobatto scheme's paper "
				   "layout (a thread per node and component) is for windows in flight, "
				   "block 2..%d", PICARD_LOBATTO_MAX_IN_FLIGHT);
	if (o->scan != PICARD_SCAN_AUTO || (o->traj_per_block && o->layout != PICARD_LAYOUT_THREAD))
		return picard_fail(PICARD_EINVAL, "the lobatto scheme runs the warp layout (a group of lanes "
				   "per trajectory, shaped by the ensemble), the thread layout (traj_per_block "
				   "threads per block) or, with windows in flight, the paper layout: no scan or "
				   "trajectories per block of the warp layout to choose");
	if (o->block > 1 && o->layout == PICARD_LAYOUT_THREAD)
		return picard_fail(PICARD_EINVAL, "block = %d: the lobatto scheme sweeps windows at "
				   "once in a block per trajectory, a group of lanes per window; not in the "
				   "thread layout", o->block);
	return PICARD_OK;
}

picard_options picard_lobatto_grid_refined(const picard_options *o, const picard_grid *g,
					   double shrink, double rtol_share, double rtol_floor,
					   int k_max)
{
	picard_options r = *o;

	r.h = 0;
	r.window = g->window * shrink;
	r.K = 0;
	r.K_max = k_max ? k_max : g->K;
	r.iter_rtol = fmax(rtol_share * g->iter_rtol, rtol_floor);
	r.iter_atol = fmax(rtol_share * g->iter_atol, rtol_floor);
	return r;
}

/* The tuner's (m, h): the window (m-1) h, adaptive warm sweeps to rtol;
 * its last candidate K sweeps TUNE_IN_FLIGHT windows at once. */
static picard_options tune_point(int m, int K, double h, double rtol, double span)
{
	(void)span;
	return (picard_options){
		.scheme = PICARD_SCHEME_LOBATTO, .m = m, .K_max = TUNE_K_MAX,
		.window = (m - 1) * h, .warm_start = true, .iter_rtol = rtol,
		.block = K == TUNE_NCANDIDATES ? TUNE_IN_FLIGHT : 0,
	};
}

static int tune_candidates(int kmax)
{
	(void)kmax;
	return TUNE_NCANDIDATES;
}

static double tune_rtol(int K, double tol, picard_precision precision)
{
	const bool dbl = precision == PICARD_DOUBLE;

	if (K == TUNE_NCANDIDATES)
		return fmax(TUNE_IN_FLIGHT_FRACTION * tol,
			    dbl ? TUNE_IN_FLIGHT_FLOOR_DOUBLE : TUNE_RTOL_FLOOR_FLOAT);
	return fmax(tune_rtol_fractions[K - 1] * tol,
		    dbl ? TUNE_RTOL_FLOOR_DOUBLE : TUNE_RTOL_FLOOR_FLOAT);
}

/* The group layout takes a node per lane; the thread layout's registers
 * hold 16 nodes. */
static int layout_max_m(picard_layout layout)
{
	return layout == PICARD_LAYOUT_THREAD ? PICARD_LOBATTO_THREAD_MAX_M : PICARD_LOBATTO_MAX_M;
}

/* NVRTC's time on one core for lobatto's kernels grows with dim: the group
 * (warp) layout's, which the search's small sample runs, 0.5-0.7 s at 3
 * components, 1.6-2.7 s at 10, 5-14 s at 24 and 20-43 s at 51; the thread
 * layout's 0.66 s at 3 components for 8 nodes, 3.1 s at 10, and 3.5 s at
 * 3 for 16 nodes, 18.7 s at 10. */
#define QUICK_GROUP_MAX_DIM 16
#define QUICK_THREAD_MAX_DIM 4
#define QUICK_THREAD_MAX_M 8

static bool quick_compiles(picard_layout layout, int m, int dim)
{
	return layout == PICARD_LAYOUT_THREAD ? m <= QUICK_THREAD_MAX_M && dim <= QUICK_THREAD_MAX_DIM :
						dim <= QUICK_GROUP_MAX_DIM;
}

const picard_scheme_type picard_scheme_lobatto = {
	.id = PICARD_SCHEME_LOBATTO,
	.name = "lobatto",
	.summary = "collocation on the m Gauss-Lobatto nodes of a window, solved by Picard "
		   "sweeps (Lobatto IIIA once converged)",
	.options = "--m (2..32, default 8), --window (default span/200), --K-max (default 40) "
		   "or --K, --iter-rtol/--iter-atol (default 1e-6 float, 1e-12 double), "
		   "--warm-start, --layout warp|thread (paper with --block), --block (windows swept at once, "
		   "parallel in time: 1..16, default 1)",
	.order_name = "2m-2",
	.length_name = "window",
	.max_m = PICARD_LOBATTO_MAX_M,
	.estimate_factor = ESTIMATE_FACTOR,
	.lobatto_grid = true,
	.windows_in_flight = true,
	/* the CPU backend's windows locate them (cpu_lobatto.inc); the
	 * kernels do not yet */
	.locates_events = true,
	.events_cpu_only = true,
	.collocation = picard_lobatto_build,
	.order = picard_lobatto_grid_order,
	.length = picard_lobatto_grid_length,
	.resolve = resolve,
	.check_layout = check_layout,
	.refined = picard_lobatto_grid_refined,
	.tune_point = tune_point,
	.tune_candidates = tune_candidates,
	.tune_rtol = tune_rtol,
	.tune_summary = "window tolerance 1e-3 or 1e-5 E*, or 8 windows in flight (GPU, "
			"small ensembles) at 1e-7 E*",
	.tune_ms = tune_ms,
	.tune_nms = sizeof(tune_ms) / sizeof(tune_ms[0]),
	.tune_layouts = tune_layouts,
	.tune_nlayouts = sizeof(tune_layouts) / sizeof(tune_layouts[0]),
	.layout_max_m = layout_max_m,
	.quick_compiles = quick_compiles,
	.warp_block_own = true,
	.cpu = &picard_cpu_lobatto,
	.cuda = &picard_cuda_lobatto,
};
