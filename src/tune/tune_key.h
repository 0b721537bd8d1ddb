/* tune_key.h - the tuning-cache key of a run, built one way for
 * picard-tune, picard-run and picard_choose(), so that a run finds what
 * picard-tune stored. */
#ifndef PICARD_TUNE_KEY_H
#define PICARD_TUNE_KEY_H

#include "picard.h"

/* A tuning-cache key with the storage its strings point into. Holds
 * pointers into itself: fill it in place, do not copy it. */
struct tuning_key {
	picard_tune_key key;     /* the key; key.device points to device,
				    key.ensemble to ensemble, key.model to model */
	char model[160];         /* the model's name; a file loaded at run time
				    adds a hash of its text (NAME+HASH) */
	char device[128];        /* the device's name, see tuning_key_init() */
	char ensemble[32];       /* "default" or picard_ensemble_id()'s */
	picard_backend backend;  /* the backend that runs (never AUTO) */
};

/* The key of model, precision, tol and span [t0, t1] on backend (AUTO:
 * CUDA when a device is present, as picard_solver_create() decides). The
 * device is named as picard_stats.device names it on CUDA (the device's
 * name), and "CPU" on the CPU backend, without the thread count: which (m,
 * K, h) meets E* does not depend on the threads, and a key that changed
 * with OMP_NUM_THREADS would lose the entry for a run on another thread
 * count. rtol is the relative part of the tolerance (0: absolute);
 * ensemble names the ensemble tuned on (NULL: "default", picard-tune's),
 * ntraj its size (the key's size class).
 * Returns 0 or the library error (ENODEV: CUDA asked, none there). */
int tuning_key_init(struct tuning_key *tk, const picard_model *model,
		    picard_precision precision, picard_backend backend,
		    double tol, double rtol, double t0, double t1,
		    const char *ensemble, long ntraj);

/* "float" or "double". */
const char *tuning_precision_name(picard_precision precision);
/* "cuda" or "cpu". */
const char *tuning_backend_name(picard_backend backend);

#endif
