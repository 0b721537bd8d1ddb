/* tune_cost.h - the tuner's cost model (issue 34): a configuration's
 * predicted solve time is its counted right-hand side evaluations times
 * what one evaluation costs its scheme at its m under its layout (and its
 * windows in flight), on this
 * device, for the model, precision and ensemble size. That cost is timed
 * once and kept in the tuning cache beside the configurations (src/
 * tune/tune_cache.c), so the same search on the same machine predicts the same
 * times and picks the same configuration, where timing every candidate
 * picked by the noise between two close ones. */
#ifndef PICARD_TUNE_COST_H
#define PICARD_TUNE_COST_H

#include "picard.h"

/* One measured cost and what it holds for. */
struct tune_cost {
	const char *model;          /* the model's name in the cache (a file's
				       carries its text's hash: tuning.h) */
	picard_precision precision; /* of the solves */
	const char *device;         /* "CPU", or the CUDA device's name */
	long ntraj;                 /* the ensemble timed (its size class) */
	picard_scheme scheme;       /* the scheme */
	int m;                      /* its nodes per window */
	picard_layout layout;       /* its CUDA layout (AUTO on the CPU) */
	int block;                  /* its windows in flight (lobatto), 1: one
				       window after the other */
	double seconds_per_eval;    /* a solve's seconds over its right-hand
				       side evaluations, all trajectories */
};

/* The cached cost of cost's key into cost->seconds_per_eval; 0, or
 * PICARD_ENOTFOUND (none stored by this build), or EIO. */
int tune_cost_load(struct tune_cost *cost);
/* Add or replace the entry of cost's key (the file rewritten atomically,
 * as picard_tune_cache_store). */
int tune_cost_store(const struct tune_cost *cost);

#endif
