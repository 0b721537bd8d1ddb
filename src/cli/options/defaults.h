/* defaults.h - what the options are where the command line does not say:
 * step 2 of reading picard-run's command line (options.c), and the part
 * picard-tune shares (the scheme, the precision, the span), so that a tuning
 * entry one program stores serves the other. */
#ifndef PICARD_CLI_OPTIONS_DEFAULTS_H
#define PICARD_CLI_OPTIONS_DEFAULTS_H

#include <stdbool.h>

#include "cli/options.h"
#include "cli/parse.h"
#include "picard.h"

/* ---- shared by the programs ------------------------------------------------ */

/* Below this part of the largest start state a tolerance is not float's:
 * its rounding, 6e-8 |x| an operation, adds up over the windows (the
 * pendulum over 20 s at 1e-6 was out of reach in float on the CPU). */
#define CLI_FLOAT_TOL_FLOOR 1e-6
/* --precision's help, picard-run's and picard-tune's */
#define CLI_PRECISION_HELP "float or double: arithmetic of the sweeps (default float; newton, " \
	"newton-radau, a stiff model whatever its scheme, and --tol below " CLI_TEXT(CLI_FLOAT_TOL_FLOOR) \
	" of the largest start state: double)"

/* The scheme and precision of a run without --scheme or --precision. The
 * precision: double for a scheme that runs in double alone (newton) and
 * for a stiff model (picard_model.stiff) or one with an operator, whatever
 * its scheme, else float (the paper's). Such a model with no --scheme:
 * the first scheme in the list that suits it. */
void cli_default_scheme_precision(const picard_model *model, bool scheme_given,
				  picard_scheme *scheme, bool precision_given,
				  picard_precision *precision);
/* The time span where --t0 or --t1 was not given: the model's
 * (validate.h checks t0 < t1). */
void cli_default_span(const picard_model *model, bool t0_given, double *t0,
		      bool t1_given, double *t1);
/* Whether --tol (atol, rtol) without --precision asks for double: atol +
 * rtol |x| below CLI_FLOAT_TOL_FLOOR |x| at the ensemble's largest start
 * state |x| = scale. */
bool cli_tolerance_wants_double(double atol, double rtol, double scale);
/* max |x[i]| over n values (0 for none): an ensemble's largest state. */
double cli_largest_abs(const double *x, long n);

/* ---- picard-run's ------------------------------------------------------------ */

/* Before any flag is read: RUN_DEFAULT_* (options.h), the rest zero. */
void options_defaults(struct run_options *opts);
/* Once the flags are read and opts->model found: what the model and the
 * scheme decide where no flag did (the scheme, the precision, h, the span). */
void options_defaults_from_model(struct run_options *opts);

#endif
