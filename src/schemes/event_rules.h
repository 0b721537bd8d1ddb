/* event_rules.h - the rules of a model's events (docs/models.md,
 * "Events") that do not depend on the scheme locating them: which side
 * of zero a value is on, and which way a g_k that was on `side` crosses
 * when it ends a step (or a sub-interval of a window) at a value. The
 * per-thread schemes' location (src/schemes/events_step.cuh) and the
 * Picard windows' (src/schemes/host_events.c) read the same ones. C and
 * C++, host and device. */
#ifndef PICARD_EVENT_RULES_H
#define PICARD_EVENT_RULES_H

#include "portable.h"

static inline __host__ __device__ int rk_sign(double v)
{
	return v > 0 ? 1 : v < 0 ? -1 : 0;
}

/* The direction an event with side `side` crosses in when g ends a step
 * at value `end`: +1 rising, -1 falling, 0 none. */
static inline __host__ __device__ int rk_event_crossing(int side, double end)
{
	if (side == 0)
		return rk_sign(end);
	return end == 0 || rk_sign(end) == -side ? -side : 0;
}

/* The crossing of a step whose g goes from start (on side `side`) to
 * end: from zero at the start, none when it ends on zero too. */
static inline __host__ __device__ int rk_event_dir(int side, double start, double end)
{
	if ((side == 0 || start == 0) && end == 0)
		return 0;
	return rk_event_crossing(side, end);
}

#endif
