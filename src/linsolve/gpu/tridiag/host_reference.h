/* host_reference.h - what the GPU tridiagonal solvers are checked
 * against, on the host in double: random diagonally dominant batches, the
 * Thomas algorithm, and the error of a solution. Shared by
 * bench/linsolve/bench_tridiag.cu and tests/linsolve/test_tridiag_gpu.c. */
#ifndef PICARD_TRIDIAG_HOST_REFERENCE_H
#define PICARD_TRIDIAG_HOST_REFERENCE_H

#include "tridiag/tridiag.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Host arrays of batch->batch * batch->n doubles each, in batch->layout. */
struct tridiag_host_arrays {
	double *lower, *diag, *upper, *rhs;
};

/* Fill arrays with the rows of an implicit diffusion step, (I - A) x = d
 * with A's couplings drawn from [0.5, 2): a_i, c_i < 0 and b_i = 1 - a_i -
 * c_i, so each row is dominant by 1; a_0 = c_{n-1} = 0; d_i in [-1, 1).
 * The same seed gives the same systems in either layout. */
void tridiag_fill_dominant(const struct tridiag_batch *shape, struct tridiag_host_arrays arrays,
			   unsigned long long seed);

/* Solve batch (host pointers) by the library's host Thomas, without
 * pivoting (picard_tridiag_thomas), into batch->x and batch->status: a
 * pivot zero to rounding is TRIDIAG_ZERO_PIVOT, a non-finite one or a
 * non-finite solution TRIDIAG_NONFINITE_PIVOT, and such a system's x NaN;
 * 0, or -1 where its workspace cannot be had. */
int tridiag_host_thomas(const struct tridiag_batch *batch);

/* The worst system's max_i |x_i - ref_i| / max_i |ref_i| (host arrays in
 * shape's layout; inf where x is not finite, NaN without memory). */
double tridiag_max_relative_error(const struct tridiag_batch *shape, const double *x,
				  const double *ref);

#ifdef __cplusplus
}
#endif

#endif
