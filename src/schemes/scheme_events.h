/* scheme_events.h - which schemes locate a model's events
 * (src/schemes/rk/rk_events.cuh): the one place the solver, the CLI's
 * scheme choice and the tolerance search ask. */
#ifndef PICARD_SCHEME_EVENTS_H
#define PICARD_SCHEME_EVENTS_H

#include <stdbool.h>

#include "picard.h"

/* Whether scheme id locates events: the explicit per-thread pairs for
 * now. A flag of the scheme's type (picard_scheme_type.locates_events,
 * scheme.h) replaces this list once it is there. */
static inline bool picard_scheme_locates_events(picard_scheme id)
{
	return id == PICARD_SCHEME_DP5 || id == PICARD_SCHEME_DP8 || id == PICARD_SCHEME_VERN9;
}

#endif
