/* precond.cu - the preconditioners of the batched Krylov solvers
 * (krylov.h), the host's of src/linsolve/precond.c per member: none,
 * Jacobi z = D^-1 r, and the Neumann polynomial of Gubaidullin &
 * Nikiforov (section 1.2), z = sum_{k<=degree} (I - D^-1 A)^k D^-1 r by
 * Horner's rule: degree Jacobi sweeps on A z = r from z = D^-1 r. The
 * diagonal's inverse is made at the start of each solve (solver.cu). */
#include "krylov/reduce.cuh"

struct jacobi_body {
	const double *inv_diag, *r;
	double *z;
	krylov_members st;

	__device__ bool active(int m) const { return krylov_running(st, m); }
	__device__ void item(long, int, long at) const { z[at] = inv_diag[at] * r[at]; }
};

/* z += D^-1 (r - A z), A z in work */
struct sweep_body {
	const double *inv_diag, *r, *work;
	double *z;
	krylov_members st;

	__device__ bool active(int m) const { return krylov_running(st, m); }
	__device__ void item(long, int, long at) const
	{
		z[at] += inv_diag[at] * (r[at] - work[at]);
	}
};

static int apply_none(struct krylov_solver *s, const double *r, double *z, cudaStream_t stream)
{
	if (z == r)
		return 0;
	return cudaMemcpyAsync(z, r, sizeof(double) * s->n * (size_t)s->batch,
			       cudaMemcpyDeviceToDevice, stream);
}

static int apply_jacobi(struct krylov_solver *s, const double *r, double *z,
			cudaStream_t stream)
{
	jacobi_body body = {s->inv_diag, r, z, s->st};

	return krylov_each(s, body, stream);
}

static int apply_neumann(struct krylov_solver *s, const double *r, double *z,
			 cudaStream_t stream)
{
	sweep_body sweep = {s->inv_diag, r, s->work, z, s->st};
	int err = apply_jacobi(s, r, z, stream);

	for (int k = 0; k < s->degree && !err; k++)
		if (!(err = krylov_solver_multiply(s, z, s->work, stream)))
			err = krylov_each(s, sweep, stream);
	return err;
}

extern "C" const struct krylov_precond krylov_precond_none = {
	"none", false, true, apply_none,
};

extern "C" const struct krylov_precond krylov_precond_jacobi = {
	"jacobi", true, false, apply_jacobi,
};

extern "C" const struct krylov_precond krylov_precond_neumann = {
	"neumann", true, false, apply_neumann,
};
