/* clear_cache.h - picard-run --clear-cache: every file picard keeps under
 * its cache directories removed (cache_dir.h says where they are). */
#ifndef PICARD_CLI_CLEAR_CACHE_H
#define PICARD_CLI_CLEAR_CACHE_H

#include <stdio.h>

/* Remove the compiled kernels and models, the tuning cache (picard-tune's
 * entries and the costs per evaluation) and the quick search decisions,
 * saying on out what was removed from where. Returns 0, or an error
 * already reported (a file that could not be removed). */
int clear_caches(FILE *out);

#endif
