/* tune_prepare.h - a search's kernels compiled in the background while it
 * runs (src/tune/tune.c): picard_tune_prepare split in two. */
#ifndef PICARD_TUNE_PREPARE_H
#define PICARD_TUNE_PREPARE_H

#include "picard.h"

struct picard_tune_prepared;

/* What picard_tune_prepare compiles for the n searches: a model file's
 * per-thread host sides now, the CUDA kernels started on a thread of
 * their own (in the searches' order, on all cores but one), which a
 * search that needs one of them waits for (src/model/jit.c). *out is for
 * picard_tune_prepare_finish, also when this fails. */
int picard_tune_prepare_start(const picard_model *model, const picard_tune_options *searches,
			      int n, int *prepared, struct picard_tune_prepared **out);

/* The search is done: start no further kernel, wait for those begun, and
 * free p (NULL: nothing). Returns the first compile error, which cost the
 * search only time. */
int picard_tune_prepare_finish(struct picard_tune_prepared *p);

#endif
