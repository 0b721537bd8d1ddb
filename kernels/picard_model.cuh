/* picard_model.cuh - what a model file includes. A model is a struct with
 * its description and a right-hand side written once, as a template over
 * the real type, for host and device; PICARD_REGISTER_MODEL(name) then
 * compiles it into the registry entry picard_model_<name>, the host RHS in
 * float and double, and the paper's and the lobatto kernel instantiated
 * for it (no device function pointer on the hot path). See models/lotka.cu for an example:
 *
 *	struct lotka {
 *		static constexpr int dim = 2, nparams = 6;
 *		static constexpr const char *param_names[nparams] = {...};
 *		static constexpr double param_defaults[nparams] = {...};
 *		static constexpr double x0[dim] = {50, 30};
 *		static constexpr double t0 = 0, t1 = 100;
 *		static constexpr const char *summary = "...", *reference = "...";
 *		template <typename real> __host__ __device__
 *		static void rhs(real t, const real *x, const real *p, real *dxdt);
 *		// optional: the exact solution
 *		static void exact(double t, double t0, const double *x0,
 *				  const double *p, double *x);
 *	};
 *	PICARD_REGISTER_MODEL(lotka)
 */
#ifndef PICARD_MODEL_CUH
#define PICARD_MODEL_CUH

#include <type_traits>

#include "model_impl.h"
#include "lobatto_kernel.cuh"
#include "paper_kernel.cuh"
#include "picard.h"

namespace picard {

/* Model::exact when the model declares one, else NULL. */
template <class Model, class = void>
struct exact_of {
	static constexpr void (*fn)(double, double, const double *,
				     const double *, double *) = nullptr;
};
template <class Model>
struct exact_of<Model, std::void_t<decltype(&Model::exact)>> {
	static constexpr void (*fn)(double, double, const double *,
				     const double *, double *) = &Model::exact;
};

template <class Model, typename real>
void host_rhs(real t, const real *x, const real *p, real *dxdt)
{
	Model::rhs(t, x, p, dxdt);
}

} /* namespace picard */

#define PICARD_MODEL_RULE(cond, name, rule) \
	static_assert(cond, "models/" #name ".cu: " rule)

/* A program that only wants the model structs (bench/'s per-thread
 * baselines) defines PICARD_MODEL_STRUCT_ONLY before including a model. */
#ifdef PICARD_MODEL_STRUCT_ONLY
#define PICARD_REGISTER_MODEL(name)
#else
#define PICARD_REGISTER_MODEL(name)                                            \
	PICARD_MODEL_RULE(name::dim >= 1, name, "dim must be at least 1");    \
	PICARD_MODEL_RULE(name::nparams >= 0, name, "nparams must be >= 0");  \
	PICARD_MODEL_RULE(sizeof(name::x0) == name::dim * sizeof(double), name, \
			  "x0 must have dim entries");                         \
	PICARD_MODEL_RULE(sizeof(name::param_defaults) ==                      \
				  name::nparams * sizeof(double),              \
			  name, "param_defaults must have nparams entries");   \
	PICARD_MODEL_RULE(sizeof(name::param_names) ==                         \
				  name::nparams * sizeof(const char *),        \
			  name, "param_names must have nparams entries");      \
	PICARD_MODEL_RULE(name::t1 > name::t0, name, "t1 must exceed t0");    \
	static const struct picard_model_impl picard_impl_##name = {           \
		picard::host_rhs<name, double>,                                \
		picard::host_rhs<name, float>,                                 \
		picard_paper_launch<name, float>,                              \
		picard_paper_launch<name, double>,                             \
		picard_paper_prepare<name, float>,                             \
		picard_paper_prepare<name, double>,                            \
		picard_lobatto_launch<name, float>,                            \
		picard_lobatto_launch<name, double>,                           \
		picard_lobatto_prepare<name, float>,                           \
		picard_lobatto_prepare<name, double>,                          \
	};                                                                     \
	extern "C" const picard_model picard_model_##name = {                  \
		#name, name::summary, name::reference, name::dim,              \
		name::nparams, name::param_names, name::param_defaults,        \
		name::x0, name::t0, name::t1, picard::exact_of<name>::fn,      \
		&picard_impl_##name,                                           \
	};
#endif

#endif
