/* device_io.cu - the CUDA backend's traffic with the host (src/backend/cuda/device_io.h).
 *
 * A copy from pageable memory goes through the driver's own small pinned
 * buffer, one piece after another, and the host's conversions (rows to
 * SoA, double to float) ran before or after it, on the whole array: a
 * 2^24-member lotka run spent 0.5 s moving 1.7 GB. Here every array
 * moves through two pinned buffers of PIECE_BYTES: while the DMA engine
 * copies one piece, the host threads convert the other. */
#include <cuda_runtime.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "device_io.h"
#include "errors.h"
#include "philox.h"
#include "scaled_error.h"
#include "device_counts.h"

#define PIECE_BYTES ((size_t)8 << 20)
#define TOTALS_THREADS 256

static_assert(sizeof(picard_traj_status) == sizeof(int),
	      "statuses are copied from the device's ints as they are");

/* What the device adds up: whole numbers, exact in any order. */
struct device_totals {
	unsigned long long failed, irregular, sweeps, windows_run;
	int sweeps_max;
};

/* One set of buffers for the process, taken by one transfer at a time. */
static pthread_mutex_t io_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	bool ready;
	void *pinned[2];              /* host, PIECE_BYTES each */
	cudaEvent_t copied[2];        /* the last copy through each */
	double *row;                  /* device, a broadcast row */
	size_t row_bytes;
	struct device_totals *totals; /* device */
} io;

extern "C" int picard_cuda_fail(int cuda_error, const char *what)
{
	const cudaError_t e = (cudaError_t)cuda_error;

	if (e == cudaErrorMemoryAllocation)
		return picard_fail(PICARD_ENOMEM, "%s: %s", what, cudaGetErrorString(e));
	return picard_fail(PICARD_ECUDA, "%s: %s", what, cudaGetErrorString(e));
}

/* Take the buffers, made on first use. */
static int take(void)
{
	cudaError_t e = cudaSuccess;

	pthread_mutex_lock(&io_lock);
	if (io.ready)
		return PICARD_OK;
	for (int b = 0; b < 2 && e == cudaSuccess; b++) {
		e = cudaHostAlloc(&io.pinned[b], PIECE_BYTES, cudaHostAllocDefault);
		if (e == cudaSuccess)
			e = cudaEventCreateWithFlags(&io.copied[b], cudaEventDisableTiming);
	}
	if (e == cudaSuccess)
		e = cudaMalloc((void **)&io.totals, sizeof(*io.totals));
	if (e != cudaSuccess) {
		for (int b = 0; b < 2; b++) {
			cudaFreeHost(io.pinned[b]);
			io.pinned[b] = NULL;
			if (io.copied[b])
				cudaEventDestroy(io.copied[b]);
			io.copied[b] = NULL;
		}
		cudaFree(io.totals);
		io.totals = NULL;
		pthread_mutex_unlock(&io_lock);
		return picard_cuda_fail(e, "pinned buffers for the copies");
	}
	io.ready = true;
	return PICARD_OK;
}

static void give(void)
{
	pthread_mutex_unlock(&io_lock);
}

/* Device to host in npieces: enqueue(k, buf) puts piece k's copies into
 * buf on the default stream (after the kernels), convert(k, buf) takes
 * it out; piece k is converted while piece k+1 is copied. */
template <class Enqueue, class Convert>
static int download_pieces(long npieces, Enqueue enqueue, Convert convert, const char *what)
{
	cudaError_t e = cudaSuccess;
	int err = take();

	if (err)
		return err;
	for (long k = 0; k <= npieces && e == cudaSuccess; k++) {
		if (k < npieces) {
			e = enqueue(k, io.pinned[k & 1]);
			if (e == cudaSuccess)
				e = cudaEventRecord(io.copied[k & 1], 0);
		}
		if (e == cudaSuccess && k > 0) {
			e = picard_event_wait(io.copied[(k - 1) & 1]);
			if (e == cudaSuccess)
				convert(k - 1, io.pinned[(k - 1) & 1]);
		}
	}
	if (e != cudaSuccess) {
		picard_device_wait(); /* nothing left writing the buffers */
		err = picard_cuda_fail(e, what);
	}
	give();
	return err;
}

/* Host to device in npieces: fill(k, buf) puts piece k into buf, then
 * enqueue(k, buf) copies it; piece k+1 is filled while piece k is
 * copied. Returns once every copy is done. */
template <class Fill, class Enqueue>
static int upload_pieces(long npieces, Fill fill, Enqueue enqueue, const char *what)
{
	cudaError_t e = cudaSuccess;
	int err = take();

	if (err)
		return err;
	for (long k = 0; k < npieces && e == cudaSuccess; k++) {
		if (k >= 2)
			e = picard_event_wait(io.copied[k & 1]);
		if (e == cudaSuccess) {
			fill(k, io.pinned[k & 1]);
			e = enqueue(k, io.pinned[k & 1]);
		}
		if (e == cudaSuccess)
			e = cudaEventRecord(io.copied[k & 1], 0);
	}
	for (int b = 0; b < 2 && e == cudaSuccess; b++)
		e = picard_event_wait(io.copied[b]);
	if (e != cudaSuccess) {
		picard_device_wait();
		err = picard_cuda_fail(e, what);
	}
	give();
	return err;
}

/* Members per piece of a row of width reals. */
static long members_per_piece(int width, size_t real_size)
{
	const long p = (long)(PIECE_BYTES / (width * real_size));

	return p > 0 ? p : 1;
}

static double real_at(const void *buf, size_t real_size, size_t i)
{
	return real_size == sizeof(double) ? ((const double *)buf)[i] :
					     (double)((const float *)buf)[i];
}

extern "C" int picard_io_upload_soa(const double *rows, int stride, int width, long count,
				    size_t real_size, void *dev)
{
	const long per = members_per_piece(width, real_size);

	if (width * real_size > PIECE_BYTES)
		return picard_fail(PICARD_EINVAL, "a row of %d reals exceeds a copy's piece", width);
	return upload_pieces(
		(count + per - 1) / per,
		[&](long k, void *buf) {
			const long first = k * per, n = count - first < per ? count - first : per;

#pragma omp parallel for if (n * width > 4096)
			for (long i = 0; i < n; i++)
				for (int c = 0; c < width; c++) {
					const double v = rows[(first + i) * stride + c];

					if (real_size == sizeof(double))
						((double *)buf)[c * n + i] = v;
					else
						((float *)buf)[c * n + i] = (float)v;
				}
		},
		[&](long k, void *buf) {
			const long first = k * per, n = count - first < per ? count - first : per;

			return cudaMemcpy2DAsync((char *)dev + first * real_size, count * real_size, buf,
						 n * real_size, n * real_size, width,
						 cudaMemcpyHostToDevice, 0);
		},
		"copy to device");
}

extern "C" int picard_io_download_soa(const void *dev, int width, long count, size_t real_size,
				      double *rows)
{
	const long per = members_per_piece(width, real_size);

	if (width * real_size > PIECE_BYTES)
		return picard_fail(PICARD_EINVAL, "a row of %d reals exceeds a copy's piece", width);
	return download_pieces(
		(count + per - 1) / per,
		[&](long k, void *buf) {
			const long first = k * per, n = count - first < per ? count - first : per;

			return cudaMemcpy2DAsync(buf, n * real_size,
						 (const char *)dev + first * real_size,
						 count * real_size, n * real_size, width,
						 cudaMemcpyDeviceToHost, 0);
		},
		[&](long k, const void *buf) {
			const long first = k * per, n = count - first < per ? count - first : per;

#pragma omp parallel for if (n * width > 4096)
			for (long i = 0; i < n; i++)
				for (int c = 0; c < width; c++)
					rows[(first + i) * width + c] =
						real_at(buf, real_size, (size_t)c * n + i);
		},
		"copy from device");
}

extern "C" int picard_io_download_rows(const void *dev, long nrows, long len, size_t real_size,
				       double *host, long pitch)
{
	const long per = (long)(PIECE_BYTES / real_size), total = nrows * len;

	return download_pieces(
		(total + per - 1) / per,
		[&](long k, void *buf) {
			const long first = k * per, n = total - first < per ? total - first : per;

			return cudaMemcpyAsync(buf, (const char *)dev + first * real_size,
					       n * real_size, cudaMemcpyDeviceToHost, 0);
		},
		[&](long k, const void *buf) {
			const long first = k * per, n = total - first < per ? total - first : per;

#pragma omp parallel for if (n > 4096)
			for (long i = 0; i < n; i++)
				host[(first + i) / len * pitch + (first + i) % len] =
					real_at(buf, real_size, i);
		},
		"copy a record from device");
}

extern "C" int picard_io_download_bytes(const void *dev, size_t bytes, void *host)
{
	const long pieces = (long)((bytes + PIECE_BYTES - 1) / PIECE_BYTES);

	return download_pieces(
		pieces,
		[&](long k, void *buf) {
			const size_t first = k * PIECE_BYTES;

			return cudaMemcpyAsync(buf, (const char *)dev + first,
					       bytes - first < PIECE_BYTES ? bytes - first : PIECE_BYTES,
					       cudaMemcpyDeviceToHost, 0);
		},
		[&](long k, const void *buf) {
			const size_t first = k * PIECE_BYTES,
				     n = bytes - first < PIECE_BYTES ? bytes - first : PIECE_BYTES;
			const size_t part = 1 << 20;

#pragma omp parallel for if (n > part)
			for (size_t at = 0; at < n; at += part)
				memcpy((char *)host + first + at, (const char *)buf + at,
				       n - at < part ? n - at : part);
		},
		"copy from device");
}

template <class real>
__global__ void broadcast_kernel(const double *row, int width, long count, real *dev)
{
	const long all = width * count;

	for (long f = blockIdx.x * (long)blockDim.x + threadIdx.x; f < all;
	     f += (long)gridDim.x * blockDim.x)
		dev[f] = (real)row[f / count];
}

/* Blocks for a grid-stride loop over count items. */
static unsigned grid_blocks(long count)
{
	const long blocks = (count + TOTALS_THREADS - 1) / TOTALS_THREADS;

	return (unsigned)(blocks < 1 ? 1 : blocks > 4096 ? 4096 : blocks);
}

/* row (len doubles) in io.row on the device, grown to hold it; with the
 * buffers taken. A kernel on stream 0 that still reads the last row is
 * waited for by the copy, on that stream too. */
static cudaError_t row_to_device(const double *row, size_t len)
{
	const size_t bytes = len * sizeof(double);
	cudaError_t e = cudaSuccess;

	if (bytes > io.row_bytes) {
		cudaFree(io.row);
		io.row_bytes = 0;
		e = cudaMalloc((void **)&io.row, bytes);
		if (e == cudaSuccess)
			io.row_bytes = bytes;
	}
	return e == cudaSuccess ? picard_memcpy(io.row, row, bytes, cudaMemcpyHostToDevice) : e;
}

extern "C" int picard_io_broadcast_row(const double *row, int width, long count,
				       size_t real_size, void *dev)
{
	cudaError_t e;
	int err = take();

	if (err)
		return err;
	e = row_to_device(row, width);
	if (e == cudaSuccess) {
		if (real_size == sizeof(double))
			broadcast_kernel<<<picard_counted(grid_blocks(width * count)), TOTALS_THREADS>>>(
				io.row, width, count, (double *)dev);
		else
			broadcast_kernel<<<picard_counted(grid_blocks(width * count)), TOTALS_THREADS>>>(
				io.row, width, count, (float *)dev);
		e = cudaGetLastError();
	}
	give();
	return e == cudaSuccess ? PICARD_OK : picard_cuda_fail(e, "parameters shared by all members");
}

/* The draw's members first .. first+count-1 (src/ensemble/philox.h, as the host's
 * picard_draw_host): states x[k*count + i] from centres[0..n), and with
 * params, parameter q of each from centres[n + q], spread by centres[n +
 * np + q] where that is positive. */
template <class real>
__global__ void draw_kernel(const double *centres, int n, int np, double spread,
			    unsigned long long seed, unsigned long long first, long count,
			    real *x, real *params)
{
	const long states = n * count, all = states + (params ? np * count : 0);

	for (long f = blockIdx.x * (long)blockDim.x + threadIdx.x; f < all;
	     f += (long)gridDim.x * blockDim.x) {
		if (f < states) {
			const long k = f / count, i = f - k * count;
			const double u = picard_philox_uniform((first + i) * n + k, seed);

			x[f] = (real)picard_spread_value(centres[k], spread, u);
		} else {
			const long g = f - states, q = g / count, i = g - q * count;
			const double value = centres[n + q], by = centres[n + np + q];

			params[g] = (real)(by > 0 ? picard_spread_value(value, by,
					   picard_philox_uniform(first + i, seed + 1 + q)) : value);
		}
	}
}

extern "C" int picard_io_draw(const struct picard_draw *draw, int n, int np, long offset,
			      long count, size_t real_size, void *x0, void *params)
{
	const bool own = params && picard_draw_own_params(draw, np);
	const unsigned long long first = (unsigned long long)(draw->first + offset);
	double *centres = (double *)malloc((n + 2 * (size_t)np) * sizeof(double));
	cudaError_t e;
	int err = centres ? take() : picard_fail(PICARD_ENOMEM, "draw: %d centres", n + 2 * np);

	if (err) {
		free(centres);
		return err;
	}
	for (int k = 0; k < n; k++)
		centres[k] = draw->start[k];
	for (int q = 0; own && q < np; q++) {
		centres[n + q] = draw->param_values[q];
		centres[n + np + q] = draw->param_spreads[q];
	}
	e = row_to_device(centres, n + (own ? 2 * np : 0));
	if (e == cudaSuccess) {
		const unsigned blocks = grid_blocks(count * (n + (own ? np : 0)));

		if (real_size == sizeof(double))
			draw_kernel<<<picard_counted(blocks), TOTALS_THREADS>>>(io.row, n, np, draw->spread,
							       draw->seed, first, count,
							       (double *)x0,
							       own ? (double *)params : NULL);
		else
			draw_kernel<<<picard_counted(blocks), TOTALS_THREADS>>>(io.row, n, np, draw->spread,
							       draw->seed, first, count, (float *)x0,
							       own ? (float *)params : NULL);
		e = cudaGetLastError();
	}
	give();
	free(centres);
	return e == cudaSuccess ? PICARD_OK : picard_cuda_fail(e, "the ensemble drawn on the device");
}

template <class T>
__device__ T warp_sum(T v)
{
	for (int d = 16; d > 0; d >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, d);
	return v;
}

__global__ void totals_kernel(const int *status, const long *fail_window, const double *fail_time,
			      const long *sweeps, const int *sweeps_max, long count, long windows,
			      struct device_totals *out)
{
	unsigned long long failed = 0, irregular = 0, sweep_sum = 0, windows_run = 0;
	int most = 0;

	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < count;
	     i += (long)gridDim.x * blockDim.x) {
		const int s = status[i];
		const long w = fail_window[i];

		failed += picard_traj_failed(s);
		irregular += s != PICARD_TRAJ_OK || w != -1 || !isnan(fail_time[2 * i]) ||
			     !isnan(fail_time[2 * i + 1]);
		sweep_sum += sweeps[i];
		windows_run += picard_traj_stopped(s) ? w + 1 : windows;
		most = max(most, sweeps_max[i]);
	}
	failed = warp_sum(failed);
	irregular = warp_sum(irregular);
	sweep_sum = warp_sum(sweep_sum);
	windows_run = warp_sum(windows_run);
	for (int d = 16; d > 0; d >>= 1)
		most = max(most, __shfl_down_sync(0xffffffffu, most, d));
	if (threadIdx.x % 32 == 0) {
		atomicAdd(&out->failed, failed);
		atomicAdd(&out->irregular, irregular);
		atomicAdd(&out->sweeps, sweep_sum);
		atomicAdd(&out->windows_run, windows_run);
		atomicMax(&out->sweeps_max, most);
	}
}

extern "C" int picard_io_totals(const int *status, const long *fail_window,
				const double *fail_time, const long *sweeps,
				const int *sweeps_max, long count, long windows,
				struct picard_job_totals *out, long *irregular)
{
	struct device_totals t;
	cudaError_t e;
	int err = take();

	if (err)
		return err;
	e = cudaMemsetAsync(io.totals, 0, sizeof(*io.totals), 0);
	if (e == cudaSuccess) {
		totals_kernel<<<picard_counted(grid_blocks(count)), TOTALS_THREADS>>>(
			status, fail_window, fail_time, sweeps, sweeps_max, count, windows, io.totals);
		e = cudaGetLastError();
	}
	if (e == cudaSuccess)
		e = picard_memcpy(&t, io.totals, sizeof(t), cudaMemcpyDeviceToHost);
	give();
	if (e != cudaSuccess)
		return picard_cuda_fail(e, "the members' totals");
	out->failed = (long)t.failed;
	out->sweeps = (double)t.sweeps;
	out->windows_run = (double)t.windows_run;
	out->sweeps_max = t.sweeps_max;
	*irregular = (long)t.irregular;
	return PICARD_OK;
}

template <class Real>
__global__ void final_errors_kernel(const Real *x, const int *x_status, const double *ref,
				    const int *ref_status, int n, long count, double atol,
				    double rtol, bool absolute, double *errors)
{
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < count;
	     i += (long)gridDim.x * blockDim.x) {
		double worst = 0;

		for (int k = 0; k < n; k++)
			worst = fmax(worst, picard_component_error(atol, rtol, absolute,
								   (double)x[k * count + i],
								   ref[k * count + i]));
		errors[i] = picard_traj_estimated(x_status[i]) && picard_traj_estimated(ref_status[i]) ?
				    worst : NAN;
	}
}

extern "C" int picard_io_final_errors(const void *x, size_t x_size, const int *x_status,
				      const double *ref, const int *ref_status, int n, long count,
				      const picard_tolerance *scale, double *errors)
{
	const bool absolute = !scale || (scale->atol == 0 && scale->rtol == 0);
	const double atol = absolute ? 0 : scale->atol, rtol = absolute ? 0 : scale->rtol;
	double *dev = NULL;
	cudaError_t e = cudaMalloc((void **)&dev, count * sizeof(double));
	int err;

	if (e != cudaSuccess)
		return picard_cuda_fail(e, "device memory for the error estimates");
	if (x_size == sizeof(double))
		final_errors_kernel<<<picard_counted(grid_blocks(count)), TOTALS_THREADS>>>(
			(const double *)x, x_status, ref, ref_status, n, count, atol, rtol, absolute,
			dev);
	else
		final_errors_kernel<<<picard_counted(grid_blocks(count)), TOTALS_THREADS>>>(
			(const float *)x, x_status, ref, ref_status, n, count, atol, rtol, absolute,
			dev);
	e = cudaGetLastError();
	err = e == cudaSuccess ? picard_io_download_bytes(dev, count * sizeof(double), errors) :
				 picard_cuda_fail(e, "the error estimates' comparison");
	cudaFree(dev);
	return err;
}
