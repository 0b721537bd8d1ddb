/* bench_krylov.cu - bin/bench-krylov: the GPU Krylov pieces of
 * src/linsolve/gpu/krylov/ side by side in one run (issue 21), as Mossaiby 2013
 * measures its tunable SpMV and its CG (Tables 4-6: the time of 1000 CG
 * iterations, against ViennaCL's CG on the CPU and on the GPU; 5-6x and
 * 8-9x on its system 2).
 *
 * The systems: the 2D five-point pressure (filtration) operator
 * -div(k grad p) on an N x N grid with u = 0 on the boundary and a
 * heterogeneous permeability k = exp(sin(..) + cos(..)) that differs by
 * member: symmetric positive definite, condition ~ N^2, the setting of
 * Gubaidullin & Nikiforov (section 2) on a regular grid.
 *
 * Part spmv: for N = 64 .. 2048 (one system) and a batch (--batch B
 * systems of --batch-size N), in CSR and MSR: the host SpMV first (the
 * reference, timed once), then the tuner (its time), every candidate
 * kernel and cuSPARSE's cusparseSpMV, each checked against the host
 * before it is timed (error: the worst member's max |y - y_host| /
 * max |y_host|). Effective bandwidth counts the values, the pattern once
 * and the two vectors.
 *
 * Part cg: for N = 128 .. 1024 and the batch, --cg-iters iterations of
 * each CG from x = 0 (a tolerance no residual meets, as the paper does):
 * the host CG of src/linsolve/ with each preconditioner first (the
 * references), then ours with each preconditioner (a CUDA graph of 8
 * iterations replayed between the host's looks at the members; without a
 * preconditioner also with every kernel launched directly), the cuSPARSE-based CG
 * (cusparseSpMV + cuBLAS, no preconditioner), and ViennaCL's CG (none and
 * Jacobi) on its CUDA and OpenMP backends where it was built in. The
 * library variants take one system at a time: a batch is a loop over its
 * members. Each variant is checked before it is timed: its x's recomputed
 * residual within 2x (and 1e-12) of the host CG's with the same
 * preconditioner, every member; the x difference is reported.
 *
 * Times: GPU variants with CUDA events (ours) or the wall clock after a
 * device synchronisation (the libraries), after a warm-up, min and median
 * of --repeats; host variants --host-repeats times.
 *
 *   bench-krylov [--spmv-sizes N,..] [--cg-sizes N,..] [--batch B]
 *                [--batch-size N] [--cg-iters K] [--batch-cg-iters K]
 *                [--repeats R] [--host-repeats R] [--out DIR]
 *
 * A table on stdout; with --out the CSV in DIR/bench-krylov.csv. Exit
 * status 1 where a variant failed its check. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cuda_runtime_api.h>

#include "bench_common.h"
#include "krylov/krylov.h"
#include "linsolve/krylov.h"
#include "linsolve/sparse.h"
#if BENCH_VIENNACL
#include "viennacl_cg.h"
#endif

#define PROGRAM "bench-krylov"
#define MAX_LIST 16
#define MAX_REPEATS 100
#define SPMV_ERROR_LIMIT 1e-13
#define RESIDUAL_SLACK 2.0 /* a CG variant's residual against the host's: a broken
			   one is off by orders, rounding by far less */
#define NEUMANN_DEGREE 2
#define SEED 21

#define CSV_COLUMNS                                                                       \
	"device,driver,date,part,format,n,grid,batch,variant,iters,time_min_us,"            \
	"time_median_us,repeats,us_per_iter,gbytes_per_s,max_rel_error,residual,check,"     \
	"speedup_vs_host,speedup_vs_cusparse,speedup_vs_viennacl_cpu,speedup_vs_viennacl_gpu," \
	"note"

struct options {
	int spmv_sizes[MAX_LIST], nspmv;
	int cg_sizes[MAX_LIST], ncg;
	int batch, batch_size, cg_iters, batch_cg_iters, repeats, host_repeats;
	const char *out;
};

/* The device, the date, the CSV. */
struct context {
	char device[256], driver[32], date[32];
	FILE *csv;
	int failed;
};

/* One measured variant, a CSV row. */
struct row {
	const char *part, *format, *variant, *note;
	int grid, batch;
	long n, iters;
	double min_us, median_us, bytes, error, residual;
	int repeats;
	bool ok;
	double host_us, cusparse_us, vcl_cpu_us, vcl_gpu_us; /* speed-up bases, 0: none */
};

static struct row row_of(const char *part, const char *format, const char *variant,
			 const char *note, int grid, int batch, long n, long iters)
{
	struct row r;

	memset(&r, 0, sizeof(r));
	r.part = part, r.format = format, r.variant = variant, r.note = note;
	r.grid = grid, r.batch = batch, r.n = n, r.iters = iters;
	return r;
}

static void cuda_check(int err, const char *what)
{
	if (err)
		bench_die(PROGRAM, "%s: %s", what, krylov_strerror(err));
}

static void *host_alloc(size_t bytes)
{
	void *p = malloc(bytes ? bytes : 1);

	if (!p)
		bench_die(PROGRAM, "out of host memory (%zu bytes)", bytes);
	return p;
}

static void *device_alloc(size_t bytes)
{
	void *p;

	cuda_check(cudaMalloc(&p, bytes ? bytes : 1), "cudaMalloc");
	return p;
}

static int parse_list(const char *flag, const char *text, int *values)
{
	char copy[256], *save = NULL;
	int count = 0;

	snprintf(copy, sizeof(copy), "%s", text);
	for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		long v = bench_arg_long(PROGRAM, flag, item);

		if (v < 2 || v > 4096 || count == MAX_LIST)
			bench_die_usage(PROGRAM, "%s: '%s' is out of range (2 .. 4096, %d values)",
					flag, item, MAX_LIST);
		values[count++] = (int)v;
	}
	return count;
}

static struct options parse_options(int argc, char **argv)
{
	struct options o = {{64, 128, 256, 512, 1024, 2048}, 6, {128, 256, 512, 1024}, 4,
			    256, 64, 1000, 200, 5, 1, NULL};

	for (int i = 1; i < argc; i++) {
		const char *value = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(argv[i], "--help") == 0) {
			printf("usage: %s [--spmv-sizes N,..] [--cg-sizes N,..] [--batch B] "
			       "[--batch-size N] [--cg-iters K] [--batch-cg-iters K] [--repeats R] "
			       "[--host-repeats R] "
			       "[--out DIR]\n",
			       PROGRAM);
			exit(0);
		}
		if (!value)
			bench_die_usage(PROGRAM, "%s: needs a value", argv[i]);
		if (strcmp(argv[i], "--spmv-sizes") == 0)
			o.nspmv = parse_list(argv[i], value, o.spmv_sizes);
		else if (strcmp(argv[i], "--cg-sizes") == 0)
			o.ncg = parse_list(argv[i], value, o.cg_sizes);
		else if (strcmp(argv[i], "--batch") == 0)
			o.batch = (int)bench_arg_long(PROGRAM, argv[i], value);
		else if (strcmp(argv[i], "--batch-size") == 0)
			o.batch_size = (int)bench_arg_long(PROGRAM, argv[i], value);
		else if (strcmp(argv[i], "--cg-iters") == 0)
			o.cg_iters = (int)bench_arg_long(PROGRAM, argv[i], value);
		else if (strcmp(argv[i], "--batch-cg-iters") == 0)
			o.batch_cg_iters = (int)bench_arg_long(PROGRAM, argv[i], value);
		else if (strcmp(argv[i], "--repeats") == 0)
			o.repeats = (int)bench_arg_long(PROGRAM, argv[i], value);
		else if (strcmp(argv[i], "--host-repeats") == 0)
			o.host_repeats = (int)bench_arg_long(PROGRAM, argv[i], value);
		else if (strcmp(argv[i], "--out") == 0)
			o.out = value;
		else
			bench_die_usage(PROGRAM, "unknown option %s", argv[i]);
		i++;
	}
	if (o.repeats < 1 || o.repeats > MAX_REPEATS || o.host_repeats < 1 ||
	    o.host_repeats > MAX_REPEATS)
		bench_die_usage(PROGRAM, "--repeats, --host-repeats: 1 .. %d", MAX_REPEATS);
	if (o.batch < 0 || o.batch > 65536 || o.batch_size < 2 || o.batch_size > 1024)
		bench_die_usage(PROGRAM, "--batch: 0 (none) .. 65536; --batch-size: 2 .. 1024");
	if (o.cg_iters < 1 || o.cg_iters > 100000 || o.batch_cg_iters < 1 ||
	    o.batch_cg_iters > 100000)
		bench_die_usage(PROGRAM, "--cg-iters, --batch-cg-iters: 1 .. 100000");
	return o;
}

/* ---- the systems ----------------------------------------------------------- */

/* A batch of filtration operators on an N x N grid, CSR on the host (and
 * MSR when asked), values interleaved on the device, random b. */
struct problem {
	int grid, batch, n;
	picard_sparse *members;      /* host, CSR */
	picard_sparse *msr_members;  /* host, MSR, or NULL */
	struct krylov_pattern csr, msr;
	long csr_values, msr_values;
	double *b;                   /* host, interleaved */
	double *d_csr_val, *d_msr_val, *d_b, *d_x, *d_y;
};

static picard_sparse filtration(int grid, int member)
{
	int faces_x = (grid + 1) * grid, faces_y = grid * (grid + 1);
	double *kx = (double *)host_alloc(sizeof(double) * faces_x);
	double *ky = (double *)host_alloc(sizeof(double) * faces_y);
	double h = 1.0 / (grid + 1);
	picard_sparse a;

	for (int f = 0; f < faces_x; f++) {
		int i = f % (grid + 1), j = f / (grid + 1);

		kx[f] = exp(sin(9.0 * i * h + member) + cos(7.0 * j * h));
	}
	for (int f = 0; f < faces_y; f++) {
		int i = f % grid, j = f / grid;

		ky[f] = exp(sin(9.0 * i * h) + cos(7.0 * j * h + member));
	}
	if (picard_stencil_2d(grid, grid, h, h, kx, ky, 0, -1, &a) != PICARD_LINSOLVE_OK)
		bench_die(PROGRAM, "out of host memory (N = %d)", grid);
	free(kx);
	free(ky);
	return a;
}

static double *interleaved_values(const picard_sparse *members, int batch, long values)
{
	double *val = (double *)host_alloc(sizeof(double) * values * batch);

	for (int m = 0; m < batch; m++)
		for (long k = 0; k < values; k++)
			val[k * batch + m] = members[m].val[k];
	return val;
}

static double *upload(const double *host, size_t count)
{
	double *device = (double *)device_alloc(sizeof(double) * count);

	cuda_check(cudaMemcpy(device, host, sizeof(double) * count, cudaMemcpyHostToDevice),
		   "upload");
	return device;
}

static struct problem problem_make(int grid, int batch, bool with_msr)
{
	struct problem p;
	size_t vector;
	double *val;
	unsigned long long state = SEED + grid + batch;

	memset(&p, 0, sizeof(p));
	p.grid = grid, p.batch = batch, p.n = grid * grid;
	vector = (size_t)p.n * batch;
	p.members = (picard_sparse *)host_alloc(sizeof(picard_sparse) * batch);
	for (int m = 0; m < batch; m++)
		p.members[m] = filtration(grid, m);
	p.csr = (struct krylov_pattern){KRYLOV_CSR, p.n, p.members[0].row_start, p.members[0].col,
					NULL};
	p.csr_values = krylov_pattern_values(&p.csr);
	val = interleaved_values(p.members, batch, p.csr_values);
	p.d_csr_val = upload(val, p.csr_values * batch);
	free(val);
	if (with_msr) {
		p.msr_members = (picard_sparse *)host_alloc(sizeof(picard_sparse) * batch);
		for (int m = 0; m < batch; m++)
			if (picard_sparse_to_msr(&p.members[m], &p.msr_members[m]) != PICARD_LINSOLVE_OK)
				bench_die(PROGRAM, "out of host memory (MSR, N = %d)", grid);
		p.msr = (struct krylov_pattern){KRYLOV_MSR, p.n, NULL, NULL, p.msr_members[0].bindx};
		p.msr_values = krylov_pattern_values(&p.msr);
		val = interleaved_values(p.msr_members, batch, p.msr_values);
		p.d_msr_val = upload(val, p.msr_values * batch);
		free(val);
	}
	p.b = (double *)host_alloc(sizeof(double) * vector);
	for (size_t i = 0; i < vector; i++) {
		state ^= state << 13, state ^= state >> 7, state ^= state << 17;
		p.b[i] = (double)(state >> 11) / 9007199254740992.0 - 0.5;
	}
	p.d_b = upload(p.b, vector);
	p.d_x = (double *)device_alloc(sizeof(double) * vector);
	p.d_y = (double *)device_alloc(sizeof(double) * vector);
	return p;
}

static void problem_free(struct problem *p)
{
	for (int m = 0; m < p->batch; m++) {
		picard_sparse_free(&p->members[m]);
		if (p->msr_members)
			picard_sparse_free(&p->msr_members[m]);
	}
	free(p->members);
	free(p->msr_members);
	free(p->b);
	cudaFree(p->d_csr_val);
	cudaFree(p->d_msr_val);
	cudaFree(p->d_b);
	cudaFree(p->d_x);
	cudaFree(p->d_y);
}

/* Member m of an interleaved vector. */
static void member_of(const double *interleaved, int n, int batch, int m, double *out)
{
	for (int i = 0; i < n; i++)
		out[i] = interleaved[(long)i * batch + m];
}

/* ---- output -------------------------------------------------------------- */

static double ratio(double base, double us)
{
	return base > 0 && us > 0 ? base / us : NAN;
}

static void emit(struct context *ctx, const struct row *r)
{
	double per_iter = r->iters > 0 ? r->median_us / r->iters : NAN;
	double gbs = r->bytes > 0 ? r->bytes / (r->median_us * 1e3) : NAN;

	ctx->failed |= !r->ok;
	printf("%-5s %-4s %5d %6d %-26s %6ld %12.1f %12.1f %9.2f %8.1f %10.2e %10.2e %8.2f %8.2f "
	       "%8.2f %8.2f%s%s%s\n",
	       r->part, r->format, r->grid, r->batch, r->variant, r->iters, r->min_us, r->median_us,
	       per_iter, gbs, r->error, r->residual, ratio(r->host_us, r->median_us),
	       ratio(r->cusparse_us, r->median_us), ratio(r->vcl_cpu_us, r->median_us),
	       ratio(r->vcl_gpu_us, r->median_us), r->ok ? "" : "  FAILED", r->note ? "  " : "",
	       r->note ? r->note : "");
	if (ctx->csv)
		fprintf(ctx->csv,
			"\"%s\",%s,%s,%s,%s,%ld,%d,%d,%s,%ld,%.2f,%.2f,%d,%.4f,%.2f,%.3e,%.3e,%s,"
			"%.3f,%.3f,%.3f,%.3f,\"%s\"\n",
			ctx->device, ctx->driver, ctx->date, r->part, r->format, r->n, r->grid,
			r->batch, r->variant, r->iters, r->min_us, r->median_us, r->repeats, per_iter,
			gbs, r->error, r->residual, r->ok ? "ok" : "FAILED",
			ratio(r->host_us, r->median_us), ratio(r->cusparse_us, r->median_us),
			ratio(r->vcl_cpu_us, r->median_us), ratio(r->vcl_gpu_us, r->median_us),
			r->note ? r->note : "");
}

/* ---- part spmv ------------------------------------------------------------ */

/* The worst member's max|y - y_ref| / max|y_ref| (y from the device). */
static double spmv_error(const double *y, const double *ref, int n, int batch)
{
	double worst = 0;

	for (int m = 0; m < batch; m++) {
		double scale = 0, err = 0;

		for (int i = 0; i < n; i++) {
			long at = (long)i * batch + m;

			scale = fmax(scale, fabs(ref[at]));
			err = fmax(err, fabs(y[at] - ref[at]));
		}
		if (!(err <= scale))
			return INFINITY;
		worst = fmax(worst, err / scale);
	}
	return worst;
}

typedef int (*spmv_fn)(void *arg, cudaStream_t stream);

/* min and median of repeats timed calls (events), after two warm-ups */
static void time_gpu(spmv_fn fn, void *arg, int repeats, double *min_us, double *median_us)
{
	double times[MAX_REPEATS];
	cudaEvent_t start, stop;

	cuda_check(cudaEventCreate(&start), "cudaEventCreate");
	cuda_check(cudaEventCreate(&stop), "cudaEventCreate");
	for (int k = 0; k < 2 + repeats; k++) {
		float ms;

		cuda_check(cudaEventRecord(start, 0), "cudaEventRecord");
		cuda_check(fn(arg, 0), "timed call");
		cuda_check(cudaEventRecord(stop, 0), "cudaEventRecord");
		cuda_check(cudaEventSynchronize(stop), "timed call");
		cuda_check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
		if (k >= 2)
			times[k - 2] = 1e3 * ms;
	}
	*min_us = bench_min(times, repeats);
	*median_us = bench_median(times, repeats);
	cudaEventDestroy(start);
	cudaEventDestroy(stop);
}

struct spmv_call {
	struct krylov_spmv *spmv;
	const struct krylov_spmv_kernel *kernel;
	struct krylov_cusparse_spmv *anchor;
	const double *val, *x;
	double *y;
};

static int call_ours(void *arg, cudaStream_t stream)
{
	struct spmv_call *c = (struct spmv_call *)arg;

	return krylov_spmv_apply_with(c->spmv, c->kernel, c->val, c->x, c->y, stream);
}

static int call_cusparse(void *arg, cudaStream_t stream)
{
	struct spmv_call *c = (struct spmv_call *)arg;

	return krylov_cusparse_spmv_apply(c->anchor, c->x, c->y, stream);
}

/* Check the call's y against ref, then time it into *r. */
static void measure_spmv(spmv_fn fn, struct spmv_call *call, const double *ref, double *y,
			 const struct problem *p, int repeats, struct row *r)
{
	size_t vector = sizeof(double) * p->n * (size_t)p->batch;

	cuda_check(cudaMemset(call->y, 0xff, vector), "cudaMemset");
	cuda_check(fn(call, 0), r->variant);
	cuda_check(cudaMemcpy(y, call->y, vector, cudaMemcpyDeviceToHost), "download");
	r->error = spmv_error(y, ref, p->n, p->batch);
	r->ok = r->error <= SPMV_ERROR_LIMIT;
	r->repeats = repeats;
	if (r->ok)
		time_gpu(fn, call, repeats, &r->min_us, &r->median_us);
	else
		r->min_us = r->median_us = NAN;
}

static void part_spmv(struct context *ctx, int grid, int batch, int repeats)
{
	struct problem p = problem_make(grid, batch, true);
	size_t vector = (size_t)p.n * batch;
	double *ref = (double *)host_alloc(sizeof(double) * vector);
	double *y = (double *)host_alloc(sizeof(double) * vector);
	double *xm = (double *)host_alloc(sizeof(double) * p.n);
	double *ym = (double *)host_alloc(sizeof(double) * p.n);
	double host_us = 0;

	/* the host reference, member by member, x = b */
	for (int m = 0; m < batch; m++) {
		member_of(p.b, p.n, batch, m, xm);
		double t0 = bench_now_us();
		picard_sparse_spmv(&p.members[m], xm, ym);
		host_us += bench_now_us() - t0;
		for (int i = 0; i < p.n; i++)
			ref[(long)i * batch + m] = ym[i];
	}
	for (int f = 0; f < 2; f++) {
		bool msr = f == 1;
		const struct krylov_pattern *pattern = msr ? &p.msr : &p.csr;
		long values = msr ? p.msr_values : p.csr_values;
		/* the values, the pattern once, x read and y written */
		double bytes = 8.0 * values * batch + 4.0 * (values + p.n + 1) + 16.0 * vector;
		struct spmv_call call = {NULL, NULL, NULL, msr ? p.d_msr_val : p.d_csr_val, p.d_b,
					 p.d_y};
		struct row base = row_of("spmv", msr ? "msr" : "csr", NULL, NULL, grid, batch, p.n, 0);
		struct row r;
		double cusparse_us = 0, t0, tune_us;
		char note[96];

		base.bytes = bytes;
		if (!msr) {
			/* the anchor first: the speed-up base */
			r = base;
			r.variant = "cusparse-spmv";
			cuda_check(krylov_cusparse_spmv_create(&p.csr, batch, &call.anchor),
				   "cusparse anchor");
			cuda_check(krylov_cusparse_spmv_set_values(call.anchor, p.d_csr_val, 0),
				   "cusparse values");
			measure_spmv(call_cusparse, &call, ref, y, &p, repeats, &r);
			cusparse_us = r.median_us;
			r.host_us = host_us, r.cusparse_us = cusparse_us;
			emit(ctx, &r);
			krylov_cusparse_spmv_free(call.anchor);
		}
		cuda_check(krylov_spmv_create(pattern, batch, false, &call.spmv), "krylov_spmv_create");
		cuda_check(cudaDeviceSynchronize(), "sync");
		t0 = bench_now_us();
		cuda_check(krylov_spmv_tune(call.spmv, 0), "krylov_spmv_tune");
		tune_us = bench_now_us() - t0;
		for (int k = 0; krylov_spmv_kernels[k]; k++) {
			r = base;
			call.kernel = krylov_spmv_kernels[k];
			r.variant = call.kernel->name;
			measure_spmv(call_ours, &call, ref, y, &p, repeats, &r);
			r.host_us = host_us, r.cusparse_us = cusparse_us;
			r.note = call.kernel == krylov_spmv_choice(call.spmv, NULL) ? "the tuner's choice"
										  : NULL;
			emit(ctx, &r);
		}
		r = base;
		call.kernel = krylov_spmv_choice(call.spmv, NULL);
		r.variant = "tuned";
		measure_spmv(call_ours, &call, ref, y, &p, repeats, &r);
		r.host_us = host_us, r.cusparse_us = cusparse_us;
		snprintf(note, sizeof(note), "%s, tuning took %.0f us", call.kernel->name, tune_us);
		r.note = note;
		emit(ctx, &r);
		krylov_spmv_free(call.spmv);
	}
	{
		struct row r = row_of("spmv", "csr", "host-spmv", NULL, grid, batch, p.n, 0);

		r.min_us = r.median_us = host_us;
		r.repeats = 1;
		r.error = 0;
		r.ok = true;
		r.host_us = host_us;
		r.note = "OpenMP over rows, the reference";
		emit(ctx, &r);
	}
	free(ref);
	free(y);
	free(xm);
	free(ym);
	problem_free(&p);
}

/* ---- part cg --------------------------------------------------------------- */

/* A CG variant's x (interleaved), its time, and its check. */
struct cg_result {
	double *x;
	double min_us, median_us;
	int repeats;
	long iters;
	char note[128];
	bool ran;
};

/* ||b - A x|| / ||b||, the worst member. */
static double worst_residual(const struct problem *p, const double *x)
{
	double *xm = (double *)host_alloc(sizeof(double) * p->n);
	double *bm = (double *)host_alloc(sizeof(double) * p->n);
	double *ax = (double *)host_alloc(sizeof(double) * p->n), worst = 0;

	for (int m = 0; m < p->batch; m++) {
		double rr = 0, bb = 0;

		member_of(x, p->n, p->batch, m, xm);
		member_of(p->b, p->n, p->batch, m, bm);
		picard_sparse_spmv(&p->members[m], xm, ax);
		for (int i = 0; i < p->n; i++) {
			rr += (bm[i] - ax[i]) * (bm[i] - ax[i]);
			bb += bm[i] * bm[i];
		}
		double res = sqrt(rr / bb);
		worst = isfinite(res) ? fmax(worst, res) : INFINITY;
	}
	free(xm);
	free(bm);
	free(ax);
	return worst;
}

/* max |x - ref| / max |ref| over every member */
static double x_difference(const struct problem *p, const double *x, const double *ref)
{
	return spmv_error(x, ref, p->n, p->batch);
}

struct ours_call {
	struct krylov_solver *solver;
	const double *val, *b;
	double *x;
	int *status, *iters;
};

static int call_ours_cg(void *arg, cudaStream_t stream)
{
	struct ours_call *c = (struct ours_call *)arg;
	int err = cudaMemsetAsync(c->x, 0, sizeof(double) * krylov_spmv_rows(krylov_solver_spmv(
								    c->solver)) *
						   (size_t)krylov_spmv_batch(krylov_solver_spmv(c->solver)),
				  stream);

	return err ? err : krylov_solver_solve(c->solver, c->val, c->b, c->x, c->status, c->iters,
					       NULL, stream);
}

static void run_ours_cg(const struct problem *p, const struct krylov_precond *precond, int iters,
			bool direct, int repeats, struct cg_result *out)
{
	struct krylov_options options = {1e-300, iters, NEUMANN_DEGREE, 0, direct};
	size_t vector = (size_t)p->n * p->batch;
	int *status = (int *)host_alloc(sizeof(int) * p->batch);
	int *done = (int *)host_alloc(sizeof(int) * p->batch);
	struct ours_call call;

	double first_us;

	cuda_check(krylov_solver_create(&p->csr, p->batch, &krylov_cg, precond, &options,
					&call.solver),
		   "krylov_solver_create");
	call.val = p->d_csr_val, call.b = p->d_b, call.x = p->d_x;
	call.status = status, call.iters = done;
	first_us = bench_now_us();
	cuda_check(call_ours_cg(&call, 0), "ours cg");
	first_us = bench_now_us() - first_us;
	out->x = (double *)host_alloc(sizeof(double) * vector);
	cuda_check(cudaMemcpy(out->x, p->d_x, sizeof(double) * vector, cudaMemcpyDeviceToHost),
		   "download");
	out->iters = done[0];
	time_gpu(call_ours_cg, &call, repeats, &out->min_us, &out->median_us);
	out->repeats = repeats;
	snprintf(out->note, sizeof(out->note), "SpMV %s, %s, first solve %.0f us, status %s",
		 krylov_spmv_choice(krylov_solver_spmv(call.solver), NULL)->name,
		 direct ? "direct launches" : "a CUDA graph of 8 iterations", first_us,
		 status[0] == PICARD_LINSOLVE_NOT_CONVERGED
			 ? "at the limit"
			 : picard_linsolve_strerror((picard_linsolve_code)status[0]));
	out->ran = true;
	krylov_solver_free(call.solver);
	free(status);
	free(done);
}

/* A one-system CG (the host's, cuSPARSE's, ViennaCL's) over every member
 * in turn, timed by the wall clock, after one solve to warm up where
 * warm_up: solve(m, x of member m) returns the time of its solve alone in
 * us, or < 0. */
typedef double (*member_solve_fn)(void *arg, int m, double *x, long *iters);

static void run_per_member(const struct problem *p, member_solve_fn solve, void *arg,
			   bool warm_up, int repeats, struct cg_result *out)
{
	size_t vector = (size_t)p->n * p->batch;
	double times[MAX_REPEATS], *xm = (double *)host_alloc(sizeof(double) * p->n);

	out->x = (double *)host_alloc(sizeof(double) * vector);
	out->ran = false;
	if (warm_up && solve(arg, 0, xm, &out->iters) < 0) {
		free(xm);
		return;
	}
	for (int k = 0; k < repeats; k++) {
		double total = 0;

		for (int m = 0; m < p->batch; m++) {
			double us = solve(arg, m, xm, &out->iters);

			if (us < 0) {
				free(xm);
				return;
			}
			total += us;
			if (k == 0)
				for (int i = 0; i < p->n; i++)
					out->x[(long)i * p->batch + m] = xm[i];
		}
		times[k] = total;
	}
	out->min_us = bench_min(times, repeats);
	out->median_us = bench_median(times, repeats);
	out->repeats = repeats;
	out->ran = true;
	free(xm);
}

/* The host CG of src/linsolve/ with a preconditioner. */
struct host_call {
	const struct problem *p;
	const char *precond;
	int iters;
};

static double host_member(void *arg, int m, double *x, long *iters)
{
	struct host_call *c = (struct host_call *)arg;
	const struct problem *p = c->p;
	double *bm = (double *)host_alloc(sizeof(double) * p->n), t0, us;
	picard_krylov_options options = {1e-300, c->iters};
	picard_krylov_result result;
	picard_precond pc;

	member_of(p->b, p->n, p->batch, m, bm);
	memset(x, 0, sizeof(double) * p->n);
	t0 = bench_now_us();
	if (picard_precond_setup(&pc, picard_precond_named(c->precond), &p->members[m],
				 NEUMANN_DEGREE) != PICARD_LINSOLVE_OK)
		bench_die(PROGRAM, "host %s setup failed", c->precond);
	picard_krylov_named("cg")->solve(&p->members[m], &pc, bm, x, &options, &result);
	picard_precond_free(&pc);
	us = bench_now_us() - t0;
	*iters = result.iters;
	free(bm);
	return us;
}

struct cusparse_call {
	const struct problem *p;
	struct krylov_cusparse_cg *cg;
	double *d_val, *d_b, *d_x; /* one member's */
	int iters;
};

static double cusparse_member(void *arg, int m, double *x, long *iters)
{
	struct cusparse_call *c = (struct cusparse_call *)arg;
	const struct problem *p = c->p;
	double *bm = (double *)host_alloc(sizeof(double) * p->n), t0, us;
	int done;

	member_of(p->b, p->n, p->batch, m, bm);
	cuda_check(cudaMemcpy(c->d_val, p->members[m].val, sizeof(double) * p->csr_values,
			      cudaMemcpyHostToDevice),
		   "upload");
	cuda_check(cudaMemcpy(c->d_b, bm, sizeof(double) * p->n, cudaMemcpyHostToDevice), "upload");
	cuda_check(cudaMemset(c->d_x, 0, sizeof(double) * p->n), "cudaMemset");
	cuda_check(cudaDeviceSynchronize(), "sync");
	t0 = bench_now_us();
	cuda_check(krylov_cusparse_cg_solve(c->cg, c->d_val, c->d_b, c->d_x, 0, c->iters, &done),
		   "cusparse cg");
	us = bench_now_us() - t0;
	cuda_check(cudaMemcpy(x, c->d_x, sizeof(double) * p->n, cudaMemcpyDeviceToHost), "download");
	*iters = done;
	free(bm);
	return us;
}

#if BENCH_VIENNACL
struct viennacl_call {
	const struct problem *p;
	int on_gpu, jacobi, iters;
	char error[256];
};

static double viennacl_member(void *arg, int m, double *x, long *iters)
{
	struct viennacl_call *c = (struct viennacl_call *)arg;
	const struct problem *p = c->p;
	double *bm = (double *)host_alloc(sizeof(double) * p->n), us;
	int done = 0;

	member_of(p->b, p->n, p->batch, m, bm);
	if (viennacl_cg(c->on_gpu, c->jacobi, p->n, p->members[m].row_start, p->members[m].col,
			p->members[m].val, bm, x, c->iters, &done, &us, c->error,
			sizeof(c->error)) != 0)
		us = -1;
	*iters = done;
	free(bm);
	return us;
}
#endif

/* The check of a variant against the host CG with its preconditioner. */
static void check_cg(struct context *ctx, const struct problem *p, const char *variant,
		     const struct cg_result *res, const struct cg_result *host_ref, double bases[4])
{
	struct row r = row_of("cg", "csr", variant, res->note, p->grid, p->batch, p->n, res->iters);
	double host_residual = worst_residual(p, host_ref->x);

	r.residual = worst_residual(p, res->x);
	r.error = x_difference(p, res->x, host_ref->x);
	r.ok = r.residual <= RESIDUAL_SLACK * host_residual + 1e-12;
	r.min_us = res->min_us, r.median_us = res->median_us;
	r.repeats = res->repeats;
	r.host_us = bases[0], r.cusparse_us = bases[1], r.vcl_cpu_us = bases[2];
	r.vcl_gpu_us = bases[3];
	emit(ctx, &r);
}

static void part_cg(struct context *ctx, int grid, int batch, int iters, const struct options *o)
{
	/* the one-system libraries loop over a batch: once */
	int library_repeats = batch > 1 ? 1 : o->repeats;

	struct problem p = problem_make(grid, batch, false);
	struct cg_result host[3], result;
	/* the speed-up bases: host CG, cuSPARSE CG, ViennaCL CPU, ViennaCL GPU */
	double bases[4] = {0, 0, 0, 0};
	static const char *const preconds[] = {"none", "jacobi", "neumann"};

	/* the references: the host CG with each preconditioner */
	for (int k = 0; k < 3; k++) {
		memset(&host[k], 0, sizeof(host[k]));
		struct host_call call = {&p, preconds[k], iters};

		run_per_member(&p, host_member, &call, false, o->host_repeats, &host[k]);
		snprintf(host[k].note, sizeof(host[k].note), "%d OpenMP threads",
			 omp_get_max_threads());
	}
	bases[0] = host[0].median_us;
	{
		struct cusparse_call call = {&p, NULL, NULL, NULL, NULL, iters};

		memset(&result, 0, sizeof(result));
		cuda_check(krylov_cusparse_cg_create(&p.csr, &call.cg), "cusparse cg");
		call.d_val = (double *)device_alloc(sizeof(double) * p.csr_values);
		call.d_b = (double *)device_alloc(sizeof(double) * p.n);
		call.d_x = (double *)device_alloc(sizeof(double) * p.n);
		run_per_member(&p, cusparse_member, &call, true, library_repeats, &result);
		snprintf(result.note, sizeof(result.note), "cusparseSpMV + cuBLAS, one system at a time");
		bases[1] = result.median_us;
		krylov_cusparse_cg_free(call.cg);
		cudaFree(call.d_val);
		cudaFree(call.d_b);
		cudaFree(call.d_x);
		check_cg(ctx, &p, "cusparse-cg", &result, &host[0], bases);
		free(result.x);
	}
#if BENCH_VIENNACL
	for (int gpu = 0; gpu < 2; gpu++)
		for (int jacobi = 0; jacobi < 2; jacobi++) {
			struct viennacl_call call = {&p, gpu, jacobi, iters, ""};
			char variant[64];

			memset(&result, 0, sizeof(result));
			snprintf(variant, sizeof(variant), "viennacl-%s-cg%s", gpu ? "cuda" : "openmp",
				 jacobi ? "-jacobi" : "");
			run_per_member(&p, viennacl_member, &call, true,
				       gpu ? library_repeats : o->host_repeats, &result);
			if (!result.ran) {
				struct row r = row_of("cg", "csr", variant, call.error, grid, batch, p.n, 0);

				r.ok = false;
				r.min_us = r.median_us = NAN;
				emit(ctx, &r);
				continue;
			}
			snprintf(result.note, sizeof(result.note), "ViennaCL 1.7.1, %s backend%s",
				 gpu ? "CUDA" : "OpenMP", gpu ? "" : ", OpenMP threads as the host's");
			if (!jacobi)
				bases[2 + gpu] = result.median_us;
			check_cg(ctx, &p, variant, &result, &host[jacobi], bases);
			free(result.x);
		}
#endif
	for (int k = 0; krylov_preconds[k]; k++)
		for (int direct = 0; direct < (k == 0 ? 2 : 1); direct++) {
			char variant[64];

			memset(&result, 0, sizeof(result));
			snprintf(variant, sizeof(variant), "ours-cg-%s%s", krylov_preconds[k]->name,
				 direct ? "-direct" : "");
			run_ours_cg(&p, krylov_preconds[k], iters, direct, o->repeats, &result);
			check_cg(ctx, &p, variant, &result, &host[k], bases);
			free(result.x);
		}
	for (int k = 0; k < 3; k++) {
		char variant[64];

		snprintf(variant, sizeof(variant), "host-cg-%s", preconds[k]);
		check_cg(ctx, &p, variant, &host[k], &host[k], bases);
		free(host[k].x);
	}
	problem_free(&p);
}

int main(int argc, char **argv)
{
	struct options o = parse_options(argc, argv);
	struct context ctx;
	struct cudaDeviceProp prop;
	char path[512];
	int version;

	memset(&ctx, 0, sizeof(ctx));
	cuda_check(cudaGetDeviceProperties(&prop, 0), "no CUDA device");
	cuda_check(cudaDriverGetVersion(&version), "driver version");
	snprintf(ctx.device, sizeof(ctx.device), "%s", prop.name);
	snprintf(ctx.driver, sizeof(ctx.driver), "%d.%d", version / 1000, version % 1000 / 10);
	bench_date(ctx.date, sizeof(ctx.date));
	if (o.out) {
		mkdir(o.out, 0777);
		snprintf(path, sizeof(path), "%s/bench-krylov.csv", o.out);
		ctx.csv = fopen(path, "w");
		if (!ctx.csv)
			bench_die(PROGRAM, "%s: cannot write", path);
		fprintf(ctx.csv,
			"# %s on %s (driver %s), %s; double; 2D five-point filtration operator "
			"-div(k grad) on N x N (n = N^2), batch members differ in k; spmv: error "
			"against the host SpMV; cg: %d iterations from x = 0, residual the worst "
			"member's recomputed ||b - Ax||/||b||, max_rel_error |x - x_host CG| / "
			"max|x_host|, check: residual within %.1fx of the host CG's; %d host "
			"threads; ViennaCL %s\n%s\n",
			PROGRAM, ctx.device, ctx.driver, ctx.date, o.cg_iters, RESIDUAL_SLACK,
			omp_get_max_threads(), BENCH_VIENNACL ? "1.7.1 built in" : "not built in",
			CSV_COLUMNS);
	}
	printf("%s on %s, driver %s, %s, %d host threads, ViennaCL %s\n", PROGRAM, ctx.device,
	       ctx.driver, ctx.date, omp_get_max_threads(), BENCH_VIENNACL ? "in" : "not built in");
	printf("%-5s %-4s %5s %6s %-26s %6s %12s %12s %9s %8s %10s %10s %8s %8s %8s %8s\n", "part",
	       "fmt", "N", "batch", "variant", "iters", "min_us", "median_us", "us/iter", "GB/s",
	       "error", "residual", "vs_host", "vs_cusp", "vs_vcpu", "vs_vgpu");
	for (int k = 0; k < o.nspmv; k++)
		part_spmv(&ctx, o.spmv_sizes[k], 1, o.repeats);
	if (o.batch > 0)
		part_spmv(&ctx, o.batch_size, o.batch, o.repeats);
	for (int k = 0; k < o.ncg; k++)
		part_cg(&ctx, o.cg_sizes[k], 1, o.cg_iters, &o);
	if (o.batch > 0)
		part_cg(&ctx, o.batch_size, o.batch, o.batch_cg_iters, &o);
	if (ctx.csv) {
		fclose(ctx.csv);
		printf("CSV: %s\n", path);
	}
	return ctx.failed;
}
