/* test_linsolve.c - the linear solvers of src/linsolve/ (suite linsolve):
 * every tridiagonal method and every Krylov solver with every
 * preconditioner, each against a dense LU solve by GSL, and each bad
 * input reported with its code and message:
 * - tridiagonal: random diagonally dominant systems of many sizes (1, 2,
 *   sizes the checkerboard's sub-system count does not divide), in the
 *   CPU's and the GPU's layouts, the methods against LU and each other; a
 *   singular system, a zero row and a NaN found in their own system of a
 *   batch, the others still solved;
 * - Krylov: CG and BiCGStab, CSR and MSR, on the 1D and 2D diffusion
 *   operators with variable k (both -div(k grad) and an implicit step's
 *   I - gamma h A), BiCGStab on convection-diffusion; CG refusing a
 *   non-symmetric and a negative definite matrix, singular matrices, and
 *   an iteration limit too small to converge in.
 * Host only (no CUDA). */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "linsolve/krylov.h"
#include "linsolve/tridiag.h"
#include "support.h"

/* Agreement with LU: the test matrices are well conditioned (diagonally
 * dominant, or a diffusion operator of a few hundred unknowns), so a
 * direct method gets near rounding and a Krylov solve at rtol 1e-12 to
 * its condition number times that. */
#define DIRECT_TOL 1e-12
#define KRYLOV_RTOL 1e-12
#define KRYLOV_TOL 1e-8
#define NEUMANN_DEGREE 3

/* Uniform in [lo, hi), from a fixed xorshift stream: the same systems on
 * every run. */
static double uniform(uint64_t *state, double lo, double hi)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return lo + (hi - lo) * (double)(*state >> 11) / 9007199254740992.0;
}

/* The largest |x_i - ref_i| over the largest |ref_i| (or 1). */
static double relative_gap(int n, const double *x, const double *ref)
{
	double gap = 0, size = 0;

	for (int i = 0; i < n; i++) {
		gap = fmax(gap, fabs(x[i] - ref[i]));
		size = fmax(size, fabs(ref[i]));
	}
	return gap / (size > 0 ? size : 1);
}

/* ---- tridiagonal --------------------------------------------------------- */

/* count systems of n unknowns in one layout, with their LU solutions. */
struct tridiag_case {
	int n;
	long count;
	bool interleaved;                     /* the GPU's layout */
	double *lower, *diag, *upper, *rhs;   /* count n each */
	double *ref;                          /* LU's x, system after system */
	picard_tridiag_batch batch;           /* over the arrays, x not set */
};

static long element(const struct tridiag_case *c, long s, int i)
{
	return s * c->batch.system_stride + i * c->batch.row_stride;
}

/* Random diagonally dominant systems: |b_i| >= |a_i| + |c_i| + 0.5. */
static struct tridiag_case tridiag_random(int n, long count, bool interleaved, uint64_t seed)
{
	struct tridiag_case c = { .n = n, .count = count, .interleaved = interleaved };
	size_t size = (size_t)n * count;

	c.lower = malloc(sizeof(double) * size);
	c.diag = malloc(sizeof(double) * size);
	c.upper = malloc(sizeof(double) * size);
	c.rhs = malloc(sizeof(double) * size);
	c.ref = malloc(sizeof(double) * size);
	c.batch = (picard_tridiag_batch){
		.lower = c.lower, .diag = c.diag, .upper = c.upper, .rhs = c.rhs, .n = n,
		.count = count, .row_stride = interleaved ? count : 1,
		.system_stride = interleaved ? 1 : n,
	};
	for (long s = 0; s < count; s++)
		for (int i = 0; i < n; i++) {
			long at = element(&c, s, i);
			double a = uniform(&seed, -1, 1), b = uniform(&seed, -1, 1);
			double sign = uniform(&seed, 0, 1) < 0.5 ? -1 : 1;

			c.lower[at] = a;
			c.upper[at] = b;
			c.diag[at] = sign * (fabs(a) + fabs(b) + uniform(&seed, 0.5, 2));
			c.rhs[at] = uniform(&seed, -10, 10);
		}
	return c;
}

/* LU's solution of every system into c->ref. */
static void tridiag_reference(struct tridiag_case *c)
{
	int n = c->n;
	double *dense = malloc(sizeof(double) * n * n), *rhs = malloc(sizeof(double) * n);

	for (long s = 0; s < c->count; s++) {
		memset(dense, 0, sizeof(double) * n * n);
		for (int i = 0; i < n; i++) {
			long at = element(c, s, i);

			if (i > 0)
				dense[i * n + i - 1] = c->lower[at];
			dense[i * n + i] = c->diag[at];
			if (i < n - 1)
				dense[i * n + i + 1] = c->upper[at];
			rhs[i] = c->rhs[at];
		}
		test_lu_solve(n, dense, rhs, c->ref + s * n);
	}
	free(dense);
	free(rhs);
}

static void tridiag_free(struct tridiag_case *c)
{
	free(c->lower);
	free(c->diag);
	free(c->upper);
	free(c->rhs);
	free(c->ref);
}

/* Solve c by type into x (count n), status per system; system s's
 * solution copied to out + s n. */
static picard_linsolve_code tridiag_run(const picard_tridiag_type *type, struct tridiag_case *c,
					 picard_tridiag_status *status, double *out)
{
	double *x = malloc(sizeof(double) * c->n * c->count);
	picard_linsolve_code code;

	c->batch.x = x;
	code = type->solve(type, &c->batch, status);
	for (long s = 0; s < c->count; s++)
		for (int i = 0; i < c->n; i++)
			out[s * c->n + i] = x[element(c, s, i)];
	free(x);
	return code;
}

static const int tridiag_sizes[] = { 1, 2, 3, 4, 5, 7, 8, 9, 10, 13, 16, 31, 33, 64, 100, 257 };
#define N_TRIDIAG_SIZES (int)(sizeof tridiag_sizes / sizeof tridiag_sizes[0])

Test(linsolve, tridiagonal_methods_match_lu)
{
	for (int t = 0; picard_tridiag_list[t]; t++)
		for (int k = 0; k < N_TRIDIAG_SIZES; k++)
			for (int layout = 0; layout < 2; layout++) {
				const picard_tridiag_type *type = picard_tridiag_list[t];
				int n = tridiag_sizes[k];
				struct tridiag_case c = tridiag_random(n, 5, layout, 1000 + n);
				picard_tridiag_status status[5];
				double *x = malloc(sizeof(double) * n * 5);

				tridiag_reference(&c);
				cr_assert_eq(tridiag_run(type, &c, status, x), PICARD_LINSOLVE_OK,
					     "%s, n = %d", type->name, n);
				for (long s = 0; s < 5; s++) {
					double gap = relative_gap(n, x + s * n, c.ref + s * n);

					cr_assert_eq(status[s].code, PICARD_LINSOLVE_OK);
					cr_assert_eq(status[s].row, -1);
					cr_assert_leq(gap, DIRECT_TOL,
						      "%s, n = %d, %s layout, system %ld: %g from LU",
						      type->name, n, layout ? "interleaved" : "contiguous",
						      s, gap);
				}
				free(x);
				tridiag_free(&c);
			}
}

/* Every sub-system count from 1 to n, so the blocks' sizes and the
 * remainder rows take every shape; against Thomas. */
Test(linsolve, checkerboard_any_subsystem_count_matches_thomas)
{
	static const int sizes[] = { 2, 3, 5, 9, 17, 40 };

	for (int k = 0; k < (int)(sizeof sizes / sizeof sizes[0]); k++) {
		int n = sizes[k];
		struct tridiag_case c = tridiag_random(n, 1, false, 7 + n);
		double *x = malloc(sizeof(double) * n), *ref = malloc(sizeof(double) * n);
		double *work = malloc(sizeof(double) * (picard_checkerboard_work(n) + n));
		int row = -1;

		cr_assert_eq(picard_thomas_solve(n, c.lower, c.diag, c.upper, c.rhs, ref, work, &row),
			     PICARD_LINSOLVE_OK);
		for (int nop = 1; nop <= n; nop++) {
			cr_assert_eq(picard_checkerboard_solve(n, nop, c.lower, c.diag, c.upper, c.rhs,
							       x, work, &row),
				     PICARD_LINSOLVE_OK, "n = %d, nop = %d", n, nop);
			cr_assert_leq(relative_gap(n, x, ref), DIRECT_TOL, "n = %d, nop = %d: %g", n,
				      nop, relative_gap(n, x, ref));
		}
		free(x);
		free(ref);
		free(work);
		tridiag_free(&c);
	}
}

Test(linsolve, tridiagonal_methods_agree)
{
	int n = 200;
	struct tridiag_case c = tridiag_random(n, 8, true, 99);
	picard_tridiag_status status[8];
	double *thomas = malloc(sizeof(double) * n * 8), *x = malloc(sizeof(double) * n * 8);

	cr_assert_eq(tridiag_run(picard_tridiag_named("thomas"), &c, status, thomas),
		     PICARD_LINSOLVE_OK);
	for (int t = 0; picard_tridiag_list[t]; t++) {
		cr_assert_eq(tridiag_run(picard_tridiag_list[t], &c, status, x), PICARD_LINSOLVE_OK);
		cr_assert_leq(relative_gap(n * 8, x, thomas), DIRECT_TOL, "%s against thomas: %g",
			      picard_tridiag_list[t]->name, relative_gap(n * 8, x, thomas));
	}
	cr_assert_null(picard_tridiag_named("no-such-method"));
	free(thomas);
	free(x);
	tridiag_free(&c);
}

/* System 1 of three broken (the others stay solved): rows row and row + 1
 * made equal (a singular matrix), row made zero, or a NaN right-hand
 * side. Each method must name the system, its code, and leave its x NaN. */
enum breakage { EQUAL_ROWS, ZERO_ROW, NAN_RHS };

static void expect_reported(enum breakage how, int n, int row, picard_linsolve_code expected)
{
	for (int t = 0; picard_tridiag_list[t]; t++) {
		const picard_tridiag_type *type = picard_tridiag_list[t];
		struct tridiag_case c = tridiag_random(n, 3, false, 5 + n + row);
		picard_tridiag_status status[3];
		double *x = malloc(sizeof(double) * n * 3);
		long at = element(&c, 1, row);
		picard_linsolve_code code;

		if (how == EQUAL_ROWS) {
			/* row: x_row + x_row+1 = d, and row + 1 the same */
			c.lower[at] = 0, c.diag[at] = 1, c.upper[at] = 1;
			c.lower[at + 1] = 1, c.diag[at + 1] = 1, c.upper[at + 1] = 0;
		} else if (how == ZERO_ROW) {
			c.lower[at] = c.diag[at] = c.upper[at] = 0;
		} else {
			c.rhs[at] = NAN;
		}
		code = tridiag_run(type, &c, status, x);
		cr_log_info("%s, n = %d, row %d: %s", type->name, n, row,
			    picard_linsolve_strerror(status[1].code));
		cr_assert_eq(code, expected, "%s, n = %d, row %d: returned %s", type->name, n, row,
			     picard_linsolve_strerror(code));
		cr_assert_eq(status[0].code, PICARD_LINSOLVE_OK);
		cr_assert_eq(status[2].code, PICARD_LINSOLVE_OK);
		cr_assert_eq(status[1].code, expected, "%s, n = %d, row %d: system 1 %s", type->name,
			     n, row, picard_linsolve_strerror(status[1].code));
		cr_assert(status[1].row >= 0 && status[1].row < n);
		for (int i = 0; i < n; i++) {
			cr_assert(isnan(x[n + i]), "%s: a failed system's x[%d] = %g", type->name, i,
				  x[n + i]);
			cr_assert(isfinite(x[i]) && isfinite(x[2 * n + i]));
		}
		free(x);
		tridiag_free(&c);
	}
}

Test(linsolve, singular_tridiagonal_system_is_reported)
{
	static const int cases[][2] = { { 2, 0 }, { 3, 1 }, { 10, 0 }, { 10, 4 }, { 10, 8 },
					{ 33, 7 }, { 33, 16 }, { 100, 49 } };

	for (int k = 0; k < (int)(sizeof cases / sizeof cases[0]); k++)
		expect_reported(EQUAL_ROWS, cases[k][0], cases[k][1], PICARD_LINSOLVE_ZERO_PIVOT);
	cr_assert(strstr(picard_linsolve_strerror(PICARD_LINSOLVE_ZERO_PIVOT), "singular"));
}

Test(linsolve, zero_row_and_nan_are_reported)
{
	expect_reported(ZERO_ROW, 1, 0, PICARD_LINSOLVE_ZERO_PIVOT);
	expect_reported(ZERO_ROW, 12, 5, PICARD_LINSOLVE_ZERO_PIVOT);
	expect_reported(NAN_RHS, 1, 0, PICARD_LINSOLVE_NONFINITE);
	expect_reported(NAN_RHS, 12, 5, PICARD_LINSOLVE_NONFINITE);
}

Test(linsolve, tridiagonal_bad_batch_is_refused)
{
	picard_tridiag_batch batch = { .n = 0, .count = 1 };
	picard_tridiag_status status[1];

	for (int t = 0; picard_tridiag_list[t]; t++)
		cr_assert_eq(picard_tridiag_list[t]->solve(picard_tridiag_list[t], &batch, status),
			     PICARD_LINSOLVE_BAD_INPUT);
}

/* ---- sparse and Krylov ------------------------------------------------------ */

/* The conductivity k(x, y) of the test operators on the unit interval or
 * square: it varies by about a factor of two. */
static double conductivity(double x, double y)
{
	return 1 + 0.5 * x * x + 0.25 * sin(3 * x) + 0.3 * y;
}

static picard_sparse operator_1d(int n, double shift, double scale)
{
	double dx = 1.0 / (n + 1), *k = malloc(sizeof(double) * (n + 1));
	picard_sparse a;

	for (int i = 0; i <= n; i++)
		k[i] = conductivity((i + 0.5) * dx, 0);
	cr_assert_eq(picard_stencil_1d(n, dx, k, shift, scale, &a), PICARD_LINSOLVE_OK);
	free(k);
	return a;
}

static picard_sparse operator_2d(int nx, int ny, double shift, double scale)
{
	double dx = 1.0 / (nx + 1), dy = 1.0 / (ny + 1);
	double *kx = malloc(sizeof(double) * (nx + 1) * ny), *ky = malloc(sizeof(double) * nx * (ny + 1));
	picard_sparse a;

	for (int j = 0; j < ny; j++)
		for (int i = 0; i <= nx; i++)
			kx[i + (nx + 1) * j] = conductivity((i + 0.5) * dx, (j + 1) * dy);
	for (int j = 0; j <= ny; j++)
		for (int i = 0; i < nx; i++)
			ky[i + nx * j] = conductivity((i + 1) * dx, (j + 0.5) * dy);
	cr_assert_eq(picard_stencil_2d(nx, ny, dx, dy, kx, ky, shift, scale, &a), PICARD_LINSOLVE_OK);
	free(kx);
	free(ky);
	return a;
}

static picard_sparse operator_convection(int n, double speed)
{
	double dx = 1.0 / (n + 1), *k = malloc(sizeof(double) * (n + 1));
	double *velocity = malloc(sizeof(double) * n);
	picard_sparse a;

	for (int i = 0; i <= n; i++)
		k[i] = conductivity((i + 0.5) * dx, 0);
	for (int i = 0; i < n; i++)
		velocity[i] = speed * (1 + (i + 1) * dx);
	cr_assert_eq(picard_stencil_convection_1d(n, dx, k, velocity, 0, -1, &a), PICARD_LINSOLVE_OK);
	free(k);
	free(velocity);
	return a;
}

/* The dense copy of a, row-major (malloc'd). */
static double *dense_of(const picard_sparse *a)
{
	int n = a->n;
	double *dense = malloc(sizeof(double) * n * n);

	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			dense[i * n + j] = picard_sparse_entry(a, i, j);
	return dense;
}

/* A smooth right-hand side with some noise. */
static double *rhs_of(int n)
{
	double *b = malloc(sizeof(double) * n);
	uint64_t seed = 12345;

	for (int i = 0; i < n; i++)
		b[i] = sin(0.1 * i) + uniform(&seed, -0.5, 0.5);
	return b;
}

/* Solve a x = b with solver and preconditioner from x = 0, in CSR and in
 * MSR, against LU; returns the iterations of the CSR solve. */
static int krylov_matches_lu(const picard_krylov_type *solver, const picard_precond_type *precond,
			     picard_sparse *a, const char *what)
{
	int n = a->n, iters = 0;
	double *b = rhs_of(n), *ref = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n);
	double *dense = dense_of(a);
	picard_sparse msr;
	picard_krylov_options opt = { .rtol = KRYLOV_RTOL };

	test_lu_solve(n, dense, b, ref);
	cr_assert_eq(picard_sparse_to_msr(a, &msr), PICARD_LINSOLVE_OK);
	for (int format = 0; format < 2; format++) {
		const picard_sparse *m = format ? &msr : a;
		picard_precond pc;
		picard_krylov_result result;

		cr_assert_eq(picard_precond_setup(&pc, precond, m, NEUMANN_DEGREE), PICARD_LINSOLVE_OK);
		memset(x, 0, sizeof(double) * n);
		solver->solve(m, &pc, b, x, &opt, &result);
		cr_log_info("%s, %s, %s: %s", what, precond->name, format ? "MSR" : "CSR",
			    result.message);
		cr_assert_eq(result.code, PICARD_LINSOLVE_OK, "%s", result.message);
		cr_assert_leq(result.residual, KRYLOV_RTOL);
		cr_assert_gt(result.iters, 0);
		cr_assert_leq(relative_gap(n, x, ref), KRYLOV_TOL, "%s, %s, %s: %g from LU", what,
			      precond->name, format ? "MSR" : "CSR", relative_gap(n, x, ref));
		if (!format)
			iters = result.iters;
		picard_precond_free(&pc);
	}
	picard_sparse_free(&msr);
	free(b);
	free(ref);
	free(x);
	free(dense);
	return iters;
}

/* Every solver and preconditioner on the SPD diffusion operators. */
Test(linsolve, krylov_solvers_match_lu_on_diffusion)
{
	picard_sparse ops[] = {
		operator_1d(120, 0, -1),
		operator_1d(120, 1, -1e-3),
		operator_2d(17, 13, 0, -1),
		operator_2d(17, 13, 1, -1e-3),
	};
	static const char *names[] = { "1D -div(k grad)", "1D I - gamma h A", "2D -div(k grad)",
				       "2D I - gamma h A" };

	for (int o = 0; o < 4; o++) {
		for (int s = 0; picard_krylov_list[s]; s++)
			for (int p = 0; picard_precond_list[p]; p++)
				krylov_matches_lu(picard_krylov_list[s], picard_precond_list[p],
						  &ops[o], names[o]);
		picard_sparse_free(&ops[o]);
	}
}

/* The Neumann polynomial is the better preconditioner: fewer CG
 * iterations than Jacobi's, which it extends. */
Test(linsolve, neumann_takes_fewer_iterations_than_jacobi)
{
	picard_sparse a = operator_2d(20, 20, 0, -1);
	const picard_krylov_type *cg = picard_krylov_named("cg");
	int jacobi = krylov_matches_lu(cg, picard_precond_named("jacobi"), &a, "2D");
	int neumann = krylov_matches_lu(cg, picard_precond_named("neumann"), &a, "2D");

	cr_assert_lt(neumann, jacobi, "neumann %d iterations, jacobi %d", neumann, jacobi);
	picard_sparse_free(&a);
}

Test(linsolve, bicgstab_matches_lu_on_convection_diffusion)
{
	picard_sparse a = operator_convection(150, 40);
	int row, col;

	cr_assert_not(picard_sparse_symmetric(&a, 1e-12, &row, &col));
	for (int p = 0; picard_precond_list[p]; p++)
		krylov_matches_lu(picard_krylov_named("bicgstab"), picard_precond_list[p], &a,
				  "convection-diffusion");
	picard_sparse_free(&a);
}

Test(linsolve, msr_product_is_csr_product)
{
	picard_sparse a = operator_2d(9, 7, 0.5, -2), msr;
	int n = a.n;
	double *x = rhs_of(n), *y_csr = malloc(sizeof(double) * n), *y_msr = malloc(sizeof(double) * n);

	cr_assert_eq(picard_sparse_to_msr(&a, &msr), PICARD_LINSOLVE_OK);
	picard_sparse_spmv(&a, x, y_csr);
	picard_sparse_spmv(&msr, x, y_msr);
	for (int i = 0; i < n; i++)
		cr_assert_float_eq(y_msr[i], y_csr[i], 1e-13 * (1 + fabs(y_csr[i])));
	picard_sparse_free(&a);
	picard_sparse_free(&msr);
	free(x);
	free(y_csr);
	free(y_msr);
}

/* The 1D operator of an implicit step, I - gamma h A, is tridiagonal:
 * every tridiagonal method and CG with each preconditioner give one x. */
Test(linsolve, tridiagonal_methods_and_cg_agree_on_the_1d_operator)
{
	int n = 150;
	picard_sparse a = operator_1d(n, 1, -1e-3);
	double *lower = malloc(sizeof(double) * n), *diag = malloc(sizeof(double) * n);
	double *upper = malloc(sizeof(double) * n), *b = rhs_of(n);
	double *x = malloc(sizeof(double) * n), *cg_x = calloc(n, sizeof(double));
	picard_tridiag_status status;
	picard_krylov_result result;
	picard_krylov_options opt = { .rtol = KRYLOV_RTOL };
	picard_precond pc;

	for (int i = 0; i < n; i++) {
		lower[i] = i > 0 ? picard_sparse_entry(&a, i, i - 1) : 0;
		diag[i] = picard_sparse_entry(&a, i, i);
		upper[i] = i < n - 1 ? picard_sparse_entry(&a, i, i + 1) : 0;
	}
	cr_assert_eq(picard_precond_setup(&pc, picard_precond_named("neumann"), &a, NEUMANN_DEGREE),
		     PICARD_LINSOLVE_OK);
	cr_assert_eq(picard_krylov_named("cg")->solve(&a, &pc, b, cg_x, &opt, &result),
		     PICARD_LINSOLVE_OK, "%s", result.message);
	for (int t = 0; picard_tridiag_list[t]; t++) {
		picard_tridiag_batch batch = { .lower = lower, .diag = diag, .upper = upper, .rhs = b,
					       .x = x, .n = n, .count = 1, .row_stride = 1,
					       .system_stride = n };

		cr_assert_eq(picard_tridiag_list[t]->solve(picard_tridiag_list[t], &batch, &status),
			     PICARD_LINSOLVE_OK);
		cr_assert_leq(relative_gap(n, x, cg_x), KRYLOV_TOL, "%s against cg: %g",
			      picard_tridiag_list[t]->name, relative_gap(n, x, cg_x));
	}
	picard_precond_free(&pc);
	picard_sparse_free(&a);
	free(lower), free(diag), free(upper), free(b), free(x), free(cg_x);
}

/* One solve of a x = b by solver with precond from x = 0 (max_iters 0:
 * the default); the result. */
static picard_krylov_result solve_once(const char *solver, const char *precond,
				       const picard_sparse *a, const double *b, int max_iters)
{
	picard_precond pc;
	picard_krylov_result result;
	picard_krylov_options opt = { .rtol = KRYLOV_RTOL, .max_iters = max_iters };
	double *x = calloc(a->n, sizeof(double));

	cr_assert_eq(picard_precond_setup(&pc, picard_precond_named(precond), a, NEUMANN_DEGREE),
		     PICARD_LINSOLVE_OK);
	picard_krylov_named(solver)->solve(a, &pc, b, x, &opt, &result);
	cr_log_info("%s", result.message);
	picard_precond_free(&pc);
	free(x);
	return result;
}

Test(linsolve, cg_refuses_a_matrix_that_is_not_spd)
{
	picard_sparse negative = operator_1d(40, 0, 1); /* div(k grad): negative definite */
	picard_sparse skew = operator_convection(40, 40);
	double *b = rhs_of(40);
	picard_krylov_result result;

	for (int p = 0; picard_precond_list[p]; p++) {
		result = solve_once("cg", picard_precond_list[p]->name, &negative, b, 0);
		cr_assert_eq(result.code, PICARD_LINSOLVE_NOT_SPD, "%s", result.message);
		cr_assert(strstr(result.message, "p^T A p"), "%s", result.message);
		result = solve_once("cg", picard_precond_list[p]->name, &skew, b, 0);
		cr_assert_eq(result.code, PICARD_LINSOLVE_NOT_SPD, "%s", result.message);
		cr_assert(strstr(result.message, "not symmetric"), "%s", result.message);
		cr_assert_eq(result.iters, 0);
	}
	picard_sparse_free(&negative);
	picard_sparse_free(&skew);
	free(b);
}

Test(linsolve, iteration_limit_is_reported_not_converged)
{
	picard_sparse a = operator_2d(20, 20, 0, -1);
	double *b = rhs_of(a.n);

	for (int s = 0; picard_krylov_list[s]; s++)
		for (int p = 0; picard_precond_list[p]; p++) {
			picard_krylov_result result = solve_once(picard_krylov_list[s]->name,
								  picard_precond_list[p]->name, &a, b, 3);

			cr_assert_eq(result.code, PICARD_LINSOLVE_NOT_CONVERGED, "%s", result.message);
			cr_assert_eq(result.iters, 3);
			cr_assert_gt(result.residual, KRYLOV_RTOL);
			cr_assert(strstr(result.message, "not converged"), "%s", result.message);
		}
	picard_sparse_free(&a);
	free(b);
}

/* diag(1, 0): singular, its null space reached in the second iteration. */
Test(linsolve, singular_matrix_is_reported)
{
	picard_sparse a;
	double b[2] = { 1, 1 };
	picard_precond pc;
	int filled = 0;

	cr_assert_eq(picard_sparse_alloc_csr(2, 2, &a), PICARD_LINSOLVE_OK);
	picard_sparse_push(&a, &filled, 0, 1);
	picard_sparse_end_row(&a, 0, filled);
	picard_sparse_push(&a, &filled, 1, 0);
	picard_sparse_end_row(&a, 1, filled);
	for (int s = 0; picard_krylov_list[s]; s++) {
		picard_krylov_result result = solve_once(picard_krylov_list[s]->name, "none", &a, b, 0);

		cr_assert_eq(result.code, PICARD_LINSOLVE_SINGULAR, "%s", result.message);
		cr_assert(strstr(result.message, "singular"), "%s", result.message);
	}
	/* the preconditioners that divide by the diagonal see it at once */
	cr_assert_eq(picard_precond_setup(&pc, picard_precond_named("jacobi"), &a, 0),
		     PICARD_LINSOLVE_ZERO_PIVOT);
	cr_assert_eq(pc.failed_row, 1);
	picard_sparse_free(&a);
}

/* The 1D operator with one unknown cut off (its row and column zero) and
 * b nonzero there: no x solves it. Once the rest has converged the
 * search direction lies in the null space, which each solver notices. */
Test(linsolve, inconsistent_singular_system_is_reported)
{
	int n = 30, cut = 11;
	picard_sparse a = operator_1d(n, 0, -1);
	double *b = rhs_of(n);

	for (int i = 0; i < n; i++)
		for (int k = a.row_start[i]; k < a.row_start[i + 1]; k++)
			if (i == cut || a.col[k] == cut)
				a.val[k] = 0;
	for (int s = 0; picard_krylov_list[s]; s++) {
		picard_krylov_result result = solve_once(picard_krylov_list[s]->name, "none", &a, b, 0);

		cr_assert_eq(result.code, PICARD_LINSOLVE_SINGULAR, "%s", result.message);
		cr_assert_gt(result.residual, KRYLOV_RTOL);
	}
	picard_sparse_free(&a);
	free(b);
}
