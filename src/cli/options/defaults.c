/* defaults.c - the options' values where the command line does not give
 * them: picard-run's before any flag is read, then what the model and the
 * scheme decide once both are known (see defaults.h). */
#include <math.h>
#include <string.h>

#include "candidates.h"
#include "defaults.h"
#include "scheme.h"

/* ---- shared by the programs ------------------------------------------------ */

void cli_default_scheme_precision(const picard_model *model, bool scheme_given,
				  picard_scheme *scheme, bool precision_given,
				  picard_precision *precision)
{
	const picard_scheme_type *type = picard_scheme_of(*scheme);

	/* a stiff model is double whichever scheme is named (gri30
	 * --scheme rodas5p in float underflowed its steps at rtol 1e-6) */
	if (!precision_given)
		*precision = (type && type->double_only) || model->stiff || model->op ?
				     PICARD_DOUBLE : PICARD_FLOAT;
	if (!scheme_given && model->events) { /* the schemes that locate them */
		*scheme = PICARD_SCHEME_DP8;
		if (!precision_given)
			*precision = PICARD_DOUBLE;
		return;
	}
	if (scheme_given || !(model->stiff || model->op))
		return;
	for (int i = 0; picard_scheme_list[i]; i++)
		if (candidates_scheme_suits(model, false, picard_scheme_list[i])) {
			*scheme = picard_scheme_list[i]->id;
			break;
		}
}

void cli_default_span(const picard_model *model, bool t0_given, double *t0,
		      bool t1_given, double *t1)
{
	if (!t0_given)
		*t0 = model->t0;
	if (!t1_given)
		*t1 = model->t1;
}

bool cli_tolerance_wants_double(double atol, double rtol, double scale)
{
	return atol + rtol * scale < CLI_FLOAT_TOL_FLOOR * fmax(scale, 1e-300);
}

double cli_largest_abs(const double *x, long n)
{
	double largest = 0;

#pragma omp parallel
	{
		double own = 0;

#pragma omp for nowait
		for (long i = 0; i < n; i++)
			own = fmax(own, fabs(x[i]));
#pragma omp critical(cli_largest_abs)
		largest = fmax(largest, own);
	}
	return largest;
}

/* ---- picard-run's ------------------------------------------------------------ */

void options_defaults(struct run_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->traj = RUN_DEFAULT_TRAJ;
	opts->m = RUN_DEFAULT_M;
	opts->K = RUN_DEFAULT_K;
	opts->h = RUN_DEFAULT_H;
	opts->precision = PICARD_FLOAT;
	opts->backend = PICARD_BACKEND_AUTO;
	opts->spread = RUN_DEFAULT_SPREAD;
	opts->seed = RUN_DEFAULT_SEED;
	opts->check_traj = RUN_DEFAULT_CHECK_TRAJ;
	opts->bound = RUN_DEFAULT_BOUND;
	opts->repeat = 1;
}

void options_defaults_from_model(struct run_options *opts)
{
	const picard_model *model = opts->model;

	cli_default_scheme_precision(model, opts->scheme_given, &opts->scheme,
				     opts->precision_given, &opts->precision);
	/* the model's own spacing unless --h (or --tol's tuning) sets one */
	if (!opts->h_given && model->default_h > 0)
		opts->h = model->default_h;
	cli_default_span(model, opts->t0_given, &opts->t0, opts->t1_given, &opts->t1);
}
