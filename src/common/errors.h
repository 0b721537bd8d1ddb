/* errors.h - raising library errors with a detail message. */
#ifndef PICARD_ERRORS_H
#define PICARD_ERRORS_H

#include "picard.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Record a printf-style detail for err in this thread and return err, so a
 * failure reads: return picard_fail(PICARD_EINVAL, "h = %g <= 0", h); */
int picard_fail(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#ifdef __cplusplus
}
#endif

#endif
