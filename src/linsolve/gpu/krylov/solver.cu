/* solver.cu - the batched Krylov workspace (krylov.h): made once for a
 * pattern, a batch, a method and a preconditioner; a solve's beginning
 * and end, which both methods share (src/linsolve/krylov.c's
 * krylov_begin and krylov_end, per member); the method and
 * preconditioner lists. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "krylov/reduce.cuh"
#include "device_counts.h"

extern "C" const struct krylov_method *const krylov_methods[] = {
	&krylov_cg,
	&krylov_bicgstab,
	NULL,
};

extern "C" const struct krylov_precond *const krylov_preconds[] = {
	&krylov_precond_none,
	&krylov_precond_jacobi,
	&krylov_precond_neumann,
	NULL,
};

extern "C" const struct krylov_method *krylov_method_named(const char *name)
{
	for (int i = 0; name && krylov_methods[i]; i++)
		if (strcmp(krylov_methods[i]->name, name) == 0)
			return krylov_methods[i];
	return NULL;
}

extern "C" const struct krylov_precond *krylov_precond_named(const char *name)
{
	for (int i = 0; name && krylov_preconds[i]; i++)
		if (strcmp(krylov_preconds[i]->name, name) == 0)
			return krylov_preconds[i];
	return NULL;
}

/* The reductions' launch: members across a block's x (a power of 2, at
 * most a warp), rows across y, and enough row chunks for some blocks per
 * multiprocessor, each thread taking at least 4 rows. */
static struct krylov_plan plan_for(int n, int batch, int sms)
{
	struct krylov_plan plan;
	int by, column_blocks, want, most;

	plan.bx = 1;
	while (plan.bx < batch && plan.bx < 32)
		plan.bx *= 2;
	by = KRYLOV_REDUCE_THREADS / plan.bx;
	column_blocks = (batch + plan.bx - 1) / plan.bx;
	want = (4 * sms + column_blocks - 1) / column_blocks;
	most = (n + 4 * by - 1) / (4 * by);
	plan.chunks = want < most ? want : most;
	if (plan.chunks > 1024)
		plan.chunks = 1024;
	if (plan.chunks < 1)
		plan.chunks = 1;
	return plan;
}

extern "C" struct krylov_spmv *krylov_solver_spmv(struct krylov_solver *solver)
{
	return solver->spmv;
}

extern "C" void krylov_solver_free(struct krylov_solver *s)
{
	if (!s)
		return;
	krylov_spmv_free(s->spmv);
	for (int v = 0; v < KRYLOV_VECTORS; v++)
		cudaFree(s->vec[v]);
	cudaFree(s->inv_diag);
	cudaFree(s->work);
	cudaFree(s->st.status); /* the members' ints, one allocation */
	cudaFree(s->st.b_norm); /* and their doubles */
	cudaFree(s->partial);
	cudaFree(s->ticket);
	cudaFreeHost(s->host_running);
	if (s->graph)
		cudaGraphExecDestroy(s->graph);
	if (s->capture)
		cudaStreamDestroy(s->capture);
	free(s);
}

extern "C" int krylov_solver_create(const struct krylov_pattern *pattern, int batch,
				    const struct krylov_method *method,
				    const struct krylov_precond *precond,
				    const struct krylov_options *options,
				    struct krylov_solver **out)
{
	static const struct krylov_options defaults = {0, 0, 0, 0, 0};
	struct krylov_solver *s;
	size_t vector;
	int err, *ints;
	double *doubles;

	*out = NULL;
	if (!options)
		options = &defaults;
	if (!method || !precond || batch < 1 || !pattern || pattern->n < 1 || options->rtol < 0 ||
	    options->max_iters < 0 || options->degree < 0 || options->check_every < 0)
		return KRYLOV_EBADINPUT;
	s = (struct krylov_solver *)calloc(1, sizeof(*s));
	if (!s)
		return KRYLOV_ENOMEM;
	s->method = method, s->precond = precond;
	s->n = pattern->n, s->batch = batch;
	s->rtol = options->rtol > 0 ? options->rtol : 1e-10;
	s->max_iters = options->max_iters > 0 ? options->max_iters : 10 * s->n + 100;
	s->degree = options->degree > 0 ? options->degree : 2;
	s->check_every = options->check_every > 0 ? options->check_every : 8;
	s->direct = options->direct != 0;
	if ((err = krylov_spmv_create(pattern, batch, true, &s->spmv)))
		goto fail;
	if (method->needs_spd && (err = krylov_spmv_make_transpose(s->spmv, pattern)))
		goto fail;
	s->plan = plan_for(s->n, batch, s->spmv->sms);
	vector = sizeof(double) * s->n * (size_t)batch;
	for (int v = 0; v < KRYLOV_VECTORS; v++)
		if ((err = cudaMalloc(&s->vec[v], vector)))
			goto fail;
	if (precond->takes_diagonal &&
	    ((err = cudaMalloc(&s->inv_diag, vector)) || (err = cudaMalloc(&s->work, vector))))
		goto fail;
	if ((err = cudaMalloc(&ints, sizeof(int) * (5 * (size_t)batch + 1))) ||
	    (s->st.status = ints, err = cudaMalloc(&doubles, sizeof(double) * 8 * (size_t)batch)) ||
	    (s->st.b_norm = doubles,
	     err = cudaMalloc(&s->partial, sizeof(double) * s->plan.chunks * KRYLOV_REDUCE_VALUES *
						   (size_t)batch)) ||
	    (err = cudaMalloc(&s->ticket, sizeof(unsigned))) ||
	    (err = cudaMemset(s->ticket, 0, sizeof(unsigned))) ||
	    (err = cudaMallocHost(&s->host_running, sizeof(int))) ||
	    (err = cudaStreamCreateWithFlags(&s->capture, cudaStreamNonBlocking)))
		goto fail;
	s->st.iters = ints + batch;
	s->st.flag = ints + 2 * batch;
	s->st.first_bad = ints + 3 * batch;
	s->st.zero_x = ints + 4 * batch;
	s->st.running = ints + 5 * batch;
	s->st.a_norm = doubles + batch;
	s->st.rz = doubles + 2 * batch;
	s->st.alpha = doubles + 3 * batch;
	s->st.beta = doubles + 4 * batch;
	s->st.omega = doubles + 5 * batch;
	s->st.residual = doubles + 6 * batch;
	*out = s;
	return 0;
fail:
	krylov_solver_free(s);
	return err;
}

int krylov_solver_multiply(struct krylov_solver *s, const double *x, double *y,
			   cudaStream_t stream)
{
	return krylov_spmv_apply(s->spmv, s->val, x, y, stream);
}

/* Whether every member has ended: reads st.running (a sync). */
static int all_done(struct krylov_solver *s, cudaStream_t stream, bool *done)
{
	int err = cudaMemcpyAsync(s->host_running, s->st.running, sizeof(int),
				  cudaMemcpyDeviceToHost, stream);

	if (!err)
		err = picard_stream_wait(stream);
	*done = !err && *s->host_running == 0;
	return err;
}

/* ---- the beginning and the end of a solve ---------------------------------- */

/* 1 / a_ii, and each member's first zero or non-finite diagonal (the
 * host's picard_precond_setup). */
struct diag_body {
	krylov_dpattern p;
	const int *diag_pos;
	const double *val;
	double *inv_diag;
	krylov_members st;

	__device__ bool active(int) const { return true; }
	__device__ void item(long i, int m, long at) const
	{
		double d = p.msr ? val[at] : (diag_pos[i] >= 0 ? val[diag_pos[i] * (long)p.batch + m] : 0);

		inv_diag[at] = 1 / d;
		if (d == 0 || !isfinite(d))
			atomicMin(st.first_bad + m, (int)(2 * i + (d == 0 ? 0 : 1)));
	}
};

/* r = b - A x, ||b|| and ||r||: krylov_begin's checks. */
struct begin_body {
	krylov_dpattern p;
	const double *val, *b, *x;
	double *r;
	krylov_members st;
	double rtol;

	__device__ bool active(int) const { return true; }
	__device__ void row(long i, int m, double *acc) const
	{
		long at = i * p.batch + m;
		double bi = b[at], ri = bi - krylov_row_product(p, val, x, i, m);

		r[at] = ri;
		acc[0] += bi * bi;
		acc[1] += ri * ri;
	}
	__device__ void finish(int m, const double *total) const
	{
		double b_norm = sqrt(total[0]), residual;
		int code = KRYLOV_RUNNING, bad = st.first_bad[m];

		st.zero_x[m] = 0;
		if (bad < 2 * p.n) {
			code = bad % 2 ? PICARD_LINSOLVE_NONFINITE : PICARD_LINSOLVE_ZERO_PIVOT;
		} else if (!isfinite(b_norm)) {
			code = PICARD_LINSOLVE_NONFINITE;
		} else if (b_norm == 0) {
			b_norm = 1;
			st.zero_x[m] = 1;
			code = PICARD_LINSOLVE_OK;
		} else {
			residual = sqrt(total[1]) / b_norm;
			if (!isfinite(residual))
				code = PICARD_LINSOLVE_NONFINITE;
			else if (residual <= rtol)
				code = PICARD_LINSOLVE_OK;
		}
		st.b_norm[m] = b_norm;
		st.iters[m] = 0;
		st.flag[m] = 0;
		st.status[m] = code;
		if (code == KRYLOV_RUNNING)
			atomicAdd(st.running, 1);
	}
};

struct zero_body {
	double *x;
	krylov_members st;

	__device__ bool active(int m) const { return st.zero_x[m]; }
	__device__ void item(long, int, long at) const { x[at] = 0; }
};

/* ||b - A x|| / ||b|| of the x returned. */
struct final_body {
	krylov_dpattern p;
	const double *val, *b, *x;
	krylov_members st;

	__device__ bool active(int) const { return true; }
	__device__ void row(long i, int m, double *acc) const
	{
		double t = b[i * p.batch + m] - krylov_row_product(p, val, x, i, m);

		acc[0] += t * t;
	}
	__device__ void finish(int m, const double *total) const
	{
		st.residual[m] = sqrt(total[0]) / st.b_norm[m];
	}
};

/* Enqueue count iterations: replayed from the graph of check_every
 * iterations when that is count (captured first, or again when the solve's
 * arrays are others than the graph's), else launched one by one. */
static int run_steps(struct krylov_solver *s, int count, cudaStream_t stream)
{
	const void *key[3] = {s->val, s->b, s->x};
	cudaGraph_t graph;
	int err = 0, end;

	if (s->direct || count != s->check_every) {
		for (int k = 0; k < count && !err; k++)
			err = s->method->step(s, stream);
		return err;
	}
	if (s->graph && memcmp(key, s->graph_key, sizeof(key)) != 0) {
		cudaGraphExecDestroy(s->graph);
		s->graph = NULL;
	}
	if (!s->graph) {
		if ((err = cudaStreamBeginCapture(s->capture, cudaStreamCaptureModeThreadLocal)))
			return err;
		for (int k = 0; k < count && !err; k++)
			err = s->method->step(s, s->capture);
		end = cudaStreamEndCapture(s->capture, &graph);
		if (err || end) {
			if (!end)
				cudaGraphDestroy(graph);
			return err ? err : end;
		}
		err = cudaGraphInstantiate(&s->graph, graph, 0);
		cudaGraphDestroy(graph);
		if (err) {
			s->graph = NULL;
			return err;
		}
		memcpy(s->graph_key, key, sizeof(key));
	}
	return cudaGraphLaunch(s->graph, stream);
}

/* The method's start, then its iterations, check_every at a time, until
 * every member has ended: max_iters + 1 iterations at most, the last
 * ending the members still running (not converged). */
static int iterate(struct krylov_solver *s, cudaStream_t stream)
{
	bool done = false;
	int err = s->method->start(s, stream), iter = 0;

	if (!err)
		err = all_done(s, stream, &done);
	while (!err && !done && iter <= s->max_iters) {
		int count = s->max_iters + 1 - iter;

		if (count > s->check_every)
			count = s->check_every;
		err = run_steps(s, count, stream);
		iter += count;
		if (!err)
			err = all_done(s, stream, &done);
	}
	return err;
}

static int copy_back(void *host, const void *device, size_t bytes, cudaStream_t stream)
{
	return host ? cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream) : 0;
}

extern "C" int krylov_solver_solve(struct krylov_solver *s, const double *val, const double *b,
				   double *x, int *status, int *iters, double *residual,
				   cudaStream_t stream)
{
	const krylov_dpattern &p = s->spmv->p;
	size_t ints = sizeof(int) * s->batch;
	int err;

	if (!val || !b || !x)
		return KRYLOV_EBADINPUT;
	s->val = val, s->b = b, s->x = x;
	if ((err = cudaMemsetAsync(s->st.running, 0, sizeof(int), stream)) ||
	    (err = cudaMemsetAsync(s->st.first_bad, 0x7f, ints, stream)))
		return err;
	if (s->precond->takes_diagonal) {
		diag_body body = {p, s->spmv->diag_pos, val, s->inv_diag, s->st};

		if ((err = krylov_each(s, body, stream)))
			return err;
	}
	{
		begin_body body = {p, val, b, x, s->vec[0], s->st, s->rtol};
		zero_body zero = {x, s->st};

		if ((err = krylov_reduce<2, KRYLOV_SUM>(s, body, stream)) ||
		    (err = krylov_each(s, zero, stream)))
			return err;
	}
	if ((err = iterate(s, stream)))
		return err;
	{
		final_body body = {p, val, b, x, s->st};

		if ((err = krylov_reduce<1, KRYLOV_SUM>(s, body, stream)))
			return err;
	}
	if ((err = copy_back(status, s->st.status, ints, stream)) ||
	    (err = copy_back(iters, s->st.iters, ints, stream)) ||
	    (err = copy_back(residual, s->st.residual, sizeof(double) * s->batch, stream)))
		return err;
	return picard_stream_wait(stream);
}
