/* resolve.h - step 4 of reading picard-run's command line (options.c): what
 * the options name, read against the model and the span once they are
 * checked. */
#ifndef PICARD_CLI_OPTIONS_RESOLVE_H
#define PICARD_CLI_OPTIONS_RESOLVE_H

#include "cli/options.h"

/* --spread-param and --param NAME=X: NAME's index in the model and X; then
 * nsave, the times --save-at lists (within the span) or --save-every
 * steps through. Returns 0, or CLI_EUSAGE after one line naming the flag. */
int options_resolve(struct run_options *opts);

#endif
