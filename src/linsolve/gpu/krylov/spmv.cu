/* spmv.cu - the batched SpMV (krylov.h): the pattern's checks and upload,
 * the candidate kernels' launchers, the tuner and its cache, and the
 * layout conversions. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "krylov/solver.h"
#include "device_counts.h"

const char *krylov_strerror(int code)
{
	switch (code) {
	case 0:
		return "success";
	case KRYLOV_EBADINPUT:
		return "bad input: a size, pointer or option out of range";
	case KRYLOV_EPATTERN:
		return "malformed pattern: a column out of range, repeated in a row, or a "
		       "diagonal among MSR's off-diagonal entries";
	case KRYLOV_ELIBRARY:
		return "cuSPARSE or cuBLAS failed";
	case KRYLOV_ENOMEM:
		return "out of host memory";
	case KRYLOV_EUNSUPPORTED:
		return "this variant does not take the input";
	}
	return code > 0 ? cudaGetErrorString((cudaError_t)code) : "unknown error";
}

/* ---- the candidates ------------------------------------------------------ */

#define THREAD(r, b) {"thread-r" #r "-b" #b, KRYLOV_SPMV_THREAD, r, b}
#define GROUP(t, b) {"group-t" #t "-b" #b, KRYLOV_SPMV_GROUP, t, b}
static const struct krylov_spmv_kernel candidates[] = {
	THREAD(1, 64),  THREAD(1, 128), THREAD(1, 256), THREAD(1, 512),
	THREAD(2, 64),  THREAD(2, 128), THREAD(2, 256), THREAD(2, 512),
	THREAD(4, 64),  THREAD(4, 128), THREAD(4, 256), THREAD(4, 512),
	GROUP(2, 128),  GROUP(2, 256),  GROUP(4, 128),  GROUP(4, 256),
	GROUP(8, 128),  GROUP(8, 256),  GROUP(16, 128), GROUP(16, 256),
	GROUP(32, 128), GROUP(32, 256),
};
#define NCANDIDATES (sizeof(candidates) / sizeof(*candidates))

extern "C" const struct krylov_spmv_kernel *const krylov_spmv_kernels[] = {
	&candidates[0],  &candidates[1],  &candidates[2],  &candidates[3],  &candidates[4],
	&candidates[5],  &candidates[6],  &candidates[7],  &candidates[8],  &candidates[9],
	&candidates[10], &candidates[11], &candidates[12], &candidates[13], &candidates[14],
	&candidates[15], &candidates[16], &candidates[17], &candidates[18], &candidates[19],
	&candidates[20], &candidates[21], NULL,
};

template <int R>
static void launch_thread(const krylov_dpattern &p, int block, const double *val,
			  const double *x, double *y, cudaStream_t stream)
{
	long items = (long)p.n * p.batch, per_block = (long)R * block;

	krylov_spmv_thread_kernel<R>
		<<<picard_counted((items + per_block - 1) / per_block), block, 0, stream>>>(p, val, x, y, items);
}

template <int T>
static void launch_group(const krylov_dpattern &p, int block, const double *val, const double *x,
			 double *y, cudaStream_t stream)
{
	long items = (long)p.n * p.batch, per_block = block / T;

	krylov_spmv_group_kernel<T>
		<<<picard_counted((items + per_block - 1) / per_block), block, 0, stream>>>(p, val, x, y, items);
}

extern "C" int krylov_spmv_apply_with(const struct krylov_spmv *spmv,
				      const struct krylov_spmv_kernel *kernel, const double *val,
				      const double *x, double *y, cudaStream_t stream)
{
	const krylov_dpattern &p = spmv->p;

	if (!kernel || !val || !x || !y)
		return KRYLOV_EBADINPUT;
	if (kernel->kind == KRYLOV_SPMV_THREAD) {
		switch (kernel->param) {
		case 1: launch_thread<1>(p, kernel->block, val, x, y, stream); break;
		case 2: launch_thread<2>(p, kernel->block, val, x, y, stream); break;
		case 4: launch_thread<4>(p, kernel->block, val, x, y, stream); break;
		default: return KRYLOV_EBADINPUT;
		}
	} else {
		switch (kernel->param) {
		case 2: launch_group<2>(p, kernel->block, val, x, y, stream); break;
		case 4: launch_group<4>(p, kernel->block, val, x, y, stream); break;
		case 8: launch_group<8>(p, kernel->block, val, x, y, stream); break;
		case 16: launch_group<16>(p, kernel->block, val, x, y, stream); break;
		case 32: launch_group<32>(p, kernel->block, val, x, y, stream); break;
		default: return KRYLOV_EBADINPUT;
		}
	}
	return cudaGetLastError();
}

extern "C" int krylov_spmv_apply(const struct krylov_spmv *spmv, const double *val,
				 const double *x, double *y, cudaStream_t stream)
{
	return krylov_spmv_apply_with(spmv, spmv->choice, val, x, y, stream);
}

/* ---- the pattern ------------------------------------------------------- */

extern "C" long krylov_pattern_values(const struct krylov_pattern *pattern)
{
	return pattern->format == KRYLOV_MSR ? pattern->bindx[pattern->n]
					     : pattern->row_start[pattern->n];
}

/* Row i's entries [*first, *end) of the column array *cols. */
static void pattern_row(const struct krylov_pattern *pattern, int i, int *first, int *end,
			const int **cols)
{
	const int *start = pattern->format == KRYLOV_MSR ? pattern->bindx : pattern->row_start;

	*first = start[i], *end = start[i + 1];
	*cols = pattern->format == KRYLOV_MSR ? pattern->bindx : pattern->col;
}

/* 0, or KRYLOV_EBADINPUT / KRYLOV_EPATTERN. */
static int pattern_check(const struct krylov_pattern *pattern)
{
	const int *start;
	int n = pattern ? pattern->n : 0, lowest;
	char *seen;

	if (!pattern || n < 1 ||
	    (pattern->format == KRYLOV_CSR ? !pattern->row_start || !pattern->col
					   : pattern->format != KRYLOV_MSR || !pattern->bindx))
		return KRYLOV_EBADINPUT;
	start = pattern->format == KRYLOV_MSR ? pattern->bindx : pattern->row_start;
	lowest = pattern->format == KRYLOV_MSR ? n + 1 : 0;
	if (start[0] != lowest)
		return KRYLOV_EPATTERN;
	for (int i = 0; i < n; i++)
		if (start[i + 1] < start[i])
			return KRYLOV_EPATTERN;
	seen = (char *)calloc(n, 1);
	if (!seen)
		return KRYLOV_ENOMEM;
	for (int i = 0; i < n; i++) {
		const int *cols;
		int first, end, bad = 0;

		pattern_row(pattern, i, &first, &end, &cols);
		for (int k = first; k < end && !bad; k++) {
			int j = cols[k];

			bad = j < 0 || j >= n || seen[j] || (pattern->format == KRYLOV_MSR && j == i);
			if (!bad)
				seen[j] = 1;
		}
		for (int k = first; k < end; k++)
			if (cols[k] >= 0 && cols[k] < n)
				seen[cols[k]] = 0;
		if (bad) {
			free(seen);
			return KRYLOV_EPATTERN;
		}
	}
	free(seen);
	return 0;
}

/* FNV-1a over the pattern's arrays. */
static unsigned long long pattern_hash(const struct krylov_pattern *pattern)
{
	unsigned long long h = 1469598103934665603ull;
	int n = pattern->n;
	long values = krylov_pattern_values(pattern);
	const int *start = pattern->format == KRYLOV_MSR ? pattern->bindx : pattern->row_start;
	const int *cols = pattern->format == KRYLOV_MSR ? pattern->bindx : pattern->col;
	auto mix = [&h](unsigned long long word) {
		for (int b = 0; b < 8; b++)
			h = (h ^ ((word >> (8 * b)) & 0xff)) * 1099511628211ull;
	};

	mix((unsigned long long)pattern->format);
	mix((unsigned long long)n);
	for (int i = 0; i <= n; i++)
		mix((unsigned)start[i]);
	for (long k = start[0]; k < values; k++)
		mix((unsigned)cols[k]);
	return h;
}

static int upload(void **device, const void *host, size_t bytes)
{
	int err = cudaMalloc(device, bytes ? bytes : 1);

	if (err == cudaSuccess && bytes)
		err = picard_memcpy(*device, host, bytes, cudaMemcpyHostToDevice);
	return err;
}

extern "C" int krylov_spmv_create(const struct krylov_pattern *pattern, int batch, bool tune,
				  struct krylov_spmv **out)
{
	struct krylov_spmv *spmv;
	int err = pattern_check(pattern), n, device;
	long values;
	bool msr;

	*out = NULL;
	if (err)
		return err;
	if (batch < 1)
		return KRYLOV_EBADINPUT;
	n = pattern->n, msr = pattern->format == KRYLOV_MSR;
	values = krylov_pattern_values(pattern);
	spmv = (struct krylov_spmv *)calloc(1, sizeof(*spmv));
	if (!spmv)
		return KRYLOV_ENOMEM;
	spmv->p.n = n, spmv->p.batch = batch, spmv->p.msr = msr;
	spmv->values = values;
	spmv->choice = &candidates[0];
	spmv->hash = pattern_hash(pattern);
	if ((err = cudaGetDevice(&device)) ||
	    (err = cudaDeviceGetAttribute(&spmv->sms, cudaDevAttrMultiProcessorCount, device)))
		goto fail;
	if (msr) {
		err = upload((void **)&spmv->p.start, pattern->bindx, sizeof(int) * values);
		spmv->p.col = spmv->p.start;
	} else {
		int *diag = (int *)malloc(sizeof(int) * n);

		if (!diag) {
			err = KRYLOV_ENOMEM;
			goto fail;
		}
		for (int i = 0; i < n; i++) {
			diag[i] = -1;
			for (int k = pattern->row_start[i]; k < pattern->row_start[i + 1]; k++)
				if (pattern->col[k] == i)
					diag[i] = k;
		}
		err = upload((void **)&spmv->p.start, pattern->row_start, sizeof(int) * (n + 1));
		if (!err)
			err = upload((void **)&spmv->p.col, pattern->col, sizeof(int) * values);
		if (!err)
			err = upload((void **)&spmv->diag_pos, diag, sizeof(int) * n);
		free(diag);
	}
	if (!err && tune)
		err = krylov_spmv_tune(spmv, 0);
	if (err)
		goto fail;
	*out = spmv;
	return 0;
fail:
	krylov_spmv_free(spmv);
	return err;
}

extern "C" void krylov_spmv_free(struct krylov_spmv *spmv)
{
	if (!spmv)
		return;
	cudaFree((void *)spmv->p.start);
	if (!spmv->p.msr)
		cudaFree((void *)spmv->p.col);
	cudaFree(spmv->diag_pos);
	cudaFree(spmv->transpose);
	free(spmv);
}

int krylov_spmv_make_transpose(struct krylov_spmv *spmv,
					  const struct krylov_pattern *pattern)
{
	int n = pattern->n, err;
	long values = spmv->values;
	int *transpose;

	if (spmv->transpose)
		return 0;
	transpose = (int *)malloc(sizeof(int) * values);
	if (!transpose)
		return KRYLOV_ENOMEM;
	for (long k = 0; k < values; k++)
		transpose[k] = -1;
	for (int i = 0; i < n; i++) {
		const int *cols;
		int first, end;

		pattern_row(pattern, i, &first, &end, &cols);
		for (int k = first; k < end; k++) {
			const int *cols_j;
			int first_j, end_j, j = cols[k];

			pattern_row(pattern, j, &first_j, &end_j, &cols_j);
			for (int q = first_j; q < end_j; q++)
				if (cols_j[q] == i)
					transpose[k] = q;
		}
	}
	err = upload((void **)&spmv->transpose, transpose, sizeof(int) * values);
	free(transpose);
	return err;
}

extern "C" const struct krylov_spmv_kernel *krylov_spmv_choice(const struct krylov_spmv *spmv,
							       bool *cached)
{
	if (cached)
		*cached = spmv->cached;
	return spmv->choice;
}

extern "C" int krylov_spmv_rows(const struct krylov_spmv *spmv)
{
	return spmv->p.n;
}

extern "C" int krylov_spmv_batch(const struct krylov_spmv *spmv)
{
	return spmv->p.batch;
}

extern "C" long krylov_spmv_values(const struct krylov_spmv *spmv)
{
	return spmv->values;
}

/* ---- the tuner ----------------------------------------------------------- */

/* The choices made in this process, by (pattern hash, batch). */
#define CACHE_ENTRIES 64
static struct {
	unsigned long long hash;
	int batch;
	int choice; /* index into candidates */
} cache[CACHE_ENTRIES];
static int cache_used, cache_next;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static int cache_find(unsigned long long hash, int batch)
{
	int found = -1;

	pthread_mutex_lock(&cache_lock);
	for (int e = 0; e < cache_used && found < 0; e++)
		if (cache[e].hash == hash && cache[e].batch == batch)
			found = cache[e].choice;
	pthread_mutex_unlock(&cache_lock);
	return found;
}

static void cache_store(unsigned long long hash, int batch, int choice)
{
	pthread_mutex_lock(&cache_lock);
	cache[cache_next].hash = hash;
	cache[cache_next].batch = batch;
	cache[cache_next].choice = choice;
	cache_next = (cache_next + 1) % CACHE_ENTRIES;
	if (cache_used < CACHE_ENTRIES)
		cache_used++;
	pthread_mutex_unlock(&cache_lock);
}

#define TUNE_WARMUPS 1
#define TUNE_REPEATS 5

static int compare_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

/* The median time of candidate c on scratch arrays, in ms. */
static int time_candidate(struct krylov_spmv *spmv, int c, const double *val, const double *x,
			  double *y, cudaEvent_t start, cudaEvent_t stop, cudaStream_t stream,
			  float *median)
{
	float times[TUNE_REPEATS];
	int err;

	for (int r = 0; r < TUNE_WARMUPS + TUNE_REPEATS; r++) {
		if ((err = cudaEventRecord(start, stream)) ||
		    (err = krylov_spmv_apply_with(spmv, &candidates[c], val, x, y, stream)) ||
		    (err = cudaEventRecord(stop, stream)) || (err = picard_event_wait(stop)))
			return err;
		if (r >= TUNE_WARMUPS &&
		    (err = cudaEventElapsedTime(&times[r - TUNE_WARMUPS], start, stop)))
			return err;
	}
	qsort(times, TUNE_REPEATS, sizeof(float), compare_float);
	*median = times[TUNE_REPEATS / 2];
	return 0;
}

extern "C" int krylov_spmv_tune(struct krylov_spmv *spmv, cudaStream_t stream)
{
	int batch = spmv->p.batch, best = cache_find(spmv->hash, batch), err;
	size_t vector = sizeof(double) * spmv->p.n * (size_t)batch;
	double *val = NULL, *x = NULL, *y = NULL;
	cudaEvent_t start = NULL, stop = NULL;
	float best_ms = 0;

	if (best >= 0) {
		spmv->choice = &candidates[best];
		spmv->cached = true;
		return 0;
	}
	/* the values do not change the time: zeros */
	if ((err = cudaMalloc(&val, sizeof(double) * spmv->values * (size_t)batch)) ||
	    (err = cudaMalloc(&x, vector)) || (err = cudaMalloc(&y, vector)) ||
	    (err = cudaMemsetAsync(val, 0, sizeof(double) * spmv->values * (size_t)batch, stream)) ||
	    (err = cudaMemsetAsync(x, 0, vector, stream)) || (err = cudaEventCreate(&start)) ||
	    (err = cudaEventCreate(&stop)))
		goto out;
	for (int c = 0; c < (int)NCANDIDATES; c++) {
		float ms;

		if ((err = time_candidate(spmv, c, val, x, y, start, stop, stream, &ms)))
			goto out;
		if (best < 0 || ms < best_ms)
			best = c, best_ms = ms;
	}
	spmv->choice = &candidates[best];
	spmv->cached = false;
	cache_store(spmv->hash, batch, best);
out:
	if (start)
		cudaEventDestroy(start);
	if (stop)
		cudaEventDestroy(stop);
	cudaFree(val);
	cudaFree(x);
	cudaFree(y);
	return err;
}

/* ---- layouts -------------------------------------------------------------- */

__global__ void krylov_interleave_kernel(const double *in, double *out, long count, int batch,
					 int forward)
{
	long t = (long)blockIdx.x * blockDim.x + threadIdx.x;

	if (t < count * batch) {
		long j = t / batch;
		int m = (int)(t - j * batch);

		if (forward)
			out[t] = in[m * count + j];
		else
			out[m * count + j] = in[t];
	}
}

static int interleave(const double *in, double *out, long count, int batch, int forward,
		      cudaStream_t stream)
{
	long items = count * batch;

	if (!in || !out || count < 1 || batch < 1)
		return KRYLOV_EBADINPUT;
	krylov_interleave_kernel<<<picard_counted((items + 255) / 256), 256, 0, stream>>>(in, out, count, batch,
									forward);
	return cudaGetLastError();
}

extern "C" int krylov_interleave(const double *in, double *out, long count, int batch,
				 cudaStream_t stream)
{
	return interleave(in, out, count, batch, 1, stream);
}

extern "C" int krylov_deinterleave(const double *in, double *out, long count, int batch,
				   cudaStream_t stream)
{
	return interleave(in, out, count, batch, 0, stream);
}
