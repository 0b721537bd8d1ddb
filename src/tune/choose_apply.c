/* choose_apply.c - the options a point of the tolerance search sets on top
 * of what the caller fixed (see picard_choose.h, picard_choose_apply). */
#include <math.h>

#include "picard_choose.h"
#include "scheme.h"

/* A per-thread Runge-Kutta pair: fixed steps of h, as many per output
 * interval (the fixed h, else the span) as cover it; or adaptive at its
 * local tolerance (iter_rtol) with an output every h. */
static void apply_pair(const picard_tune_point *p, picard_options *o)
{
	const bool h_fixed = o->h > 0;

	o->m = 2;
	if (!h_fixed)
		o->h = p->h;
	if (p->iter_rtol > 0) {
		o->K = 0;
		o->K_max = o->K_max ? o->K_max : p->K;
		if (!o->iter_rtol)
			o->iter_rtol = p->iter_rtol;
		return;
	}
	if (!h_fixed)
		o->h = o->t1 - o->t0;
	if (!o->K)
		o->K = picard_rk_steps(o->h, p->h);
}

/* Lobatto's grid: m, the window and the tolerance of its adaptive sweeps
 * from a warm start; or newton's iterations over its tuned block. */
static void apply_lobatto_grid(const picard_tune_point *p, bool layout_fixed, picard_options *o)
{
	const picard_scheme_type *type = picard_scheme_of(p->scheme);

	if (!o->m)
		o->m = p->m;
	if (!o->window)
		o->window = (o->m - 1) * p->h;
	if (!o->K)
		o->K_max = o->K_max ? o->K_max : p->K;
	if (!o->iter_rtol)
		o->iter_rtol = p->iter_rtol;
	if (type->takes_block) {
		if (!o->block)
			o->block = p->block;
		return;
	}
	o->warm_start = true;
	/* the tuned windows in flight (parallel in time) */
	if (type->windows_in_flight && !o->block && p->block > 1)
		o->block = p->block;
	/* the tuned thread layout where it applies to the m in use */
	if (!layout_fixed && p->layout == PICARD_LAYOUT_THREAD &&
	    o->m <= PICARD_LOBATTO_THREAD_MAX_M) {
		o->layout = p->layout;
		o->traj_per_block = o->traj_per_block ? o->traj_per_block : p->traj_per_block;
	}
}

/* The trapezoid's grid (the paper's scheme, or an imex scheme on it): m,
 * K and h where not fixed, the tuned layout where it applies to the m in
 * use. */
static void apply_trapezoid_grid(const picard_tune_point *p, bool layout_fixed,
				 picard_options *o)
{
	if (!o->m)
		o->m = p->m;
	if (!o->K)
		o->K = p->K;
	if (!o->h)
		o->h = p->h;
	if (!layout_fixed && p->layout != PICARD_LAYOUT_AUTO &&
	    (p->layout == PICARD_LAYOUT_PAPER || o->m <= PICARD_LAYOUT_MAX_M)) {
		o->layout = p->layout;
		o->traj_per_block = o->traj_per_block ? o->traj_per_block :
				    p->layout == PICARD_LAYOUT_PAPER ? 0 : p->traj_per_block;
	}
}

void picard_choose_apply(const picard_tune_point *p, const picard_options *fixed,
			 bool layout_fixed, picard_options *chosen)
{
	const picard_scheme_type *type = picard_scheme_of(p->scheme);

	*chosen = *fixed;
	/* the search bounds its grids itself (its window count, its K
	 * candidates); the work limit guards a grid typed by hand, and would
	 * count an adaptive point's K_max cap, not the sweeps it runs */
	if (chosen->max_work == 0)
		chosen->max_work = HUGE_VAL;
	if (type->tableau) {
		chosen->scheme = p->scheme;
		apply_pair(p, chosen);
	} else if (type->lobatto_grid) {
		chosen->scheme = p->scheme;
		apply_lobatto_grid(p, layout_fixed, chosen);
	} else {
		chosen->scheme = type->takes_linsolve ? p->scheme : PICARD_SCHEME_TRAPEZOID;
		apply_trapezoid_grid(p, layout_fixed, chosen);
	}
}
