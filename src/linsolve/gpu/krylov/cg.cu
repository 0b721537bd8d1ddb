/* cg.cu - batched preconditioned CG (krylov.h), src/linsolve/cg.c per
 * member (Saad, Iterative Methods for Sparse Linear Systems, 2nd ed.,
 * Algorithm 9.1): a member that is not symmetric, or whose search
 * direction has p^T A p < 0, is NOT_SPD; p^T A p zero to rounding against
 * |A| |p|^2 is SINGULAR; r^T M^-1 r <= 0 a BREAKDOWN. Each iteration is
 * one SpMV, the preconditioner and five fused passes (reduce.cuh). */
#include <float.h>

#include "krylov/reduce.cuh"

/* The matrix symmetry CG asks of A, relative per entry (cg.c's). */
#define SYMMETRY_RTOL 1e-12

/* ||A||_inf and whether some a_ij differs from a_ji. */
struct symmetry_body {
	krylov_dpattern p;
	const int *transpose;
	const double *val;
	krylov_members st;

	__device__ bool active(int m) const { return krylov_running(st, m); }
	__device__ void row(long i, int m, double *acc) const
	{
		long batch = p.batch;
		double sum = p.msr ? fabs(val[i * batch + m]) : 0.0, asymmetric = 0;

		for (int k = p.start[i]; k < p.start[i + 1]; k++) {
			double here = val[k * batch + m];
			double there = transpose[k] >= 0 ? val[transpose[k] * batch + m] : 0.0;

			sum += fabs(here);
			if (fabs(here - there) > SYMMETRY_RTOL * fmax(fabs(here), fabs(there)))
				asymmetric = 1;
		}
		acc[0] = krylov_combine<KRYLOV_MAX>(acc[0], sum);
		acc[1] = fmax(acc[1], asymmetric);
	}
	__device__ void finish(int m, const double *total) const
	{
		st.a_norm[m] = total[0];
		if (total[1] > 0)
			krylov_end_member(st, m, PICARD_LINSOLVE_NOT_SPD);
	}
};

/* rz = r^T z, p = z */
struct start_body {
	const double *r, *z;
	double *p;
	krylov_members st;
	int batch;

	__device__ bool active(int m) const { return krylov_running(st, m); }
	__device__ void row(long i, int m, double *acc) const
	{
		long at = i * batch + m;

		acc[0] += r[at] * z[at];
		p[at] = z[at];
	}
	__device__ void finish(int m, const double *total) const { st.rz[m] = total[0]; }
};

/* p^T A p and p^T p: the step length, or the member's end. */
struct curvature_body {
	const double *p, *ap;
	krylov_members st;
	int batch, n, max_iters;

	__device__ bool active(int m) const { return krylov_running(st, m); }
	__device__ void row(long i, int m, double *acc) const
	{
		long at = i * batch + m;

		acc[0] += p[at] * ap[at];
		acc[1] += p[at] * p[at];
	}
	__device__ void finish(int m, const double *total) const
	{
		double pap = total[0], p_norm = sqrt(total[1]), floor;

		if (st.iters[m] >= max_iters) {
			krylov_end_member(st, m, PICARD_LINSOLVE_NOT_CONVERGED);
			return;
		}
		st.iters[m]++;
		if (!isfinite(pap) || !isfinite(st.rz[m])) {
			krylov_end_member(st, m, PICARD_LINSOLVE_NONFINITE);
			return;
		}
		floor = n * DBL_EPSILON * st.a_norm[m] * p_norm * p_norm;
		if (pap < -floor)
			krylov_end_member(st, m, PICARD_LINSOLVE_NOT_SPD);
		else if (pap <= floor)
			krylov_end_member(st, m, PICARD_LINSOLVE_SINGULAR);
		else
			st.alpha[m] = st.rz[m] / pap;
	}
};

/* r^T z of the new residual: beta, or a breakdown */
struct beta_body {
	const double *r, *z;
	krylov_members st;
	int batch;

	__device__ bool active(int m) const { return krylov_running(st, m); }
	__device__ void row(long i, int m, double *acc) const
	{
		long at = i * batch + m;

		acc[0] += r[at] * z[at];
	}
	__device__ void finish(int m, const double *total) const
	{
		double rz_next = total[0];

		if (!(rz_next > 0)) {
			krylov_end_member(st, m, PICARD_LINSOLVE_BREAKDOWN);
			return;
		}
		st.beta[m] = rz_next / st.rz[m];
		st.rz[m] = rz_next;
	}
};

/* p = z + beta p */
struct direction_body {
	const double *z;
	double *p;
	krylov_members st;

	__device__ bool active(int m) const { return krylov_running(st, m); }
	__device__ void item(long, int m, long at) const { p[at] = z[at] + st.beta[m] * p[at]; }
};

/* The vectors of one solve, as cg.c names them. */
static void cg_vectors(struct krylov_solver *s, double **r, double **z, double **p, double **ap)
{
	*r = s->vec[0];
	*z = s->precond->identity ? s->vec[0] : s->vec[1];
	*p = s->vec[2];
	*ap = s->vec[3];
}

static int cg_start(struct krylov_solver *s, cudaStream_t stream)
{
	double *r, *z, *p, *ap;
	int err;

	cg_vectors(s, &r, &z, &p, &ap);
	symmetry_body symmetry = {s->spmv->p, s->spmv->transpose, s->val, s->st};
	start_body start = {r, z, p, s->st, s->batch};

	if ((err = krylov_reduce<2, KRYLOV_MAX>(s, symmetry, stream)) ||
	    (err = s->precond->apply(s, r, z, stream)))
		return err;
	return krylov_reduce<1, KRYLOV_SUM>(s, start, stream);
}

static int cg_step(struct krylov_solver *s, cudaStream_t stream)
{
	double *r, *z, *p, *ap;
	int err;

	cg_vectors(s, &r, &z, &p, &ap);
	curvature_body curvature = {p, ap, s->st, s->batch, s->n, s->max_iters};
	/* x += alpha p, r -= alpha A p */
	krylov_advance_body update = {p, r, ap, s->x, r, s->st.alpha, s->st, s->batch, s->rtol};
	beta_body beta = {r, z, s->st, s->batch};
	direction_body direction = {z, p, s->st};

	if ((err = krylov_solver_multiply(s, p, ap, stream)) ||
	    (err = krylov_reduce<2, KRYLOV_SUM>(s, curvature, stream)) ||
	    (err = krylov_reduce<1, KRYLOV_SUM>(s, update, stream)) ||
	    (err = krylov_check(s, stream)) || (err = s->precond->apply(s, r, z, stream)) ||
	    (err = krylov_reduce<1, KRYLOV_SUM>(s, beta, stream)))
		return err;
	return krylov_each(s, direction, stream);
}

extern "C" const struct krylov_method krylov_cg = {
	"cg", true, cg_start, cg_step,
};
