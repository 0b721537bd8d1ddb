/* picard.h - public C API of picard, parallel-in-time Picard iteration for
 * ensembles of ODE initial-value problems (Korobitsyn & Frolova, 2011).
 *
 * Plain C, no CUDA types: usable from any C11 compiler. Every function that
 * can fail returns 0 or a negative PICARD_E... code; picard_strerror() names
 * the code and picard_error_detail() says what exactly went wrong.
 */
#ifndef PICARD_H
#define PICARD_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes and their messages: one list, expanded where needed. */
#define PICARD_ERRORS(X)                                                       \
	X(PICARD_OK, 0, "success")                                             \
	X(PICARD_EINVAL, -1, "invalid argument")                               \
	X(PICARD_ENOMODEL, -2, "unknown model")                                \
	X(PICARD_ENODEV, -3, "no CUDA device available")                       \
	X(PICARD_ENOMEM, -4, "out of memory")                                  \
	X(PICARD_EBLOCK, -5, "m*n exceeds the device's threads per block")     \
	X(PICARD_ESHMEM, -6, "shared memory exceeds the device's limit")       \
	X(PICARD_ECUDA, -7, "CUDA runtime error")                              \
	X(PICARD_EFAILED, -8, "some trajectories became non-finite or diverged") \
	X(PICARD_EIO, -9, "input/output error")                                \
	X(PICARD_EREF, -10, "reference integration failed")                    \
	X(PICARD_ENOTFOUND, -11, "no configuration meets the tolerance")     \
	X(PICARD_ECOMPILE, -12, "the model file does not compile")             \
	X(PICARD_EWORK, -13, "too much work: the grid exceeds the work limit") \
	X(PICARD_EACCURACY, -14, "tolerance below what the precision can reach")

enum picard_error {
#define PICARD_ERROR_ENUM(name, code, msg) name = code,
	PICARD_ERRORS(PICARD_ERROR_ENUM)
#undef PICARD_ERROR_ENUM
};

/* Short message for an error code ("unknown error" for anything else). */
const char *picard_strerror(int err);
/* Detail of the last error raised in this thread ("" if none): which value,
 * which limit. Valid until the next picard call in the same thread. */
const char *picard_error_detail(void);

/* ---- Models ---------------------------------------------------------- */

struct picard_model_impl; /* compiled right-hand sides and kernels */

/* The linear part A of a semi-linear model x' = A x + g(t, x): a
 * discretised diffusion operator that implicit schemes factor or solve
 * with (src/linsolve/), declared by the model file beside its rhs (which
 * stays the whole A x + g, so that every scheme still runs it). */
typedef enum picard_operator_kind {
	PICARD_OP_NONE = 0,
	/* div(k grad u) by three points on a line of nx unknowns at
	 * x_i = (i+1) dx, u = 0 past the ends (boundary values belong in g;
	 * k = 0 on an end face: no flux) */
	PICARD_OP_STENCIL_1D,
	/* the same by five points on nx x ny unknowns, i + nx j at
	 * ((i+1) dx, (j+1) dy) */
	PICARD_OP_STENCIL_2D,
	/* any sparse A, given as a CSR matrix */
	PICARD_OP_CSR,
} picard_operator_kind;

typedef struct picard_operator {
	picard_operator_kind kind;
	int nx, ny;       /* the grid: nx ny = dim (1D and CSR: ny = 1) */
	double dx, dy;    /* its spacing (CSR: unused) */
	bool symmetric;   /* A is symmetric for every parameter: CG applies */
	/* Stencils: k on the faces for parameters p, in the layout of
	 * picard_stencil_1d/_2d (src/linsolve/sparse.h): kx (nx + 1) ny
	 * faces across x, ky nx (ny + 1) across y (2D; NULL in 1D). */
	void (*k_faces)(const double *params, double *kx, double *ky);
	/* CSR: nnz entries at most; fill row_start (dim + 1), col and val
	 * for parameters p. */
	int nnz;
	void (*csr)(const double *params, int *row_start, int *col, double *val);
	/* g = rhs - A x, in double on the host (its device side is the
	 * model's template nonlinear<real>, compiled at run time). */
	void (*nonlinear)(double t, const double *x, const double *params, double *g);
} picard_operator;

/* Events (docs/models.md, "Events"): functions g_k(t, x, p) whose zero
 * crossings the per-thread Runge-Kutta schemes locate on a step's dense
 * output, then act on. Which way a crossing must go to count: */
typedef enum picard_event_direction {
	PICARD_EVENT_BOTH = 0,     /* either way */
	PICARD_EVENT_RISING = 1,   /* g from negative to positive */
	PICARD_EVENT_FALLING = -1, /* g from positive to negative */
} picard_event_direction;

/* What a counted crossing does, after it is logged. */
typedef enum picard_event_action {
	PICARD_EVENT_RECORD = 0,    /* nothing: the log has it */
	PICARD_EVENT_TERMINATE = 1, /* the member stops there, status EVENT */
	PICARD_EVENT_JUMP = 2,      /* x <- jump_k(t, x, p) (and p, where the
				       model changes its parameters), then
				       integration restarts with a fresh step */
} picard_event_action;

/* A model's events, from its declaration (static constexpr int nevents
 * and the members docs/models.md lists). */
typedef struct picard_events {
	int count;                               /* nevents, >= 1 */
	const char *const *names;                /* count names */
	const picard_event_direction *directions; /* count */
	const picard_event_action *actions;      /* count */
	int limit;          /* events a member may have: the one past it
			       stops the member (status EVENT_LIMIT) */
	double min_spacing; /* a crossing of g_k in the direction it last
			       fired, sooner than this after it, is
			       chattering (status EVENT_LIMIT) */
	/* g(t, x, p): count values, and the jump of event k, in double on
	 * the host (the engine calls the model's templates): x and the
	 * member's own params in place (a model may change its parameters). */
	void (*g)(double t, const double *x, const double *params, double *out);
	void (*jump)(int k, double t, double *x, double *params);
} picard_events;

/* A registered model: one file in models/, discovered by the build. */
typedef struct picard_model {
	const char *name;                 /* registry key, e.g. "lotka" */
	const char *summary;              /* one line: the equations */
	const char *reference;            /* where the model comes from */
	int dim;                          /* n, components of the state */
	int nparams;                      /* number of parameters (may be 0) */
	const char *const *param_names;   /* nparams names */
	const double *param_defaults;     /* nparams default values */
	const double *x0;                 /* dim default initial components */
	double t0, t1;                    /* default time span */
	/* Exact solution at t from state x0 at t0, or NULL if none is known. */
	void (*exact)(double t, double t0, const double *x0, const double *params,
		      double *x);
	/* Start state from the parameters (kepler: the periapsis of the orbit
	 * of eccentricity e), or NULL: x0 is the start state for any. */
	void (*initial)(const double *params, double *x0);
	/* Quantities the exact flow conserves (energy, ...), or none. */
	int ninvariants;
	const char *const *invariant_names;
	void (*invariants)(const double *x, const double *params, double *out);
	/* Node spacing at which picard-run's default grid (the paper's scheme,
	 * m = 8, K = 2) comes within about 1% of the reference over the
	 * model's span, or 0: picard-run's default (0.06, the paper's). */
	double default_h;
	/* The absolute part of the local tolerance a solve takes when none is
	 * given (picard_options.iter_atol = 0), or 0: the relative part. For
	 * a model whose components live far below 1 (a reactor's radicals,
	 * 1e-20 of the mass before ignition, set when it ignites). */
	double default_atol;
	/* The model is stiff at its defaults (its declaration static
	 * constexpr bool stiff = true): the reference integrates it with an
	 * implicit method, and explicit schemes are not expected to reach
	 * its span. */
	bool stiff;
	/* Its linear part A, for a semi-linear model (x' = A x + g), or
	 * NULL: an ordinary one. */
	const picard_operator *op;
	/* Its events, or NULL: none (picard_events). */
	const picard_events *events;
	const struct picard_model_impl *impl; /* internal: do not touch */
} picard_model;

/* Number of registered models and the i-th of them, in name order. */
int picard_model_count(void);
const picard_model *picard_model_at(int i);
/* Model by name, or NULL. */
const picard_model *picard_model_find(const char *name);
/* A model file outside models/, compiled and loaded at run time:
 * PATH/NAME.cu with struct NAME and PICARD_REGISTER_MODEL(NAME), the
 * contract of docs/models.md. The system C++ compiler ($PICARD_CXX, else
 * the one picard was built with) builds its host side; NVRTC checks its
 * device side now and compiles each kernel when a solve first needs it.
 * Both are cached under picard's cache directory ($PICARD_CACHE_DIR, else
 * $XDG_CACHE_HOME/picard or ~/.cache/picard), by content. A file that does
 * not compile gives PICARD_ECOMPILE, the messages (FILE:LINE: error: ...)
 * in picard_error_detail(). The model stays loaded while the process runs. */
int picard_model_load(const char *path, const picard_model **model);
/* Compile every kernel a solve of model may run (each scheme, layout,
 * shape and precision) for the current CUDA device into the kernel cache,
 * in parallel, so that no later solve waits for the compiler: before a
 * batch of jobs, or before timing. A solve otherwise compiles the one
 * kernel it needs when it first needs it. *instances (if not NULL): how
 * many. */
int picard_precompile(const picard_model *model, int *instances);
/* Right-hand side in double on the host: dxdt = f(t, x; params). */
void picard_model_rhs(const picard_model *model, double t, const double *x,
		      const double *params, double *dxdt);
/* The Jacobian of the right-hand side at (t, x; params), params NULL for
 * the defaults: J[i*dim + k] = d f_i / d x_k, dim*dim doubles. The model's
 * own jacobian when its file declares one, else by forward-mode automatic
 * differentiation through its rhs (exact to rounding). */
void picard_model_jacobian(const picard_model *model, double t, const double *x,
			   const double *params, double *J);
/* The model file's header comment: its equations, source and notes. */
const char *picard_model_description(const picard_model *model);
/* The default start state for params (NULL: the defaults): model->initial
 * when the model has one, else model->x0. */
void picard_model_start(const picard_model *model, const double *params,
			double *x0);

/* ---- Tolerances --------------------------------------------------------- */

/* An error bound per component, as GSL and CVODE take it: component k of a
 * state x meets it against the reference x_ref when
 *     |x_k - x_ref_k| <= atol + rtol |x_ref_k|.
 * The scaled error of a state is max_k |x_k - x_ref_k| / (atol + rtol
 * |x_ref_k|): at most 1 meets the tolerance. atol = E, rtol = 0 is the
 * paper's absolute bound E*. Both >= 0, not both 0. */
typedef struct picard_tolerance {
	double atol; /* absolute part */
	double rtol; /* relative part */
} picard_tolerance;

/* The scaled error of n components x against ref under tol: +Inf when a
 * component of x is not finite. tol NULL, or both parts 0: the absolute
 * error max_k |x_k - ref_k|. */
double picard_scaled_error(const picard_tolerance *tol, const double *x,
			   const double *ref, int n);

/* ---- Solving ---------------------------------------------------------- */

typedef enum picard_precision {
	PICARD_FLOAT = 0,  /* the paper's choice, the default */
	PICARD_DOUBLE = 1,
} picard_precision;

/* Tolerances a precision can reach, from its unit roundoff u (2^-24 in
 * float, 2^-53 in double). A change, or a local error, below 2 eps = 4 u
 * of |x| is rounding: picard_iteration_floor(precision) = 4 u (2.4e-7
 * float, 4.4e-16 double) is the smallest iter_rtol a solve takes. An error
 * against the reference (rk8pd or msbdf in double, at tolerances down to
 * 1e-14) cannot be told apart below 100 u of double either:
 * picard_tolerance_floor(precision) = max(4 u, 100 u_double) (2.4e-7
 * float, 1.1e-14 double) is the smallest relative error tolerance that
 * --tol, picard_tune and picard-run's checks take. */
double picard_iteration_floor(picard_precision precision);
double picard_tolerance_floor(picard_precision precision);
/* Whether tol can be met by a solve in precision of the count states x
 * (start states; NULL or count 0: tol's relative part alone): PICARD_OK
 * when atol + rtol max|x| is at least picard_tolerance_floor times max|x|
 * (rtol at least the floor), else PICARD_EACCURACY naming the floor. */
int picard_tolerance_check(const picard_tolerance *tol, picard_precision precision,
			   const double *x, long count);

typedef enum picard_backend {
	PICARD_BACKEND_AUTO = 0, /* CUDA when a device is present, else CPU */
	PICARD_BACKEND_CUDA = 1,
	PICARD_BACKEND_CPU = 2,
} picard_backend;

/* How the CUDA backend maps a trajectory onto threads (the CPU backend has
 * one algorithm and ignores it). All layouts run the same scheme with the
 * same convergence test; their results agree to rounding. The lobatto
 * scheme has the warp layout (a group of lanes per trajectory, the block
 * shaped by the ensemble) and the thread layout (m <=
 * PICARD_LOBATTO_THREAD_MAX_M, traj_per_block threads per block); AUTO
 * takes the thread layout for ensembles that fill the GPU by themselves
 * (src/schemes/lobatto/cuda_lobatto.c). With windows in flight (block >
 * 1) it has the warp layout (a group per window) and the paper layout (a
 * thread per node and component of each window), which AUTO takes where
 * its block fits. */
typedef enum picard_layout {
	PICARD_LAYOUT_AUTO = 0,   /* by m and the ensemble size, a rule measured
				     on an H100 (kernels/cuda_backend.cu) */
	PICARD_LAYOUT_PAPER = 1,  /* the paper's: one block of m*n threads per
				     trajectory, shared memory, barriers */
	PICARD_LAYOUT_WARP = 2,   /* a group of G = m rounded up to a power of
				     two lanes per trajectory, lane = node,
				     shuffles, no barriers (m <= 32) */
	PICARD_LAYOUT_THREAD = 3, /* one thread per trajectory, the window's
				     nodes in registers (m <= 32) */
} picard_layout;

/* Prefix sum (5) of the warp layout. */
typedef enum picard_scan {
	PICARD_SCAN_AUTO = 0,     /* the faster for m, as measured */
	PICARD_SCAN_PARALLEL = 1, /* Kogge-Stone over the group, log2 G steps */
	PICARD_SCAN_SERIAL = 2,   /* the sum in node order, m - 1 steps, the
				     CPU backend's order of additions */
} picard_scan;

/* Largest m of the warp and thread layouts (a warp's lanes). */
#define PICARD_LAYOUT_MAX_M 32
/* Largest m of the lobatto scheme's thread layout (a thread's registers
 * hold the window's states and slopes). */
#define PICARD_LOBATTO_THREAD_MAX_M 16

/* How a window is discretised. */
typedef enum picard_scheme {
	/* The paper's: m equally spaced nodes h apart, trapezoid slopes and a
	 * prefix sum (its equations (4)-(5)); order 2 once converged. */
	PICARD_SCHEME_TRAPEZOID = 0,
	/* Collocation on the m Gauss-Lobatto-Legendre nodes of a window of
	 * length H: x_j = x_w + (H/2) sum_l S_jl f(t_l, x_l), S the spectral
	 * integration matrix; converged it is Lobatto IIIA, order 2m-2
	 * (src/lobatto.h, kernels/lobatto_kernel.cuh). m is 2..32. */
	PICARD_SCHEME_LOBATTO = 1,
	/* Per-thread explicit Runge-Kutta pairs, one thread per trajectory
	 * (src/scheme_rk.c, kernels/rk_integrate.cuh): Dormand-Prince 5(4),
	 * Hairer's DOP853 8(5,3) and Verner's 9(8). m is 2: a window is an
	 * output interval. Fixed step: K steps per window (h sets the
	 * window). Adaptive (K_max > 0, the steps tried over the whole span
	 * at most): each trajectory chooses its own steps so that the local
	 * error, weighed by iter_atol + iter_rtol |x| per component, stays
	 * within 1; h is then the output interval (default: the span). */
	PICARD_SCHEME_DP5 = 2,
	PICARD_SCHEME_DP8 = 3,
	PICARD_SCHEME_VERN9 = 4,
	/* The lobatto scheme's collocation equations over a block of
	 * windows at once, solved by Newton's method across windows: each
	 * window's linearised system is an affine map of its start, and the
	 * maps are composed across the block (src/newton.h; DEER, Lim et
	 * al. 2024). Converged, the answer is the lobatto scheme's, but the
	 * window is set by accuracy, not by H x Lipschitz < 1. K is the
	 * Newton iterations a window may take at most; iter_rtol/atol its
	 * convergence; block the windows iterated together. Double only. */
	PICARD_SCHEME_NEWTON = 5,
	/* Radau IIA, 3 stages, order 5 (Hairer & Wanner's RADAU5), one
	 * thread per trajectory: implicit, L-stable, for stiff models. Each
	 * step is solved by simplified Newton iterations with the Jacobian
	 * (the model's or automatic) and the Radau matrix's eigen-
	 * decomposition (one real and one complex n x n system); steps are
	 * chosen per trajectory from the embedded error estimate. Options as
	 * the per-thread explicit pairs'. */
	PICARD_SCHEME_RADAU5 = 6,
	/* The newton scheme with Radau IIA's collocation in place of
	 * Lobatto IIIA's: each window's m nodes are its start and m-1 Radau
	 * stages (order 2m-3, L-stable), so a stiff model's few trajectories
	 * spread over the GPU across time, where radau5 runs each in one
	 * thread. Windows of fixed length; options as the newton scheme's. */
	PICARD_SCHEME_NEWTON_RADAU = 7,
	/* Implicit-explicit schemes for a semi-linear model x' = A x + g
	 * (picard_model.op), on the trapezoid's grid (windows of m-1 steps of
	 * h): A implicit, solved by a linear solver (picard_linsolver), g by
	 * Picard sweeps over the window's stages (src/scheme_imex.c).
	 * Converged, the answer is the implicit method applied to the whole
	 * f, and the window is capped by H x Lipschitz(g) < 1 alone, not by
	 * A's stiffness. imex-euler: implicit Euler, order 1; imex-sdirk2:
	 * Alexander's 2-stage SDIRK, order 2; both L-stable. K fixed sweeps
	 * or K_max adaptive, as the trapezoid. Double only. */
	PICARD_SCHEME_IMEX_EULER = 8,
	PICARD_SCHEME_IMEX_SDIRK2 = 9,
	/* Rosenbrock (linearly implicit) schemes, one thread per trajectory,
	 * for stiff models: each step solves its stages with one LU of W =
	 * I/(h gamma) - J, J the model's Jacobian (its own, or automatic) at
	 * the step's start, no Newton iteration (src/schemes/rosenbrock/).
	 * rodas5p: Steinebach's Rodas5P, 8 stages, order 5(4); rodas4: Hairer
	 * & Wanner's RODAS, 6 stages, order 4(3), both L-stable and stiffly
	 * accurate; ros23: Shampine & Reichelt's Rosenbrock23 (MATLAB's
	 * ode23s), a W-method of order 2 with a 3rd-order estimate, for loose
	 * tolerances. Options as the per-thread explicit pairs'. */
	PICARD_SCHEME_RODAS5P = 10,
	PICARD_SCHEME_RODAS4 = 11,
	PICARD_SCHEME_ROS23 = 12,
} picard_scheme;

/* picard_precompile for one scheme's kernels only: before timing a
 * scheme, without compiling every other scheme's. */
int picard_precompile_scheme(const picard_model *model, picard_scheme scheme, int *instances);

/* The linear solver of the imex schemes' stages, (I - gamma h A) y = r
 * (src/linsolve/implicit.h). */
typedef enum picard_linsolver {
	PICARD_LINSOLVER_AUTO = 0,         /* by the operator: thomas in 1D,
					      ADI over thomas in 2D, cg for a
					      symmetric CSR operator, bicgstab
					      otherwise */
	/* tridiagonal: a 1D stencil directly, a 2D one by Peaceman-Rachford
	 * ADI iteration over lines (src/linsolve/adi.c) */
	PICARD_LINSOLVER_THOMAS = 1,
	PICARD_LINSOLVER_CHECKERBOARD = 2,
	PICARD_LINSOLVER_PCR = 3,
	PICARD_LINSOLVER_CUSPARSE = 4,     /* the CUDA backend only */
	/* Krylov, over the operator assembled to CSR */
	PICARD_LINSOLVER_CG = 5,           /* symmetric A only */
	PICARD_LINSOLVER_BICGSTAB = 6,
} picard_linsolver;

/* The Krylov solvers' preconditioner. */
typedef enum picard_preconditioner {
	PICARD_PRECOND_AUTO = 0,    /* jacobi */
	PICARD_PRECOND_NONE = 1,
	PICARD_PRECOND_JACOBI = 2,
	PICARD_PRECOND_NEUMANN = 3, /* Gubaidullin & Nikiforov's polynomial */
} picard_preconditioner;

/* "auto", "thomas", "checkerboard", "pcr", "cusparse", "cg", "bicgstab";
 * NULL for an unknown value. */
const char *picard_linsolver_name(picard_linsolver linsolver);
/* The solver named name, or -1. */
int picard_linsolver_parse(const char *name);
/* "auto", "none", "jacobi", "neumann"; NULL for an unknown value. */
const char *picard_preconditioner_name(picard_preconditioner precond);
/* The preconditioner named name, or -1. */
int picard_preconditioner_parse(const char *name);

/* options.max_work's default: 1e8 component evaluations per trajectory,
 * 5 times the largest default grid of the shipped models (newton on the
 * 225-component PDE models, 1.8e7; the small models' are 1e3 to 1e5), a
 * second or so per trajectory on a CPU core: a grid asked for by mistake
 * (h 1e-7, K 100000 on lotka) is refused, not run for hours. */
#define PICARD_MAX_WORK_DEFAULT 1e8

/* Options of a solve. A zero field means its default. */
typedef struct picard_options {
	picard_scheme scheme;       /* trapezoid (default) or lobatto */
	int m;                      /* nodes per window, both ends included
				       (default 8; lobatto: 2..32) */
	int K;                      /* fixed Picard sweeps per window (default 2) */
	int K_max;                  /* > 0: adaptive, sweep until converged, at
				       most K_max times (K must then be 0).
				       Lobatto with neither K nor K_max:
				       adaptive, K_max 40 */
	bool warm_start;            /* first iterate of a window, instead of
				       the constant x_w: trapezoid, the
				       previous window's increments added to
				       its start state; lobatto, the previous
				       window's interpolating polynomial
				       extrapolated to the new nodes */
	double iter_rtol, iter_atol; /* convergence of a window: scaled change
				       |dx|/(atol + rtol |x|) <= 1 (defaults
				       1e-5 float, 1e-9 double, at least 4 m eps,
				       the rounding of a sweep; lobatto 1e-6
				       float, 1e-12 double; atol: the model's
				       default_atol, else rtol) */
	double h;                   /* trapezoid: requested node spacing
				       (default 0.06); shrunk so whole windows
				       end at t1. Lobatto: must be 0 */
	double window;              /* lobatto: requested window length H
				       (default span/200), shrunk so whole
				       windows end at t1. Trapezoid: must be 0
				       (its window is (m-1) h) */
	double t0, t1;              /* time span (both 0: the model's) */
	int block;                  /* newton: windows iterated together, the
				       sliding horizon (default 512); others:
				       must be 0 */
	picard_precision precision; /* arithmetic of the sweeps */
	picard_backend backend;     /* where to run */
	double bound;               /* |x| above this is divergence (1e12) */
	/* The work a grid may fix: windows x sweeps (K, or K_max) x right-
	 * hand sides per sweep x dim, evaluations of a component per
	 * trajectory, at most (0: PICARD_MAX_WORK_DEFAULT; HUGE_VAL: no
	 * limit). A grid over it is refused with PICARD_EWORK before any
	 * work. The adaptive per-thread pairs' work is per trajectory, bounded
	 * by K_max steps (MAX_STEPS), not by this. */
	double max_work;
	size_t device_memory;       /* device bytes the ensemble may use (0: what
				       is free); larger ensembles are solved
				       in chunks that fit */
	/* Trajectories one solve holds at most (0: all ntraj): an ensemble
	 * larger than the host's memory solved a batch at a time with
	 * picard_solve_batch(), the solver's buffers (host and device) and
	 * records that size. Whatever the ensemble's size decides (the CUDA
	 * layout, the window ends the error estimate compares) is decided
	 * for ntraj, so the batches give what one solve of all would. */
	long batch;
	picard_layout layout;       /* CUDA thread layout (AUTO) */
	int traj_per_block;         /* trajectories per block of the warp and
				       thread layouts (0: auto) */
	picard_scan scan;           /* prefix sum of the warp layout (AUTO) */
	/* Per-trajectory error estimates (picard_solver_error_estimates):
	 * each solve also runs a companion solve in double on a finer grid
	 * and compares the two at the window ends (src/estimate.c). The
	 * estimates are scaled errors under error_scale (both 0: absolute
	 * errors). */
	bool estimate_error;
	picard_tolerance error_scale;
	/* The imex schemes' linear solves (others: must be zero). */
	picard_linsolver linsolve;   /* the solver (AUTO: by the operator) */
	picard_preconditioner precond; /* cg, bicgstab: (AUTO: jacobi) */
	double linsolve_rtol;        /* iterative solves (Krylov, ADI): stop at
					||r - M y|| <= rtol ||r|| (0: 1e-10) */
	int linsolve_maxit;          /* their iterations per solve at most (0:
					Krylov 10 n + 100, ADI 500) */
	/* A model with events: entries of the event log kept per member (0:
	 * the model's limit, at most 16); the events past them are counted,
	 * not kept (picard_event_log.count). */
	int event_log;
} picard_options;

/* The discretisation a solver settled on (after defaults and fitting). */
typedef struct picard_grid {
	picard_scheme scheme; /* how a window is discretised */
	int m, K;       /* nodes per window, sweeps per window (at most) */
	bool adaptive;  /* K is K_max: sweeps stop once a window converged */
	bool warm_start; /* windows start from the previous one's shape */
	double iter_rtol, iter_atol; /* the convergence test's tolerances */
	double h;       /* node spacing actually used: (t1-t0)/(windows*(m-1));
			   lobatto: the mean spacing window/(m-1) (its nodes
			   are not equally spaced), so window ends are
			   t0 + (w+1)(m-1)h under both schemes */
	double window;  /* window length H actually used: (t1-t0)/windows */
	double t0, t1;  /* time span */
	long windows;   /* stp, number of windows ("big steps") */
	int block;      /* newton: windows iterated together; else 0 */
	picard_layout layout; /* CUDA layout in use (never AUTO on the CUDA
			   backend; the CPU backend keeps what was asked) */
	int traj_per_block; /* trajectories per block (paper: 1; CPU: 0) */
	picard_scan scan;   /* warp layout: the prefix sum in use; else AUTO */
	/* imex: the linear solves settled (never AUTO); others: zero */
	picard_linsolver linsolve;
	picard_preconditioner precond; /* Krylov's; else AUTO */
	double linsolve_rtol;
	int linsolve_maxit;
} picard_grid;

/* States to keep: at window ends (every), or at given times (dense
 * output), for the trajectories i with i % traj_stride == 0. The caller
 * owns states, laid out [row r][trajectory slot s][component k] in double,
 * s = 0 .. ceil(ntraj/traj_stride) - 1, and r:
 * - times NULL: r = 0 .. windows/every - 1, the end of window (r+1) every
 *   - 1 (windows every, every-th, ...);
 * - times given: r = 0 .. ntimes - 1, the state at times[r], interpolated
 *   in the window that holds it from that window's nodes, with no extra
 *   right-hand side evaluation (src/dense_output.h): linear between nodes
 *   under the trapezoid scheme (its order, 2), the collocation polynomial
 *   under lobatto (error O(H^m) between nodes, 2m-2 at window ends).
 *   times must be non-decreasing, within [t0, t1], and every 0.
 * A trajectory that became non-finite or diverged leaves NaN in the rows
 * past its failure. */
typedef struct picard_record {
	long every;          /* window period (>= 1), or 0 with times */
	int traj_stride;     /* trajectory period (>= 1) */
	double *states;      /* caller's buffer, see picard_record_size() */
	const double *times; /* dense output: ntimes times, or NULL */
	long ntimes;         /* number of times (>= 1 with times) */
} picard_record;

/* Per-trajectory outcome. */
typedef enum picard_traj_status {
	PICARD_TRAJ_OK = 0,
	PICARD_TRAJ_NONFINITE = 1, /* NaN or Inf appeared */
	PICARD_TRAJ_DIVERGED = 2,  /* |x| grew past options.bound */
	PICARD_TRAJ_NOT_CONVERGED = 3, /* a window's iteration did not converge
					  (adaptive: within K_max; fixed K: not
					  contracting); it went on */
	PICARD_TRAJ_TOL_EXCEEDED = 4,  /* finite and converged, but its error
					  (checked against the reference, or
					  estimated) exceeds the tolerance
					  asked for: set by picard_check_each
					  and the programs, never by
					  picard_solve */
	PICARD_TRAJ_STEP_UNDERFLOW = 5, /* an adaptive step fell below 16 eps
					  |t| (a singularity, or a blow-up
					  whose trial steps went non-finite
					  reads NONFINITE); it stopped */
	PICARD_TRAJ_MAX_STEPS = 6,     /* an adaptive trajectory tried K_max
					  steps before t1; it stopped */
	PICARD_TRAJ_LINSOLVE_FAILED = 7, /* a linear solve of an implicit stage
					  failed (singular, not SPD for cg, not
					  converged within linsolve_maxit): it
					  stopped; picard_error_detail() after
					  picard_solve names the first */
	PICARD_TRAJ_IMPLAUSIBLE = 8,   /* a window's iteration converged to
					  states that are no solution's: its
					  nodes' slopes would move it far more
					  than it moved (src/window_plausible.h:
					  a non-L-stable collocation's ghost of
					  a stiff component, a window across a
					  pole); the window is too long there.
					  It stopped, as a diverged one does */
	PICARD_TRAJ_CHECK_FAILED = 9,  /* finite and converged, but checked
					  against the reference its error is far
					  above what the run's own settings
					  promised (picard-run --check without
					  a tolerance; README, "--check alone");
					  set by the programs, never by
					  picard_solve */
	PICARD_TRAJ_EVENT = 10,        /* a terminal event stopped it: its
					  final state is the state there, the
					  time picard_solver_fail_times()'s;
					  not a failure */
	PICARD_TRAJ_EVENT_LIMIT = 11,  /* more events than the model's limit,
					  or an event firing again within its
					  minimum spacing (chattering): it
					  stopped there */
	PICARD_TRAJ_EVENT_FAILED = 12, /* an event function was not finite on
					  an accepted step (its crossings
					  cannot be told): it stopped */
} picard_traj_status;

/* "ok", "nonfinite", "diverged", "not-converged", "tol-exceeded",
 * "step-underflow", "max-steps", "linsolve-failed", "implausible",
 * "check-failed", "event", "event-limit", "event-failed"; "unknown" for
 * anything else. */
const char *picard_traj_status_name(picard_traj_status status);

/* What a solve did, for the summary. */
typedef struct picard_stats {
	double solve_seconds;   /* the solve alone (CUDA events on the GPU) */
	long failed;            /* trajectories with a non-OK status */
	long windows;           /* windows per trajectory */
	double sweeps_mean;     /* sweeps per window, mean over the ensemble */
	int sweeps_max;         /* most sweeps any window took */
	double rhs_evals;       /* right-hand side evaluations, all together */
	long chunks;            /* device launches the ensemble took (1 unless
				   it did not fit device memory at once) */
	double estimate_seconds; /* the error estimate's companion solve and
				   comparison (wall clock), 0 without one */
	char device[128];       /* "NVIDIA H100 80GB HBM3" or "CPU (N threads)" */
	picard_backend backend; /* the backend that ran (never AUTO) */
	long launches;          /* kernels the solve launched (0 on the CPU):
				   one a chunk where a scheme iterates on the
				   device, more where it returns to the host
				   between windows or iterations */
	long host_waits;        /* times the host waited for the device */
} picard_stats;

typedef struct picard_solver picard_solver;

/* Make a solver for ntraj trajectories of model; all device memory is
 * allocated here, once. Fails with EINVAL on bad options, ENODEV, EBLOCK,
 * ESHMEM, ENOMEM (the ensemble does not fit the device). */
int picard_solver_create(picard_solver **out, const picard_model *model,
			 const picard_options *options, long ntraj);
void picard_solver_free(picard_solver *solver);
/* The grid in use. */
const picard_grid *picard_solver_grid(const picard_solver *solver);
/* Doubles needed by a record of the solver's grid and ensemble (of a
 * batch, where the solver holds one: options.batch). */
size_t picard_record_size(const picard_solver *solver,
			  const picard_record *record);
/* The window of grid that holds time t (0-based): the first whose end is
 * >= t, so a window end belongs to the window it ends; times before t0
 * give 0, past t1 the last window. The rule dense output uses. */
long picard_grid_window(const picard_grid *grid, double t);

/* Integrate. x0: ntraj*dim initial states, row per trajectory. params:
 * ntraj*nparams, row per trajectory, or NULL for the model's defaults.
 * x_final: ntraj*dim end states (may be NULL). status: ntraj entries (may
 * be NULL), fail_window: ntraj entries, the window where a trajectory
 * failed (for NOT_CONVERGED: the first window that did not converge), -1
 * if it did not (may be NULL); where in it: picard_solver_fail_times().
 * records: 0..2 window-end records. Returns PICARD_EFAILED (results still
 * written) when any trajectory failed. */
int picard_solve(picard_solver *solver, const double *x0,
		 const double *params, double *x_final,
		 picard_traj_status *status, long *fail_window,
		 const picard_record *records, int nrecords,
		 picard_stats *stats);
/* The same for count trajectories (1 .. options.batch, at most ntraj) of
 * a solver made with a batch: x0, params, the results and the records
 * (picard_record_size: of a full batch) hold count; the estimates and
 * failing times of this solve are count long. A record's traj_stride
 * counts from the batch's first trajectory. picard_solve on a solver
 * whose batch is less than ntraj fails with PICARD_EINVAL. */
int picard_solve_batch(picard_solver *solver, long count, const double *x0,
		       const double *params, double *x_final,
		       picard_traj_status *status, long *fail_window,
		       const picard_record *records, int nrecords,
		       picard_stats *stats);

/* Per-member time spans (as MPGOS's TimeDomain per system, DiffEqGPU's
 * tspan per problem): member i of the following solves integrates from
 * t0[i] to t1[i], its final state (x_final) at t1[i], or at its terminal
 * event or failure as ever. count: the members of those solves (a
 * picard_solve's ntraj, a picard_solve_batch's count; a solve of another
 * count is refused). t0 NULL: every member starts at the grid's t0; t1
 * NULL: every member ends at the grid's t1; both NULL: the spans are
 * cleared (the grid's for all). Copied: the caller's arrays may go.
 * Each span finite with t1[i] > t0[i], else PICARD_EINVAL naming the
 * member ("t1[12] = 0.5 is not after t0[12] = 1"): an empty span has no
 * step to take, and the start state is already the caller's. A refused
 * call leaves no spans set.
 * What follows a member's own span:
 * - its steps, as many windows as the grid has over its own span (the
 *   grid's windows, each (t1[i] - t0[i]) / windows long: a record of
 *   window ends keeps member i's at t0[i] + (w+1)(t1[i]-t0[i])/windows),
 *   its adaptive first step and max-steps (K_max) over its own span;
 * - a record of times keeps absolute times, which may then lie anywhere
 *   (finite, non-decreasing): a time outside a member's span leaves its
 *   row unwritten (NaN), never extrapolated;
 * - events are located as on a shared span.
 * Only the per-thread schemes take them (picard_scheme_type's
 * per_member_spans: dp5, dp8, vern9, radau5 and the Rosenbrock schemes);
 * others, and a solver with the error estimate (its companion solves on
 * the grid's span), are refused with PICARD_EINVAL. picard_check compares
 * on the grid's span; picard_check_each on the members' own, given them
 * (picard_check_options' span_t0, span_t1). */
int picard_solver_set_spans(picard_solver *solver, long count, const double *t0,
			    const double *t1);

/* The error estimates of the last picard_solve, one per trajectory, when
 * options.estimate_error was set (else NULL): each the largest scaled
 * error (options.error_scale) of the solve's window-end states against a
 * companion solve in double on a finer grid: the trapezoid scheme at h/2
 * (Richardson: the difference times 2, a bound for any order >= 1), the
 * lobatto scheme at H/2 with a 100 times tighter iteration tolerance (the
 * difference itself: the companion's error is 2^(2m-2) times smaller).
 * NaN where the trajectory or its companion failed: no estimate. */
const double *picard_solver_error_estimates(const picard_solver *solver);

/* Where each trajectory of the last picard_solve failed, 2 entries per
 * trajectory: [2i] the start and [2i+1] the end of the step that failed
 * (the per-thread schemes dp5, dp8, vern9, radau5, rodas5p, rodas4,
 * ros23: the step at which a
 * state went non-finite or past the bound, or could not be taken), or of
 * its failing window (fail_window) for the other schemes; NaN for a
 * trajectory that did not fail. A per-thread scheme's record of times
 * holds the solution at the times up to [2i] and NaN after (a window
 * scheme's: the solution before its failing window). Valid until the
 * next solve or picard_solver_free. */
const double *picard_solver_fail_times(const picard_solver *solver);

/* The event log of the last solve of a model with events: per member, its
 * first `capacity` events in time order (several at one time: in index
 * order). Entry j of member i is at [i * capacity + j]. A terminal event
 * is logged; a crossing that stops a member with EVENT_LIMIT is not (it
 * did not act): picard_solver_fail_times() has its time. */
typedef struct picard_event_log {
	long ntraj;            /* members of the last solve */
	int dim;               /* components of a state */
	int capacity;          /* entries kept per member */
	const int *count;      /* ntraj: events the member had; past capacity
				  (overflow: count - capacity) not kept */
	const int *index;      /* ntraj * capacity: which event, 0 .. nevents-1 */
	const double *time;    /* ntraj * capacity: when */
	const double *before;  /* ntraj * capacity * dim: the state at the
				  event, before its action */
	const double *after;   /* the same after it (a jump's result; the
				  same state for record and terminate) */
} picard_event_log;

/* The log of the last solve, or NULL for a model without events (valid
 * until the next solve or picard_solver_free). */
const picard_event_log *picard_solver_event_log(const picard_solver *solver);

/* ---- Ensembles -------------------------------------------------------- */

/* ntraj initial states spread uniformly around center (dim components):
 * x[i][k] = center[k] * (1 + spread * (2u - 1)), u from cuRAND's Philox
 * generator with seed. The numbers are the same on the device and on the
 * host; backend says which generates them (AUTO: the host, on its cores,
 * which into host memory is faster than the device and a copy). */
int picard_ensemble_spread(int dim, const double *center, long ntraj,
			   double spread, unsigned long long seed,
			   picard_backend backend, double *x0);

/* An ensemble of model: parameters and start states per trajectory.
 * Parameter q is spread like the states by param_spreads[q] (a 0 entry, or
 * param_spreads NULL: every trajectory at the default), drawing with seed
 * + 1 + q; each start state is then picard_model_start() of the
 * trajectory's own parameters, spread by `spread` with seed (the numbers
 * picard_ensemble_spread gives). x0: ntraj*dim; params: ntraj*nparams,
 * always filled when given (each row the defaults where nothing is
 * spread), or NULL when no parameter is spread (the defaults apply). */
int picard_ensemble_model(const picard_model *model, long ntraj, double spread,
			  const double *param_spreads, unsigned long long seed,
			  picard_backend backend, double *x0, double *params);

/* ---- Checking against a reference ------------------------------------ */

/* GSL gsl_odeiv2 rk8pd in double with rtol = atol = 1e-12, the reference the
 * paper's Runge-Kutta-Merson played: one trajectory from x0 at t0 to each
 * of ntimes increasing times; out: ntimes*dim states. A stiff model
 * (model->stiff), or a trajectory on which rk8pd's step turns out to be
 * held by stability, is integrated by GSL's implicit msbdf with the
 * model's Jacobian instead, at 1e-14 (src/reference.c: why, and how
 * accurate). */
int picard_reference(const picard_model *model, const double *params,
		     const double *x0, double t0, const double *times,
		     long ntimes, double *out);

/* Agreement of a solve with the reference. */
typedef struct picard_check_result {
	double error;       /* the paper's E: max |x - x_ref| over all checked
			       window ends and components */
	double rel_error;   /* max over checked points of
			       max_k |x - x_ref| / max_k |x_ref| */
	long worst_traj;    /* trajectory where E is reached */
	long worst_window;  /* window (0-based) at whose end E is reached;
			       for a record of times, the row (the index of
			       the time); -1 where E is a state after an
			       event (a model with events) */
	long checked_traj;  /* trajectories compared */
	long points;        /* window-end states compared */
	long nonfinite;     /* compared states that were NaN/Inf (E is Inf) */
	long outside_span;  /* states a record holds at times outside their
			       member's own span (picard_check_options'
			       spans), where a solve writes none (NaN):
			       the solve's defect, each an infinite error
			       (E, the scaled error and traj_error Inf) */
	double scaled_error; /* picard_check_each: max of the slots' scaled
				errors (its options' tolerance) */
	long ref_failed;    /* picard_check_each with keep_going: slots whose
			       reference failed (their error is NaN) */
	long first_ref_failed; /* the first such trajectory, or -1 */
	/* A model with events (picard_check_each given the solve's log):
	 * each member's events against the reference's, which locates the
	 * same events; the states are compared at the record times up to
	 * where the member or its reference stopped, whichever is sooner. */
	long events;        /* events compared (kept in both logs) */
	double event_error; /* the largest |t - t_ref| of an event */
	double event_scaled_error; /* the largest |t - t_ref| / (atol + rtol
			       |t_ref|) under the options' tolerance: an
			       event's time scaled as a state's component
			       is; also in scaled_error and traj_error */
	long worst_event_traj; /* trajectory where event_error is reached */
	long event_mismatch; /* members whose events differ from the
			       reference's in number, index or how the member
			       ended (their traj_error is +Inf) */
	long first_event_mismatch; /* the first such trajectory, or -1 */
	char event_detail[200]; /* its difference in words: "member 12: 19
			       events, the reference 20" */
	/* Who judged: GSL's rk8pd (msbdf where stiff), unless a trajectory's
	 * measured rk8pd error was not below what the check needs; then
	 * Gauss-Legendre collocation of order 16 in binary128 (gauss16)
	 * judged it, as far as the model has a binary128 rhs. */
	long judged_gauss;  /* trajectories gauss16 judged */
	double judge_error; /* the largest own error of the references that
			       judged, as measured (0: not measured) */
} picard_check_result;

/* Compare a record of a solve (every-th window ends of grid, or its
 * times; trajectories i % traj_stride == 0) against picard_reference() on
 * the same initial states (x0, params: as given to picard_solve). Threads
 * over trajectories. A model with events: the reference locates them
 * (rk8pd, by the engine's rules), and the states are compared up to where
 * it stopped; picard_check_each, given the solve's log, compares the
 * events too. */
int picard_check(const picard_model *model, const picard_grid *grid,
		 long ntraj, const double *x0, const double *params,
		 const picard_record *record, picard_check_result *result);

/* How picard_check_each compares, and what it returns per trajectory. */
typedef struct picard_check_options {
	picard_tolerance tol; /* scale of the scaled errors (both 0: absolute
				 errors) */
	double *traj_error;   /* per record slot (trajectory s*traj_stride),
				 or NULL: the largest scaled error over the
				 slot's points; +Inf where a state is not
				 finite, NaN where the reference failed */
	bool keep_going;      /* a failed reference marks its slot NaN and
				 counts in ref_failed; the others are still
				 compared (else it fails the whole check) */
	long first;           /* the index of x0's first trajectory in the
				 messages (0): a batch's of its ensemble */
	/* A model with events: the solve's log (picard_solver_event_log),
	 * its statuses and fail times (picard_solver_fail_times), of all
	 * ntraj trajectories; required then. */
	const picard_event_log *events;
	const picard_traj_status *status;
	const double *fail_times;
	/* The members' own spans, as given to picard_solver_set_spans (of
	 * all ntraj; either NULL: the grid's t0, t1). Each member's reference
	 * starts at its own t0; window ends are its own (t0 + (w+1) (t1 -
	 * t0) / windows); of a record of times, the rows within [t0, t1] are
	 * compared and those outside must be NaN (outside_span); a model's
	 * events are located on its span. */
	const double *span_t0, *span_t1;
} picard_check_options;

/* picard_check, trajectory by trajectory: the same comparison, each
 * slot's scaled error under options->tol into traj_error, and with
 * keep_going a failed reference (a trajectory whose solution blows up)
 * reported per slot instead of failing the check; the detail of the first
 * failure is picard_error_detail() after the call, naming the trajectory
 * and the time where rk8pd stopped. */
int picard_check_each(const picard_model *model, const picard_grid *grid,
		      long ntraj, const double *x0, const double *params,
		      const picard_record *record,
		      const picard_check_options *options,
		      picard_check_result *result);

/* The check of a part of an ensemble (a batch, a rank's share), its
 * trajectories counted from first, into the whole's total: counts added,
 * the largest errors and where E is reached kept (NaN is the largest),
 * the first failed reference kept. A total that has checked nothing yet
 * (all zero, places -1: PICARD_CHECK_NONE) takes the part's errors. */
void picard_check_merge(picard_check_result *total, const picard_check_result *part,
			long first);
#define PICARD_CHECK_NONE \
	((picard_check_result){.worst_traj = -1, .worst_window = -1, .first_ref_failed = -1, \
			       .worst_event_traj = -1, .first_event_mismatch = -1})

/* ---- Tolerance search --------------------------------------------------- */

/* One evaluated configuration of the search. */
typedef struct picard_tune_point {
	picard_scheme scheme; /* trapezoid, or lobatto (then K is K_max,
			      sweeps are adaptive, windows start warm), or
			      a per-thread Runge-Kutta pair (m 2; iter_rtol
			      0: fixed steps of h, K of them per window, one
			      window over the span as tuned; else adaptive
			      at that local tolerance, K its K_max, h the
			      output interval) */
	int m, K;          /* nodes and sweeps per window */
	double h;          /* node spacing in use (fitted to whole windows);
			      lobatto: the mean spacing, window (m-1) h */
	double iter_rtol;  /* lobatto: the window's convergence tolerance
			      (0: the default) */
	long windows;      /* windows over the span */
	double error;      /* E on the sample, at every window end; +Inf when a
			      trajectory failed (diverged, NaN) */
	double scaled_error; /* the largest scaled error there under the
			      search's (tol, rtol): E / tol when rtol is 0 */
	double seconds;    /* predicted solve time of the whole ensemble, 0
			      when not costed: its right-hand side
			      evaluations times what one costs the scheme
			      at m under the layout, timed once on this
			      device and cached (the same search then picks
			      the same point: issue 34) */
	double rhs_evals;  /* right-hand side evaluations per trajectory:
			      of the sample's solve, then of the ensemble's */
	bool meets;        /* scaled_error <= 0.8: a margin, since
			      trajectories outside the sample may do a
			      little worse */
	long sample_meeting; /* sampled members whose own scaled error is
			      within that margin */
	picard_layout layout; /* layout of the timed solve (the fastest of
				 those that apply); AUTO when not timed */
	int traj_per_block;   /* its trajectories per block (0: auto) */
	int block;            /* newton: windows iterated together; else 0 */
} picard_tune_point;

#define PICARD_TUNE_MAX_M 16

/* What to search. A zero field means its default. */
typedef struct picard_tune_options {
	double tol;                  /* E*, required (> 0) */
	picard_scheme scheme;        /* trapezoid (m, K, h), lobatto (m, the
					window, the iteration tolerance) or a
					per-thread pair (fixed steps h, or
					adaptive local tolerances) */
	picard_precision precision;  /* of the solves */
	picard_backend backend;      /* where to solve and time */
	double t0, t1;               /* span (both 0: the model's) */
	long ntraj;                  /* ensemble that is timed (8192) */
	long sample;                 /* trajectories whose E is measured (32) */
	double spread;               /* ensemble spread, as picard-run (0.1) */
	unsigned long long seed;     /* ensemble seed (1) */
	int kmax;                    /* K = 1 .. kmax (9) */
	int nms;                     /* number of m candidates (0: 4, 8, ..., 256) */
	int ms[PICARD_TUNE_MAX_M];   /* the m candidates */
	int repeats;                 /* timed solves per winner, median (5) */
	long max_windows;            /* smallest h: span / ((m-1) max_windows)
					(100000) */
	double rtol;                 /* relative part of the bound: a point
					meets it when every sampled state's
					scaled error under (tol, rtol) is
					within the margin (0: tol is absolute,
					the paper's E*) */
	/* The ensemble to tune on, as the run will solve it (rows of dim
	 * states and nparams parameters; params may be NULL: the defaults),
	 * or x0 NULL: spread around the model's start by spread and seed.
	 * The sample is all of it when it has at most `sample` rows, else
	 * the rows holding the smallest and largest value of every column,
	 * then rows evenly spaced; the timed ensemble is its first ntraj
	 * rows (repeated when it has fewer). */
	const double *x0;
	const double *params;
	long nstates;                /* rows of x0 (and params) */
	/* Called for every evaluated point (progress, CSV), may be NULL:
	 * once when its E is measured (seconds 0), and once more with its
	 * time when it is timed on the ensemble. */
	void (*on_point)(const picard_tune_point *point, void *ctx);
	/* Called when an m candidate's search is done (progress), may be
	 * NULL: its fastest point meeting tol, or meets false and error the
	 * smallest E reached at that m (+Inf: every point failed). */
	void (*on_candidate)(const picard_tune_point *fastest, void *ctx);
	void *ctx;                   /* passed to on_point, on_candidate */
	/* A predicted time already reached (another scheme's best; 0: none):
	 * the search stops making h smaller once a point's predicted time
	 * is TUNE_BEAT_FACTOR times this or the search's own best, which no
	 * smaller h can beat. */
	double seconds_to_beat;
	/* Where the per-evaluation costs are kept: the model, precision and
	 * device of this key, the ensemble size ntraj (NULL: timed in this
	 * search alone, not kept). */
	const struct picard_tune_key *cost_key;
	/* Wall-clock seconds the search may take (0: no limit): past them it
	 * evaluates no further point and returns the fastest found so far
	 * (result.stopped says so; PICARD_ENOTFOUND when none met tol). A
	 * point under way when the time runs out is finished. */
	double seconds_limit;
	/* picard-run's quick search: on the CUDA backend only the kernels
	 * quick to compile (src/scheme.h, quick_compiles) are searched */
	bool quick;
} picard_tune_options;

/* The outcome of a search. */
typedef struct picard_tune_result {
	picard_tune_point best;      /* fastest point meeting tol */
	int nm;                      /* m candidates tried */
	picard_tune_point per_m[PICARD_TUNE_MAX_M]; /* fastest of each m;
					meets = false when none met tol
					(error: the smallest E reached) */
	double best_error;           /* smallest E reached by any point */
	double refused_error;        /* smallest E of a point refused by a
					rule other than E > E* (Inf: none) */
	const char *refused_by;      /* that rule, as a sentence to quote
					(NULL: none): the margin, the
					neighbours' confirmation, a member
					outside the sample failing */
	double reference_error;      /* interpolation error of the dense
					reference, the floor of measurable E */
	long points;                 /* configurations evaluated */
	long sample_dropped;         /* sampled members whose reference fails
					(they blow up inside the span): not
					tuned for */
	long sample_stiff;           /* sampled members that are stiff: the
					model is declared so, or the
					reference's rk8pd found its step held
					by stability */
	long sample_unverified;      /* sampled members whose reference's own
					error is not below tol: left out of
					the search (not all of them; then
					the search refuses naming it), judged
					by their error estimates in the run */
	long costs_timed;            /* per-evaluation costs timed by this
					search (the others read from the
					cache under cost_key) */
	long costs_not_kept;         /* of those, costs the cache could not
					store: a later search times them
					again and may choose otherwise */
	/* the point closest to meeting the tolerance: the most sampled
	 * members within the margin, then the smallest scaled error
	 * (scaled_error +Inf: no point was finite). Where nothing meets it
	 * on every sampled member, picard-run solves with it and judges
	 * member by member */
	picard_tune_point closest;
	bool stopped;                /* seconds_limit ran out before every
					candidate was searched: best is the
					fastest found until then */
} picard_tune_result;

/* Search m, K and h for the fastest configuration whose measured E meets
 * tol: for each (m, K) the largest h meeting tol (a search on log h that
 * confirms its neighbours), its time predicted on the whole ensemble from
 * its counted right-hand side evaluations and the cost of one (timed once
 * per scheme, m and layout, and cached under cost_key): the same search
 * on the same machine picks the same point. The reference on
 * the sample is integrated once (GSL rk8pd, dense, cubic Hermite) and
 * reused for every point. PICARD_ENOTFOUND when nothing meets tol (result
 * still filled: best_error says how close it came). */
int picard_tune(const picard_model *model, const picard_tune_options *options,
		picard_tune_result *result);

/* Compile first, in parallel, what the n searches (one picard_tune each,
 * as options would run them) would otherwise compile one after the other
 * on first use: on the CUDA backend each candidate's kernels (NVRTC,
 * cached on disk), on the CPU backend a model file's host side of each
 * per-thread Runge-Kutta scheme. *prepared (may be NULL): how many.
 * Optional: a search that follows finds them compiled. */
int picard_tune_prepare(const picard_model *model, const picard_tune_options *searches, int n,
			int *prepared);

/* Whether point p's predicted time is below best's by the search's margin
 * (10%): a later point replaces an earlier one only then, so that the
 * earlier (a larger h, a cheaper search) wins near-ties. */
bool picard_tune_faster(const picard_tune_point *p, const picard_tune_point *best);
/* Whether point p comes closer to the tolerance than q: more sampled
 * members within the margin, or as many and a smaller scaled error (the
 * order of picard_tune_result.closest). */
bool picard_tune_closer(const picard_tune_point *p, const picard_tune_point *q);

/* ---- Tuning cache ---------------------------------------------------------- */

/* What a cached tuning result is valid for. */
typedef struct picard_tune_key {
	const char *model;           /* model name */
	picard_precision precision;  /* of the solves */
	double tol;                  /* E*, the absolute part */
	double t0, t1;               /* span */
	const char *device;          /* device name (picard_stats.device) */
	double rtol;                 /* the relative part (0: absolute) */
	/* The ensemble tuned on: "default" for picard-tune's (spread 0.1
	 * around the model's start, seed 1, no parameter spread), else an
	 * identity of the run's ensemble (picard_ensemble_id); NULL reads as
	 * "default". An entry is returned only for its own ensemble. */
	const char *ensemble;
	/* The ensemble size timed: the fastest scheme changes with it (a
	 * per-thread scheme once the ensemble fills the GPU), so an entry
	 * serves ensembles of its power-of-two size class, picard_tune_class
	 * (0: any, as entries from before this field). */
	long ntraj;
} picard_tune_key;

/* The size class of an ensemble of ntraj trajectories: floor(log2 ntraj),
 * 0 for ntraj <= 1. */
int picard_tune_class(long ntraj);

/* An identity of an ensemble for the cache key: "default", or a 64-bit
 * FNV-1a hash of the states and parameters in hex ("ens-0123456789abcdef")
 * into buf (at least 24 bytes). */
void picard_ensemble_id(const double *x0, const double *params, long ntraj,
			int dim, int nparams, char *buf, size_t len);

/* The cache file: $PICARD_CACHE_DIR/tune.txt, else
 * $XDG_CACHE_HOME/picard/tune.txt, else ~/.cache/picard/tune.txt. */
int picard_tune_cache_path(char *buf, size_t len);
/* Look key up (same build of picard only). 0 and *point filled when found,
 * PICARD_ENOTFOUND when absent; malformed lines are skipped with a warning
 * on stderr, never fatal. */
int picard_tune_cache_load(const picard_tune_key *key, picard_tune_point *point);
/* Add or replace the entry for key (the file is rewritten atomically). */
int picard_tune_cache_store(const picard_tune_key *key,
			    const picard_tune_point *point);
/* The build identifier stored with cache entries. */
const char *picard_build_id(void);

/* ---- Devices ---------------------------------------------------------- */

/* True when a usable CUDA device is present (never aborts without one). */
bool picard_cuda_available(void);
/* Name of CUDA device 0 into buf, or an error code. */
int picard_cuda_device_name(char *buf, size_t len);
/* Start the CUDA runtime and device 0's context now, which takes the
 * first CUDA call of a process a few hundred ms, so that a program can
 * overlap that with host work by calling this on a thread of its own.
 * Does nothing without a device. */
void picard_cuda_warm_up(void);
/* The CUDA runtime picard was built with and the CUDA version the driver
 * supports, as CUDA encodes them (1000 major + 10 minor: 13000 is 13.0);
 * *driver 0 when no driver is installed. */
void picard_cuda_versions(int *runtime, int *driver);

/* ---- Version ------------------------------------------------------------ */

#define PICARD_VERSION "0.15.0"
/* PICARD_VERSION of the library linked (the header's may differ). */
const char *picard_version(void);

/* ---- Names ------------------------------------------------------------ */

/* "auto", "paper", "warp", "thread"; NULL for an unknown layout. */
const char *picard_layout_name(picard_layout layout);
/* The layout named name, or -1. */
int picard_layout_parse(const char *name);
/* "auto", "parallel", "serial"; NULL for an unknown scan. */
const char *picard_scan_name(picard_scan scan);

#ifdef __cplusplus
}
#endif

#endif /* PICARD_H */
