/* tune_key.c - the tuning-cache key of a run (see tune_key.h). */
#include <stdio.h>
#include <string.h>

#include "content_hash.h"
#include "model_impl.h"
#include "tune_key.h"

int tuning_key_init(struct tuning_key *tk, const picard_model *model,
		    picard_precision precision, picard_backend backend,
		    double tol, double rtol, double t0, double t1,
		    const char *ensemble, long ntraj)
{
	int err = 0;

	memset(tk, 0, sizeof(*tk));
	if (backend == PICARD_BACKEND_AUTO)
		backend = picard_cuda_available() ? PICARD_BACKEND_CUDA : PICARD_BACKEND_CPU;
	tk->backend = backend;
	if (backend == PICARD_BACKEND_CUDA)
		err = picard_cuda_device_name(tk->device, sizeof(tk->device));
	else
		snprintf(tk->device, sizeof(tk->device), "CPU");
	snprintf(tk->ensemble, sizeof(tk->ensemble), "%s", ensemble ? ensemble : "default");
	/* an edited copy of a registered model's file must not take that
	 * model's entries: a file's name carries its text's hash */
	if (picard_model_find(model->name) == model || !model->impl->source)
		snprintf(tk->model, sizeof(tk->model), "%s", model->name);
	else
		snprintf(tk->model, sizeof(tk->model), "%s+%016llx", model->name,
			 (unsigned long long)picard_hash(PICARD_HASH_SEED, model->impl->source,
							 strlen(model->impl->source)));
	tk->key = (picard_tune_key){
		.model = tk->model, .precision = precision, .tol = tol, .rtol = rtol,
		.t0 = t0, .t1 = t1, .device = tk->device, .ensemble = tk->ensemble,
		.ntraj = ntraj,
	};
	return err;
}

const char *tuning_precision_name(picard_precision precision)
{
	return precision == PICARD_DOUBLE ? "double" : "float";
}

const char *tuning_backend_name(picard_backend backend)
{
	return backend == PICARD_BACKEND_CUDA ? "cuda" : "cpu";
}

