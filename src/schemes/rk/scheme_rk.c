/* scheme_rk.c - the per-thread explicit Runge-Kutta schemes: one thread
 * per trajectory, each taking its own steps (src/schemes/rk/rk_integrate.cuh, the
 * tableaus in src/schemes/rk/rk_tableaus.cuh). Where an ensemble fills the GPU by
 * itself, parallelism across time buys nothing, and a high-order pair
 * needs the fewest right-hand sides for an error. What their tables share
 * (rk_scheme.h) serves radau5's too (src/schemes/radau5/scheme_radau5.c).
 *
 * On picard's grid: m = 2, a window is an output interval of length h
 * (default: the span). Fixed step: K steps per window (--steps N).
 * Adaptive (the default, without K): the local error scaled by
 * iter_atol + iter_rtol |x| per component, K_max steps tried over the span
 * at most. */
#include <limits.h>
#include <math.h>
#include <stdio.h>

#include "backend.h"
#include "errors.h"
#include "model_impl.h"
#include "rk_scheme.h"
#include "scheme.h"

#define DEFAULT_MAX_STEPS 1000000
#define DEFAULT_STEP_RTOL 1e-6
/* The tuner: K = 1 is fixed steps (the h search finds the step), K = 2..
 * adaptive at these fractions of E* (the local tolerance; the global error
 * of a long span is some multiple of it), no finer than the precision's
 * rounding allows. */
static const double tune_fractions[] = {1, 1e-1, 1e-2, 1e-3, 1e-4};
#define NFRACTIONS ((int)(sizeof(tune_fractions) / sizeof(tune_fractions[0])))
#define TUNE_FLOOR_DOUBLE 1e-15 /* float: picard_iteration_floor's */

const int picard_rk_tune_ms[] = {2};
const picard_layout picard_rk_tune_layouts[] = {PICARD_LAYOUT_THREAD};
const picard_layout picard_rk_stiff_tune_layouts[] = {PICARD_LAYOUT_THREAD, PICARD_LAYOUT_WARP};

static double order_dp5(const picard_grid *g) { (void)g; return 5; }
static double order_dp8(const picard_grid *g) { (void)g; return 8; }
static double order_vern9(const picard_grid *g) { (void)g; return 9; }

int picard_rk_steps(double interval, double step)
{
	const double steps = ceil(interval / step * (1 - 1e-12));

	return steps < 1 ? 1 : steps > INT_MAX ? INT_MAX : (int)steps;
}

double picard_rk_length(const picard_grid *g)
{
	return g->h;
}

int picard_rk_resolve(const picard_model *model, picard_options *o)
{
	(void)model;
	if (o->m && o->m != 2)
		return picard_fail(PICARD_EINVAL, "m = %d: a per-thread Runge-Kutta scheme takes m = 2 "
				   "(a window is an output interval)", o->m);
	o->m = 2;
	if (o->window != 0)
		return picard_fail(PICARD_EINVAL, "window = %g: a per-thread Runge-Kutta scheme takes h "
				   "(the output interval; its step with K)", o->window);
	if (o->warm_start)
		return picard_fail(PICARD_EINVAL, "warm_start: a per-thread Runge-Kutta scheme has no "
				   "iteration to start");
	if (!o->K && !o->K_max)
		o->K_max = DEFAULT_MAX_STEPS; /* adaptive unless K steps are asked */
	if (o->h == 0)
		o->h = o->t1 - o->t0;
	/* the kernel counts record rows in int (registers) */
	if (o->h > 0 && (o->t1 - o->t0) / o->h >= INT_MAX)
		return picard_fail(PICARD_EINVAL, "h = %g: %.3g output intervals over the span; a "
				   "per-thread Runge-Kutta scheme takes fewer than 2^31", o->h,
				   (o->t1 - o->t0) / o->h);
	if (o->iter_rtol == 0)
		o->iter_rtol = DEFAULT_STEP_RTOL;
	return PICARD_OK;
}

/* One thread per trajectory: the thread layout alone. */
int picard_rk_check_layout(const picard_options *o)
{
	if (o->layout != PICARD_LAYOUT_AUTO && o->layout != PICARD_LAYOUT_THREAD)
		return picard_fail(PICARD_EINVAL, "layout %s: a per-thread Runge-Kutta scheme runs one "
				   "thread per trajectory (layout thread)", picard_layout_name(o->layout));
	if (o->scan != PICARD_SCAN_AUTO)
		return picard_fail(PICARD_EINVAL, "scan: a per-thread Runge-Kutta scheme has no prefix sum");
	return PICARD_OK;
}

/* The thread and warp layouts; no scan; the warp layout's block within a
 * block's threads, a warp a trajectory (refused alike without a GPU). */
int picard_rk_check_stiff_layout(const picard_options *o)
{
	if (o->layout == PICARD_LAYOUT_PAPER)
		return picard_fail(PICARD_EINVAL, "layout paper: %s runs one thread (layout thread) "
				   "or one warp (layout warp) per trajectory",
				   picard_scheme_of(o->scheme)->name);
	if (o->scan != PICARD_SCAN_AUTO)
		return picard_fail(PICARD_EINVAL, "scan: %s has no prefix sum",
				   picard_scheme_of(o->scheme)->name);
	if (o->layout == PICARD_LAYOUT_WARP && o->traj_per_block > PICARD_MAX_BLOCK_THREADS / 32)
		return picard_fail(PICARD_EBLOCK, "traj_per_block = %d with a warp (32 threads) each: "
				   "over %d threads per block", o->traj_per_block,
				   PICARD_MAX_BLOCK_THREADS);
	return PICARD_OK;
}

/* rtol 0 (K = 1): fixed steps of about h, as many as fit the span in
 * one window, so that the error is measured where a run without --h is
 * checked (t1), not at every step; else adaptive at rtol, h the output
 * interval. */
picard_options picard_rk_tune_point(picard_scheme id, double h, double rtol, double span)
{
	if (rtol == 0)
		return (picard_options){.scheme = id, .m = 2, .K = picard_rk_steps(span, h)};
	return (picard_options){.scheme = id, .m = 2, .K_max = DEFAULT_MAX_STEPS, .h = h,
				.iter_rtol = rtol};
}

RK_TUNE_POINT(tune_point_dp5, PICARD_SCHEME_DP5)
RK_TUNE_POINT(tune_point_dp8, PICARD_SCHEME_DP8)
RK_TUNE_POINT(tune_point_vern9, PICARD_SCHEME_VERN9)

/* Fixed steps: the step (the window over its K steps); adaptive: the
 * output interval. */
double picard_rk_tune_h(const picard_grid *g)
{
	return g->adaptive ? g->h : g->h / g->K;
}

double picard_rk_tune_span(const picard_tune_point *p)
{
	return (double)p->windows * p->h * (p->iter_rtol > 0 ? 1 : p->K);
}

int picard_rk_tune_candidates(int kmax)
{
	(void)kmax;
	return 1 + NFRACTIONS;
}

double picard_rk_tune_rtol(int K, double tol, picard_precision precision)
{
	if (K <= 1)
		return 0;
	return fmax(tune_fractions[(K - 2) % NFRACTIONS] * tol,
		    precision == PICARD_DOUBLE ? TUNE_FLOOR_DOUBLE :
						 picard_iteration_floor(PICARD_FLOAT));
}

int picard_rk_layout_max_m(picard_layout layout)
{
	(void)layout;
	return 0;
}

/* ---- the backends: the model's instance in slot s of its rk table -------------- */

static size_t cpu_scratch_len(const struct picard_job *job)
{
	(void)job;
	return 1;
}

static int cpu_prepare(const struct picard_job *job, void **tables)
{
	const picard_scheme_type *type = picard_scheme_of(job->grid->scheme);
	picard_rk_host_fn *const *host = NULL;
	int err = picard_model_rk_host(job->model, type->impl_slot, type->tableau, &host);

	*tables = (void *)host;
	return err;
}

static picard_traj_status cpu_float(const struct picard_job *job, const void *tables, long traj,
				    void *scratch, long *fail_window)
{
	(void)scratch;
	return ((picard_rk_host_fn *const *)tables)[0](job, traj, fail_window);
}

static picard_traj_status cpu_double(const struct picard_job *job, const void *tables, long traj,
				     void *scratch, long *fail_window)
{
	(void)scratch;
	return ((picard_rk_host_fn *const *)tables)[1](job, traj, fail_window);
}

const struct picard_cpu_scheme picard_cpu_rk = {
	.scratch_len = cpu_scratch_len,
	.prepare = cpu_prepare,
	.trajectory = { cpu_float, cpu_double },
};

RK_TABLE(picard_scheme_dp5, PICARD_SCHEME_DP5, "dp5",
	 "Dormand-Prince 5(4), one thread per trajectory, fixed or adaptive steps",
	 "5", order_dp5, tune_point_dp5, 6, 0, 5, "rk_dp5", false, &picard_cuda_rk);
RK_TABLE(picard_scheme_dp8, PICARD_SCHEME_DP8, "dp8",
	 "Hairer's DOP853 8(5,3), one thread per trajectory, fixed or adaptive steps",
	 "8", order_dp8, tune_point_dp8, 12, 1, 8, "rk_dp8", false, &picard_cuda_rk);
RK_TABLE(picard_scheme_vern9, PICARD_SCHEME_VERN9, "vern9",
	 "Verner's most efficient 9(8) pair, one thread per trajectory, fixed or adaptive steps",
	 "9", order_vern9, tune_point_vern9, 16, 2, 9, "rk_vern9", false, &picard_cuda_rk);
