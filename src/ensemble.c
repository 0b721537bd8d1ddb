/* ensemble.c - initial states spread around a centre by cuRAND. The Philox
 * generator gives the same sequence on the device and from its host
 * implementation, so both backends see the same ensemble for a seed. */
#include <cuda_runtime_api.h>
#include <curand.h>
#include <stdlib.h>

#include "errors.h"

/* ntraj*dim uniforms in (0, 1] into host memory u, generated on the device
 * (on_device) or by cuRAND's host implementation. */
static int generate_uniforms(double *u, size_t count, unsigned long long seed,
			     bool on_device)
{
	curandGenerator_t gen = NULL;
	double *dev = NULL;
	curandStatus_t st;
	int err = PICARD_OK;

	st = on_device ? curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10) :
			 curandCreateGeneratorHost(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10);
	if (st != CURAND_STATUS_SUCCESS)
		return picard_fail(PICARD_ECUDA, "cuRAND: cannot create generator (status %d)", st);
	st = curandSetPseudoRandomGeneratorSeed(gen, seed);
	if (st != CURAND_STATUS_SUCCESS) {
		err = picard_fail(PICARD_ECUDA, "cuRAND: cannot seed (status %d)", st);
		goto out;
	}
	if (!on_device) {
		st = curandGenerateUniformDouble(gen, u, count);
		if (st != CURAND_STATUS_SUCCESS)
			err = picard_fail(PICARD_ECUDA, "cuRAND host: status %d", st);
		goto out;
	}
	if (cudaMalloc((void **)&dev, count * sizeof(double)) != cudaSuccess) {
		err = picard_fail(PICARD_ENOMEM, "ensemble: %zu doubles do not fit the device", count);
		goto out;
	}
	st = curandGenerateUniformDouble(gen, dev, count);
	if (st != CURAND_STATUS_SUCCESS)
		err = picard_fail(PICARD_ECUDA, "cuRAND device: status %d", st);
	else if (cudaMemcpy(u, dev, count * sizeof(double), cudaMemcpyDeviceToHost) != cudaSuccess)
		err = picard_fail(PICARD_ECUDA, "ensemble: copy from device failed");
out:
	cudaFree(dev);
	curandDestroyGenerator(gen);
	return err;
}

int picard_ensemble_spread(int dim, const double *center, long ntraj,
			   double spread, unsigned long long seed,
			   picard_backend backend, double *x0)
{
	size_t count = (size_t)ntraj * dim;
	bool on_device;
	double *u;
	int err;

	if (dim < 1 || ntraj < 1 || !(spread >= 0) || !center || !x0)
		return picard_fail(PICARD_EINVAL, "ensemble: dim %d, ntraj %ld, spread %g",
				   dim, ntraj, spread);
	if (backend == PICARD_BACKEND_CUDA && !picard_cuda_available())
		return picard_fail(PICARD_ENODEV, "ensemble on the device asked for, none found");
	on_device = backend == PICARD_BACKEND_CUDA ||
		    (backend == PICARD_BACKEND_AUTO && picard_cuda_available());
	/* A zero spread needs no random numbers: x0 is the centre exactly. */
	if (spread == 0) {
		for (size_t i = 0; i < count; i++)
			x0[i] = center[i % dim];
		return PICARD_OK;
	}
	u = malloc(count * sizeof(double));
	if (!u)
		return picard_fail(PICARD_ENOMEM, "ensemble: %zu doubles", count);
	err = generate_uniforms(u, count, seed, on_device);
	for (size_t i = 0; !err && i < count; i++)
		x0[i] = center[i % dim] * (1 + spread * (2 * u[i] - 1));
	free(u);
	return err;
}
