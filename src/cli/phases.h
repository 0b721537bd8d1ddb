/* phases.h - where a run's wall time went, for --verbose: each phase is
 * the time from the previous mark to this one, so the phases add up to
 * the total (the start-up before main excepted). */
#ifndef PICARD_CLI_PHASES_H
#define PICARD_CLI_PHASES_H

#include <stdio.h>
#include <time.h>

#define PHASES_MAX 16

struct phases {
	struct timespec last;      /* the previous mark (or the start) */
	int count;
	const char *names[PHASES_MAX];
	double seconds[PHASES_MAX];
};

/* Start counting at start. */
void phases_start(struct phases *p, const struct timespec *start);

/* The time since the previous mark went to name; a name marked again
 * adds to its earlier time. */
void phases_mark(struct phases *p, const char *name);

/* "phases       options+model 1.1 s, draw 0.61 s, ..." on out; phases
 * under 0.5 ms are left out. */
void phases_print(const struct phases *p, FILE *out);

#endif
