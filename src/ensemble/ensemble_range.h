/* ensemble_range.h - members first..first+ntraj-1 of the ensembles that
 * picard_ensemble_spread() and picard_ensemble_model() draw: each member's
 * random numbers depend on its index alone (the Philox sequence read from
 * index*dim on), so a range drawn by itself, by one MPI rank, is
 * bit-identical to the same rows of the whole ensemble. first = 0 gives
 * the public functions' results. */
#ifndef PICARD_ENSEMBLE_RANGE_H
#define PICARD_ENSEMBLE_RANGE_H

#include "picard.h"

int picard_ensemble_spread_range(int dim, const double *center, long first, long ntraj,
				 double spread, unsigned long long seed,
				 picard_backend backend, double *x0);
int picard_ensemble_model_range(const picard_model *model, long first, long ntraj,
				double spread, const double *param_spreads,
				unsigned long long seed, picard_backend backend,
				double *x0, double *params);

#endif
