/* model_grid.h - grids for the tests that loop over every registered model:
 * a spacing given for lotka (default h 0.06, span 100) carried over to a
 * model by its own default h (or, without one, its span), and the model's
 * span cut to a number of windows so long spans (kepler: 100 orbits) keep
 * the tests short. */
#ifndef PICARD_TESTS_MODEL_GRID_H
#define PICARD_TESTS_MODEL_GRID_H

#include <math.h>

#include "picard.h"

#define LOTKA_DEFAULT_H 0.06 /* picard-run's default, the paper's */

/* lotka_h scaled to model. */
static inline double model_h(const picard_model *model, double lotka_h)
{
	return lotka_h * (model->default_h > 0 ? model->default_h / LOTKA_DEFAULT_H :
				(model->t1 - model->t0) / 100);
}

/* End of the model's span, or earlier: at most max_windows windows of m
 * nodes spaced h. */
static inline double model_t1(const picard_model *model, int m, double h,
			      long max_windows)
{
	return model->t0 + fmin(model->t1 - model->t0, (double)max_windows * (m - 1) * h);
}

#endif
