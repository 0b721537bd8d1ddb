/* flags.c - picard-run's command line, step 1 of options_parse: the table
 * of flags, each with a setter that reads its value strictly and checks its
 * range (parse.h walks the table), and the usage text made from it. Text
 * into values only; what needs the model, the span or several flags at once
 * waits for the later steps (options.c lists them). A flag that excludes one
 * given before it (--K after --K-max, --tol twice) is refused here, at its
 * place on the line. Both "--flag value" and "--flag=value" are accepted;
 * "--" ends the flags. */
#include <limits.h>
#include <string.h>

#include "cli/diag.h"
#include "cli/options.h"
#include "cli/parse.h"
#include "defaults.h"
#include "flags.h"

#define TRAJ_MAX (1L << 40)   /* a trillion: days of a GPU, in batches */
#define M_MAX (1 << 20)       /* keeps m*n and scratch sizes in range */
#define K_MAX 1000000

/* ---- setters, one per flag ---------------------------------------------- */

static int set_traj(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;

	opts->traj_given = true;
	return parse_long(flag, value, 1, TRAJ_MAX, &opts->traj);
}

static int set_scheme(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;

	opts->scheme_given = true;
	return cli_parse_scheme(flag, value, &opts->scheme);
}

static int set_window(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;

	opts->window_given = true;
	return parse_positive(flag, value, &opts->window);
}

static int set_m(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;
	long m = 0;
	int err = parse_long(flag, value, 2, M_MAX, &m);

	opts->m = (int)m;
	opts->m_given = true;
	return err;
}

static int set_K(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;
	long K = 0;
	int err = parse_long(flag, value, 1, K_MAX, &K);

	if (opts->K_max)
		return cli_error(CLI_EUSAGE, "%s %s: a fixed --K or an adaptive --K-max, not both",
				 flag, value);
	opts->K = (int)K;
	opts->K_given = true;
	return err;
}

static int set_K_max(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;
	long K = 0;
	int err = parse_long(flag, value, 1, K_MAX, &K);

	if (opts->K_given && !opts->K_max)
		return cli_error(CLI_EUSAGE, "%s %s: a fixed --K or an adaptive --K-max, not both",
				 flag, value);
	opts->K_max = (int)K;
	opts->K_given = true; /* the tuned K gives way to it too */
	return err;
}

static int set_warm_start(void *ctx, const char *flag, const char *value)
{
	(void)flag;
	(void)value;
	((struct run_options *)ctx)->warm_start = true;
	return 0;
}

static int set_verbose(void *ctx, const char *flag, const char *value)
{
	(void)flag;
	(void)value;
	((struct run_options *)ctx)->verbose = true;
	return 0;
}

static int set_iter_rtol(void *ctx, const char *flag, const char *value)
{
	return parse_positive(flag, value, &((struct run_options *)ctx)->iter_rtol);
}

static int set_iter_atol(void *ctx, const char *flag, const char *value)
{
	return parse_positive(flag, value, &((struct run_options *)ctx)->iter_atol);
}

static int set_h(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;

	opts->h_given = true;
	return parse_positive(flag, value, &opts->h);
}

static int set_t0(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;

	opts->t0_given = true;
	return parse_double(flag, value, &opts->t0);
}

static int set_t1(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;

	opts->t1_given = true;
	return parse_double(flag, value, &opts->t1);
}

static int set_precision(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;

	opts->precision_given = true;
	return parse_precision(flag, value, &opts->precision);
}

static int set_backend(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;

	return parse_backend(flag, value, &opts->backend);
}

static int set_layout(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;
	int layout = picard_layout_parse(value);

	if (layout < 0)
		return cli_error(CLI_EUSAGE, "%s '%s': expected auto, paper, warp or thread",
				 flag, value);
	opts->layout = (picard_layout)layout;
	opts->layout_given = true;
	return 0;
}

static int set_repeat(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;
	long n = 0;
	int err = parse_long(flag, value, 1, RUN_REPEAT_MAX, &n);

	opts->repeat = (int)n;
	return err;
}

static int set_batch(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;

	return parse_long(flag, value, 1, LONG_MAX, &opts->batch);
}

static int set_traj_per_block(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;
	long n = 0;
	int err = parse_long(flag, value, 0, 1024, &n);

	opts->traj_per_block = (int)n;
	return err;
}

static int set_block(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;
	long n = 0;
	int err = parse_long(flag, value, 1, INT_MAX, &n);

	opts->block = (int)n;
	return err;
}

static int set_scan(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;

	if (strcmp(value, "auto") == 0)
		opts->scan = PICARD_SCAN_AUTO;
	else if (strcmp(value, "parallel") == 0)
		opts->scan = PICARD_SCAN_PARALLEL;
	else if (strcmp(value, "serial") == 0)
		opts->scan = PICARD_SCAN_SERIAL;
	else
		return cli_error(CLI_EUSAGE, "%s '%s': expected auto, parallel or serial", flag, value);
	return 0;
}

/* The first of the linear-solver flags given, for the messages that
 * refuse them. */
static void note_linsolve_flag(struct run_options *opts, const char *flag, const char *value)
{
	if (!opts->linsolve_flag[0])
		snprintf(opts->linsolve_flag, sizeof(opts->linsolve_flag), "%s %s", flag, value);
}

static int set_linsolve(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;
	int which = picard_linsolver_parse(value);

	if (which < 0)
		return cli_error(CLI_EUSAGE, "%s '%s': expected thomas, checkerboard, pcr, cusparse, "
				 "cg, bicgstab or auto", flag, value);
	opts->linsolve = (picard_linsolver)which;
	note_linsolve_flag(opts, flag, value);
	return 0;
}

static int set_precond(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;
	int which = picard_preconditioner_parse(value);

	if (which < 0)
		return cli_error(CLI_EUSAGE, "%s '%s': expected none, jacobi, neumann or auto", flag,
				 value);
	opts->precond = (picard_preconditioner)which;
	note_linsolve_flag(opts, flag, value);
	return 0;
}

static int set_linsolve_rtol(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;
	int err = parse_positive(flag, value, &opts->linsolve_rtol);

	if (!err && opts->linsolve_rtol >= 1)
		return cli_error(CLI_EUSAGE, "%s %s: must be < 1 (a relative residual)", flag, value);
	note_linsolve_flag(opts, flag, value);
	return err;
}

static int set_linsolve_maxit(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;
	long n = 0;
	int err = parse_long(flag, value, 1, INT_MAX, &n);

	opts->linsolve_maxit = (int)n;
	note_linsolve_flag(opts, flag, value);
	return err;
}

static int set_spread(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;
	int err = parse_double(flag, value, &opts->spread);

	opts->spread_given = true;
	if (!err && opts->spread < 0)
		return cli_error(CLI_EUSAGE, "%s %s: must be >= 0", flag, value);
	return err;
}

static int set_seed(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;

	opts->seed_given = true;
	return parse_seed(flag, value, &opts->seed);
}

/* NAME=X into list, as given: NAME and X are read against the model in
 * resolve.c. */
static int add_param_arg(const char *flag, const char *value, const char *example,
			 struct param_arg *list, int *count)
{
	if (*count == RUN_MAX_SPREAD_PARAMS)
		return cli_error(CLI_EUSAGE, "%s %s: at most %d of them", flag, value,
				 RUN_MAX_SPREAD_PARAMS);
	if (!strchr(value, '='))
		return cli_error(CLI_EUSAGE, "%s %s: expected %s", flag, value, example);
	list[(*count)++].arg = value;
	return 0;
}

static int set_spread_param(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;

	return add_param_arg(flag, value, "NAME=S, e.g. --spread-param e=0.2",
			     opts->spread_params, &opts->nspread_params);
}

static int set_param(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;

	return add_param_arg(flag, value, "NAME=V, e.g. --param mu=1000", opts->set_params,
			     &opts->nset_params);
}

static int set_init(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;

	return parse_path(flag, value, &opts->init_path);
}

static int set_out(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;

	return parse_path(flag, value, &opts->out_path);
}

static int set_events(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;

	return parse_path(flag, value, &opts->events_path);
}

static int set_event_log(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;
	long n = 0;
	int err = parse_long(flag, value, 1, 1000000, &n);

	opts->event_log = (int)n;
	return err;
}

static int set_save_every(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;

	return parse_positive(flag, value, &opts->save_every);
}

static int set_save_at(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;

	(void)flag;
	/* the times are read once the span is known: resolve.c */
	opts->save_at = value;
	return 0;
}

static int set_check(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;

	(void)flag;
	(void)value;
	opts->check = true;
	return 0;
}

static int set_check_traj(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;

	opts->check = true;
	return parse_long(flag, value, 0, LONG_MAX, &opts->check_traj);
}

static int set_tol(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;

	if (opts->tol_given && (opts->rtol > 0 || opts->tol > 0))
		return cli_error(CLI_EUSAGE, "%s %s: the tolerance is given already (--tol E is "
				 "--atol E; with --rtol, give --atol)", flag, value);
	opts->check = true;
	opts->tol_given = true;
	return parse_positive(flag, value, &opts->tol);
}

/* --atol A and --rtol R: |x_k - x_ref_k| <= A + R |x_ref_k| per component
 * (--tol E is --atol E alone); each implies --check. */
static int set_atol(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;

	if (opts->tol > 0)
		return cli_error(CLI_EUSAGE, "%s %s: the absolute tolerance is given already "
				 "(--tol E is --atol E)", flag, value);
	opts->check = true;
	opts->tol_given = true;
	return parse_positive(flag, value, &opts->tol);
}

static int set_rtol(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;

	if (opts->rtol > 0)
		return cli_error(CLI_EUSAGE, "%s %s: given twice", flag, value);
	opts->check = true;
	opts->tol_given = true;
	return parse_positive(flag, value, &opts->rtol);
}

static int set_bound(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;

	return parse_positive(flag, value, &opts->bound);
}

static int set_max_work(void *ctx, const char *flag, const char *value)
{
	return parse_positive(flag, value, &((struct run_options *)ctx)->max_work);
}

static int set_list(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;

	(void)flag;
	(void)value;
	opts->list = true;
	return 0;
}

static int set_describe(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;

	(void)flag;
	(void)value;
	opts->describe = true;
	return 0;
}

static int set_precompile(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;

	(void)flag;
	(void)value;
	opts->precompile = true;
	return 0;
}

static int set_list_schemes(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;

	(void)flag;
	(void)value;
	opts->list_schemes = true;
	return 0;
}

static int set_clear_cache(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;

	(void)flag;
	(void)value;
	opts->clear_cache = true;
	return 0;
}

static int set_help(void *ctx, const char *flag, const char *value)
{
	struct run_options *opts = ctx;

	(void)flag;
	(void)value;
	opts->help = true;
	return 0;
}

static const struct cli_flag flags[] = {
	{"--traj", "N", set_traj, "trajectories in the ensemble (default 8192; with --init: the file's rows)"},
	{"--scheme", "S", set_scheme, "trapezoid (the paper's, default), lobatto (Gauss-Lobatto collocation, order 2m-2), newton (the same collocation, Newton's method across windows), a per-thread Runge-Kutta pair: dp5, dp8 (DOP853), vern9, radau5 (implicit, for stiff models: a stiff model's default, in double), rodas5p, rodas4, ros23 (Rosenbrock: linearly implicit, for stiff models; ros23 for loose tolerances), newton-radau (Radau IIA across windows: a stiff model's few trajectories), imex-sdirk2, imex-euler (x' = A x + g: A implicit by linear solves, g by Picard sweeps; models with an operator, whose default is imex-sdirk2); --list-schemes says more"},
	{"--m", "M", set_m, "nodes per window, >= 2; lobatto: 2..32 (default 8, or tuned with --tol)"},
	{"--K", "K", set_K, "Picard sweeps per window, >= 1 (default 2, or tuned with --tol)"},
	{"--K-max", "K", set_K_max, "adaptive: sweep each window until it converges, at most K times"},
	{"--steps", "N", set_K, "the per-thread schemes (dp5, dp8, vern9, radau5, rodas5p, rodas4, ros23): N fixed steps per output interval, --h (default: the span; without --steps: adaptive steps)"},
	{"--max-steps", "N", set_K_max, "the per-thread schemes, adaptive: steps tried per trajectory at most (default 1000000); --iter-rtol/--iter-atol scale its local error (default 1e-6)"},
	{"--iter-rtol", "R", set_iter_rtol, "a window has converged when max |dx|/(A + R|x|) <= 1 (default 1e-5 float, 1e-9 double, at least 4 m eps; lobatto 1e-6, 1e-12); at least 2 eps, 2.4e-7 float, 4.4e-16 double (a change below it is rounding)"},
	{"--iter-atol", "A", set_iter_atol, "absolute part of that test (default: the model's default_atol where it declares one, as a chemistry model does, else R)"},
	{"--warm-start", NULL, set_warm_start, "start each window from the previous one's increments, not a constant"},
	{"--h", "H", set_h, "trapezoid: node spacing, > 0; shrunk so whole windows end at t1 (default: the model's, else 0.06; or tuned with --tol)"},
	{"--window", "H", set_window, "lobatto, newton, newton-radau: window length, > 0; shrunk so whole windows end at t1 (default span/200)"},
	{"--block", "N", set_block, "newton, newton-radau: windows iterated together, >= 1 (default 512); lobatto: windows swept at once, parallel in time, 1..16 (default 1: one after the other)"},
	{"--linsolve", "S", set_linsolve, "imex schemes: the linear solver of (I - gamma h A) y = r: thomas, checkerboard, pcr (tridiagonal: a 1D stencil; 2D by Peaceman-Rachford ADI), cusparse (the CUDA backend's), cg (symmetric A), bicgstab (default: thomas for a stencil, cg for a symmetric CSR operator, bicgstab otherwise)"},
	{"--precond", "P", set_precond, "imex schemes, cg and bicgstab: none, jacobi or neumann (default jacobi)"},
	{"--linsolve-rtol", "R", set_linsolve_rtol, "imex schemes, iterative solves (Krylov, ADI): stop at |r - M y| <= R |r| (default 1e-10)"},
	{"--linsolve-maxit", "N", set_linsolve_maxit, "imex schemes, iterative solves: iterations per solve at most, else the trajectory is linsolve-failed (default: Krylov 10 n + 100, ADI 500)"},
	{"--t0", "T", set_t0, "start time (default: the model's)"},
	{"--t1", "T", set_t1, "end time, > t0 (default: the model's)"},
	{"--precision", "P", set_precision, CLI_PRECISION_HELP},
	{"--backend", "B", set_backend, "auto, cuda or cpu; auto uses CUDA when a device is present (default auto)"},
	{"--layout", "L", set_layout, "CUDA thread layout: paper (a block of m*n threads per trajectory), warp (a lane per node, m <= 32), thread (a thread per trajectory, m <= 32; lobatto: m <= 16) or auto (default auto; with --tol: the tuned one); lobatto: warp or thread; rodas5p, rodas4, ros23: thread or warp (a warp per trajectory, its step in shared memory)"},
	{"--traj-per-block", "N", set_traj_per_block, "warp and thread layouts (lobatto: thread only): trajectories per block, 1..1024 (default 0: the layout's)"},
	{"--scan", "S", set_scan, "warp layout's prefix sum (5): parallel (Kogge-Stone), serial or auto (default auto: the faster for m)"},
	{"--spread", "S", set_spread, "initial states x0*(1 + S*(2u-1)), u uniform; 0: all equal to x0 (default 0.1)"},
	{"--param", "NAME=V", set_param, "parameter NAME's value V for the ensemble instead of the model's default (repeatable; --spread-param spreads around it)"},
	{"--spread-param", "NAME=S", set_spread_param, "parameter NAME per trajectory: default*(1 + S*(2u-1)) (repeatable; default: all at the defaults)"},
	{"--seed", "N", set_seed, "seed of cuRAND's Philox generator for --spread (default 1)"},
	{"--init", "FILE", set_init, "initial states [and parameters] per row: CSV/whitespace text, or raw float64 .bin; header columns t0 and t1: each member's own span (docs/models.md)"},
	{"--events", "FILE", set_events, "a model with events: write the event log (member, event, name, time, the state before and after) to FILE, .csv or .npy (default: beside --out FILE.EXT as FILE.events.EXT)"},
	{"--event-log", "N", set_event_log, "a model with events: log entries kept per member (default: the model's limit, at most 16); the members with more are listed"},
	{"--out", "FILE", set_out, "write the final states (or those at --save-every or --save-at times) to FILE.csv or FILE.npy"},
	{"--save-every", "DT", set_save_every, "with --out: the states at t0, t0+DT, t0+2DT, ... and t1 (interpolated, below)"},
	{"--save-at", "T1,...", set_save_at, "with --out: the states at these times only: comma separated, non-decreasing, within [t0, t1] (interpolated, below)"},
	{"--check", NULL, set_check, "compare with the GSL reference (rk8pd, rtol = atol = 1e-12; msbdf for a stiff model or where rk8pd is held by stability) at every window end; without --tol a member whose error is over 10 x (1 + its error estimate), in units of the iteration tolerance, or over |x_ref| + atol/rtol, is check-failed, exit 1"},
	{"--check-traj", "N", set_check_traj, "check at most N trajectories, evenly spaced; 0: all (default 1024; implies --check)"},
	{"--tol", "E", set_tol, "every trajectory called ok has |x - x_rk8pd| <= E at every window end (checked, or by its error estimate); others are tol-exceeded, exit 1 (implies --check); tunes m, K, h (below); at least 1.1e-14 (double), 2.4e-7 (float) times the largest |x0|"},
	{"--atol", "A", set_atol, "with --rtol: the absolute part of a tolerance |x_k - x_ref_k| <= A + R |x_ref_k| (--tol E is --atol E)"},
	{"--rtol", "R", set_rtol, "the relative part R of that tolerance (implies --check; tunes as --tol does)"},
	{"--bound", "B", set_bound, "a state with |x| > B has diverged (default 1e12)"},
	{"--max-work", "W", set_max_work, "the work a grid may fix, windows x sweeps (K or --K-max; --steps) x right-hand sides per sweep x n, per trajectory; a grid over it is refused before any work (default 1e8; adaptive dp5, dp8, vern9, radau5: --max-steps bounds theirs)"},
	{"--repeat", "N", set_repeat, "solve N times and report the median and min solve time besides the first (each solve the same, results from the last; default 1)"},
	{"--batch", "N", set_batch, "solve, check and write N trajectories at a time, so that host memory holds N, not the ensemble: the results are those of one solve (default: all at once, or batches within 2 GiB or an eighth of host memory for larger ensembles)"},
	{"--verbose", NULL, set_verbose, "say more: when the ensemble was solved in chunks to fit device memory, and where the run's time went (phases)"},
	{"--list", NULL, set_list, "list the registered models (or MODEL) and exit"},
	{"--list-schemes", NULL, set_list_schemes, "list the schemes, their orders and options, and exit"},
	{"--describe", NULL, set_describe, "print MODEL's description (equations, source, notes) and exit"},
	{"--precompile", NULL, set_precompile, "compile every kernel MODEL may run on this GPU (with --scheme: that scheme's) into the cache, in parallel, and exit"},
	{"--clear-cache", NULL, set_clear_cache, "remove what picard keeps in its cache directories (below): compiled kernels and models, the tuning cache, the quick search decisions; say what was removed and exit"},
	{"--help", NULL, set_help, "this text (also -h)"},
};

#define NFLAGS (sizeof(flags) / sizeof(flags[0]))

void options_usage(FILE *f)
{
	fprintf(f, "usage: picard-run MODEL [options]\n"
		   "       picard-run --list\n"
		   "       picard-run MODEL --describe\n\n"
		   "Integrate an ensemble of MODEL's initial-value problems by parallel-in-time\n"
		   "Picard iteration (Korobitsyn & Frolova 2011) on the GPU or the CPU.\n\n"
		   "options (--flag VALUE or --flag=VALUE):\n");
	cli_print_flags(f, flags, NFLAGS);
	fprintf(f, "\nWith --tol E and not all of --m, --K, --h given, the others come from the\n"
		   "tuning cache entry of picard-tune for this model, precision, E, time span\n"
		   "and device; without one a quick search (32 trajectories sampled, m up\n"
		   "to 32, K <= 4; every scheme that suits the model but newton, or the one\n"
		   "--scheme names) picks them. It picks by predicted time: counted\n"
		   "right-hand side evaluations times a cost per evaluation timed once per\n"
		   "scheme and m and kept in the tuning cache, so the same command on the\n"
		   "same machine picks the same. Its decision is kept too, keyed by the\n"
		   "model's text, the options, the ensemble and the device: the same command\n"
		   "again reuses it (and still checks every member). Given --m, --K or --h\n"
		   "always win.\n"
		   "\n--scheme lobatto: windows of length H (--window) with m nodes at the\n"
		   "Gauss-Lobatto-Legendre points (both ends included), each sweep\n"
		   "x_j = x_w + (H/2) sum_l S_jl f(t_l, x_l); converged it is Lobatto IIIA\n"
		   "collocation, order 2m-2. Defaults: m = 8, adaptive sweeps (--K-max 40;\n"
		   "--K K for a fixed count), H = span/200; --h does not apply (the grid's h\n"
		   "printed is the mean spacing H/(m-1)); --tol tunes m, the window and the\n"
		   "iteration tolerance (--window and --m given: checks E only).\n"
		   "Lower --window when windows do not converge.\n"
		   "\n--save-every and --save-at interpolate in the window that holds each time,\n"
		   "from its nodes, with no extra right-hand side evaluation: linear between\n"
		   "nodes under the trapezoid scheme (order 2, the scheme's own), the window's\n"
		   "collocation polynomial under --scheme lobatto. CSV rows t,traj,status,x1..xn\n"
		   "time by time; .npy shape (times, trajectories, n). A failed trajectory's\n"
		   "rows read nan after the start of the step that failed (the per-thread\n"
		   "schemes; stderr names it) or from its failing window on (other schemes).\n"
		   "\nWith --tol (or --atol/--rtol) the promise is per trajectory: the quick\n"
		   "search tunes on the run's own ensemble, each trajectory is checked against\n"
		   "rk8pd or carries an error estimate (a companion solve in double on a twice\n"
		   "finer grid), one over the tolerance is tol-exceeded, and members a tuned\n"
		   "grid missed are solved again on a finer one (up to 3 times). CSV rows end\n"
		   "in err,err_est, in units of the tolerance (<= 1 meets it). Where no grid\n"
		   "the quick search tries meets it on every sampled member, the closest runs\n"
		   "and the members that miss are tol-exceeded.\n"
		   "\n--check without a tolerance judges each checked member against what the\n"
		   "run promised: its error estimate (the same companion solve) in units of\n"
		   "the iteration tolerance, --iter-atol + --iter-rtol |x|. An error over\n"
		   "10 x (1 + the estimate), or over |x_ref| + atol/rtol (an answer off by\n"
		   "more than its own size), is check-failed; err,err_est in those units.\n"
		   "\nexit status: 0 success; 1 a library error, failed (non-finite, diverged,\n"
		   "implausible, ...) trajectories, a trajectory over --tol or check-failed,\n"
		   "no configuration coming near --tol, or an unwritten --out; 2 bad command\n"
		   "line or --init file, a grid over --max-work or a tolerance below the\n"
		   "precision's floor for every member (nothing was solved). SIGINT or\n"
		   "SIGTERM removes the temporary --out file.\n"
		   "\ncaches: the tuning cache (tune.txt) and the quick search decisions\n"
		   "(decisions/) in $PICARD_CACHE_DIR, else $XDG_CACHE_HOME/picard, else\n"
		   "~/.cache/picard; compiled kernels and models (kernels/, models/,\n"
		   "include/) in $PICARD_JIT_CACHE_DIR, else the same. --clear-cache removes\n"
		   "them all; deleting any of them is safe too.\n");
}

/* ---- the command line ---------------------------------------------------- */

/* The positional MODEL: there is exactly one. */
static int set_model_name(void *ctx, const char *arg)
{
	struct run_options *opts = ctx;

	if (opts->model_name)
		return cli_error(CLI_EUSAGE, "unexpected argument '%s': MODEL is already '%s'",
				 arg, opts->model_name);
	opts->model_name = arg;
	return 0;
}

int options_read(int argc, char **argv, struct run_options *opts)
{
	static const struct cli_command command = {
		.program = "picard-run", .flags = flags, .nflags = NFLAGS,
		.positional = set_model_name,
	};

	return cli_parse_args(&command, argc, argv, opts, &opts->help);
}
