/* reduce.cuh - what the batched Krylov kernels are made of: a pass over
 * every (row, member) item of the interleaved vectors that may update
 * them and sums (or maxes) NV values per member, whose last block then
 * finishes each member with the totals (the per-member scalars of a
 * Krylov step: alpha, beta, the status); and a plain elementwise pass.
 * One launch per reduction and its scalar step: the kernel fusion of
 * Mossaiby 2013 (section 5), with the threadfence reduction's last block
 * (CUDA samples) summing the blocks' partials in a fixed order, so that
 * a solve gives the same bits every run.
 *
 * A body is a struct with
 *   __device__ bool active(int m)          whether member m takes part
 *   __device__ void row(long i, int m, double *acc)   item (i, m)
 *   __device__ void finish(int m, const double *total)  member m's totals
 * (reduce) or active and item(long i, int m, long item) (each). A MAX
 * reduction starts from 0: it serves norms and flags. */
#ifndef PICARD_KRYLOV_REDUCE_CUH
#define PICARD_KRYLOV_REDUCE_CUH

#include "krylov/solver.h"
#include "device_counts.h"

#define KRYLOV_REDUCE_THREADS 256

enum { KRYLOV_SUM, KRYLOV_MAX };

template <int OP>
__device__ __forceinline__ double krylov_combine(double a, double b)
{
	/* MAX propagates a NaN, as a host loop of fmax would not: a NaN norm
	 * is a non-finite matrix, which the sum of the CG's recurrences
	 * reports anyway */
	return OP == KRYLOV_SUM ? a + b : (a > b || a != a ? a : b);
}

/* Combine acc over the threads of one blockDim.x column (blockDim.y a
 * power of 2) into sh[v][threadIdx.x]. */
template <int NV, int OP>
__device__ void krylov_block_combine(double (*sh)[KRYLOV_REDUCE_THREADS], const double *acc)
{
	int t = threadIdx.y * blockDim.x + threadIdx.x;

	for (int v = 0; v < NV; v++)
		sh[v][t] = acc[v];
	__syncthreads();
	for (int s = blockDim.y / 2; s > 0; s /= 2) {
		if ((int)threadIdx.y < s)
			for (int v = 0; v < NV; v++)
				sh[v][t] = krylov_combine<OP>(sh[v][t], sh[v][t + s * blockDim.x]);
		__syncthreads();
	}
}

/* Block (x, y): members x blockDim.x .. + blockDim.x - 1, rows y
 * blockDim.y + threadIdx.y in steps of gridDim.y blockDim.y. */
template <int NV, int OP, class Body>
__global__ void __launch_bounds__(KRYLOV_REDUCE_THREADS)
krylov_reduce_kernel(int n, int batch, Body body, double *partial, unsigned *ticket)
{
	__shared__ double sh[NV][KRYLOV_REDUCE_THREADS];
	__shared__ bool last;
	int tx = threadIdx.x, ty = threadIdx.y, t = ty * blockDim.x + tx;
	int m = blockIdx.x * blockDim.x + tx;
	double acc[NV];

	for (int v = 0; v < NV; v++)
		acc[v] = 0.0;
	if (m < batch && body.active(m))
		for (long i = blockIdx.y * blockDim.y + ty; i < n; i += gridDim.y * blockDim.y)
			body.row(i, m, acc);
	krylov_block_combine<NV, OP>(sh, acc);
	if (ty == 0 && m < batch)
		for (int v = 0; v < NV; v++)
			partial[((long)blockIdx.y * NV + v) * batch + m] = sh[v][tx];
	__threadfence();
	__syncthreads();
	if (t == 0)
		last = atomicAdd(ticket, 1u) == gridDim.x * gridDim.y - 1;
	__syncthreads();
	if (!last)
		return;
	for (int base = 0; base < batch; base += blockDim.x) {
		int mm = base + tx;

		for (int v = 0; v < NV; v++)
			acc[v] = 0.0;
		if (mm < batch)
			for (int c = ty; c < (int)gridDim.y; c += blockDim.y)
				for (int v = 0; v < NV; v++)
					acc[v] = krylov_combine<OP>(
						acc[v], __ldcg(partial + ((long)c * NV + v) * batch + mm));
		krylov_block_combine<NV, OP>(sh, acc);
		if (ty == 0 && mm < batch && body.active(mm)) {
			double total[NV];

			for (int v = 0; v < NV; v++)
				total[v] = sh[v][tx];
			body.finish(mm, total);
		}
		__syncthreads();
	}
	if (t == 0)
		*ticket = 0;
}

template <class Body>
__global__ void krylov_each_kernel(long items, int batch, Body body)
{
	long item = (long)blockIdx.x * blockDim.x + threadIdx.x;

	if (item < items) {
		long i = item / batch;
		int m = (int)(item - i * batch);

		if (body.active(m))
			body.item(i, m, item);
	}
}

/* Launch a reduction of body over solver's batch. */
template <int NV, int OP, class Body>
int krylov_reduce(const krylov_solver *s, Body body, cudaStream_t stream)
{
	dim3 block(s->plan.bx, KRYLOV_REDUCE_THREADS / s->plan.bx);
	dim3 grid((s->batch + s->plan.bx - 1) / s->plan.bx, s->plan.chunks);

	krylov_reduce_kernel<NV, OP, Body><<<picard_counted(grid), block, 0, stream>>>(s->n, s->batch, body,
								       s->partial, s->ticket);
	return cudaGetLastError();
}

#define KRYLOV_EACH_THREADS 256

template <class Body>
int krylov_each(const krylov_solver *s, Body body, cudaStream_t stream)
{
	long items = (long)s->n * s->batch;
	long blocks = (items + KRYLOV_EACH_THREADS - 1) / KRYLOV_EACH_THREADS;

	krylov_each_kernel<Body><<<picard_counted(blocks), KRYLOV_EACH_THREADS, 0, stream>>>(items, s->batch, body);
	return cudaGetLastError();
}

/* The members' state, for the bodies: status RUNNING while it iterates. */
#define KRYLOV_RUNNING (-1)

__device__ __forceinline__ bool krylov_running(const krylov_members &st, int m)
{
	return st.status[m] == KRYLOV_RUNNING;
}

/* Member m ends with code. */
__device__ __forceinline__ void krylov_end_member(const krylov_members &st, int m, int code)
{
	st.status[m] = code;
	atomicSub(st.running, 1);
}

/* The convergence test of both methods, on the members whose
 * recurrence's residual met rtol (flag): the recomputed ||b - A x|| <=
 * rtol ||b|| ends the member converged (src/linsolve/krylov.c's
 * krylov_converged), else it iterates on with the recurrence's r. */
struct krylov_check_body {
	krylov_dpattern p;
	const double *val, *b, *x;
	krylov_members st;
	double rtol;

	__device__ bool active(int m) const { return krylov_running(st, m) && st.flag[m]; }
	__device__ void row(long i, int m, double *acc) const
	{
		double t = b[i * p.batch + m] - krylov_row_product(p, val, x, i, m);

		acc[0] += t * t;
	}
	__device__ void finish(int m, const double *total) const
	{
		st.flag[m] = 0;
		if (sqrt(total[0]) / st.b_norm[m] <= rtol)
			krylov_end_member(st, m, PICARD_LINSOLVE_OK);
	}
};

static inline int krylov_check(const krylov_solver *s, cudaStream_t stream)
{
	krylov_check_body body = {s->spmv->p, s->val, s->b, s->x, s->st, s->rtol};

	return krylov_reduce<1, KRYLOV_SUM>(s, body, stream);
}

/* Whether the recurrence's residual (its square norm) asks for the check. */
__device__ __forceinline__ void krylov_flag_member(const krylov_members &st, int m,
						   double r_square, double rtol)
{
	st.flag[m] = sqrt(r_square) <= rtol * st.b_norm[m];
}

/* x += c dir and out = in - c image, c the member's step (CG's alpha,
 * BiCGStab's alpha or omega), with |out|^2 for the convergence flag: the
 * step of CG (out = in = r) and each half of a BiCGStab iteration. */
struct krylov_advance_body {
	const double *dir, *in, *image;
	double *x, *out;
	const double *coef;
	krylov_members st;
	int batch;
	double rtol;

	__device__ bool active(int m) const { return krylov_running(st, m); }
	__device__ void row(long i, int m, double *acc) const
	{
		long at = i * batch + m;
		double c = coef[m], next = in[at] - c * image[at];

		x[at] += c * dir[at];
		out[at] = next;
		acc[0] += next * next;
	}
	__device__ void finish(int m, const double *total) const
	{
		krylov_flag_member(st, m, total[0], rtol);
	}
};

#endif
