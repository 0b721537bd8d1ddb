/* validate.c - the options checked against each other once every flag is
 * read and the defaults applied (see validate.h). A flag refused against
 * one given before it on the line (--K after --K-max, --tol twice) is its
 * setter's check, in flags.c. */
#include <string.h>

#include "cli/diag.h"
#include "cli/output.h"
#include "linsolve/implicit.h"
#include "scheme.h"
#include "tolerance.h"
#include "validate.h"

int cli_check_span(const picard_model *model, bool t0_given, double t0,
		   bool t1_given, double t1)
{
	if (t1 > t0)
		return 0;
	if (t0_given && t1_given)
		return cli_error(CLI_EUSAGE, "--t1 %.15g: must be greater than --t0 %.15g", t1, t0);
	if (t1_given)
		return cli_error(CLI_EUSAGE, "--t1 %.15g: must be greater than t0 = %.15g (%s's start)",
				 t1, t0, model->name);
	return cli_error(CLI_EUSAGE, "--t0 %.15g: must be less than t1 = %.15g (%s's end; give --t1)",
			 t0, t1, model->name);
}

int options_check_clear_cache(const struct run_options *opts)
{
	if (opts->model_name)
		return cli_error(CLI_EUSAGE, "--clear-cache takes no MODEL: it clears every model's "
				 "caches");
	return 0;
}

/* The linear-solver flags: only with a scheme that solves with the
 * model's operator, and what that operator takes. */
static int check_linsolve(const struct run_options *opts)
{
	const picard_scheme_type *scheme = picard_scheme_of(opts->scheme);
	char why[256];

	if (!scheme->takes_linsolve) {
		if (opts->linsolve_flag[0])
			return cli_error(CLI_EUSAGE, "%s: --scheme %s solves no linear systems (the "
					 "imex schemes take --linsolve, --precond, --linsolve-rtol "
					 "and --linsolve-maxit)", opts->linsolve_flag, scheme->name);
		return 0;
	}
	if (!opts->model->op)
		return cli_error(CLI_EUSAGE, "--scheme %s: model %s declares no linear operator (op): "
				 "the imex schemes need x' = A x + g", scheme->name,
				 opts->model->name);
	if (!picard_implicit_choose(opts->model->op, opts->linsolve, opts->precond, true, why,
				    sizeof(why)))
		return cli_error(CLI_EUSAGE, "%s (model %s)", why, opts->model->name);
	return 0;
}

/* The grid's flags against the scheme: the backend, --h or --window, m. */
static int check_scheme(const struct run_options *opts)
{
	const picard_scheme_type *scheme = picard_scheme_of(opts->scheme);
	const bool by_h = options_by_h(opts);

	if (opts->backend == PICARD_BACKEND_CUDA && !scheme->cuda)
		return cli_error(CLI_EUSAGE, "--backend cuda: --scheme %s has no CUDA side yet "
				 "(--backend cpu or auto runs it on the CPU)", scheme->name);
	if (opts->h_given && !by_h)
		return cli_error(CLI_EUSAGE, "--h %g: --scheme %s takes --%s",
				 opts->h, scheme->name, scheme->length_name);
	if (opts->window_given && by_h)
		return cli_error(CLI_EUSAGE, "--window %g: --scheme %s takes --h (its window is (m-1) h)",
				 opts->window, scheme->name);
	if (scheme->max_m && opts->m_given && opts->m > scheme->max_m)
		return cli_error(CLI_EUSAGE, "--m %d: --scheme %s takes 2..%d nodes", opts->m,
				 scheme->name, scheme->max_m);
	return 0;
}

/* --save-every and --save-at: one of them, with --out. */
static int check_saving(const struct run_options *opts)
{
	if (opts->save_every && opts->save_at)
		return cli_error(CLI_EUSAGE, "--save-at %s: --save-every %g or --save-at, not both",
				 opts->save_at, opts->save_every);
	if (opts->save_every && !opts->out_path)
		return cli_error(CLI_EUSAGE, "--save-every %g: needs --out FILE to write the states to",
				 opts->save_every);
	if (opts->save_at && !opts->out_path)
		return cli_error(CLI_EUSAGE, "--save-at %s: needs --out FILE to write the states to",
				 opts->save_at);
	return 0;
}

/* --init gives the members: the flags that would draw them are refused. */
static int check_init(const struct run_options *opts)
{
	if (!opts->init_path)
		return 0;
	if (opts->spread_given)
		return cli_error(CLI_EUSAGE, "--spread: not used with --init %s (the file gives the initial states)",
				 opts->init_path);
	if (opts->nspread_params)
		return cli_error(CLI_EUSAGE, "--spread-param %s: not used with --init %s (give the "
				 "parameters as columns of the file)", opts->spread_params[0].arg,
				 opts->init_path);
	if (opts->nset_params)
		return cli_error(CLI_EUSAGE, "--param %s: not used with --init %s (give the "
				 "parameters as columns of the file)", opts->set_params[0].arg,
				 opts->init_path);
	if (opts->seed_given)
		return cli_error(CLI_EUSAGE, "--seed: not used with --init %s (the file gives the initial states)",
				 opts->init_path);
	return 0;
}

/* --events and --event-log need a model that declares events; the log's
 * file is .csv or .npy. */
static int check_events(const struct run_options *opts)
{
	const picard_model *model = opts->model;
	enum output_format format;

	if (!model->events) {
		if (opts->events_path)
			return cli_error(CLI_EUSAGE, "--events %s: model %s declares no events",
					 opts->events_path, model->name);
		if (opts->event_log)
			return cli_error(CLI_EUSAGE, "--event-log %d: model %s declares no events",
					 opts->event_log, model->name);
		return 0;
	}
	if (opts->events_path && !output_format_of(opts->events_path, &format))
		return cli_error(CLI_EUSAGE, "--events %s: unknown extension, expected .csv or .npy",
				 opts->events_path);
	return 0;
}

int options_validate(const struct run_options *opts)
{
	int err;

	if (picard_iteration_check("--iter-rtol", opts->iter_rtol, opts->precision))
		return cli_error(CLI_EUSAGE, "%s", picard_error_detail());
	err = cli_check_span(opts->model, opts->t0_given, opts->t0, opts->t1_given, opts->t1);
	if (!err)
		err = check_linsolve(opts);
	if (!err)
		err = check_scheme(opts);
	if (!err)
		err = check_saving(opts);
	if (!err)
		err = check_init(opts);
	if (!err)
		err = check_events(opts);
	return err;
}
