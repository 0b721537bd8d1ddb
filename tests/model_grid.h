/* model_grid.h - grids for the tests that loop over every registered model:
 * a spacing given for lotka (default h 0.06, span 100) carried over to a
 * model by its own default h (or, without one, its span), and the model's
 * span cut to a number of windows so long spans (kepler: 100 orbits) keep
 * the tests short; and which models such a grid cannot serve (the stiff
 * ones). */
#ifndef PICARD_TESTS_MODEL_GRID_H
#define PICARD_TESTS_MODEL_GRID_H

#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdbool.h>

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

/* A stiff model (model->stiff) is left out of a test that integrates it
 * with Picard iteration (trapezoid, lobatto, and newton against lobatto)
 * or an explicit Runge-Kutta scheme on such a grid: their windows or steps
 * would have to be shorter than the stiffness time scale (robertson: 1e-4
 * against a span of 1e5, |lambda| ~ 1e4), so the test would only show
 * them diverge, or take hours. Said in the log with the test's name, never
 * silently. The stiff models are held to the tests that do apply:
 * descriptions, right-hand sides, Jacobians (test_jacobian.c), the device
 * compile (test_model_load.c), the reference against published values
 * (test_stiff.c); the stiff schemes' conformance runs on them too; and
 * stiff/other_schemes_fail_or_are_right holds every scheme they are left
 * out of to a failure status or the reference's answer. */
static inline bool stiff_left_out(const picard_model *model, const char *test)
{
	if (!model->stiff)
		return false;
	cr_log_info("%s: left out of %s: stiff (an explicit or Picard scheme's steps "
		    "are held by stability; tests/model_grid.h)", model->name, test);
	return true;
}

/* A model with events is left out of a test that integrates every model
 * against the GSL reference or across schemes and backends: only the
 * explicit per-thread schemes locate events, and the
 * reference does not (tests/events/test_events.c holds them to their
 * closed forms). Said in the log with the test's name, never silently. */
static inline bool events_left_out(const picard_model *model, const char *test)
{
	if (!model->events)
		return false;
	cr_log_info("%s: left out of %s: it has events (tests/model_grid.h)", model->name, test);
	return true;
}

/* Either of the two, each said in the log. */
static inline bool stiff_or_events_left_out(const picard_model *model, const char *test)
{
	return stiff_left_out(model, test) || events_left_out(model, test);
}

/* A model whose state is too large for a test that solves a dense system
 * of (m-1) dim unknowns in every one of thousands of windows
 * (newton-radau over a stiff model's whole span in 2000 windows): heat2d
 * and filtration (dim 225: 675 unknowns at m = 4, minutes a trajectory
 * on the CPU). Their scheme is imex, with A's structure (docs/pde.md);
 * radau5, the reference and the other tests still run them. Said in the
 * log with the test's name, never silently. */
#define DENSE_WINDOWS_MAX_DIM 64

static inline bool large_left_out(const picard_model *model, const char *test)
{
	if (model->dim <= DENSE_WINDOWS_MAX_DIM)
		return false;
	cr_log_info("%s: left out of %s: dim %d, past %d (a dense system of (m-1) dim unknowns "
		    "in each of thousands of windows; tests/model_grid.h)", model->name, test,
		    model->dim, DENSE_WINDOWS_MAX_DIM);
	return true;
}

/* A test that loops over the models and leaves some out must have run
 * over at least one: a loop over nothing passes and proves nothing. */
#define assert_ran(count, test) \
	cr_assert_gt((count), 0, "%s ran over no model: every one was left out", (test))

#endif
