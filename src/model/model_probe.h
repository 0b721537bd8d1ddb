/* model_probe.h - a model's host functions evaluated once each with
 * guarded arguments, in a child process with a time limit
 * (src/model/model_probe.c). */
#ifndef PICARD_MODEL_PROBE_H
#define PICARD_MODEL_PROBE_H

#include "picard.h"

/* Evaluate model's rhs (double and float), jacobian, and its initial,
 * exact, invariants and nonlinear where declared, at t0 and t1, the
 * default parameters and start state, each array argument against a
 * guard page (past its end, then before its start). PICARD_EINVAL with
 * "FILE: rhs (double) at t = 0 reads x[7] out of bounds: x has 2
 * entries, ..." in picard_error_detail() for an access outside an array,
 * a write into a const input, an output entry left unwritten, a crash, or
 * a function that does not return within 2 s (stopped). */
int picard_model_probe(const picard_model *model);

#endif
