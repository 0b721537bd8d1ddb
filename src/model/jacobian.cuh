/* jacobian.cuh - the Jacobian of a model's right-hand side, J[i*n + k] =
 * d f_i / d x_k (row-major, n = dim): the model's own jacobian when it
 * declares one (docs/models.md), else forward-mode automatic
 * differentiation through its templated rhs with dual numbers as the real
 * type (dual.cuh): exact to rounding, no finite differences. Device and
 * host alike. */
#ifndef PICARD_JACOBIAN_CUH
#define PICARD_JACOBIAN_CUH

#include "dual.cuh"
#include "portable.h"
#include "traits.cuh"

namespace picard {

/* Model::jacobian<real>(t, x, p, J) can be called in float and double. */
PICARD_CALLABLE_TRAIT(jacobian)

/* Directions per pass of the automatic derivative: all of them for a small
 * model, else passes of 8 (a dual of n + 1 reals per component and
 * parameter would not fit a thread's registers). */
template <class Model>
struct jacobian_chunk {
	static constexpr int value = Model::dim < 8 ? Model::dim : 8;
};

/* f (if not NULL) and J at (t, x; p) by forward-mode automatic
 * differentiation: passes of CHUNK seeded directions through Model::rhs. */
template <class Model, typename real, int CHUNK = jacobian_chunk<Model>::value>
__host__ __device__ inline void jacobian_ad(real t, const real *x, const real *p, real *f, real *J)
{
	constexpr int n = Model::dim, np = Model::nparams;
	typedef ad::dual<real, CHUNK> D;
	D xd[n], pd[np > 0 ? np : 1], fd[n];

	for (int q = 0; q < np; q++)
		pd[q] = D(p[q]);
	for (int k0 = 0; k0 < n; k0 += CHUNK) {
		for (int k = 0; k < n; k++)
			xd[k] = D::variable(x[k], k - k0);
		Model::template rhs<D>(D(t), xd, pd, fd);
		for (int i = 0; i < n; i++) {
			if (f && k0 == 0)
				f[i] = fd[i].v;
			for (int c = 0; c < CHUNK && k0 + c < n; c++)
				J[i * n + k0 + c] = fd[i].d[c];
		}
	}
}

/* J at (t, x; p): the model's own, or by automatic differentiation. */
template <class Model, typename real>
__host__ __device__ inline void jacobian(real t, const real *x, const real *p, real *J)
{
	if constexpr (has_jacobian<Model>::value)
		Model::template jacobian<real>(t, x, p, J);
	else
		jacobian_ad<Model, real>(t, x, p, (real *)nullptr, J);
}

} /* namespace picard */

#endif
