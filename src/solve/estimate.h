/* estimate.h - per-trajectory error estimates by a companion solve: the
 * same scheme in double on a finer grid, compared with the solve at its
 * window ends (see estimate.c for why this and not an embedded formula). */
#ifndef PICARD_ESTIMATE_H
#define PICARD_ESTIMATE_H

#include "picard.h"

/* Attach to s (made by picard_solver_create_plain of model under the
 * resolved options, for ntraj trajectories) its error estimate: a
 * companion solver and the comparison after each solve
 * (picard_solver_attach). */
int picard_estimate_attach(picard_solver *s, const picard_model *model,
			   const picard_options *resolved, long ntraj);

#endif
