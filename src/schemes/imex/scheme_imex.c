/* scheme_imex.c - the implicit-explicit schemes for semi-linear models x' =
 * A x + g(t, x) (picard_model.op), two tables sharing one implementation:
 * imex-euler (order 1) and imex-sdirk2 (order 2), both L-stable in A (their
 * stages: src/schemes/imex/imex.h). On the trapezoid's grid: windows of m-1 steps of h,
 * each window's g iterated by Picard sweeps (K fixed, or K_max adaptive to
 * the iteration tolerances) while every sweep runs the chain of linear
 * solves (I - gamma h A) Y = r step by step (src/linsolve/implicit.h). The
 * window is capped by H x Lipschitz(g) < 1 alone, not by A's stiffness. */
#include <float.h>
#include <math.h>
#include <stdio.h>

#include "backend.h"
#include "errors.h"
#include "imex.h"
#include "linsolve/implicit.h"
#include "scheme.h"

#define DEFAULT_M 8
/* adaptive sweeps by default: a window stops once g's iteration has */
#define DEFAULT_K_MAX 40
/* windows over the span when h is not given */
#define DEFAULT_WINDOWS 100
#define DEFAULT_RTOL 1e-9
/* as the trapezoid's: a sweep's chain rounds by ~m eps |x| */
#define ROUNDING_FLOOR(m) (4.0 * (m) * DBL_EPSILON)
/* the step-doubling difference bounds an error of order p >= 1 times
 * 1 / (1 - 2^-p), 2 at p = 1 (src/solve/estimate.c) */
#define ESTIMATE_FACTOR 2.0

/* stages per step: g is evaluated at each, once a sweep (the tables'
 * rhs_per_step) */
#define EULER_STAGES 1
#define SDIRK2_STAGES 2

static const struct picard_imex_method imex_euler = {
	.stages = EULER_STAGES, .gamma = 1, .c = {1}, .carry = {0},
};

/* Alexander 1977: gamma = 1 - 1/sqrt(2) */
#define SDIRK2_GAMMA 0.29289321881345247560
static const struct picard_imex_method imex_sdirk2 = {
	.stages = SDIRK2_STAGES, .gamma = SDIRK2_GAMMA, .c = {SDIRK2_GAMMA, 1},
	.carry = {0, (1 - SDIRK2_GAMMA) / SDIRK2_GAMMA},
};

const struct picard_imex_method *picard_imex_method_of(picard_scheme scheme)
{
	return scheme == PICARD_SCHEME_IMEX_EULER ? &imex_euler :
	       scheme == PICARD_SCHEME_IMEX_SDIRK2 ? &imex_sdirk2 : NULL;
}

static double order_euler(const picard_grid *g)
{
	(void)g;
	return 1;
}

static double order_sdirk2(const picard_grid *g)
{
	(void)g;
	return 2;
}

static double length(const picard_grid *g)
{
	return g->h;
}

/* The linear solver for the model's operator, settled into o. */
static int resolve_linsolve(const picard_model *model, picard_options *o, const char *name)
{
	const picard_scheme_type *self = picard_scheme_of(o->scheme);
	const picard_implicit_type *type;
	picard_implicit_config cfg;
	char why[256];

	if (!(o->linsolve_rtol >= 0) || !isfinite(o->linsolve_rtol) || o->linsolve_rtol >= 1)
		return picard_fail(PICARD_EINVAL, "linsolve_rtol = %g: need 0 <= rtol < 1 (0: the "
				   "default)", o->linsolve_rtol);
	if (o->linsolve_maxit < 0)
		return picard_fail(PICARD_EINVAL, "linsolve_maxit = %d: need >= 0 (0: the default)",
				   o->linsolve_maxit);
	type = picard_implicit_choose(model->op, o->linsolve, o->precond, false, why, sizeof(why));
	if (!type)
		return picard_fail(PICARD_EINVAL, "%s (model %s, scheme %s)", why, model->name, name);
	/* (AUTO may choose the CPU: such a solver is asked for with the backend) */
	if (!type->setup && (o->backend != PICARD_BACKEND_CUDA || !self->cuda))
		return picard_fail(PICARD_EINVAL, "linsolve = %s: the CUDA backend's alone: "
				   "backend cuda (--backend cuda) for the %s scheme", type->name,
				   name);
	cfg = picard_implicit_settle(type, model->op, o->precond, o->linsolve_rtol,
				     o->linsolve_maxit);
	o->linsolve = type->id;
	o->precond = cfg.precond;
	o->linsolve_rtol = cfg.rtol;
	o->linsolve_maxit = cfg.maxit;
	return PICARD_OK;
}

static int resolve(const picard_model *model, picard_options *o)
{
	const char *name = picard_scheme_of(o->scheme)->name;

	if (!model->op || model->op->kind == PICARD_OP_NONE)
		return picard_fail(PICARD_EINVAL, "model %s declares no linear operator (op): the "
				   "imex schemes need x' = A x + g", model->name);
	if (o->precision != PICARD_DOUBLE)
		return picard_fail(PICARD_EINVAL, "precision float: the %s scheme runs in double (its "
				   "linear solvers do)", name);
	if (o->window != 0)
		return picard_fail(PICARD_EINVAL, "window = %g: the %s scheme takes h (its window is "
				   "(m-1) h)", o->window, name);
	if (!o->m)
		o->m = DEFAULT_M;
	if (!o->K && !o->K_max)
		o->K_max = DEFAULT_K_MAX;
	if (o->iter_rtol == 0)
		o->iter_rtol = fmax(DEFAULT_RTOL, ROUNDING_FLOOR(o->m));
	if (o->h == 0 && o->m >= 2)
		o->h = (o->t1 - o->t0) / ((double)DEFAULT_WINDOWS * (o->m - 1));
	return resolve_linsolve(model, o, name);
}

static int check_layout(const picard_options *o)
{
	if (o->layout != PICARD_LAYOUT_AUTO || o->scan != PICARD_SCAN_AUTO || o->traj_per_block)
		return picard_fail(PICARD_EINVAL, "the %s scheme lays out its own work (a trajectory's "
				   "linear solves): no layout, scan or trajectories per block to "
				   "choose", picard_scheme_of(o->scheme)->name);
	return PICARD_OK;
}

static int layout_max_m(picard_layout layout)
{
	(void)layout;
	return 0;
}

static picard_options tune_point_of(picard_scheme scheme, int m, int K, double h)
{
	return (picard_options){.scheme = scheme, .m = m, .K = K, .h = h,
				.precision = PICARD_DOUBLE};
}

static picard_options tune_point_euler(int m, int K, double h, double rtol, double span)
{
	(void)rtol;
	(void)span;
	return tune_point_of(PICARD_SCHEME_IMEX_EULER, m, K, h);
}

static picard_options tune_point_sdirk2(int m, int K, double h, double rtol, double span)
{
	(void)rtol;
	(void)span;
	return tune_point_of(PICARD_SCHEME_IMEX_SDIRK2, m, K, h);
}

static const int tune_ms[] = {4, 8, 16, 32};
static const picard_layout tune_layouts[] = {PICARD_LAYOUT_AUTO};

#define IMEX_OPTIONS                                                                          \
	"--m (steps per window + 1, default 8), --h (default span/(100 (m-1))), --K-max "     \
	"(default 40) or --K, --iter-rtol/--iter-atol (default 1e-9), --warm-start, "         \
	"--linsolve thomas|checkerboard|pcr|cusparse|cg|bicgstab (default by the operator), " \
	"--precond none|jacobi|neumann (cg, bicgstab; default jacobi), --linsolve-rtol "     \
	"(default 1e-10), --linsolve-maxit; double only; models with an operator (op)"

/* What the two tables share: the grid, the options, the backends. L-stable
 * in A: a semi-linear model's default and picard-run's search across
 * schemes on it (src/tune/candidates.c, candidates_scheme_suits). */
#define IMEX_COMMON                                                                           \
	.options = IMEX_OPTIONS, .length_name = "h", .max_m = 0,                              \
	.takes_linsolve = true, .solves_stiff = true, .double_only = true,                    \
	.estimate_factor = ESTIMATE_FACTOR, .length = length, .resolve = resolve,             \
	.check_layout = check_layout, .refined = picard_refined_h,                            \
	.tune_candidates = picard_tune_candidates_k, .tune_rtol = picard_tune_rtol_default,  \
	.tune_ms = tune_ms,                                                                    \
	.tune_nms = sizeof(tune_ms) / sizeof(tune_ms[0]), .tune_layouts = tune_layouts,       \
	.tune_nlayouts = sizeof(tune_layouts) / sizeof(tune_layouts[0]),                      \
	.layout_max_m = layout_max_m, .cpu = &picard_cpu_imex, .cuda = &picard_cuda_imex

const picard_scheme_type picard_scheme_imex_euler = {
	.id = PICARD_SCHEME_IMEX_EULER,
	.name = "imex-euler",
	.summary = "x' = A x + g: implicit Euler in A (linear solves), g by Picard sweeps over "
		   "windows of m-1 steps of h",
	.order_name = "1",
	.rhs_per_step = EULER_STAGES,
	.order = order_euler,
	.tune_point = tune_point_euler,
	IMEX_COMMON,
};

const picard_scheme_type picard_scheme_imex_sdirk2 = {
	.id = PICARD_SCHEME_IMEX_SDIRK2,
	.name = "imex-sdirk2",
	.summary = "x' = A x + g: Alexander's 2-stage SDIRK (L-stable) in A (linear solves), g "
		   "by Picard sweeps over windows of m-1 steps of h",
	.order_name = "2",
	.rhs_per_step = SDIRK2_STAGES,
	.order = order_sdirk2,
	.tune_point = tune_point_sdirk2,
	IMEX_COMMON,
};
