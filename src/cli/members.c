/* members.c - where a run's members are drawn (members.h). */
#include <stdlib.h>

#include "backend.h"
#include "diag.h"
#include "members.h"

/* A start state that depends on a parameter each member draws for
 * itself is the host's to compute (the model's initial() runs there). */
static bool start_per_member(const struct run *run)
{
	return run->model->initial && run->opts.nspread_params;
}

int members_plan(struct run *run)
{
	const struct run_options *opts = &run->opts;
	const picard_model *model = run->model;
	const int np = model->nparams;
	double *values, *spreads = NULL, *start;
	picard_model at = *model; /* its defaults as --param sets them */

	run->draw = (struct picard_draw){0};
	if (opts->init_path || start_per_member(run))
		return 0;
	values = malloc(((size_t)np + 1) * sizeof(double));
	start = malloc((size_t)model->dim * sizeof(double));
	if (opts->nspread_params)
		spreads = calloc((size_t)np, sizeof(double));
	if (!values || !start || (opts->nspread_params && !spreads)) {
		free(values);
		free(start);
		free(spreads);
		return cli_error(PICARD_ENOMEM, "the ensemble's draw: out of memory");
	}
	for (int q = 0; q < np; q++)
		values[q] = model->param_defaults[q];
	for (int i = 0; i < opts->nset_params; i++)
		values[opts->set_params[i].index] = opts->set_params[i].value;
	for (int i = 0; i < opts->nspread_params; i++)
		spreads[opts->spread_params[i].index] = opts->spread_params[i].value;
	at.param_defaults = values;
	picard_model_start(&at, NULL, start);
	run->draw = (struct picard_draw){
		.spread = opts->spread, .seed = opts->seed, .start = start, .param_values = values,
		.param_spreads = spreads,
	};
	if (!picard_draw_fits(&run->draw, model, opts->precision))
		members_free(run); /* the host's draw names the member past it */
	return 0;
}

struct picard_draw members_of_batch(const struct run *run)
{
	struct picard_draw draw = run->draw;

	draw.first = run->shard.first + run->batch_first;
	return draw;
}

void members_at_hand(const struct run *run, long i)
{
	const int n = run->model->dim, np = run->model->nparams;
	const struct picard_draw draw = members_of_batch(run);

	if (!run->rows_on_demand)
		return;
	picard_draw_host(&draw, n, np, i, 1, run->x0 + i * n,
			 run->params ? run->params + i * np : NULL);
}

void members_free(struct run *run)
{
	free((double *)run->draw.start);
	free((double *)run->draw.param_values);
	free((double *)run->draw.param_spreads);
	run->draw = (struct picard_draw){0};
}
