/* options.c - picard-run's command line read in one pass of four steps,
 * each in its own file under options/: the text into values (flags.c), the
 * defaults of what was not given (defaults.c), the values checked against
 * each other (validate.c), and what they name read against the model and
 * the span (resolve.c). A command that lists, describes or clears stops
 * once it has what it needs. Then what the run reads from the options. */
#include <limits.h>
#include <string.h>

#include "options.h"
#include "options/defaults.h"
#include "options/flags.h"
#include "options/resolve.h"
#include "options/validate.h"
#include "parse.h"
#include "scheme.h"

int options_parse(int argc, char **argv, struct run_options *opts)
{
	int err;

	options_defaults(opts);
	err = options_read(argc, argv, opts);
	if (err || opts->help || opts->list_schemes)
		return err;
	if (opts->clear_cache) /* every model's caches: no model to read */
		return options_check_clear_cache(opts);
	if (opts->list && !opts->model_name)
		return 0;
	/* MODEL's name read into the model, as the other programs do */
	err = cli_find_model(opts->model_name, &opts->model);
	if (err || opts->list || opts->describe || opts->precompile)
		return err;
	options_defaults_from_model(opts);
	err = options_validate(opts);
	if (err)
		return err;
	return options_resolve(opts);
}

bool options_by_h(const struct run_options *opts)
{
	return strcmp(picard_scheme_of(opts->scheme)->length_name, "h") == 0;
}

int options_check_stride(const struct run_options *opts, long ntraj)
{
	long stride;

	if (opts->check_traj == 0 || opts->check_traj >= ntraj)
		return 1;
	stride = (ntraj + opts->check_traj - 1) / opts->check_traj;
	return stride > INT_MAX ? INT_MAX : (int)stride;
}

picard_options options_solver(const struct run_options *opts)
{
	const bool by_h = options_by_h(opts);
	const bool chosen = opts->tuned;
	/* what was not given (or tuned) is the scheme's own default: the
	 * library's, except the model's default h, which is the trapezoid's
	 * (picard_model.default_h); --steps N is N steps per output
	 * interval, --h (the span when not given) */
	const bool paper = opts->scheme == PICARD_SCHEME_TRAPEZOID;
	return (picard_options){
		.scheme = opts->scheme, .window = by_h ? 0 : opts->window,
		.m = opts->m_given || chosen || paper ? opts->m : 0,
		.K = opts->K_max || !(opts->K_given || chosen || paper) ? 0 : opts->K,
		.K_max = opts->K_max,
		.iter_rtol = opts->iter_rtol, .iter_atol = opts->iter_atol,
		.h = by_h && (opts->h_given || chosen || paper) ? opts->h : 0,
		.warm_start = opts->warm_start,
		.t0 = opts->t0, .t1 = opts->t1,
		.precision = opts->precision, .backend = opts->backend,
		.bound = opts->bound, .max_work = opts->max_work, .layout = opts->layout,
		.traj_per_block = opts->traj_per_block, .scan = opts->scan,
		.block = opts->block,
		.linsolve = opts->linsolve, .precond = opts->precond,
		.linsolve_rtol = opts->linsolve_rtol, .linsolve_maxit = opts->linsolve_maxit,
		.event_log = opts->event_log,
		/* --tol: every trajectory carries an estimate of its error; a
		 * model with events none (src/solve/solver.c, resolve_events),
		 * nor members on their own spans (the estimate's companion
		 * solves on the grid's): each member is checked against the
		 * reference instead */
		.estimate_error = opts->tol_given && !opts->model->events && !opts->spans,
		.error_scale = {.atol = opts->tol, .rtol = opts->rtol},
	};
}
