/* model_load.h - what the library asks of a model file loaded at run time
 * (src/model_load.c) beside picard_model_load. */
#ifndef PICARD_MODEL_LOAD_H
#define PICARD_MODEL_LOAD_H

#include "picard.h"

/* The file's header comment (its leading block, without the comment
 * markers), as picard_model_description gives a registered model's; "" for
 * a model that was not loaded from a file. */
const char *picard_loaded_description(const picard_model *model);

#endif
