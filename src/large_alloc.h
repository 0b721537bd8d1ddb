/* large_alloc.h - arrays of an ensemble's size (states, statuses, failing
 * times): aligned to and advised as transparent huge pages where the
 * kernel gives them on request (THP "madvise", as on the H100 hosts), so
 * that touching and releasing a gigabyte costs 500 page faults rather
 * than 250,000. Freed with free(). */
#ifndef PICARD_LARGE_ALLOC_H
#define PICARD_LARGE_ALLOC_H

#include <stddef.h>

void *picard_large_alloc(size_t bytes);

#endif
