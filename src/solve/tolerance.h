/* tolerance.h - the library's own use of the tolerance floors of
 * picard.h: an iteration tolerance, and a tolerance over an ensemble. */
#ifndef PICARD_TOLERANCE_H
#define PICARD_TOLERANCE_H

#include "picard.h"

/* Whether some member of the ntraj start states x (dim each, row per
 * member) can meet tol in precision (picard_tolerance_check): the floor is
 * relative, so the member of the smallest start is the easiest, and only
 * where it cannot is the ensemble refused (PICARD_EACCURACY naming it).
 * The members that cannot meet it are judged one by one after the solve
 * (tol-exceeded), not refused with the rest. */
int picard_tolerance_check_ensemble(const picard_tolerance *tol, picard_precision precision,
				    const double *x, long ntraj, int dim);

/* Whether an iteration tolerance rtol (0: the scheme's default) is at
 * least picard_iteration_floor(precision): PICARD_OK, else
 * PICARD_EACCURACY naming it as `name` and the floor. The library's
 * check and the programs' (before any tuning) alike. */
int picard_iteration_check(const char *name, double rtol, picard_precision precision);

#endif
