/* ensemble.c - initial states spread around a centre by cuRAND's Philox
 * sequence: on the device by cuRAND, on the host computed directly
 * (philox.h, the same values as cuRAND's host generator, in parallel and
 * far faster), so both backends see the same ensemble for a seed. A
 * member's numbers sit at its index in that sequence, so any contiguous
 * range of members can be drawn alone (ensemble_range.h: one MPI rank's). */
#include <cuda_runtime_api.h>
#include <curand.h>
#include <omp.h>
#include <stdlib.h>

#include "backend.h"
#include "ensemble_range.h"
#include "errors.h"
#include "philox.h"
#include "device_counts.h"

/* cuRAND's Philox lays a generation of more than 2^18 doubles out by its
 * size: value i of a generation from 0 is then not value i - k of one
 * from offset k (two ranks of 2^24 lotka members drew other states than
 * one process from rank 1's first member on; cuRAND's host generator does
 * the same past 2^18). A generation of at most that many is the sequence
 * itself at any offset, so the uniforms are drawn in pieces of
 * UNIFORM_PIECE: value i depends on i and the seed alone, whatever range
 * is asked for (tests/ensemble/test_ensemble_range.c). */
#define UNIFORM_PIECE ((size_t)1 << 16)

/* count values center[g % dim] * (1 + spread (2u - 1)) into x, u being
 * the uniforms in (0, 1] of the seed's sequence from position offset on:
 * computed here (philox.h), a block of two at a time, those of the range
 * kept, in one pass over x. */
static void host_spread(double *x, size_t count, unsigned long long offset,
			unsigned long long seed, int dim, const double *center, double spread)
{
	const uint64_t end = offset + count;

#pragma omp parallel for schedule(static) if (count >= UNIFORM_PIECE)
	for (uint64_t p = offset >> 1; p < (end + 1) >> 1; p++) {
		double pair[2];

		picard_philox_pair(p, seed, pair);
		for (int h = 0; h < 2; h++) {
			const uint64_t g = 2 * p + h;

			if (g >= offset && g < end)
				x[g - offset] = picard_spread_value(center[(g - offset) % dim], spread,
							     pair[h]);
		}
	}
}

/* The same, generated on the device by cuRAND in pieces (above) and
 * copied back. */
static int device_uniforms(double *u, size_t count, unsigned long long offset,
			   unsigned long long seed)
{
	curandGenerator_t gen = NULL;
	double *dev = NULL;
	curandStatus_t st;
	int err = PICARD_OK;

	st = curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10);
	if (st != CURAND_STATUS_SUCCESS)
		return picard_fail(PICARD_ECUDA, "cuRAND: cannot create generator (status %d)", st);
	st = curandSetPseudoRandomGeneratorSeed(gen, seed);
	if (st != CURAND_STATUS_SUCCESS) {
		err = picard_fail(PICARD_ECUDA, "cuRAND: cannot seed (status %d)", st);
		goto out;
	}
	if (cudaMalloc((void **)&dev, (count < UNIFORM_PIECE ? count : UNIFORM_PIECE) *
				       sizeof(double)) != cudaSuccess) {
		err = picard_fail(PICARD_ENOMEM, "ensemble: %zu doubles do not fit the device",
				  UNIFORM_PIECE);
		goto out;
	}
	for (size_t done = 0; done < count && !err; done += UNIFORM_PIECE) {
		const size_t n = count - done < UNIFORM_PIECE ? count - done : UNIFORM_PIECE;

		st = curandSetGeneratorOffset(gen, offset + done);
		if (st == CURAND_STATUS_SUCCESS)
			st = curandGenerateUniformDouble(gen, dev, n);
		if (st != CURAND_STATUS_SUCCESS)
			err = picard_fail(PICARD_ECUDA, "cuRAND device: status %d", st);
		else if (picard_memcpy(u + done, dev, n * sizeof(double), cudaMemcpyDeviceToHost) !=
			 cudaSuccess)
			err = picard_fail(PICARD_ECUDA, "ensemble: copy from device failed");
	}
out:
	cudaFree(dev);
	curandDestroyGenerator(gen);
	return err;
}

int picard_ensemble_spread(int dim, const double *center, long ntraj,
			   double spread, unsigned long long seed,
			   picard_backend backend, double *x0)
{
	return picard_ensemble_spread_range(dim, center, 0, ntraj, spread, seed, backend, x0);
}

int picard_ensemble_spread_range(int dim, const double *center, long first, long ntraj,
				 double spread, unsigned long long seed,
				 picard_backend backend, double *x0)
{
	size_t count = (size_t)ntraj * dim;
	bool on_device;
	double *u;
	int err;

	if (dim < 1 || ntraj < 1 || first < 0 || !(spread >= 0) || !center || !x0)
		return picard_fail(PICARD_EINVAL, "ensemble: dim %d, first %ld, ntraj %ld, spread %g",
				   dim, first, ntraj, spread);
	if (backend == PICARD_BACKEND_CUDA && !picard_cuda_available())
		return picard_fail(PICARD_ENODEV, "ensemble on the device asked for, none found");
	on_device = backend == PICARD_BACKEND_CUDA;
	/* A zero spread needs no random numbers: x0 is the centre exactly. */
	if (spread == 0) {
#pragma omp parallel for schedule(static)
		for (size_t i = 0; i < count; i++)
			x0[i] = center[i % dim];
		return PICARD_OK;
	}
	if (!on_device) {
		host_spread(x0, count, (unsigned long long)first * dim, seed, dim, center, spread);
		return PICARD_OK;
	}
	u = malloc(count * sizeof(double));
	if (!u)
		return picard_fail(PICARD_ENOMEM, "ensemble: %zu doubles", count);
	err = device_uniforms(u, count, (unsigned long long)first * dim, seed);
	if (!err) {
#pragma omp parallel for schedule(static)
		for (size_t i = 0; i < count; i++)
			x0[i] = picard_spread_value(center[i % dim], spread, u[i]);
	}
	free(u);
	return err;
}

int picard_draw_host(const struct picard_draw *draw, int dim, int nparams, long offset,
		     long count, double *x0, double *params)
{
	const unsigned long long first = (unsigned long long)(draw->first + offset);

	host_spread(x0, (size_t)count * dim, first * dim, draw->seed, dim, draw->start,
		    draw->spread);
	for (int q = 0; params && q < nparams; q++) {
		const double spread = draw->param_spreads ? draw->param_spreads[q] : 0;

		if (!(spread > 0)) {
			for (long i = 0; i < count; i++)
				params[i * nparams + q] = draw->param_values[q];
			continue;
		}
#pragma omp parallel for schedule(static) if ((size_t)count >= UNIFORM_PIECE)
		for (long i = 0; i < count; i++)
			params[i * nparams + q] = picard_spread_value(
				draw->param_values[q], spread,
				picard_philox_uniform(first + i, draw->seed + 1 + q));
	}
	return PICARD_OK;
}

int picard_ensemble_model(const picard_model *model, long ntraj, double spread,
			  const double *param_spreads, unsigned long long seed,
			  picard_backend backend, double *x0, double *params)
{
	return picard_ensemble_model_range(model, 0, ntraj, spread, param_spreads, seed, backend,
					   x0, params);
}

int picard_ensemble_model_range(const picard_model *model, long first, long ntraj,
				double spread, const double *param_spreads,
				unsigned long long seed, picard_backend backend,
				double *x0, double *params)
{
	const int n = model ? model->dim : 0, np = model ? model->nparams : 0;
	double *column = NULL, *start = NULL, *ones = NULL;
	const int threads = omp_get_max_threads();
	bool per_traj = false;
	int err = PICARD_OK;

	if (!model || ntraj < 1 || !x0)
		return picard_fail(PICARD_EINVAL, "ensemble: model %p, ntraj %ld",
				   (const void *)model, ntraj);
	for (int q = 0; param_spreads && q < np; q++) {
		if (!(param_spreads[q] >= 0))
			return picard_fail(PICARD_EINVAL, "ensemble: spread %g of %s",
					   param_spreads[q], model->param_names[q]);
		per_traj |= param_spreads[q] > 0;
	}
	if (per_traj && !params)
		return picard_fail(PICARD_EINVAL, "ensemble: parameters spread, no buffer for them");
	column = malloc((size_t)ntraj * sizeof(double));
	start = malloc((size_t)n * threads * sizeof(double));
	ones = calloc((size_t)n, sizeof(double));
	if (!column || !start || !ones) {
		err = picard_fail(PICARD_ENOMEM, "ensemble: %ld trajectories", ntraj);
		goto out;
	}
	/* parameters, one column at a time: a given buffer is always filled,
	 * with the defaults where nothing is spread (a caller that set one
	 * default and spread none would otherwise solve uninitialised rows) */
	for (int q = 0; params && !err && q < np; q++) {
		err = picard_ensemble_spread_range(1, &model->param_defaults[q], first, ntraj,
						   param_spreads ? param_spreads[q] : 0, seed + 1 + q,
						   backend, column);
		if (!err) {
#pragma omp parallel for
			for (long i = 0; i < ntraj; i++)
				params[i * np + q] = column[i];
		}
	}
	/* states: factors 1 + spread (2u - 1) times each trajectory's start;
	 * with one start for all, the start is the centre (the same product,
	 * 1 (1 + spread (2u - 1)) start, in one pass) */
	if (!err && !params) {
		picard_model_start(model, NULL, start);
		err = picard_ensemble_spread_range(n, start, first, ntraj, spread, seed, backend, x0);
	} else if (!err) {
		for (int k = 0; k < n; k++)
			ones[k] = 1;
		err = picard_ensemble_spread_range(n, ones, first, ntraj, spread, seed, backend, x0);
	}
	if (!err && params) {
		/* each member's start from its own parameters, a start
		 * buffer per thread */
#pragma omp parallel num_threads(threads)
		{
			double *own = start + (size_t)omp_get_thread_num() * n;

#pragma omp for
			for (long i = 0; i < ntraj; i++) {
				picard_model_start(model, params + i * np, own);
				for (int k = 0; k < n; k++)
					x0[i * n + k] *= own[k];
			}
		}
	}
out:
	free(column);
	free(start);
	free(ones);
	return err;
}
