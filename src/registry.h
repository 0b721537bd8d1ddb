/* registry.h - the table of models, generated from models/NAME.cu. */
#ifndef PICARD_REGISTRY_H
#define PICARD_REGISTRY_H

#include "picard.h"

/* NULL-terminated, in name order (build/registry.c). */
extern const picard_model *const picard_registry[];

#endif
