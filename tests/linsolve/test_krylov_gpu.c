/* test_krylov_gpu.c - the batched GPU Krylov solvers and SpMV of
 * src/linsolve/gpu/krylov/ (issue 21) against the host ones of src/linsolve/
 * (suite krylov_gpu): every SpMV kernel (and the tuner's choice and the
 * cuSPARSE anchor) against picard_sparse_spmv per member, in CSR and MSR;
 * CG and BiCGStab with each preconditioner against the host solvers on
 * the operators of picard_stencil_1d/_2d and the convection-diffusion
 * one, B = 1 and a batch whose members' coefficients differ, random
 * right-hand sides; and the per-member statuses (a non-SPD member among
 * SPD ones, an iteration limit, a non-finite or zero right-hand side).
 * Skips without a device (require_gpu), except the pattern check, which
 * needs none; CUDA is touched only inside test bodies. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "krylov/krylov.h"
#include "linsolve/krylov.h"
#include "linsolve/sparse.h"
#include "support.h"

#define SEED 2013
#define BATCH 33   /* not a multiple of a warp */
#define N1 37      /* 1D unknowns */
#define NX 13      /* 2D grid */
#define NY 11
#define RTOL 1e-12
#define DEGREE 2   /* Neumann's */
/* SpMV: the kernels sum a row in the host's order or in T parts, with
 * fused multiply-adds: round-off of the row's largest terms */
#define SPMV_TOL 1e-13
/* Solves to RTOL of operators of condition below 1e3 agree within it */
#define SOLVE_TOL 1e-8

enum op { OP_1D, OP_2D, OP_CONVECTION, OP_FILTRATION };
static const char *const op_names[] = {"stencil-1d", "stencil-2d", "convection-1d",
				       "filtration-2d"};

/* A random number in [0, 1) from *state (xorshift). */
static double uniform(unsigned long long *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return (double)(*state >> 11) / 9007199254740992.0;
}

/* Member m's matrix of op (CSR): implicit steps I - h A of heat and
 * convection-diffusion with coefficients that vary in space and by
 * member, or the filtration operator -div(k grad) itself. */
static picard_sparse operator_of(enum op op, int member)
{
	double k1[N1 + 1], velocity[N1], kx[(NX + 1) * NY], ky[NX * (NY + 1)];
	double h = 2e-3 * (1 + 0.1 * member);
	picard_sparse a;
	picard_linsolve_code code;

	for (int i = 0; i <= N1; i++)
		k1[i] = 1 + 0.5 * sin(0.7 * i + member);
	for (int i = 0; i < N1; i++)
		velocity[i] = 30 * (1 + 0.1 * member) * cos(0.3 * i);
	for (int f = 0; f < (NX + 1) * NY; f++)
		kx[f] = 1 + 0.5 * sin(0.3 * f + 2 * member);
	for (int f = 0; f < NX * (NY + 1); f++)
		ky[f] = 1 + 0.5 * cos(0.2 * f + member);
	switch (op) {
	case OP_1D:
		code = picard_stencil_1d(N1, 1.0 / (N1 + 1), k1, 1, -h, &a);
		break;
	case OP_CONVECTION:
		code = picard_stencil_convection_1d(N1, 1.0 / (N1 + 1), k1, velocity, 1, -h, &a);
		break;
	case OP_2D:
		code = picard_stencil_2d(NX, NY, 1.0 / (NX + 1), 1.0 / (NY + 1), kx, ky, 1, -h, &a);
		break;
	default:
		code = picard_stencil_2d(NX, NY, 1.0 / (NX + 1), 1.0 / (NY + 1), kx, ky, 0, -1, &a);
		break;
	}
	cr_assert_eq(code, PICARD_LINSOLVE_OK);
	return a;
}

/* A batch: each member's host matrix, the shared pattern, the values
 * and right-hand sides interleaved, on the host and the device. */
struct batch {
	int batch, n;
	long values;
	picard_sparse *members;  /* host matrices, in the batch's format */
	struct krylov_pattern pattern;
	double *val, *b;         /* host, interleaved */
	double *d_val, *d_b, *d_x, *d_y;
};

static void check_cuda(int err, const char *what)
{
	cr_assert_eq(err, 0, "%s: %s", what, krylov_strerror(err));
}

static void *upload(const void *host, size_t bytes)
{
	void *device;

	check_cuda(cudaMalloc(&device, bytes), "cudaMalloc");
	check_cuda(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice), "upload");
	return device;
}

static void download(void *host, const void *device, size_t bytes)
{
	check_cuda(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost), "download");
}

/* The members' values, interleaved: entry k of member m at k B + m. */
static void interleave_values(struct batch *c)
{
	for (int m = 0; m < c->batch; m++)
		for (long k = 0; k < c->values; k++)
			c->val[k * c->batch + m] = c->members[m].val[k];
}

/* batch members of op in format, random right-hand sides; edit (when
 * not NULL) changes the host matrices and b before the upload. */
static struct batch batch_make(enum op op, enum krylov_format format, int batch,
			       void (*edit)(struct batch *))
{
	struct batch c = {.batch = batch};
	unsigned long long state = SEED + 7 * batch + op;

	c.members = calloc(batch, sizeof(picard_sparse));
	cr_assert(c.members);
	for (int m = 0; m < batch; m++) {
		picard_sparse csr = operator_of(op, m);

		if (format == KRYLOV_MSR) {
			cr_assert_eq(picard_sparse_to_msr(&csr, &c.members[m]), PICARD_LINSOLVE_OK);
			picard_sparse_free(&csr);
		} else {
			c.members[m] = csr;
		}
	}
	c.n = c.members[0].n;
	c.pattern = (struct krylov_pattern){format, c.n, c.members[0].row_start, c.members[0].col,
					    c.members[0].bindx};
	c.values = krylov_pattern_values(&c.pattern);
	c.val = calloc(c.values * batch, sizeof(double));
	c.b = malloc(sizeof(double) * c.n * batch);
	cr_assert(c.val && c.b);
	for (long i = 0; i < (long)c.n * batch; i++)
		c.b[i] = 2 * uniform(&state) - 1;
	if (edit)
		edit(&c);
	interleave_values(&c);
	c.d_val = upload(c.val, sizeof(double) * c.values * batch);
	c.d_b = upload(c.b, sizeof(double) * c.n * batch);
	check_cuda(cudaMalloc((void **)&c.d_x, sizeof(double) * c.n * batch), "cudaMalloc");
	check_cuda(cudaMalloc((void **)&c.d_y, sizeof(double) * c.n * batch), "cudaMalloc");
	return c;
}

static void batch_free(struct batch *c)
{
	for (int m = 0; m < c->batch; m++)
		picard_sparse_free(&c->members[m]);
	free(c->members);
	free(c->val);
	free(c->b);
	cudaFree(c->d_val);
	cudaFree(c->d_b);
	cudaFree(c->d_x);
	cudaFree(c->d_y);
}

/* Member m's entries of an interleaved vector. */
static void member_of(const struct batch *c, const double *interleaved, int m, double *out)
{
	for (int i = 0; i < c->n; i++)
		out[i] = interleaved[(long)i * c->batch + m];
}

/* ---- SpMV ------------------------------------------------------------------ */

/* max over members of max_i |y_i - (A_m x)_i| / max_i |(A_m x)_i|, y from
 * the device */
static double spmv_error(const struct batch *c, const double *x, const double *y)
{
	double *xm = malloc(sizeof(double) * c->n), *ym = malloc(sizeof(double) * c->n);
	double *ref = malloc(sizeof(double) * c->n), worst = 0;

	cr_assert(xm && ym && ref);
	for (int m = 0; m < c->batch; m++) {
		double scale = 0, err = 0;

		member_of(c, x, m, xm);
		member_of(c, y, m, ym);
		picard_sparse_spmv(&c->members[m], xm, ref);
		for (int i = 0; i < c->n; i++) {
			scale = fmax(scale, fabs(ref[i]));
			err = fmax(err, fabs(ym[i] - ref[i]));
		}
		worst = fmax(worst, err / scale);
		if (!(err <= scale)) /* NaN */
			worst = INFINITY;
	}
	free(xm);
	free(ym);
	free(ref);
	return worst;
}

static void check_spmv(enum op op, enum krylov_format format, int batch)
{
	struct batch c = batch_make(op, format, batch, NULL);
	size_t vector = sizeof(double) * c.n * batch;
	double *y = malloc(vector);
	struct krylov_spmv *spmv;
	struct krylov_cusparse_spmv *anchor;
	const char *name = op_names[op], *fmt = format == KRYLOV_MSR ? "msr" : "csr";
	int err;

	cr_assert(y);
	check_cuda(krylov_spmv_create(&c.pattern, batch, true, &spmv), "krylov_spmv_create");
	for (int k = 0; krylov_spmv_kernels[k]; k++) {
		const struct krylov_spmv_kernel *kernel = krylov_spmv_kernels[k];

		check_cuda(cudaMemset(c.d_y, 0xff, vector), "cudaMemset"); /* NaN */
		check_cuda(krylov_spmv_apply_with(spmv, kernel, c.d_val, c.d_b, c.d_y, 0), kernel->name);
		download(y, c.d_y, vector);
		double e = spmv_error(&c, c.b, y);
		cr_assert_leq(e, SPMV_TOL, "%s %s B=%d %s: error %.3e", name, fmt, batch, kernel->name, e);
	}
	check_cuda(cudaMemset(c.d_y, 0xff, vector), "cudaMemset");
	check_cuda(krylov_spmv_apply(spmv, c.d_val, c.d_b, c.d_y, 0), "tuned");
	download(y, c.d_y, vector);
	cr_assert_leq(spmv_error(&c, c.b, y), SPMV_TOL, "%s %s B=%d: the tuned %s", name, fmt, batch,
		      krylov_spmv_choice(spmv, NULL)->name);
	cr_log_info("%s %s B=%d: tuned %s", name, fmt, batch, krylov_spmv_choice(spmv, NULL)->name);
	krylov_spmv_free(spmv);

	err = krylov_cusparse_spmv_create(&c.pattern, batch, &anchor);
	if (format == KRYLOV_MSR) {
		cr_assert_eq(err, KRYLOV_EUNSUPPORTED, "cuSPARSE anchor took MSR");
	} else {
		check_cuda(err, "krylov_cusparse_spmv_create");
		check_cuda(krylov_cusparse_spmv_set_values(anchor, c.d_val, 0), "set_values");
		check_cuda(cudaMemset(c.d_y, 0xff, vector), "cudaMemset");
		check_cuda(krylov_cusparse_spmv_apply(anchor, c.d_b, c.d_y, 0), "cusparse");
		download(y, c.d_y, vector);
		cr_assert_leq(spmv_error(&c, c.b, y), SPMV_TOL, "%s B=%d: cuSPARSE", name, batch);
		krylov_cusparse_spmv_free(anchor);
	}
	free(y);
	batch_free(&c);
}

Test(krylov_gpu, every_spmv_kernel_matches_host, .timeout = 120)
{
	static const int batches[] = {1, 5, 67};

	require_gpu();
	for (int op = OP_1D; op <= OP_CONVECTION; op++)
		for (int format = KRYLOV_CSR; format <= KRYLOV_MSR; format++)
			for (int b = 0; b < 3; b++)
				check_spmv(op, format, batches[b]);
}

/* The tuner times once per (pattern, batch): a second SpMV of the same
 * pattern and batch takes the cached choice. */
Test(krylov_gpu, the_tuner_caches_its_choice, .timeout = 60)
{
	struct batch c;
	struct krylov_spmv *first, *second;
	bool cached;

	require_gpu();
	c = batch_make(OP_2D, KRYLOV_CSR, 4, NULL);
	check_cuda(krylov_spmv_create(&c.pattern, 4, true, &first), "create");
	cr_assert(krylov_spmv_choice(first, &cached) && !cached);
	check_cuda(krylov_spmv_create(&c.pattern, 4, true, &second), "create");
	cr_assert(krylov_spmv_choice(second, &cached) == krylov_spmv_choice(first, NULL));
	cr_assert(cached, "the second SpMV of one pattern and batch was tuned again");
	krylov_spmv_free(first);
	krylov_spmv_free(second);
	batch_free(&c);
}

/* ---- the solvers ------------------------------------------------------------ */

/* What the GPU gave for each member. */
struct outcome {
	int *status, *iters;
	double *residual, *x; /* x interleaved */
};

static struct outcome solve_with(struct batch *c, const struct krylov_method *method,
				 const struct krylov_precond *precond,
				 const struct krylov_options *options)
{
	struct krylov_solver *solver;
	struct outcome o;
	size_t vector = sizeof(double) * c->n * c->batch;

	o.status = malloc(sizeof(int) * c->batch);
	o.iters = malloc(sizeof(int) * c->batch);
	o.residual = malloc(sizeof(double) * c->batch);
	o.x = malloc(vector);
	cr_assert(o.status && o.iters && o.residual && o.x);
	check_cuda(krylov_solver_create(&c->pattern, c->batch, method, precond, options, &solver),
		   "krylov_solver_create");
	check_cuda(cudaMemset(c->d_x, 0, vector), "cudaMemset");
	check_cuda(krylov_solver_solve(solver, c->d_val, c->d_b, c->d_x, o.status, o.iters,
				       o.residual, 0),
		   "krylov_solver_solve");
	download(o.x, c->d_x, vector);
	krylov_solver_free(solver);
	return o;
}

static struct outcome solve_on_device(struct batch *c, const struct krylov_method *method,
				      const struct krylov_precond *precond, int max_iters)
{
	struct krylov_options options = {.rtol = RTOL, .max_iters = max_iters, .degree = DEGREE};

	return solve_with(c, method, precond, &options);
}

static void outcome_free(struct outcome *o)
{
	free(o->status);
	free(o->iters);
	free(o->residual);
	free(o->x);
}

/* The host solver's answer for member m from x = 0. */
static picard_krylov_result solve_on_host(const struct batch *c, int m, const char *method,
					  const char *precond, int max_iters, double *x)
{
	picard_krylov_options options = {RTOL, max_iters};
	picard_krylov_result result;
	picard_precond pc;
	double *b = malloc(sizeof(double) * c->n);

	cr_assert(b);
	member_of(c, c->b, m, b);
	memset(x, 0, sizeof(double) * c->n);
	cr_assert_eq(picard_precond_setup(&pc, picard_precond_named(precond), &c->members[m], DEGREE),
		     PICARD_LINSOLVE_OK);
	picard_krylov_named(method)->solve(&c->members[m], &pc, b, x, &options, &result);
	picard_precond_free(&pc);
	free(b);
	return result;
}

/* How far rounding moves the iteration at which a solve converges: CG's
 * residual falls steadily, BiCGStab's does not, and the SpMV the tuner
 * picks sums a row in its own order (a convection-diffusion member with
 * the Neumann preconditioner has taken 36 iterations to the host's 33). */
static int iteration_slack(const struct krylov_method *method, int host_iters)
{
	return method->needs_spd ? 2 : 2 + host_iters / 8;
}

/* Every member: the host's status and (within iteration_slack)
 * iterations, the GPU's residual, and x within SOLVE_TOL of the host's
 * where both converged. */
static void check_against_host(struct batch *c, const struct krylov_method *method,
			       const struct krylov_precond *precond, int max_iters,
			       const char *what)
{
	struct outcome o = solve_on_device(c, method, precond, max_iters);
	double *x = malloc(sizeof(double) * c->n), *xm = malloc(sizeof(double) * c->n);

	cr_assert(x && xm);
	for (int m = 0; m < c->batch; m++) {
		picard_krylov_result host = solve_on_host(c, m, method->name, precond->name,
							  max_iters, x);
		double scale = 0, err = 0;

		cr_assert_eq(o.status[m], (int)host.code, "%s %s/%s member %d: status %d (%s), host %s",
			     what, method->name, precond->name, m, o.status[m],
			     picard_linsolve_strerror(o.status[m]), host.message);
		cr_assert_leq(abs(o.iters[m] - host.iters), iteration_slack(method, host.iters),
			      "%s %s/%s member %d: %d iterations, host %d", what, method->name,
			      precond->name, m, o.iters[m], host.iters);
		if (host.code != PICARD_LINSOLVE_OK)
			continue;
		cr_assert_leq(o.residual[m], RTOL, "%s %s/%s member %d: residual %.3e", what,
			      method->name, precond->name, m, o.residual[m]);
		member_of(c, o.x, m, xm);
		for (int i = 0; i < c->n; i++) {
			scale = fmax(scale, fabs(x[i]));
			err = fmax(err, fabs(xm[i] - x[i]));
		}
		cr_assert_leq(err, SOLVE_TOL * scale, "%s %s/%s member %d: |x - x_host| %.3e of %.3e",
			      what, method->name, precond->name, m, err, scale);
	}
	cr_log_info("%s %s/%s B=%d: member 0 in %d iterations", what, method->name, precond->name,
		    c->batch, o.iters[0]);
	free(x);
	free(xm);
	outcome_free(&o);
}

static void check_method(const struct krylov_method *method, const enum op *ops, int nops)
{
	static const int batches[] = {1, BATCH};

	for (int k = 0; k < nops; k++)
		for (int format = KRYLOV_CSR; format <= KRYLOV_MSR; format++)
			for (int b = 0; b < 2; b++)
				for (int p = 0; krylov_preconds[p]; p++) {
					struct batch c = batch_make(ops[k], format, batches[b], NULL);

					check_against_host(&c, method, krylov_preconds[p], 0,
							   op_names[ops[k]]);
					batch_free(&c);
				}
}

Test(krylov_gpu, cg_matches_host, .timeout = 240)
{
	static const enum op ops[] = {OP_1D, OP_2D, OP_FILTRATION};

	require_gpu();
	check_method(&krylov_cg, ops, 3);
}

Test(krylov_gpu, bicgstab_matches_host, .timeout = 240)
{
	static const enum op ops[] = {OP_CONVECTION, OP_2D};

	require_gpu();
	check_method(&krylov_bicgstab, ops, 2);
}

/* Members made to fail in the batch of the status tests. */
#define NEGATED 4     /* -(I - h A): p^T A p < 0 at the first iteration */
#define ASYMMETRIC 6  /* one entry of a_ij != a_ji */
#define NAN_RHS 2     /* b has a NaN */
#define ZERO_RHS 3    /* b = 0: x = 0 at once */
#define STATUS_BATCH 9

static void make_failing_members(struct batch *c)
{
	picard_sparse *neg = &c->members[NEGATED], *asym = &c->members[ASYMMETRIC];

	for (long k = 0; k < c->values; k++)
		neg->val[k] = -neg->val[k];
	/* row 5's first off-diagonal entry (CSR) */
	asym->val[asym->row_start[5]] *= 1.5;
	c->b[(long)7 * c->batch + NAN_RHS] = NAN;
	for (int i = 0; i < c->n; i++)
		c->b[(long)i * c->batch + ZERO_RHS] = 0;
}

Test(krylov_gpu, a_failing_member_gets_its_status_alone, .timeout = 120)
{
	require_gpu();
	for (int p = 0; krylov_preconds[p]; p++) {
		const struct krylov_precond *precond = krylov_preconds[p];
		struct batch c = batch_make(OP_2D, KRYLOV_CSR, STATUS_BATCH, make_failing_members);
		struct outcome o = solve_on_device(&c, &krylov_cg, precond, 0);

		for (int m = 0; m < STATUS_BATCH; m++) {
			int want = m == NEGATED || m == ASYMMETRIC ? PICARD_LINSOLVE_NOT_SPD
				   : m == NAN_RHS		   ? PICARD_LINSOLVE_NONFINITE
								   : PICARD_LINSOLVE_OK;

			cr_assert_eq(o.status[m], want, "%s member %d: status %d (%s), want %s",
				     precond->name, m, o.status[m],
				     picard_linsolve_strerror(o.status[m]),
				     picard_linsolve_strerror(want));
		}
		cr_assert_eq(o.iters[ZERO_RHS], 0);
		for (int i = 0; i < c.n; i++)
			cr_assert_eq(o.x[(long)i * c.batch + ZERO_RHS], 0.0);
		cr_assert_eq(o.iters[NEGATED], 1, "the negated member ended at iteration %d",
			     o.iters[NEGATED]);
		cr_assert_eq(o.iters[ASYMMETRIC], 0);
		outcome_free(&o);
		/* and the host says the same of each */
		check_against_host(&c, &krylov_cg, precond, 0, "statuses");
		batch_free(&c);
	}
}

Test(krylov_gpu, an_iteration_limit_is_not_converged, .timeout = 120)
{
	require_gpu();
	for (int k = 0; krylov_methods[k]; k++) {
		struct batch c = batch_make(OP_FILTRATION, KRYLOV_MSR, 7, NULL);
		struct outcome o = solve_on_device(&c, krylov_methods[k], &krylov_precond_jacobi, 3);

		for (int m = 0; m < 7; m++) {
			cr_assert_eq(o.status[m], PICARD_LINSOLVE_NOT_CONVERGED, "%s member %d: status %d",
				     krylov_methods[k]->name, m, o.status[m]);
			cr_assert_eq(o.iters[m], 3);
			cr_assert_gt(o.residual[m], RTOL);
		}
		outcome_free(&o);
		check_against_host(&c, krylov_methods[k], &krylov_precond_jacobi, 3, "limit");
		batch_free(&c);
	}
}

/* A CUDA graph replays the kernels that direct launches enqueue: the
 * same bits, whatever the iterations per graph. */
Test(krylov_gpu, graph_replay_gives_the_bits_of_direct_launches, .timeout = 120)
{
	static const int per_graph[] = {1, 3, 8};

	require_gpu();
	for (int k = 0; krylov_methods[k]; k++) {
		const struct krylov_method *method = krylov_methods[k];
		struct batch c = batch_make(k == 0 ? OP_FILTRATION : OP_CONVECTION, KRYLOV_CSR, 5, NULL);
		struct krylov_options direct = {.rtol = RTOL, .degree = DEGREE, .direct = 1};
		struct outcome want = solve_with(&c, method, &krylov_precond_neumann, &direct);

		for (int g = 0; g < 3; g++) {
			struct krylov_options graph = {.rtol = RTOL, .degree = DEGREE,
						       .check_every = per_graph[g]};
			struct outcome got = solve_with(&c, method, &krylov_precond_neumann, &graph);

			for (int m = 0; m < c.batch; m++) {
				cr_assert_eq(got.status[m], PICARD_LINSOLVE_OK);
				cr_assert_eq(got.status[m], want.status[m]);
				cr_assert_eq(got.iters[m], want.iters[m], "%s member %d: %d iterations, %d direct",
					     method->name, m, got.iters[m], want.iters[m]);
			}
			cr_assert(memcmp(got.x, want.x, sizeof(double) * c.n * c.batch) == 0,
				  "%s, %d iterations a graph: x differs from direct launches'",
				  method->name, per_graph[g]);
			outcome_free(&got);
		}
		outcome_free(&want);
		batch_free(&c);
	}
}

/* The library baseline of the bench: converged, it agrees with the host. */
Test(krylov_gpu, cusparse_cg_matches_host, .timeout = 60)
{
	struct batch c;
	struct krylov_cusparse_cg *cg;
	double *x, *ref;
	int iters;
	picard_krylov_result host;
	double err = 0, scale = 0;

	require_gpu();
	c = batch_make(OP_FILTRATION, KRYLOV_CSR, 1, NULL);
	x = malloc(sizeof(double) * c.n);
	ref = malloc(sizeof(double) * c.n);
	cr_assert(x && ref);
	check_cuda(krylov_cusparse_cg_create(&c.pattern, &cg), "krylov_cusparse_cg_create");
	check_cuda(cudaMemset(c.d_x, 0, sizeof(double) * c.n), "cudaMemset");
	check_cuda(krylov_cusparse_cg_solve(cg, c.d_val, c.d_b, c.d_x, RTOL, 10000, &iters),
		   "krylov_cusparse_cg_solve");
	download(x, c.d_x, sizeof(double) * c.n);
	host = solve_on_host(&c, 0, "cg", "none", 0, ref);
	cr_assert_eq(host.code, PICARD_LINSOLVE_OK);
	cr_assert_leq(abs(iters - host.iters), 2, "%d iterations, host %d", iters, host.iters);
	for (int i = 0; i < c.n; i++) {
		scale = fmax(scale, fabs(ref[i]));
		err = fmax(err, fabs(x[i] - ref[i]));
	}
	cr_assert_leq(err, SOLVE_TOL * scale, "|x - x_host| %.3e of %.3e", err, scale);
	krylov_cusparse_cg_free(cg);
	free(x);
	free(ref);
	batch_free(&c);
}

/* A malformed pattern is refused before anything touches the device. */
Test(krylov_gpu, a_malformed_pattern_is_refused)
{
	static const int row_start[] = {0, 2, 4}, repeated[] = {0, 0, 0, 1},
			 out_of_range[] = {0, 1, 0, 2}, good[] = {0, 1, 0, 1};
	struct krylov_pattern pattern = {KRYLOV_CSR, 2, row_start, repeated, NULL};
	struct krylov_solver *solver;

	cr_assert_eq(krylov_solver_create(&pattern, 3, &krylov_cg, &krylov_precond_none, NULL, &solver),
		     KRYLOV_EPATTERN);
	pattern.col = out_of_range;
	cr_assert_eq(krylov_solver_create(&pattern, 3, &krylov_cg, &krylov_precond_none, NULL, &solver),
		     KRYLOV_EPATTERN);
	pattern.col = good;
	cr_assert_eq(krylov_solver_create(&pattern, 0, &krylov_cg, &krylov_precond_none, NULL, &solver),
		     KRYLOV_EBADINPUT);
	cr_assert_null(solver);
}

/* b = 0: the host solvers converge at once to x = 0, as the GPU ones do
 * (the GPU status test's zero member is compared with them). Needs no
 * device. */
Test(krylov_gpu, host_solvers_take_a_zero_rhs)
{
	picard_sparse a = operator_of(OP_2D, 0);
	double *b = calloc(a.n, sizeof(double)), *x = malloc(sizeof(double) * a.n);

	cr_assert(b && x);
	for (int k = 0; picard_krylov_list[k]; k++)
		for (int p = 0; picard_precond_list[p]; p++) {
			picard_precond pc;
			picard_krylov_result result;

			for (int i = 0; i < a.n; i++)
				x[i] = 1;
			cr_assert_eq(picard_precond_setup(&pc, picard_precond_list[p], &a, DEGREE),
				     PICARD_LINSOLVE_OK);
			picard_krylov_list[k]->solve(&a, &pc, b, x, NULL, &result);
			picard_precond_free(&pc);
			cr_assert_eq(result.code, PICARD_LINSOLVE_OK, "%s/%s: %s", picard_krylov_list[k]->name,
				     picard_precond_list[p]->name, result.message);
			cr_assert_eq(result.iters, 0);
			for (int i = 0; i < a.n; i++)
				cr_assert_eq(x[i], 0.0);
		}
	free(b);
	free(x);
	picard_sparse_free(&a);
}
