/* rk_scheme.h - what the per-thread Runge-Kutta schemes' tables share
 * (scheme_rk.c: dp5, dp8, vern9; src/schemes/radau5/scheme_radau5.c):
 * the grid of output intervals, its options and the tuner's search, and
 * RK_TABLE, which makes a table of them. */
#ifndef PICARD_RK_SCHEME_H
#define PICARD_RK_SCHEME_H

#include "backend.h"
#include "scheme.h"

/* The grid, options and refusals (scheme_rk.c says what they take). */
double picard_rk_length(const picard_grid *g);
int picard_rk_resolve(const picard_model *model, picard_options *o);
int picard_rk_check_layout(const picard_options *o);
/* The stiff per-thread schemes' (the Rosenbrock schemes, radau5): the
 * thread or warp layout, and the tuner's list of both. */
int picard_rk_check_stiff_layout(const picard_options *o);
int picard_rk_layout_max_m(picard_layout layout);

/* The tuner: fixed steps of about h (rtol 0) or adaptive at rtol. */
picard_options picard_rk_tune_point(picard_scheme id, double h, double rtol, double span);
double picard_rk_tune_h(const picard_grid *g);
double picard_rk_tune_span(const picard_tune_point *p);
int picard_rk_tune_candidates(int kmax);
double picard_rk_tune_rtol(int K, double tol, picard_precision precision);
extern const int picard_rk_tune_ms[];
extern const picard_layout picard_rk_tune_layouts[];
extern const picard_layout picard_rk_stiff_tune_layouts[];

/* A scheme's tune_point hook, fn, for scheme id. */
#define RK_TUNE_POINT(fn, id)                                                  \
	static picard_options fn(int m, int K, double h, double rtol, double span) \
	{                                                                      \
		(void)m;                                                       \
		(void)K;                                                       \
		return picard_rk_tune_point(id, h, rtol, span);                \
	}

#define RK_OPTIONS "--h (the output interval, default the span), --steps N (fixed steps per " \
		   "output interval), else adaptive: " \
		   "--iter-rtol/--iter-atol the local error's scale (default 1e-6), --max-steps " \
		   "(default 1000000); layout thread"

#define RK_STIFF_OPTIONS RK_OPTIONS " or warp (a warp per trajectory)"

/* The estimate's companion on a grid twice as fine: Richardson's factor
 * 1 / (1 - 2^-p) for fixed steps (adaptive: a 100 times tighter local
 * tolerance, whose difference is the error itself, within that factor). */
#define RICHARDSON(p) (1.0 / (1.0 - 1.0 / (double)(1 << (p))))

#define RK_TABLE(ident, scheme_id, label, what, ord_name, ord_fn, point_fn, stage_count, slot, p, tab, \
		 stiff, cuda_part)                                                   \
	RK_TABLE_LAYOUTS(ident, scheme_id, label, what, ord_name, ord_fn, point_fn, stage_count, \
			 slot, p, tab, stiff, cuda_part, RK_OPTIONS, picard_rk_check_layout, \
			 picard_rk_tune_layouts, 1)

/* The same with the scheme's own layouts: their options' text, check and
 * the tuner's list (a warp layout's block is the layout's own). */
#define RK_TABLE_LAYOUTS(ident, scheme_id, label, what, ord_name, ord_fn, point_fn, stage_count, \
			 slot, p, tab, stiff, cuda_part, options_text, check_fn, layouts, nlayouts) \
	const picard_scheme_type ident = {                                          \
		.id = scheme_id,                                                   \
		.name = label,                                                     \
		.summary = what,                                                   \
		.order_name = ord_name,                                            \
		.options = options_text,                                           \
		.length_name = "h",                                                \
		.max_m = 2,                                                        \
		.solves_stiff = stiff,                                             \
		/* every per-thread scheme locates events (events_step.cuh) */     \
		.locates_events = true,                                            \
		.steps_per_span = true,                                            \
		.per_member_spans = true,                                          \
		.estimate_factor = RICHARDSON(p),                                  \
		.rhs_per_sweep = stage_count,                                      \
		.impl_slot = slot,                                                 \
		.tableau = tab,                                                    \
		.order = ord_fn,                                                   \
		.length = picard_rk_length,                                        \
		.resolve = picard_rk_resolve,                                      \
		.check_layout = check_fn,                                          \
		.refined = picard_refined_h,                                       \
		.tune_point = point_fn,                                            \
		.tune_h = picard_rk_tune_h,                                        \
		.tune_span = picard_rk_tune_span,                                  \
		.tune_candidates = picard_rk_tune_candidates,                      \
		.tune_rtol = picard_rk_tune_rtol,                                  \
		.tune_ms = picard_rk_tune_ms,                                      \
		.tune_nms = 1,                                                     \
		.tune_layouts = layouts,                                           \
		.tune_nlayouts = nlayouts,                                         \
		.warp_block_own = true,                                            \
		.layout_max_m = picard_rk_layout_max_m,                            \
		.cpu = &picard_cpu_rk,                                             \
		.cuda = cuda_part,                                                 \
	}

#endif
