/* resolve.c - what picard-run's options name, read against the model and
 * the span (see resolve.h): the parameters of --param and --spread-param,
 * and the times of --save-at and --save-every (options_save_times lists
 * them for the run). */
#include <string.h>

#include "cli/diag.h"
#include "cli/parse.h"
#include "resolve.h"

#define SAVE_TIMES_MAX (1L << 40) /* more could not fit any memory */
#define SAVE_LAST_GAP 1e-9        /* of the span: a --save-every time this
				     close to t1 is t1 (rounding of i*DT) */

/* flag NAME=X (--spread-param, --param): NAME a parameter of the model,
 * each NAME once, X a number (a spread: >= 0). */
static int resolve_param_args(const struct run_options *opts, const char *flag,
			      struct param_arg *list, int count, bool spread)
{
	const picard_model *model = opts->model;

	for (int i = 0; i < count; i++) {
		struct param_arg *sp = &list[i];
		const char *eq = strchr(sp->arg, '=');
		size_t len = (size_t)(eq - sp->arg);
		int err;

		sp->index = -1;
		for (int q = 0; q < model->nparams; q++)
			if (strlen(model->param_names[q]) == len &&
			    strncmp(model->param_names[q], sp->arg, len) == 0)
				sp->index = q;
		if (sp->index < 0) {
			char names[256] = "";
			size_t used = 0;

			for (int q = 0; q < model->nparams && used < sizeof(names); q++)
				used += snprintf(names + used, sizeof(names) - used, "%s%s",
						 q ? ", " : "", model->param_names[q]);
			return cli_error(CLI_EUSAGE, "%s %s: %s has no parameter '%.*s' "
					 "(its parameters: %s)", flag, sp->arg, model->name, (int)len,
					 sp->arg, model->nparams ? names : "none");
		}
		for (int j = 0; j < i; j++)
			if (list[j].index == sp->index)
				return cli_error(CLI_EUSAGE, "%s %s: %.*s given twice", flag,
						 sp->arg, (int)len, sp->arg);
		err = parse_double(flag, eq + 1, &sp->value);
		if (err)
			return err;
		if (spread && sp->value < 0)
			return cli_error(CLI_EUSAGE, "%s %s: the spread must be >= 0", flag,
					 sp->arg);
	}
	return 0;
}

/* --save-every DT: the steps i = 0, 1, ... whose t0 + i DT falls short of
 * t1 by more than SAVE_LAST_GAP of the span (t1 follows them). The
 * quotient is a guess that rounding can put one off; the rule decides. */
static long save_every_steps(const struct run_options *opts)
{
	const double dt = opts->save_every;
	const double last = opts->t1 - SAVE_LAST_GAP * (opts->t1 - opts->t0);
	long steps = (long)((last - opts->t0) / dt) + 1;

	while (steps > 1 && opts->t0 + (double)(steps - 1) * dt >= last)
		steps--;
	while (opts->t0 + (double)steps * dt < last)
		steps++;
	return steps;
}

/* nsave: --save-at's times checked against the span, or --save-every's
 * counted (a step too small for any memory refused first). */
static int count_save_times(struct run_options *opts)
{
	const double span = opts->t1 - opts->t0;

	if (opts->save_at)
		return parse_times("--save-at", opts->save_at, opts->t0, opts->t1, NULL,
				   &opts->nsave);
	if (!opts->save_every)
		return 0;
	if (span / opts->save_every >= (double)SAVE_TIMES_MAX)
		return cli_error(CLI_EUSAGE, "--save-every %g: %.3g times over [%g, %g], at most %ld",
				 opts->save_every, span / opts->save_every, opts->t0, opts->t1,
				 SAVE_TIMES_MAX);
	opts->nsave = save_every_steps(opts) + 1;
	return 0;
}

int options_resolve(struct run_options *opts)
{
	int err = resolve_param_args(opts, "--spread-param", opts->spread_params,
				     opts->nspread_params, true);

	if (!err)
		err = resolve_param_args(opts, "--param", opts->set_params, opts->nset_params,
					 false);
	if (!err)
		err = count_save_times(opts);
	return err;
}

void options_save_times(const struct run_options *opts, double *times)
{
	long steps = opts->nsave - 1;

	if (opts->save_at) {
		parse_times("--save-at", opts->save_at, opts->t0, opts->t1, times, &steps);
		return;
	}
	for (long i = 0; i < steps; i++)
		times[i] = opts->t0 + (double)i * opts->save_every;
	times[steps] = opts->t1;
}
