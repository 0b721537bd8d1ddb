/* flags.h - step 1 of reading picard-run's command line (options.c): the
 * text into values, through picard-run's table of flags. */
#ifndef PICARD_CLI_OPTIONS_FLAGS_H
#define PICARD_CLI_OPTIONS_FLAGS_H

#include "cli/options.h"

/* Apply every argument of argv to opts (MODEL's name included, not yet
 * looked up); stops early, returning 0, at --help. Returns 0, CLI_DONE
 * after --version, or CLI_EUSAGE after one line naming the flag. */
int options_read(int argc, char **argv, struct run_options *opts);

#endif
