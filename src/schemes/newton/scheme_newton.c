/* scheme_newton.c - collocation equations solved by Newton's method across
 * a block of windows (src/schemes/newton/newton.h), two schemes: newton, the lobatto
 * scheme's equations (the same grid and answer, the window set by accuracy
 * alone), and newton-radau, Radau IIA's (L-stable: stiff models). */
#include <math.h>

#include "backend.h"
#include "errors.h"
#include "lobatto.h"
#include "model_impl.h"
#include "scheme.h"

#define DEFAULT_M 8
/* Radau IIA's nodes: RADAU5's three stages, order 5 */
#define DEFAULT_M_RADAU 4
#define DEFAULT_WINDOWS 200
/* windows iterated together: the front of converged windows moves a few
 * tens of windows per iteration on the shipped models (bench/results/
 * cpu-2026-11-25-newton), so a block of hundreds keeps it fed */
#define DEFAULT_BLOCK 512
/* Newton iterations a window may take as the block's first */
#define DEFAULT_MAX_ITERATIONS 50
/* a window has converged when its nodes' last change is within this:
 * Newton's changes shrink quadratically, so the error left is far below */
#define DEFAULT_RTOL 1e-10

static int resolve_nodes(const picard_model *model, picard_options *o, int default_m)
{
	const char *name = picard_scheme_of(o->scheme)->name;

	if (o->precision != PICARD_DOUBLE)
		return picard_fail(PICARD_EINVAL, "precision float: the %s scheme runs in double "
				   "(its linear solves need it)", name);
	if (!model->impl->jacobian[0])
		return picard_fail(PICARD_EINVAL, "model %s: the %s scheme needs its Jacobian",
				   model->name, name);
	if (o->h != 0)
		return picard_fail(PICARD_EINVAL, "h = %g: the %s scheme takes a window length, not h",
				   o->h, name);
	if (!o->m)
		o->m = default_m;
	if (o->m > PICARD_LOBATTO_MAX_M)
		return picard_fail(PICARD_EINVAL, "m = %d: the %s scheme takes 2..%d nodes",
				   o->m, name, PICARD_LOBATTO_MAX_M);
	if (o->K && o->K_max)
		return PICARD_OK; /* the solver refuses both */
	if (o->K) { /* at most K iterations: the same as K_max here */
		o->K_max = o->K;
		o->K = 0;
	}
	if (!o->K_max)
		o->K_max = DEFAULT_MAX_ITERATIONS;
	if (o->iter_rtol == 0)
		o->iter_rtol = DEFAULT_RTOL;
	if (!o->block)
		o->block = DEFAULT_BLOCK;
	if (o->window == 0)
		o->window = (o->t1 - o->t0) / DEFAULT_WINDOWS;
	if (!isfinite(o->window) || o->window <= 0)
		return picard_fail(PICARD_EINVAL, "window = %g: must be finite and > 0", o->window);
	o->h = o->window / (o->m - 1);
	return PICARD_OK;
}

static int resolve(const picard_model *model, picard_options *o)
{
	return resolve_nodes(model, o, DEFAULT_M);
}

static int resolve_radau(const picard_model *model, picard_options *o)
{
	return resolve_nodes(model, o, DEFAULT_M_RADAU);
}

/* The tuner's candidates: blocks of windows iterated together. A small
 * block relinearises fewer windows ahead of the converged front (many
 * trajectories); a large one converges a short span at once (bench/
 * results/h100-2026-11-25-newton). */
static const int tune_blocks[] = {64, 512};
static const int tune_ms[] = {8, 12, 16};
static const picard_layout tune_layouts[] = {PICARD_LAYOUT_AUTO};
/* A window's convergence test, a fraction of E*: Newton's last change
 * bounds the error left; no lower than the iteration can reach in double
 * (the change of a converged window stays at rounding's level). */
#define TUNE_RTOL_FRACTION 1e-3
#define TUNE_RTOL_FLOOR 1e-13

/* The tuner's (m, h) with its K-th block: the window (m-1) h. */
#define TUNE_NBLOCKS ((int)(sizeof(tune_blocks) / sizeof(tune_blocks[0])))

/* K: the block's candidate, 1..TUNE_NBLOCKS; another K (a point's own, its
 * grid's K_max) leaves the block to the caller (the default). */
static picard_options tune_point_of(picard_scheme scheme, int m, int K, double h, double rtol)
{
	return (picard_options){
		.scheme = scheme, .m = m, .K_max = DEFAULT_MAX_ITERATIONS,
		.window = (m - 1) * h, .iter_rtol = rtol,
		.block = K >= 1 && K <= TUNE_NBLOCKS ? tune_blocks[K - 1] : 0,
	};
}

static picard_options tune_point(int m, int K, double h, double rtol, double span)
{
	(void)span;
	return tune_point_of(PICARD_SCHEME_NEWTON, m, K, h, rtol);
}

static picard_options tune_point_radau(int m, int K, double h, double rtol, double span)
{
	(void)span;
	return tune_point_of(PICARD_SCHEME_NEWTON_RADAU, m, K, h, rtol);
}

static int tune_candidates(int kmax)
{
	(void)kmax;
	return TUNE_NBLOCKS;
}

static double tune_rtol(int K, double tol, picard_precision precision)
{
	(void)K;
	(void)precision; /* double only */
	return fmax(TUNE_RTOL_FRACTION * tol, TUNE_RTOL_FLOOR);
}

static int check_layout(const picard_options *o)
{
	if (o->layout != PICARD_LAYOUT_AUTO || o->scan != PICARD_SCAN_AUTO || o->traj_per_block)
		return picard_fail(PICARD_EINVAL, "the %s scheme lays out its own work (windows "
				   "across threads): no layout, scan or trajectories per block to "
				   "choose", picard_scheme_of(o->scheme)->name);
	return PICARD_OK;
}

static int layout_max_m(picard_layout layout)
{
	(void)layout;
	return PICARD_LOBATTO_MAX_M;
}

const picard_scheme_type picard_scheme_newton = {
	.id = PICARD_SCHEME_NEWTON,
	.name = "newton",
	.summary = "the lobatto scheme's collocation over a block of windows at once, solved by "
		   "Newton's method across windows (affine maps of the window starts composed)",
	.options = "--m (2..32, default 8), --window (default span/200), --block (windows "
		   "iterated together, default 512), --K-max (iterations per window, default 50), "
		   "--iter-rtol/--iter-atol (default 1e-10); double only",
	.order_name = "2m-2",
	.length_name = "window",
	.max_m = PICARD_LOBATTO_MAX_M,
	.lobatto_grid = true,
	.collocation = picard_lobatto_build,
	.takes_block = true,
	/* slower than the per-thread pairs at every ensemble size measured
	 * (bench/results/h100-2026-11-25-newton: no crossover) */
	.tuned_when_named = true,
	.double_only = true,
	.estimate_factor = 1.0, /* the lobatto scheme's: the same solution */
	.order = picard_lobatto_grid_order,
	.length = picard_lobatto_grid_length,
	.resolve = resolve,
	.check_layout = check_layout,
	.refined = picard_lobatto_grid_refined,
	.tune_point = tune_point,
	.tune_candidates = tune_candidates,
	.tune_rtol = tune_rtol,
	.tune_summary = "window tolerance 1e-3 E*, blocks of 64 or 512 windows",
	.tune_ms = tune_ms,
	.tune_nms = sizeof(tune_ms) / sizeof(tune_ms[0]),
	.tune_layouts = tune_layouts,
	.tune_nlayouts = sizeof(tune_layouts) / sizeof(tune_layouts[0]),
	.layout_max_m = layout_max_m,
	.cpu = &picard_cpu_newton,
	.cuda = &picard_cuda_newton,
};

static const int tune_ms_radau[] = {4, 6, 8};

const picard_scheme_type picard_scheme_newton_radau = {
	.id = PICARD_SCHEME_NEWTON_RADAU,
	.name = "newton-radau",
	.summary = "Radau IIA collocation (the window's start and m-1 stages, L-stable) over a "
		   "block of windows at once, solved by Newton's method across windows: a stiff "
		   "model's few trajectories across the GPU",
	.options = "--m (2..32, default 4: RADAU5's three stages), --window (default span/200), "
		   "--block (default 512), --K-max (default 50), --iter-rtol/--iter-atol "
		   "(default 1e-10); double only",
	.order_name = "2m-3",
	.length_name = "window",
	.max_m = PICARD_LOBATTO_MAX_M,
	.lobatto_grid = true,
	.collocation = picard_radau_build,
	.takes_block = true,
	.tuned_when_named = true,
	.double_only = true,
	.solves_stiff = true,
	.estimate_factor = 1.0,
	.order = picard_radau_grid_order,
	.length = picard_lobatto_grid_length,
	.resolve = resolve_radau,
	.check_layout = check_layout,
	.refined = picard_lobatto_grid_refined,
	.tune_point = tune_point_radau,
	.tune_candidates = tune_candidates,
	.tune_rtol = tune_rtol,
	.tune_summary = "window tolerance 1e-3 E*, blocks of 64 or 512 windows, from span/200",
	/* hires's error stalls at 0.045 from 1 to ~64 windows (the layer
	 * inside the first), then falls */
	.tune_first_windows = DEFAULT_WINDOWS,
	.tune_ms = tune_ms_radau,
	.tune_nms = sizeof(tune_ms_radau) / sizeof(tune_ms_radau[0]),
	.tune_layouts = tune_layouts,
	.tune_nlayouts = sizeof(tune_layouts) / sizeof(tune_layouts[0]),
	.layout_max_m = layout_max_m,
	.cpu = &picard_cpu_newton,
	.cuda = &picard_cuda_newton,
};
