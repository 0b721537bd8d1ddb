/* validate.h - the options checked against each other, once every flag is
 * read and the defaults applied: step 3 of reading picard-run's command
 * line (options.c), and the span's check picard-tune shares. Each check
 * returns 0, or CLI_EUSAGE after one line naming the flag to change. */
#ifndef PICARD_CLI_OPTIONS_VALIDATE_H
#define PICARD_CLI_OPTIONS_VALIDATE_H

#include <stdbool.h>

#include "cli/options.h"
#include "picard.h"

/* t0 < t1, the error line naming the flag to change (given values, else
 * model's: defaults.h). */
int cli_check_span(const picard_model *model, bool t0_given, double t0,
		   bool t1_given, double t1);

/* picard-run --clear-cache: no MODEL beside it. */
int options_check_clear_cache(const struct run_options *opts);
/* picard-run's options together: the iteration tolerance against the
 * precision, the span, then the flags that exclude or need one another,
 * against the scheme and the model's operator. */
int options_validate(const struct run_options *opts);

#endif
