/* reference.h - what the library's own callers of picard_reference
 * share: the message of a failed reference, naming the trajectory. */
#ifndef PICARD_REFERENCE_H
#define PICARD_REFERENCE_H

#include <stddef.h>

/* picard_error_detail() of a failed picard_reference, in this thread,
 * naming trajectory traj: "the reference solution of trajectory 5 blows
 * up near t = 1 (rk8pd stopped there ...)". */
void picard_reference_failure(char *buf, size_t len, long traj);

#endif
