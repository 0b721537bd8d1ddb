/* large_alloc.c - see large_alloc.h. */
#define _DEFAULT_SOURCE /* madvise */
#include <stdlib.h>
#include <sys/mman.h>

#include "large_alloc.h"

#define HUGE_PAGE ((size_t)2 << 20)
#define LARGE (4 * HUGE_PAGE) /* smaller arrays: malloc as it comes */

void *picard_large_alloc(size_t bytes)
{
	const size_t rounded = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
	void *p = NULL;

	if (bytes < LARGE || rounded < bytes)
		return malloc(bytes ? bytes : 1);
	if (posix_memalign(&p, HUGE_PAGE, rounded))
		return NULL;
	(void)madvise(p, rounded, MADV_HUGEPAGE); /* advice: refused, pages stay small */
	return p;
}
