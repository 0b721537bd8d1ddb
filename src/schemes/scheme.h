/* scheme.h - a scheme is a type object, as GSL's gsl_odeiv2_step_type: one
 * const table per scheme (src/schemes/NAME/scheme_NAME.c) says what it is called, its order
 * and options, how a solve settles them, how its grid is refined (the error
 * estimate's companion, the promise's retries), what the tuner searches
 * and how each backend runs it. picard_scheme_list registers them; the
 * solver, the backends, the tuner, the cache and the CLI go through it. */
#ifndef PICARD_SCHEME_H
#define PICARD_SCHEME_H

#include <stdbool.h>
#include <stddef.h>

#include "picard.h"

/* Threads a block may hold on every CUDA GPU since sm_20 (the layouts'
 * checks, made alike without a GPU). */
#define PICARD_MAX_BLOCK_THREADS 1024

struct picard_cpu_scheme;  /* src/backend/backend.h */
struct picard_lobatto;     /* src/schemes/lobatto/lobatto.h */
struct picard_cuda_scheme; /* src/backend/cuda/cuda_solver.h */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct picard_scheme_type {
	picard_scheme id;        /* its value in picard_options.scheme */
	const char *name;        /* --scheme NAME; the tuning cache's scheme= */
	const char *summary;     /* the method, one line */
	const char *order_name;  /* its order as the user reads it: "2", "2m-2" */
	const char *options;     /* what it takes and the defaults, one line */
	const char *length_name; /* the option that sets its grid: "h" or "window" */
	int max_m;               /* nodes per window at most; 0: no limit of its own */
	bool lobatto_grid;       /* its windows hold m collocation nodes, the
				    start the first (src/schemes/lobatto/lobatto.h): the window
				    ends, dense output's rule and its summary
				    follow */
	/* a lobatto grid's nodes and tables: Gauss-Lobatto's or Radau
	 * IIA's (picard_lobatto_build, picard_radau_build) */
	int (*collocation)(int m, struct picard_lobatto *lob);
	bool takes_block;        /* it iterates a block of windows together
				    (options.block) */
	bool windows_in_flight;  /* options.block > 1 sweeps that many windows
				    at once, each from its predecessor's end,
				    parallel in time (lobatto_time_kernel.cuh);
				    0 or 1: one window after the other */
	bool double_only;        /* it runs in double alone: the programs'
				    precision when none is given */
	bool solves_stiff;       /* implicit and L-stable: a stiff model's
				    scheme when none is named, and the only
				    kind picard-run's search tries on one */
	bool locates_events;     /* it locates a model's events (docs/models.md,
				    "Events"; the per-thread schemes in their
				    thread layout, src/schemes/events_step.
				    cuh): a model with events is refused
				    under any other scheme */
	bool events_cpu_only;    /* it locates them on the CPU backend alone:
				    backend auto solves a model with events
				    there, backend cuda refuses it */
	bool takes_linsolve;     /* it solves with the model's operator
				    (picard_model.op): options.linsolve,
				    precond, linsolve_rtol and _maxit apply
				    (else they must be zero) */
	bool steps_per_span;     /* adaptive, its K_max bounds a trajectory's
				    steps over the whole span (MAX_STEPS), not
				    a window's sweeps: the work its grid fixes
				    is not options.max_work's */
	bool per_member_spans;   /* each trajectory integrates on its own
				    (picard_solver_set_spans): one thread's
				    steps, windows and dense output per
				    member, none shared with another */
	bool tuned_when_named;   /* the tuner searches it only when asked
				    for it by name: picard-run's search
				    across schemes leaves it out */
	/* the scheme's difference to a companion on a grid twice as fine,
	 * times this, is the error estimate (src/solve/estimate.c) */
	double estimate_factor;
	int rhs_per_sweep;       /* right-hand sides per sweep (a step of a
				    Runge-Kutta scheme), 0: rhs_per_step's */
	int rhs_per_step;        /* per step of a sweep over a window's m - 1
				    steps (an imex scheme's stages); both 0:
				    m per sweep */
	int impl_slot;           /* per-thread Runge-Kutta: its slot in a
				    model's picard_model_impl.rk_host */
	const char *tableau;     /* per-thread Runge-Kutta: its tableau's struct
				    (src/schemes/rk/rk_tableaus.cuh), a template
				    argument of its kernel */

	/* Its order on grid g: the error goes as length^order. */
	double (*order)(const picard_grid *g);
	/* The grid's length, h or the window. */
	double (*length)(const picard_grid *g);
	/* Fill its own defaults into o (m, K or K_max, iteration tolerances,
	 * the length) and refuse what it cannot take, with a detail. */
	int (*resolve)(const picard_model *model, picard_options *o);
	/* Refuse a layout, scan or block it does not run. */
	int (*check_layout)(const picard_options *o);
	/* o on g's grid, its length times shrink; an iteration that stops
	 * at a tolerance gets rtol_share of it (at least rtol_floor), and
	 * lobatto k_max sweeps (0: g's). */
	picard_options (*refined)(const picard_options *o, const picard_grid *g, double shrink,
				  double rtol_share, double rtol_floor, int k_max);
	/* The tuner's point (m, K, h) over a span: the options that solve
	 * it. K counts sweeps (trapezoid) or iteration tolerances (lobatto,
	 * rtol). */
	picard_options (*tune_point)(int m, int K, double h, double rtol, double span);
	/* The tuner's h of a point solved on grid g, what tune_point takes
	 * back (NULL: g->h); and the span a point covers (NULL: windows
	 * (m-1) h), for the cache to check. */
	double (*tune_h)(const picard_grid *g);
	double (*tune_span)(const picard_tune_point *p);
	/* How many K the tuner tries (kmax: what the caller allows), and the
	 * iteration tolerance of the K-th for an error tolerance tol (0: the
	 * solver's default). */
	int (*tune_candidates)(int kmax);
	double (*tune_rtol)(int K, double tol, picard_precision precision);
	const char *tune_summary; /* what else the tuner varies, for
				     picard-tune (NULL: K = 1..kmax) */
	const int *tune_ms;      /* the tuner's default nodes per window */
	int tune_nms;
	/* The CUDA layouts the tuner times, and the most nodes each runs (0:
	 * no limit of its own). */
	const picard_layout *tune_layouts;
	int tune_nlayouts;
	int (*layout_max_m)(picard_layout layout);
	/* Whether picard-run's quick search compiles the CUDA kernel of m
	 * nodes under layout (AUTO: the one its small sample runs) for a
	 * model of dim components (NULL: every one). The kernels NVRTC takes
	 * more than about 3 s to compile on one core are left to picard-tune:
	 * a first run's wall time is its slowest compile
	 * (bench/results/cpu-2026-11-27-issue35-nvrtc). */
	bool (*quick_compiles)(picard_layout layout, int m, int dim);
	/* the windows of the tuner's first point (0: one): where fewer
	 * windows' error stalls above any tolerance instead of falling (a
	 * stiff model's initial layer inside the first window), the search's
	 * stall rule would stop it there */
	int tune_first_windows;
	bool warp_block_own;     /* its warp layout's block follows the
				    ensemble: none for the tuner to keep */

	const struct picard_cpu_scheme *cpu;   /* how the CPU backend runs it */
	const struct picard_cuda_scheme *cuda; /* and the CUDA backend (NULL:
						  none yet; backend AUTO
						  then runs it on the CPU) */
} picard_scheme_type;

/* The refinement of a scheme whose grid is h with K fixed or K_max
 * adaptive (the trapezoid's, the per-thread pairs'): h times shrink, an
 * adaptive K_max kept and its tolerances rtol_share of g's (at least
 * rtol_floor). */
picard_options picard_refined_h(const picard_options *o, const picard_grid *g, double shrink,
				double rtol_share, double rtol_floor, int k_max);

/* The trapezoid's tuner candidates, shared by the schemes on its grid:
 * K = 1 .. kmax fixed sweeps at the solver's default iteration tolerance
 * (tune_rtol 0). */
int picard_tune_candidates_k(int kmax);
double picard_tune_rtol_default(int K, double tol, picard_precision precision);

/* The lobatto scheme's, shared by the schemes on its grid (src/
 * schemes/lobatto/scheme_lobatto.c): order 2m-2, the window as the length, and the
 * refinement of the window with its iteration tolerances. */
double picard_lobatto_grid_order(const picard_grid *g);
double picard_lobatto_grid_length(const picard_grid *g);
/* The newton-radau scheme's: Radau IIA with m-1 stages, order 2m-3. */
double picard_radau_grid_order(const picard_grid *g);
picard_options picard_lobatto_grid_refined(const picard_options *o, const picard_grid *g,
					   double shrink, double rtol_share, double rtol_floor,
					   int k_max);

/* The fixed steps of a per-thread Runge-Kutta scheme that cover an output
 * interval with steps of at most step (at least 1, at most INT_MAX). */
int picard_rk_steps(double interval, double step);

/* Every scheme, NULL-terminated, in the order ties are decided by. */
extern const picard_scheme_type *const picard_scheme_list[];

/* The scheme of an options or grid value, or NULL (unknown). */
const picard_scheme_type *picard_scheme_of(picard_scheme id);
/* The scheme called name, or NULL. */
const picard_scheme_type *picard_scheme_named(const char *name);
/* "dp5, dp8, ...": every name, for messages, into buf; returns buf. */
const char *picard_scheme_names(char *buf, size_t len);
/* The same for the schemes keep(scheme) is true of (NULL: every one). */
const char *picard_scheme_names_if(char *buf, size_t len,
				   bool (*keep)(const picard_scheme_type *scheme));
/* Whether it integrates each member on its own span (per_member_spans):
 * a keep for picard_scheme_names_if. */
bool picard_scheme_takes_spans(const picard_scheme_type *scheme);

#ifdef __cplusplus
}
#endif

/* Whether a search under o (its scheme, quick or not, backend) compiles
 * and runs m nodes under layout for a model of dim components: all but
 * the quick search on the CUDA backend, which takes what quick_compiles
 * allows. */
static inline bool picard_tune_compiles(const picard_tune_options *o, picard_backend backend,
					picard_layout layout, int m, int dim)
{
	const picard_scheme_type *scheme = picard_scheme_of(o->scheme);

	return !o->quick || backend != PICARD_BACKEND_CUDA || !scheme->quick_compiles ||
	       scheme->quick_compiles(layout, m, dim);
}

#endif
