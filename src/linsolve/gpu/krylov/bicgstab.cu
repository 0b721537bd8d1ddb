/* bicgstab.cu - batched BiCGStab with right preconditioning (krylov.h),
 * src/linsolve/bicgstab.c per member (van der Vorst 1992; Saad,
 * Algorithm 7.7 with M^-1 applied to p and s): (r0, r) = 0, (r0, A p) = 0
 * and omega = 0 are breakdowns, A p = 0 or A s = 0 for a nonzero
 * direction a singular matrix. Each iteration is two SpMVs, two
 * preconditioner applications and seven fused passes (reduce.cuh). */
#include <float.h>

#include "krylov/reduce.cuh"

/* The vectors of one solve, as bicgstab.c names them. */
struct bicgstab_vectors {
	double *r, *r0, *p, *v, *s, *t, *p_hat, *s_hat, *x;
};

/* Whether A annihilates a nonzero direction (bicgstab.c's annihilated),
 * from |dir|^2 and |A dir|^2. */
__device__ __forceinline__ bool annihilated(int n, double a_norm, double dir_square,
					    double image_square)
{
	double dir_norm = sqrt(dir_square);

	return dir_norm > 0 && sqrt(image_square) <= n * DBL_EPSILON * a_norm * dir_norm;
}

/* ||A||_inf; r0 = r, p = v = 0, rho = alpha = omega = 1 */
struct start_body {
	krylov_dpattern p;
	const double *val;
	bicgstab_vectors w;
	krylov_members st;

	__device__ bool active(int m) const { return krylov_running(st, m); }
	__device__ void row(long i, int m, double *acc) const
	{
		long batch = p.batch, at = i * batch + m;
		double sum = p.msr ? fabs(val[at]) : 0.0;

		for (int k = p.start[i]; k < p.start[i + 1]; k++)
			sum += fabs(val[k * batch + m]);
		acc[0] = krylov_combine<KRYLOV_MAX>(acc[0], sum);
		w.r0[at] = w.r[at];
		w.p[at] = w.v[at] = 0;
	}
	__device__ void finish(int m, const double *total) const
	{
		st.a_norm[m] = total[0];
		st.rz[m] = st.alpha[m] = st.omega[m] = 1;
	}
};

/* rho = (r0, r): the p update's coefficient, or the member's end (with
 * the last iteration's omega = 0 breakdown, found after its convergence
 * check as bicgstab.c finds it) */
struct rho_body {
	bicgstab_vectors w;
	krylov_members st;
	int batch, max_iters;

	__device__ bool active(int m) const { return krylov_running(st, m); }
	__device__ void row(long i, int m, double *acc) const
	{
		long at = i * batch + m;

		acc[0] += w.r0[at] * w.r[at];
	}
	__device__ void finish(int m, const double *total) const
	{
		double rho_next = total[0], omega = st.omega[m];

		if (omega == 0 || !isfinite(omega)) {
			krylov_end_member(st, m, PICARD_LINSOLVE_BREAKDOWN);
			return;
		}
		if (st.iters[m] >= max_iters) {
			krylov_end_member(st, m, PICARD_LINSOLVE_NOT_CONVERGED);
			return;
		}
		st.iters[m]++;
		if (!isfinite(rho_next)) {
			krylov_end_member(st, m, PICARD_LINSOLVE_NONFINITE);
			return;
		}
		if (rho_next == 0) {
			krylov_end_member(st, m, PICARD_LINSOLVE_BREAKDOWN);
			return;
		}
		st.beta[m] = rho_next / st.rz[m] * st.alpha[m] / omega;
		st.rz[m] = rho_next;
	}
};

/* p = r + beta (p - omega v) */
struct direction_body {
	bicgstab_vectors w;
	krylov_members st;

	__device__ bool active(int m) const { return krylov_running(st, m); }
	__device__ void item(long, int m, long at) const
	{
		w.p[at] = w.r[at] + st.beta[m] * (w.p[at] - st.omega[m] * w.v[at]);
	}
};

/* (r0, v), |p_hat|^2, |v|^2: alpha, or a singular matrix or a breakdown */
struct alpha_body {
	bicgstab_vectors w;
	krylov_members st;
	int batch, n;

	__device__ bool active(int m) const { return krylov_running(st, m); }
	__device__ void row(long i, int m, double *acc) const
	{
		long at = i * batch + m;

		acc[0] += w.r0[at] * w.v[at];
		acc[1] += w.p_hat[at] * w.p_hat[at];
		acc[2] += w.v[at] * w.v[at];
	}
	__device__ void finish(int m, const double *total) const
	{
		double r0v = total[0];

		if (annihilated(n, st.a_norm[m], total[1], total[2]))
			krylov_end_member(st, m, PICARD_LINSOLVE_SINGULAR);
		else if (r0v == 0 || !isfinite(r0v))
			krylov_end_member(st, m, PICARD_LINSOLVE_BREAKDOWN);
		else
			st.alpha[m] = st.rz[m] / r0v;
	}
};

/* |s_hat|^2, |t|^2, (t, s): omega, or a singular matrix */
struct omega_body {
	bicgstab_vectors w;
	krylov_members st;
	int batch, n;

	__device__ bool active(int m) const { return krylov_running(st, m); }
	__device__ void row(long i, int m, double *acc) const
	{
		long at = i * batch + m;

		acc[0] += w.s_hat[at] * w.s_hat[at];
		acc[1] += w.t[at] * w.t[at];
		acc[2] += w.t[at] * w.s[at];
	}
	__device__ void finish(int m, const double *total) const
	{
		double tt = total[1];

		if (annihilated(n, st.a_norm[m], total[0], tt))
			krylov_end_member(st, m, PICARD_LINSOLVE_SINGULAR);
		else
			st.omega[m] = tt > 0 ? total[2] / tt : 0;
	}
};

static bicgstab_vectors vectors_of(const struct krylov_solver *s)
{
	bool identity = s->precond->identity;
	bicgstab_vectors w = {s->vec[0], s->vec[1], s->vec[2], s->vec[3], s->vec[4], s->vec[5],
			      identity ? s->vec[2] : s->vec[6], identity ? s->vec[4] : s->vec[7],
			      s->x};

	return w;
}

static int bicgstab_start(struct krylov_solver *s, cudaStream_t stream)
{
	start_body start = {s->spmv->p, s->val, vectors_of(s), s->st};

	return krylov_reduce<1, KRYLOV_MAX>(s, start, stream);
}

static int bicgstab_step(struct krylov_solver *s, cudaStream_t stream)
{
	bicgstab_vectors w = vectors_of(s);
	rho_body rho = {w, s->st, s->batch, s->max_iters};
	direction_body direction = {w, s->st};
	alpha_body alpha = {w, s->st, s->batch, s->n};
	/* s = r - alpha v, x += alpha p_hat; x += omega s_hat, r = s - omega t */
	krylov_advance_body half_step = {w.p_hat, w.r, w.v, w.x, w.s, s->st.alpha, s->st,
					 s->batch, s->rtol};
	omega_body omega = {w, s->st, s->batch, s->n};
	krylov_advance_body step = {w.s_hat, w.s, w.t, w.x, w.r, s->st.omega, s->st, s->batch,
				    s->rtol};
	int err;

	if ((err = krylov_reduce<1, KRYLOV_SUM>(s, rho, stream)) ||
	    (err = krylov_each(s, direction, stream)) ||
	    (err = s->precond->apply(s, w.p, w.p_hat, stream)) ||
	    (err = krylov_solver_multiply(s, w.p_hat, w.v, stream)) ||
	    (err = krylov_reduce<3, KRYLOV_SUM>(s, alpha, stream)) ||
	    (err = krylov_reduce<1, KRYLOV_SUM>(s, half_step, stream)) ||
	    (err = krylov_check(s, stream)) || (err = s->precond->apply(s, w.s, w.s_hat, stream)) ||
	    (err = krylov_solver_multiply(s, w.s_hat, w.t, stream)) ||
	    (err = krylov_reduce<3, KRYLOV_SUM>(s, omega, stream)) ||
	    (err = krylov_reduce<1, KRYLOV_SUM>(s, step, stream)))
		return err;
	return krylov_check(s, stream);
}

extern "C" const struct krylov_method krylov_bicgstab = {
	"bicgstab", false, bicgstab_start, bicgstab_step,
};
