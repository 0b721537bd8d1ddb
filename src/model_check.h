/* model_check.h - the model contract's rules that no compiler sees, read
 * from a model file's text (src/model_check.c). */
#ifndef PICARD_MODEL_CHECK_H
#define PICARD_MODEL_CHECK_H

#include <stdio.h>

/* Check text (the file path) as the model name: PICARD_ECOMPILE with
 * "PATH:LINE: error: RULE" in picard_error_detail() for the first broken
 * rule; warnings (members the contract does not know) onto warnings if not
 * NULL. */
int picard_model_check_text(const char *path, const char *text, const char *name,
			    FILE *warnings);

/* The line (from 1) of text that at points into. */
int picard_text_line(const char *text, const char *at);

#endif
