/* phases.c - where a run's wall time went (phases.h). */
#include "phases.h"

#include <string.h>

static double since(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + 1e-9 * (double)(b->tv_nsec - a->tv_nsec);
}

void phases_start(struct phases *p, const struct timespec *start)
{
	memset(p, 0, sizeof(*p));
	p->last = *start;
}

void phases_mark(struct phases *p, const char *name)
{
	struct timespec now;
	int i;

	clock_gettime(CLOCK_MONOTONIC, &now);
	for (i = 0; i < p->count && strcmp(p->names[i], name); i++)
		;
	if (i == p->count) {
		if (p->count == PHASES_MAX)
			i = PHASES_MAX - 1; /* the last holds the rest */
		else
			p->names[p->count++] = name;
	}
	p->seconds[i] += since(&p->last, &now);
	p->last = now;
}

void phases_print(const struct phases *p, FILE *out)
{
	int shown = 0;

	fprintf(out, "%-12s", "phases");
	for (int i = 0; i < p->count; i++) {
		const double s = p->seconds[i];

		if (s < 5e-4)
			continue;
		fprintf(out, "%s %s ", shown++ ? "," : "", p->names[i]);
		if (s < 1)
			fprintf(out, "%.3g ms", s * 1e3);
		else
			fprintf(out, "%.3g s", s);
	}
	fprintf(out, "%s\n", shown ? "" : " none over 0.5 ms");
}
