/* model_check.h - the model contract's rules that no compiler sees, read
 * from a model file's text (src/model/model_check.c). */
#ifndef PICARD_MODEL_CHECK_H
#define PICARD_MODEL_CHECK_H

#include <stdio.h>

#include "picard.h"

/* Check text (the file path) as the model name: PICARD_ECOMPILE with
 * "PATH:LINE: error: RULE" in picard_error_detail() for the first broken
 * rule; warnings (members the contract does not know) onto warnings if not
 * NULL. */
int picard_model_check_text(const char *path, const char *text, const char *name,
			    FILE *warnings);

/* Each constant subscript (a literal, or dim, nparams, ninvariants and
 * integers in + - * / %) of an array argument of model's functions in
 * its text: x, p, dxdt of rhs and nonlinear, J of jacobian (dim * dim),
 * those of exact, initial, invariants, k_faces and csr, against the
 * model's sizes. PICARD_ECOMPILE with "PATH:LINE: error: rhs reads p[5]
 * out of bounds: ..." for the first outside; subscripts computed at run
 * time are the guarded evaluation's (src/model/model_probe.h). */
int picard_model_check_subscripts(const char *path, const char *text, const picard_model *model);

/* The line (from 1) of text that at points into. */
int picard_text_line(const char *text, const char *at);

#endif
