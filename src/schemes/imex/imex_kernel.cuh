/* imex_kernel.cuh - the imex schemes' run-time compiled kernel: the parts
 * of a semi-linear model x' = A x + g(t, x) that only its text has, for
 * every member of a chunk. One kernel, two phases, launched by the host
 * loop of kernels/imex/engine.cu, which does the rest (the right-hand
 * sides, the batched linear solves, the sweep's test) in kernels compiled
 * with the library:
 *
 *   0  k faces: a thread per member, Model::k_faces<double>(p, kx, ky)
 *      into its rows of kx and ky (stencil operators);
 *   1  g: a thread per member, step and stage of the window, from the
 *      previous sweep's stage value: Model::nonlinear<double>(t_j + c_q
 *      h, Y, p, G) (the plan's Picard iteration on g alone).
 *
 * A member's state is contiguous (imex_launch.h), so the model's functions
 * read and write global memory directly. Double only, as the tridiagonal
 * solvers are. A model without the parts compiles to a kernel that does
 * nothing (the precompiler names this kernel for every model). */
#ifndef PICARD_IMEX_KERNEL_CUH
#define PICARD_IMEX_KERNEL_CUH

#include "imex_launch.h"
#include "traits.cuh"

namespace picard {
namespace imex {

template <class M, class = void>
struct has_nonlinear : false_type {};
template <class M>
struct has_nonlinear<M, void_t<decltype(M::template nonlinear<double>(
				 0.0, (const double *)0, (const double *)0, (double *)0))>>
	: true_type {};

template <class M, class = void>
struct has_k_faces : false_type {};
template <class M>
struct has_k_faces<M, void_t<decltype(M::template k_faces<double>(
			      (const double *)0, (double *)0, (double *)0))>> : true_type {};

template <class Model>
__device__ inline void load_params(const picard_imex_launch &L, long member, double *p)
{
	for (int q = 0; q < Model::nparams; q++)
		p[q] = L.params[q * L.ntraj + member];
}

} /* namespace imex */

template <class Model>
__global__ void picard_imex_kernel(const picard_imex_launch L, int phase)
{
	const long at = (long)blockIdx.x * blockDim.x + threadIdx.x;
	double p[Model::nparams > 0 ? Model::nparams : 1];

	if (phase == PICARD_IMEX_K_FACES) {
		if constexpr (imex::has_k_faces<Model>::value) {
			if (at >= L.ntraj)
				return;
			imex::load_params<Model>(L, at, p);
			Model::template k_faces<double>(p, L.kx + at * L.kx_len, L.ky + at * L.ky_len);
		}
	} else {
		if constexpr (imex::has_nonlinear<Model>::value) {
			const long member = at % L.ntraj, e = at;
			const int q = (int)(at / L.ntraj % L.stages);
			const int j = (int)(at / L.ntraj / L.stages);

			if (j >= L.steps || !L.sweeping[member * L.sweeping_stride])
				return;
			imex::load_params<Model>(L, member, p);
			Model::template nonlinear<double>(L.t_window + (j + L.c[q]) * L.h,
							  L.stage + e * L.dim, p, L.g + e * L.dim);
		}
	}
}

} /* namespace picard */

#endif
