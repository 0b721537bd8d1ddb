/* progress.h - long work said on stderr while it runs (issue 35, item 4):
 * a phase (compiling a model, the quick search, the reference, the solve)
 * that is still running after about 2 s is said once, "picard-run:
 * compiling decay.cu for the host ...", or, where stderr is a terminal,
 * shown as one line that counts its seconds and is cleared when the work
 * is done. Short work prints nothing. The library says nothing unless a
 * program turned this on (picard_progress_enable): a program of the
 * user's that links the library keeps a quiet stderr. stdout is never
 * written. Thread-safe: phases may run at once (kernels compiled in
 * parallel); a terminal shows the latest begun. */
#ifndef PICARD_PROGRESS_H
#define PICARD_PROGRESS_H

#include <stdbool.h>

#define PICARD_PROGRESS_AFTER 2.0 /* seconds a phase runs before it is said */

/* Say phases from now on, each line starting "program: ". */
void picard_progress_enable(const char *program);

/* A phase begins: what it does, printf-style ("compiling %s for the
 * host"). Returns its handle for picard_progress_end(); -1 when progress
 * is off (ending -1 does nothing). */
int picard_progress_begin(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* What the latest phase is at ("m=8 K=2 E=3e-07, 12 points"), shown after
 * its name on a terminal. Returns false when progress is off, so that a
 * caller may show it its own way. */
bool picard_progress_detail(const char *text);

/* The phase of handle is done: its terminal line cleared when it was the
 * last. */
void picard_progress_end(int handle);

#endif
