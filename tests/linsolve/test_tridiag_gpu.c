/* test_tridiag_gpu.c - the GPU batched tridiagonal solvers of
 * src/linsolve/gpu/tridiag/ (issue 21) against a host Thomas solve in double
 * (suite tridiag_gpu), in both layouts, on random diagonally dominant
 * batches of sizes a checkerboard split leaves uneven (n = 1, 2, sizes
 * not divisible by the sub-system count, a part of a single row), and a
 * singular system reported in the status array. Skips without a device
 * (require_gpu); CUDA is touched only inside test bodies. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "support.h"
#include "tridiag/batch_memory.h"
#include "tridiag/host_reference.h"
#include "tridiag/tridiag.h"
#include "linsolve/tridiag.h"

#define BATCH 67 /* not a multiple of a warp or of a block */
/* Each row is dominant by 1 with off-diagonals below 2: the solvers agree
 * with the host to round-off times a small growth. */
#define TOL 1e-12
#define SEED 2016

/* One batch on the host and the device. */
struct case_data {
	struct tridiag_batch host;   /* the reference solution in x */
	struct tridiag_batch device;
	struct tridiag_host_arrays arrays;
};

static void check_cuda(cudaError_t err, const char *what)
{
	cr_assert_eq(err, cudaSuccess, "%s: %s", what, cudaGetErrorString(err));
}

/* A random dominant batch of BATCH systems of n rows in layout; edit, when
 * not NULL, changes the host arrays before the reference solve and the
 * upload. */
static struct case_data case_make(int n, enum tridiag_layout layout,
				  void (*edit)(struct case_data *))
{
	struct case_data c;

	c.host = (struct tridiag_batch){NULL, NULL, NULL, NULL, NULL, NULL, BATCH, n, layout, 0};
	cr_assert_eq(tridiag_host_alloc(&c.host, &c.arrays), 0);
	tridiag_fill_dominant(&c.host, c.arrays, SEED);
	if (edit)
		edit(&c);
	cr_assert_eq(tridiag_host_thomas(&c.host), 0);
	check_cuda(tridiag_device_copy(&c.host, &c.device), "upload");
	return c;
}

static void case_free(struct case_data *c)
{
	tridiag_host_free(&c->host);
	tridiag_device_free(&c->device);
}

/* Solve c on the device with solver (parts sub-systems where it splits),
 * the solution and statuses into x and status; false where the solver
 * does not take c. */
static bool solve_on_device(const struct tridiag_solver *solver, struct case_data *c, int parts,
			    double *x, int *status)
{
	struct tridiag_batch batch = c->device;
	size_t rows = (size_t)batch.batch * batch.n, work_doubles;
	double *work = NULL;
	int err;

	batch.parts = parts;
	if (!tridiag_solver_takes(solver, &batch))
		return false;
	work_doubles = solver->work_doubles(&batch);
	if (work_doubles)
		check_cuda(cudaMalloc((void **)&work, work_doubles * sizeof(double)), "cudaMalloc");
	check_cuda(cudaMemset(batch.x, 0xff, rows * sizeof(double)), "cudaMemset"); /* NaN */
	check_cuda(cudaMemset(batch.status, 0x7f, BATCH * sizeof(int)), "cudaMemset");
	err = solver->solve(&batch, work, 0);
	cr_assert_eq(err, 0, "%s n=%d: solve returned %d", solver->name, batch.n, err);
	check_cuda(cudaDeviceSynchronize(), solver->name);
	check_cuda(cudaMemcpy(x, batch.x, rows * sizeof(double), cudaMemcpyDeviceToHost), "download");
	check_cuda(cudaMemcpy(status, batch.status, BATCH * sizeof(int), cudaMemcpyDeviceToHost),
		   "download");
	cudaFree(work);
	return true;
}

/* Every solver, every parts value where it splits, on c. */
static void check_every_solver(struct case_data *c)
{
	static const int parts_values[] = {1, 2, 3, 4, 16, 64};
	size_t rows = (size_t)BATCH * c->host.n;
	double *x = malloc(rows * sizeof(double));
	int *status = malloc(BATCH * sizeof(int));

	cr_assert(x && status);
	for (int k = 0; tridiag_solvers[k]; k++) {
		const struct tridiag_solver *solver = tridiag_solvers[k];
		int nparts = solver->uses_parts ? (int)(sizeof(parts_values) / sizeof(*parts_values)) : 1;

		for (int p = 0; p < nparts; p++) {
			int parts = solver->uses_parts ? parts_values[p] : 0;

			if (!solve_on_device(solver, c, parts, x, status))
				continue;
			for (long s = 0; s < BATCH; s++)
				cr_assert_eq(status[s], TRIDIAG_OK, "%s n=%d parts=%d system %ld: status %d",
					     solver->name, c->host.n, parts, s, status[s]);
			double err = tridiag_max_relative_error(&c->host, x, c->host.x);
			cr_log_info("%s n=%d layout=%d parts=%d: error %.2e", solver->name, c->host.n,
				    c->host.layout, parts, err);
			cr_assert_leq(err, TOL, "%s n=%d layout=%d parts=%d: error %.3e", solver->name,
				      c->host.n, c->host.layout, parts, err);
		}
	}
	free(x);
	free(status);
}

static void check_sizes(enum tridiag_layout layout)
{
	/* 1 and 2; 17 = 4 parts of 5 rows less 3, 16 parts of 2 rows less
	 * 15; 65 leaves a last part of one row at 16 and 64 parts; 1000 */
	static const int sizes[] = {1, 2, 3, 5, 17, 64, 65, 1000};

	for (size_t k = 0; k < sizeof(sizes) / sizeof(*sizes); k++) {
		struct case_data c = case_make(sizes[k], layout, NULL);

		check_every_solver(&c);
		case_free(&c);
	}
}

Test(tridiag_gpu, every_solver_matches_host_thomas_contiguous, .timeout = 120)
{
	require_gpu();
	check_sizes(TRIDIAG_CONTIGUOUS);
}

Test(tridiag_gpu, every_solver_matches_host_thomas_interleaved, .timeout = 120)
{
	require_gpu();
	check_sizes(TRIDIAG_INTERLEAVED);
}

/* System SINGULAR of the batch: its rows 10 and 11 both x_10 = const,
 * with different constants, so singular and without a solution; Thomas
 * meets an exact zero pivot at row 11, and so does every other solver
 * (the checkerboard's part 1 holds rows 10 and 11 at 4 parts of 10 rows;
 * PCR divides by b_11 = 0 in its first step). */
#define SINGULAR 5
#define SINGULAR_N 40

static void make_singular(struct case_data *c)
{
	for (int i = 10; i <= 11; i++) {
		long at = c->host.layout == TRIDIAG_INTERLEAVED ? (long)i * BATCH + SINGULAR
								: (long)SINGULAR * SINGULAR_N + i;

		c->arrays.lower[at] = i == 10 ? 0.0 : 1.0; /* row 11: 1 x_10 */
		c->arrays.diag[at] = i == 10 ? 1.0 : 0.0;  /* row 10: 1 x_10 */
		c->arrays.upper[at] = 0.0;
		c->arrays.rhs[at] = i == 10 ? 1.0 : 2.0;
	}
}

Test(tridiag_gpu, a_singular_system_is_reported, .timeout = 120)
{
	require_gpu();
	for (int layout = TRIDIAG_CONTIGUOUS; layout <= TRIDIAG_INTERLEAVED; layout++) {
		struct case_data c = case_make(SINGULAR_N, layout, make_singular);
		size_t rows = (size_t)BATCH * SINGULAR_N;
		double *x = malloc(rows * sizeof(double));
		int *status = malloc(BATCH * sizeof(int));

		cr_assert_eq(c.host.status[SINGULAR], TRIDIAG_ZERO_PIVOT, "host: status %d",
			     c.host.status[SINGULAR]);
		for (int k = 0; tridiag_solvers[k]; k++) {
			const struct tridiag_solver *solver = tridiag_solvers[k];

			if (!solve_on_device(solver, &c, 4, x, status))
				continue;
			cr_assert_neq(status[SINGULAR], TRIDIAG_OK, "%s layout %d: singular system not reported",
				      solver->name, layout);
			for (long s = 0; s < BATCH; s++)
				if (s != SINGULAR)
					cr_assert_eq(status[s], TRIDIAG_OK, "%s layout %d system %ld: status %d",
						     solver->name, layout, s, status[s]);
		}
		free(x);
		free(status);
		case_free(&c);
	}
}

/* The GPU methods a scheme names mirror the host list: every host method
 * has a GPU one of its name, each found by it, and cusparse is there. */
Test(tridiag_gpu, methods_mirror_host)
{
	char names[256];

	for (int k = 0; picard_tridiag_list[k]; k++) {
		const struct tridiag_method *method = tridiag_method_named(picard_tridiag_list[k]->name);

		cr_assert(method, "host method %s has no GPU method", picard_tridiag_list[k]->name);
		cr_assert_str_eq(method->name, picard_tridiag_list[k]->name);
		cr_assert(method->solver->takes_layout(method->layout), "%s: layout %d", method->name,
			  method->layout);
	}
	cr_assert(tridiag_method_named("cusparse"));
	cr_assert_null(tridiag_method_named("gauss"));
	cr_assert_str_eq(tridiag_method_names(names, sizeof(names)),
			 "thomas, checkerboard, pcr, cusparse");
}
