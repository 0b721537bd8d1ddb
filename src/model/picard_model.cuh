/* picard_model.cuh - what a model file includes. A model is a struct with
 * its description and a right-hand side written once, as a template over
 * the real type, for host and device; PICARD_REGISTER_MODEL(name) then
 * compiles it into the entry picard_model_<name> with its host side: the
 * right-hand side in float and double and the per-thread schemes' host
 * integrations. Its kernels are compiled at run time, each instance when a
 * solve first needs it (src/jit.c), from the model's text: no device
 * function pointer on the hot path, and no build of every instance. See
 * models/lotka.cu for an example:
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

#include "jacobian.cuh"
#include "model_events.cuh"
#include "model_impl.h"
#include "picard.h"
#include "portable.h"
#include "traits.cuh"

/* Three compilers read a model file. NVRTC compiles its kernels at run
 * time (src/jit.c): the device code, and the contract. The system C++
 * compiler builds its host side (the CPU backend, the GSL reference):
 * the build for models/, picard_model_load for a file elsewhere. nvcc
 * reads the structs alone, for bench/'s own kernels. */
#if defined(__CUDACC__)
#include "imex_kernel.cuh"
#include "lobatto_kernel.cuh"
#include "lobatto_thread_kernel.cuh"
#include "lobatto_time_kernel.cuh"
#include "lobatto_time_paper_kernel.cuh"
#include "newton_kernel.cuh"
#include "paper_kernel.cuh"
#include "rk_kernel.cuh"
#include "rk_warp_kernel.cuh"
#include "warp_kernel.cuh"
#endif
#if !defined(__CUDACC_RTC__)
#include "rk_host.h"
#endif
/* binary128 for the Gauss-Legendre judge: the system C++ compiler only */
#if !defined(__CUDACC__) && defined(__SIZEOF_FLOAT128__)
#define PICARD_HAS_QUAD 1
#include "quad.h"
#endif

namespace picard {

/* ---- the contract: what a model struct must declare ------------------------ */

/* has_X<Model>: Model declares a member X (of any type). Used by the
 * contract's static_asserts so that a missing member gives one message
 * naming the file and the rule, not a cascade of template errors. */
#define PICARD_MEMBER_TRAIT(member)                                            \
	template <class M, class = void>                                       \
	struct has_##member : false_type {};                              \
	template <class M>                                                     \
	struct has_##member<M, void_t<decltype(&M::member)>>              \
		: true_type {};
PICARD_MEMBER_TRAIT(dim)
PICARD_MEMBER_TRAIT(nparams)
PICARD_MEMBER_TRAIT(param_names)
PICARD_MEMBER_TRAIT(param_defaults)
PICARD_MEMBER_TRAIT(x0)
PICARD_MEMBER_TRAIT(t0)
PICARD_MEMBER_TRAIT(t1)
PICARD_MEMBER_TRAIT(summary)
PICARD_MEMBER_TRAIT(reference)
PICARD_MEMBER_TRAIT(exact)
PICARD_MEMBER_TRAIT(initial)
PICARD_MEMBER_TRAIT(invariants)
PICARD_MEMBER_TRAIT(default_h)
PICARD_MEMBER_TRAIT(default_atol)
/* a semi-linear model's operator (x' = A x + g) */
PICARD_MEMBER_TRAIT(op)
PICARD_MEMBER_TRAIT(nx)
PICARD_MEMBER_TRAIT(ny)
PICARD_MEMBER_TRAIT(dx)
PICARD_MEMBER_TRAIT(dy)
PICARD_MEMBER_TRAIT(op_symmetric)
PICARD_MEMBER_TRAIT(nnz)
/* events (model_events.cuh has nevents, events and jump) */
PICARD_MEMBER_TRAIT(event_names)
PICARD_MEMBER_TRAIT(event_directions)
PICARD_MEMBER_TRAIT(event_actions)
PICARD_MEMBER_TRAIT(event_limit)
PICARD_MEMBER_TRAIT(event_min_spacing)
#undef PICARD_MEMBER_TRAIT

/* Model declares a member template jacobian (of any signature): then it
 * must be has_jacobian's (jacobian.cuh), not be ignored. */
template <class M, class = void>
struct declares_jacobian : false_type {};
template <class M>
struct declares_jacobian<M, void_t<decltype(&M::template jacobian<double>)>> : true_type {};

/* Model::rhs<real>(t, x, p, dxdt) can be called in float and double. */
PICARD_CALLABLE_TRAIT(rhs)
/* Model::nonlinear<real>(t, x, p, g), the g of x' = A x + g, the same. */
PICARD_CALLABLE_TRAIT(nonlinear)

/* Model::k_faces<real>(p, kx, ky) can be called in float and double. */
template <class M, class = void>
struct has_k_faces : false_type {};
template <class M>
struct has_k_faces<M, void_t<
	decltype(M::template k_faces<float>((const float *)0, (float *)0, (float *)0)),
	decltype(M::template k_faces<double>((const double *)0, (double *)0, (double *)0))>>
	: true_type {};

/* Model::csr(p, row_start, col, val) can be called (host, double). */
template <class M, class = void>
struct has_csr : false_type {};
template <class M>
struct has_csr<M, void_t<decltype(M::csr((const double *)0, (int *)0, (int *)0,
					  (double *)0))>> : true_type {};

/* Some part of an operator is declared: k_faces, nonlinear or csr of
 * whatever signature (then op must be too). */
template <class M, class = void>
struct declares_k_faces : false_type {};
template <class M>
struct declares_k_faces<M, void_t<decltype(&M::template k_faces<double>)>> : true_type {};
template <class M, class = void>
struct declares_nonlinear : false_type {};
template <class M>
struct declares_nonlinear<M, void_t<decltype(&M::template nonlinear<double>)>> : true_type {};
template <class M, class = void>
struct declares_csr : false_type {};
template <class M>
struct declares_csr<M, void_t<decltype(&M::csr)>> : true_type {};

/* Entries of a static array member, 0 when M lacks it. */
template <class M, class = void>
struct x0_count { static constexpr size_t value = 0; };
template <class M>
struct x0_count<M, enable_if_t<has_x0<M>::value>> {
	static constexpr size_t value = sizeof(M::x0) / sizeof(M::x0[0]);
};
template <class M, class = void>
struct defaults_count { static constexpr size_t value = 0; };
template <class M>
struct defaults_count<M, enable_if_t<has_param_defaults<M>::value>> {
	static constexpr size_t value = sizeof(M::param_defaults) / sizeof(M::param_defaults[0]);
};
template <class M, class = void>
struct names_count { static constexpr size_t value = 0; };
template <class M>
struct names_count<M, enable_if_t<has_param_names<M>::value>> {
	static constexpr size_t value = sizeof(M::param_names) / sizeof(M::param_names[0]);
};

template <class M, class = void>
struct dim_of { static constexpr long value = 0; };
template <class M>
struct dim_of<M, enable_if_t<has_dim<M>::value>> { static constexpr long value = M::dim; };
template <class M, class = void>
struct nparams_of { static constexpr long value = -1; };
template <class M>
struct nparams_of<M, enable_if_t<has_nparams<M>::value>> {
	static constexpr long value = M::nparams;
};
template <class M, class = void>
struct span_ok { static constexpr bool value = false; };
template <class M>
struct span_ok<M, enable_if_t<has_t0<M>::value && has_t1<M>::value>> {
	static constexpr bool value = M::t1 > M::t0;
};

/* The operator's values, or what stands in for a missing member (the
 * contract's rules say which are required for which kind). */
template <class M, class = void>
struct op_kind_of { static constexpr picard_operator_kind value = PICARD_OP_NONE; };
template <class M>
struct op_kind_of<M, enable_if_t<has_op<M>::value>> {
	static constexpr picard_operator_kind value = M::op;
};
template <class M, class = void>
struct nx_of { static constexpr long value = dim_of<M>::value; };
template <class M>
struct nx_of<M, enable_if_t<has_nx<M>::value>> { static constexpr long value = M::nx; };
template <class M, class = void>
struct ny_of { static constexpr long value = 1; };
template <class M>
struct ny_of<M, enable_if_t<has_ny<M>::value>> { static constexpr long value = M::ny; };
template <class M, class = void>
struct dx_of { static constexpr double value = 0; };
template <class M>
struct dx_of<M, enable_if_t<has_dx<M>::value>> { static constexpr double value = M::dx; };
template <class M, class = void>
struct dy_of { static constexpr double value = 0; };
template <class M>
struct dy_of<M, enable_if_t<has_dy<M>::value>> { static constexpr double value = M::dy; };
template <class M, class = void>
struct nnz_of { static constexpr long value = 0; };
template <class M>
struct nnz_of<M, enable_if_t<has_nnz<M>::value>> { static constexpr long value = M::nnz; };
/* Stencils are symmetric by construction (k on a face serves both of
 * its unknowns); a CSR matrix only when the model says so. */
template <class M, class = void>
struct op_symmetric_of {
	static constexpr bool value = op_kind_of<M>::value == PICARD_OP_STENCIL_1D ||
				      op_kind_of<M>::value == PICARD_OP_STENCIL_2D;
};
template <class M>
struct op_symmetric_of<M, enable_if_t<has_op_symmetric<M>::value>> {
	static constexpr bool value = M::op_symmetric;
};
template <class M>
struct op_is_stencil {
	static constexpr bool value = op_kind_of<M>::value == PICARD_OP_STENCIL_1D ||
				      op_kind_of<M>::value == PICARD_OP_STENCIL_2D;
};
template <class M>
struct op_kind_known {
	static constexpr bool value = op_is_stencil<M>::value ||
				      op_kind_of<M>::value == PICARD_OP_CSR;
};
/* The grid's rules: nx ny = dim; spacings positive where a stencil
 * uses them; a 1D stencil has one row. */
template <class M>
struct op_grid_ok {
	static constexpr bool value = nx_of<M>::value * ny_of<M>::value == dim_of<M>::value;
};
template <class M>
struct op_spacing_ok {
	static constexpr bool value =
		!op_is_stencil<M>::value ||
		(dx_of<M>::value > 0 &&
		 (op_kind_of<M>::value != PICARD_OP_STENCIL_2D || dy_of<M>::value > 0));
};

/* The events' arrays: entries, 0 when missing; whether an action is a
 * jump; any part of events declared (then nevents must be). */
#define PICARD_ARRAY_COUNT(trait, member)                                      \
	template <class M, class = void>                                       \
	struct trait { static constexpr long value = 0; };                     \
	template <class M>                                                     \
	struct trait<M, enable_if_t<has_##member<M>::value>> {                 \
		static constexpr long value = sizeof(M::member) / sizeof(M::member[0]); \
	};
PICARD_ARRAY_COUNT(event_names_count, event_names)
PICARD_ARRAY_COUNT(event_directions_count, event_directions)
PICARD_ARRAY_COUNT(event_actions_count, event_actions)
#undef PICARD_ARRAY_COUNT

template <class M, class = void>
struct events_jump { static constexpr bool value = false; };
template <class M>
struct events_jump<M, enable_if_t<has_event_actions<M>::value>> {
	static constexpr bool any()
	{
		for (long k = 0; k < event_actions_count<M>::value; k++)
			if (M::event_actions[k] == PICARD_EVENT_JUMP)
				return true;
		return false;
	}
	static constexpr bool value = any();
};
template <class M, class = void>
struct events_directions_ok { static constexpr bool value = true; };
template <class M>
struct events_directions_ok<M, enable_if_t<has_event_directions<M>::value>> {
	static constexpr bool all()
	{
		for (long k = 0; k < event_directions_count<M>::value; k++)
			if (M::event_directions[k] != PICARD_EVENT_BOTH &&
			    M::event_directions[k] != PICARD_EVENT_RISING &&
			    M::event_directions[k] != PICARD_EVENT_FALLING)
				return false;
		return true;
	}
	static constexpr bool value = all();
};
template <class M, class = void>
struct declares_events : false_type {};
template <class M>
struct declares_events<M, void_t<decltype(&M::template events<double>)>> : true_type {};
template <class M, class = void>
struct declares_jump : false_type {};
template <class M>
struct declares_jump<M, void_t<decltype(&M::template jump<double>)>> : true_type {};
template <class M>
struct declares_event_part {
	static constexpr bool value = has_event_names<M>::value || has_event_directions<M>::value ||
				      has_event_actions<M>::value || has_event_limit<M>::value ||
				      has_event_min_spacing<M>::value || declares_events<M>::value ||
				      declares_jump<M>::value;
};

/* ---- optional parts, or what stands in for them ------------------------------ */

/* Model::exact when the model declares one, else NULL. */
template <class Model, class = void>
struct exact_of {
	static constexpr void (*fn)(double, double, const double *,
				     const double *, double *) = nullptr;
};
template <class Model>
struct exact_of<Model, void_t<decltype(&Model::exact)>> {
	static constexpr void (*fn)(double, double, const double *,
				     const double *, double *) = &Model::exact;
};

/* Model::initial (start state from the parameters) or NULL. */
template <class Model, class = void>
struct initial_of {
	static constexpr void (*fn)(const double *, double *) = nullptr;
};
template <class Model>
struct initial_of<Model, void_t<decltype(&Model::initial)>> {
	static constexpr void (*fn)(const double *, double *) = &Model::initial;
};

/* Model::invariants with their count and names, or none. */
template <class Model, class = void>
struct invariants_of {
	static constexpr int count = 0;
	static constexpr const char *const *names = nullptr;
	static constexpr void (*fn)(const double *, const double *, double *) = nullptr;
};
template <class Model>
struct invariants_of<Model, void_t<decltype(&Model::invariants)>> {
	static constexpr int count = Model::ninvariants;
	static constexpr const char *const *names = Model::invariant_names;
	static constexpr void (*fn)(const double *, const double *, double *) =
		&Model::invariants;
};

/* Model::default_h, or 0 (picard-run's own default then). */
template <class Model, class = void>
struct default_h_of { static constexpr double value = 0; };
template <class Model>
struct default_h_of<Model, void_t<decltype(&Model::default_h)>> {
	static constexpr double value = Model::default_h;
};

/* Model::default_atol, or 0 (the relative tolerance then). */
template <class Model, class = void>
struct default_atol_of { static constexpr double value = 0; };
template <class Model>
struct default_atol_of<Model, void_t<decltype(&Model::default_atol)>> {
	static constexpr double value = Model::default_atol;
};

/* Model::stiff, or false. */
template <class Model, class = void>
struct stiff_of { static constexpr bool value = false; };
template <class Model>
struct stiff_of<Model, void_t<decltype(&Model::stiff)>> {
	static constexpr bool value = Model::stiff;
};

/* The model's picard_events (its entry's events), or NULL without. */
template <class Model, bool = runs_events<Model>::value>
struct events_of { static constexpr const picard_events *ptr = nullptr; };
template <class Model>
struct events_of<Model, true> {
	static void g(double t, const double *x, const double *p, double *out)
	{
		Model::template events<double>(t, x, p, out);
	}
	static void jump(int k, double t, double *x, double *p)
	{
		event_jump<Model, double>::apply(k, t, x, p);
	}
	static constexpr picard_events value = {
		Model::nevents,
		Model::event_names,
		Model::event_directions,
		Model::event_actions,
		event_limit_of<Model>::value,
		event_min_spacing_of<Model>::value,
		g,
		has_jump<Model>::value ? jump : nullptr,
	};
	static constexpr const picard_events *ptr = &value;
};

/* The parameter arrays, NULL for a model without parameters (which need
 * not declare them: a C++ array cannot be empty). */
template <class Model, class = void>
struct params_of {
	static constexpr const char *const *names = nullptr;
	static constexpr const double *defaults = nullptr;
};
template <class Model>
struct params_of<Model, enable_if_t<has_param_names<Model>::value &&
					 has_param_defaults<Model>::value>> {
	static constexpr const char *const *names = Model::param_names;
	static constexpr const double *defaults = Model::param_defaults;
};

#if defined(__CUDACC__)
/* A model's right-hand side called on the device in both precisions: what
 * picard_model_load compiles to check a file's device side (src/jit.c),
 * before any solve needs a kernel. */
template <class Model, bool = op_kind_known<Model>::value && has_nonlinear<Model>::value>
struct operator_device_check {
	__device__ static void run(float, const float *, const float *, float *, double,
				   const double *, const double *, double *) {}
};
template <class Model>
struct operator_device_check<Model, true> {
	template <typename real>
	__device__ static void faces(const real *p, real *k, true_type)
	{
		Model::template k_faces<real>(p, k, k);
	}
	template <typename real>
	__device__ static void faces(const real *, real *, false_type) {}
	__device__ static void run(float tf, const float *xf, const float *pf, float *df,
				   double td, const double *xd, const double *pd, double *dd)
	{
		Model::template nonlinear<float>(tf, xf, pf, df);
		Model::template nonlinear<double>(td, xd, pd, dd);
		faces(pf, df, bool_constant<op_is_stencil<Model>::value && has_k_faces<Model>::value>());
		faces(pd, dd, bool_constant<op_is_stencil<Model>::value && has_k_faces<Model>::value>());
	}
};

/* The check kernel is compiled, never launched: the operator's device
 * side (nonlinear, k_faces) is checked with rhs. */
template <class Model>
__global__ void rhs_check(float tf, const float *xf, const float *pf, float *df, double td,
			  const double *xd, const double *pd, double *dd)
{
	Model::template rhs<float>(tf, xf, pf, df);
	Model::template rhs<double>(td, xd, pd, dd);
	operator_device_check<Model>::run(tf, xf, pf, df, td, xd, pd, dd);
}

/* Its Jacobian on the device, the model's own and the automatic one, in
 * both precisions (tests/test_model_load.c compiles it for every model). */
template <class Model>
__global__ void jacobian_check(const float *xf, const float *pf, float *jf, const double *xd,
			       const double *pd, double *jd)
{
	jacobian<Model, float>(0.0f, xf, pf, jf);
	jacobian<Model, double>(0.0, xd, pd, jd);
	jacobian_ad<Model, float>(0.0f, xf, pf, (float *)nullptr, jf);
	jacobian_ad<Model, double>(0.0, xd, pd, (double *)nullptr, jd);
}

/* The per-thread schemes' event integration on the device, compiled,
 * never launched: it holds that code to the device's rules with no
 * device at hand (tests/events/test_events.c compiles it for every model
 * with events; test_events_gpu.c runs the kernels themselves). */
template <typename real>
struct events_check_out {
	static constexpr bool dense = true;
	__device__ void window_end(long, const real *) {}
	__device__ double due(double) { return (double)NAN; }
	__device__ void store(const real *) {}
	__device__ void event(int, int, double, const real *, const real *) {}
};
template <class Model, class Tab, typename real>
__device__ void events_check_scheme(const rk_run &run, real *x, const real *p)
{
	events_check_out<real> out;

	rk_trajectory<Model, Tab, real>(run, x, p, out); /* fixed and adaptive */
}
/* Every per-thread scheme that locates events, in one precision. */
template <class Model, typename real>
__device__ void events_check_schemes(const rk_run &run, real *x, const real *p)
{
	events_check_scheme<Model, rk_dp5, real>(run, x, p);
	events_check_scheme<Model, rk_dp8, real>(run, x, p);
	events_check_scheme<Model, rk_vern9, real>(run, x, p);
	events_check_scheme<Model, rosenbrock_rodas5p, real>(run, x, p);
	events_check_scheme<Model, rosenbrock_rodas4, real>(run, x, p);
	events_check_scheme<Model, rosenbrock_ros23, real>(run, x, p);
	events_check_scheme<Model, rk_radau5, real>(run, x, p);
}
template <class Model>
__global__ void events_check(float *xf, const float *pf, double *xd, const double *pd)
{
	const rk_run run = rk_run_of(0, 1, 1, 1, true, 100, 1e-6, 1e-6, 1e12);

	events_check_schemes<Model, float>(run, xf, pf);
	events_check_schemes<Model, double>(run, xd, pd);
}
#endif

template <class Model, typename real>
void host_rhs(real t, const real *x, const real *p, real *dxdt)
{
	Model::rhs(t, x, p, dxdt);
}

/* f in binary128 (quad.h), behind model_impl.h's opaque pointers. */
#if defined(PICARD_HAS_QUAD)
template <class Model>
void host_rhs_quad(const void *t, const void *x, const void *p, void *dxdt)
{
	Model::rhs(*(const hp::quad *)t, (const hp::quad *)x, (const hp::quad *)p,
		   (hp::quad *)dxdt);
}
#define PICARD_HOST_RHS_QUAD(name) picard::host_rhs_quad<name>
#else
#define PICARD_HOST_RHS_QUAD(name) nullptr
#endif

/* The Jacobian on the host in double: the model's own or by automatic
 * differentiation (jacobian.cuh), and the latter alone. */
template <class Model>
void host_jacobian(double t, const double *x, const double *p, double *J)
{
	jacobian<Model, double>(t, x, p, J);
}

template <class Model>
void host_jacobian_ad(double t, const double *x, const double *p, double *J)
{
	jacobian_ad<Model, double>(t, x, p, (double *)nullptr, J);
}

/* The operator's host side in double (picard_operator's function
 * pointers): each the model's own, or NULL where its kind has none. */
template <class Model, class = void>
struct host_k_faces { static constexpr void (*fn)(const double *, double *, double *) = nullptr; };
template <class Model>
struct host_k_faces<Model, enable_if_t<has_k_faces<Model>::value && op_is_stencil<Model>::value>> {
	static void call(const double *p, double *kx, double *ky)
	{
		Model::template k_faces<double>(p, kx, ky);
	}
	static constexpr void (*fn)(const double *, double *, double *) = call;
};
template <class Model, class = void>
struct host_csr { static constexpr void (*fn)(const double *, int *, int *, double *) = nullptr; };
template <class Model>
struct host_csr<Model,
		enable_if_t<has_csr<Model>::value && op_kind_of<Model>::value == PICARD_OP_CSR>> {
	static constexpr void (*fn)(const double *, int *, int *, double *) = &Model::csr;
};
template <class Model, class = void>
struct host_nonlinear {
	static constexpr void (*fn)(double, const double *, const double *, double *) = nullptr;
};
template <class Model>
struct host_nonlinear<Model, enable_if_t<has_nonlinear<Model>::value>> {
	static void call(double t, const double *x, const double *p, double *g)
	{
		Model::template nonlinear<double>(t, x, p, g);
	}
	static constexpr void (*fn)(double, const double *, const double *, double *) = call;
};

/* The model's picard_operator (its entry's op), or NULL without op. */
template <class Model, bool = op_kind_known<Model>::value>
struct operator_of { static constexpr const picard_operator *ptr = nullptr; };
template <class Model>
struct operator_of<Model, true> {
	static constexpr picard_operator value = {
		op_kind_of<Model>::value,
		(int)nx_of<Model>::value,
		(int)ny_of<Model>::value,
		dx_of<Model>::value,
		dy_of<Model>::value,
		op_symmetric_of<Model>::value,
		host_k_faces<Model>::fn,
		(int)nnz_of<Model>::value,
		host_csr<Model>::fn,
		host_nonlinear<Model>::fn,
	};
	static constexpr const picard_operator *ptr = &value;
};

} /* namespace picard */

#define PICARD_MODEL_RULE(cond, name, rule) \
	static_assert(cond, "model " #name ": " rule " (docs/models.md, the contract)")

/* The contract of a semi-linear model (x' = A x + g), when it declares
 * op; a model without op and without any of the operator's parts passes. */
#define PICARD_MODEL_OPERATOR_CONTRACT(name)                                   \
	PICARD_MODEL_RULE(picard::has_op<name>::value ||                        \
				  !(picard::declares_k_faces<name>::value ||   \
				    picard::declares_nonlinear<name>::value || \
				    picard::declares_csr<name>::value),        \
			  name, "k_faces, nonlinear or csr declared without op: declare "  \
			  "static constexpr picard_operator_kind op = PICARD_OP_STENCIL_1D, " \
			  "_STENCIL_2D or _CSR");                              \
	PICARD_MODEL_RULE(!picard::has_op<name>::value ||                       \
				  picard::op_kind_known<name>::value,          \
			  name, "op must be PICARD_OP_STENCIL_1D, PICARD_OP_STENCIL_2D or " \
			  "PICARD_OP_CSR");                                    \
	PICARD_MODEL_RULE(!picard::op_kind_known<name>::value ||                \
				  picard::has_nonlinear<name>::value,          \
			  name, "an operator (op) needs template <typename real> __host__ " \
			  "__device__ static void nonlinear(real t, const real *x, const " \
			  "real *p, real *g): g = rhs - A x");                 \
	PICARD_MODEL_RULE(!picard::op_is_stencil<name>::value ||                \
				  (picard::has_nx<name>::value && picard::has_dx<name>::value), \
			  name, "a stencil operator needs static constexpr int nx and "    \
			  "static constexpr double dx (the grid)");            \
	PICARD_MODEL_RULE(picard::op_kind_of<name>::value != PICARD_OP_STENCIL_2D || \
				  (picard::has_ny<name>::value && picard::has_dy<name>::value), \
			  name, "PICARD_OP_STENCIL_2D needs static constexpr int ny and "  \
			  "static constexpr double dy");                       \
	PICARD_MODEL_RULE(picard::op_kind_of<name>::value != PICARD_OP_STENCIL_1D || \
				  picard::ny_of<name>::value == 1,             \
			  name, "PICARD_OP_STENCIL_1D has ny = 1 (or no ny)"); \
	PICARD_MODEL_RULE(!picard::op_kind_known<name>::value ||                \
				  picard::op_grid_ok<name>::value,             \
			  name, "nx * ny must equal dim (the grid's unknowns are the state)"); \
	PICARD_MODEL_RULE(!picard::op_kind_known<name>::value ||                \
				  picard::op_spacing_ok<name>::value,          \
			  name, "a stencil's spacings dx (and dy in 2D) must be positive"); \
	PICARD_MODEL_RULE(!picard::op_is_stencil<name>::value ||                \
				  picard::has_k_faces<name>::value,            \
			  name, "a stencil operator needs template <typename real> __host__ " \
			  "__device__ static void k_faces(const real *p, real *kx, real *ky): " \
			  "k on the (nx+1) ny x-faces and nx (ny+1) y-faces (ky NULL in 1D)"); \
	PICARD_MODEL_RULE(picard::op_kind_of<name>::value != PICARD_OP_CSR ||   \
				  (picard::has_nnz<name>::value && picard::nnz_of<name>::value >= 1), \
			  name, "PICARD_OP_CSR needs static constexpr int nnz >= 1 (the "  \
			  "entries of A, at most)");                           \
	PICARD_MODEL_RULE(picard::op_kind_of<name>::value != PICARD_OP_CSR ||   \
				  picard::has_csr<name>::value,                \
			  name, "PICARD_OP_CSR needs static void csr(const double *p, int " \
			  "*row_start, int *col, double *val): A for parameters p, dim + 1 " \
			  "row starts, nnz entries at most");

/* The contract of a model's events, when it declares nevents; a model
 * without nevents and without any part of events passes. */
#define PICARD_MODEL_EVENTS_CONTRACT(name)                                     \
	PICARD_MODEL_RULE(picard::has_nevents<name>::value ||                   \
				  !picard::declares_event_part<name>::value,   \
			  name, "events, jump or event_* declared without static constexpr " \
			  "int nevents");                                      \
	PICARD_MODEL_RULE(!picard::has_nevents<name>::value ||                  \
				  (picard::nevents_of<name>::value >= 1 &&     \
				   picard::nevents_of<name>::value <= 64),     \
			  name, "nevents must be 1 to 64");                    \
	PICARD_MODEL_RULE(!picard::has_nevents<name>::value ||                  \
				  picard::has_events<name>::value,             \
			  name, "nevents needs template <typename real> __host__ __device__ " \
			  "static void events(real t, const real *x, const real *p, real *g): " \
			  "g[k] for k < nevents");                             \
	PICARD_MODEL_RULE(!picard::has_nevents<name>::value ||                  \
				  picard::event_names_count<name>::value ==    \
					  picard::nevents_of<name>::value,     \
			  name, "nevents needs static constexpr const char *event_names[] " \
			  "with nevents entries");                             \
	PICARD_MODEL_RULE(!picard::has_nevents<name>::value ||                  \
				  picard::event_directions_count<name>::value == \
					  picard::nevents_of<name>::value,     \
			  name, "nevents needs static constexpr picard_event_direction " \
			  "event_directions[] with nevents entries (PICARD_EVENT_RISING, " \
			  "_FALLING or _BOTH)");                               \
	PICARD_MODEL_RULE(picard::events_directions_ok<name>::value, name,      \
			  "event_directions: each PICARD_EVENT_RISING, _FALLING or _BOTH"); \
	PICARD_MODEL_RULE(!picard::has_nevents<name>::value ||                  \
				  picard::event_actions_count<name>::value ==  \
					  picard::nevents_of<name>::value,     \
			  name, "nevents needs static constexpr picard_event_action " \
			  "event_actions[] with nevents entries (PICARD_EVENT_TERMINATE, " \
			  "_JUMP or _RECORD)");                                \
	PICARD_MODEL_RULE(!picard::events_jump<name>::value ||                  \
				  picard::has_jump<name>::value,               \
			  name, "an action PICARD_EVENT_JUMP needs template <typename real> " \
			  "__host__ __device__ static void jump(int k, real t, real *x, " \
			  "const real *p): x <- h_k(t, x, p) in place (real *p: the " \
			  "parameters too)");                                  \
	PICARD_MODEL_RULE(picard::event_limit_of<name>::value >= 1, name,       \
			  "event_limit must be at least 1");                   \
	PICARD_MODEL_RULE(picard::event_min_spacing_of<name>::value >= 0, name, \
			  "event_min_spacing must be >= 0");

/* The contract, one rule per message. Each test goes through a trait, so a
 * broken rule fails only its own assertion, and a rule on a member's value
 * holds vacuously when the member is missing (its own rule says so). */
#define PICARD_MODEL_CONTRACT(name)                                            \
	PICARD_MODEL_RULE(picard::has_dim<name>::value, name,                   \
			  "struct " #name " must declare static constexpr int dim"); \
	PICARD_MODEL_RULE(!picard::has_dim<name>::value ||                      \
				  picard::dim_of<name>::value >= 1,            \
			  name, "dim must be at least 1");                     \
	PICARD_MODEL_RULE(picard::has_nparams<name>::value, name,               \
			  "struct " #name " must declare static constexpr int nparams (0 if none)"); \
	PICARD_MODEL_RULE(!picard::has_nparams<name>::value ||                  \
				  picard::nparams_of<name>::value >= 0,        \
			  name, "nparams must be >= 0");                       \
	PICARD_MODEL_RULE(picard::has_x0<name>::value, name,                    \
			  "struct " #name " must declare static constexpr double x0[] (dim values)"); \
	PICARD_MODEL_RULE(!picard::has_x0<name>::value ||                       \
				  !picard::has_dim<name>::value ||             \
				  picard::x0_count<name>::value ==              \
					  (size_t)picard::dim_of<name>::value, \
			  name, "x0 must have dim entries");                   \
	PICARD_MODEL_RULE(picard::nparams_of<name>::value <= 0 ||               \
				  picard::has_param_names<name>::value,        \
			  name, "struct " #name " must declare static constexpr const char *param_names[] (nparams names)"); \
	PICARD_MODEL_RULE(picard::nparams_of<name>::value <= 0 ||               \
				  picard::has_param_defaults<name>::value,     \
			  name, "struct " #name " must declare static constexpr double param_defaults[] (nparams values)"); \
	PICARD_MODEL_RULE(!picard::has_param_defaults<name>::value ||           \
				  picard::defaults_count<name>::value ==       \
					  (size_t)picard::nparams_of<name>::value, \
			  name, "param_defaults must have nparams entries");   \
	PICARD_MODEL_RULE(!picard::has_param_names<name>::value ||              \
				  picard::names_count<name>::value ==          \
					  (size_t)picard::nparams_of<name>::value, \
			  name, "param_names must have nparams entries");      \
	PICARD_MODEL_RULE(picard::has_t0<name>::value && picard::has_t1<name>::value, \
			  name, "struct " #name " must declare static constexpr double t0, t1"); \
	PICARD_MODEL_RULE(!picard::has_t0<name>::value || !picard::has_t1<name>::value || \
				  picard::span_ok<name>::value,                \
			  name, "t1 must exceed t0");                          \
	PICARD_MODEL_RULE(picard::has_summary<name>::value, name,               \
			  "struct " #name " must declare static constexpr const char *summary"); \
	PICARD_MODEL_RULE(picard::has_reference<name>::value, name,             \
			  "struct " #name " must declare static constexpr const char *reference"); \
	PICARD_MODEL_RULE(picard::has_rhs<name>::value, name,                   \
			  "declare template <typename real> __host__ __device__ static void " \
			  "rhs(real t, const real *x, const real *p, real *dxdt)");     \
	PICARD_MODEL_RULE(!picard::declares_jacobian<name>::value ||            \
				  picard::has_jacobian<name>::value,           \
			  name, "jacobian, if declared, must be template <typename real> " \
			  "__host__ __device__ static void jacobian(real t, const real *x, " \
			  "const real *p, real *J), J[i*dim + k] = d f_i / d x_k");    \
	PICARD_MODEL_OPERATOR_CONTRACT(name)                                   \
	PICARD_MODEL_EVENTS_CONTRACT(name)

/* The text a model's kernels are compiled from at run time: the build
 * embeds the files of models/ (build/model_sources.c, -DPICARD_BUILTIN_
 * MODEL); picard_model_load gives a file elsewhere its own. */
#if defined(PICARD_BUILTIN_MODEL)
#define PICARD_MODEL_SOURCE(name)                                              \
	extern "C" const char picard_source_##name[];                          \
	static const char *const picard_source_of_##name = picard_source_##name; \
	static const char *const picard_path_of_##name = "models/" #name ".cu";
#else
#define PICARD_MODEL_SOURCE(name)                                              \
	static const char *const picard_source_of_##name = nullptr;            \
	static const char *const picard_path_of_##name = nullptr;
#endif

/* The per-thread schemes' host integrations: in the entry (models/), or,
 * for a file loaded at run time, each in a shared object of its own, built
 * when the CPU backend first runs it (src/model_load.c): they are most of
 * the host side's compile time. */
#if defined(PICARD_HOST_NO_RK)
#define PICARD_MODEL_RK_HOSTS(name) { { nullptr, nullptr } }
#else
#define PICARD_MODEL_RK_HOSTS(name)                                            \
	{ PICARD_RK_HOST(name, picard::rk_dp5),                                \
	  PICARD_RK_HOST(name, picard::rk_dp8),                                \
	  PICARD_RK_HOST(name, picard::rk_vern9),                              \
	  PICARD_RK_HOST(name, picard::rk_radau5),                             \
	  PICARD_RK_HOST(name, picard::rosenbrock_rodas5p),                    \
	  PICARD_RK_HOST(name, picard::rosenbrock_rodas4),                     \
	  PICARD_RK_HOST(name, picard::rosenbrock_ros23) }
#endif

/* PICARD_MODEL_CONTRACT_ONLY: the build's second look at a model file
 * that failed to compile, checking the contract alone (src/mk/
 * compile-model.sh). PICARD_MODEL_STRUCT_ONLY: a program that only wants
 * the model structs (bench/'s per-thread baselines). NVRTC: the kernels
 * come from the templates, instantiated by name (src/jit.c); the model
 * file adds its contract. */
#if defined(PICARD_MODEL_CONTRACT_ONLY) || defined(__CUDACC_RTC__)
#define PICARD_REGISTER_MODEL(name) PICARD_MODEL_CONTRACT(name)
#elif defined(PICARD_HOST_RK_ONLY)
#define PICARD_REGISTER_MODEL(name)                                            \
	extern "C" __attribute__((visibility("default")))                      \
	picard_rk_host_fn *const picard_rk_host_##name[2] =                    \
		PICARD_RK_HOST(name, picard::PICARD_HOST_RK_ONLY);
#elif defined(PICARD_MODEL_STRUCT_ONLY)
#define PICARD_REGISTER_MODEL(name)
#else
#define PICARD_REGISTER_MODEL(name)                                            \
	PICARD_MODEL_CONTRACT(name)                                            \
	PICARD_MODEL_SOURCE(name)                                              \
	static const struct picard_model_impl picard_impl_##name = {           \
		picard::host_rhs<name, double>,                                \
		picard::host_rhs<name, float>,                                 \
		PICARD_MODEL_RK_HOSTS(name),                                   \
		picard_source_of_##name,                                       \
		picard_path_of_##name,                                         \
		{ picard::host_jacobian<name>, picard::host_jacobian_ad<name> }, \
		picard::has_jacobian<name>::value,                             \
		PICARD_HOST_RHS_QUAD(name),                                    \
	};                                                                     \
	extern "C" __attribute__((visibility("default")))                      \
	const picard_model picard_model_##name = {                             \
		#name, name::summary, name::reference, name::dim,              \
		name::nparams, picard::params_of<name>::names,                 \
		picard::params_of<name>::defaults,                             \
		name::x0, name::t0, name::t1, picard::exact_of<name>::fn,      \
		picard::initial_of<name>::fn,                                  \
		picard::invariants_of<name>::count,                            \
		picard::invariants_of<name>::names,                            \
		picard::invariants_of<name>::fn,                               \
		picard::default_h_of<name>::value,                             \
		picard::default_atol_of<name>::value,                          \
		picard::stiff_of<name>::value,                                 \
		picard::operator_of<name>::ptr,                                \
		picard::events_of<name>::ptr,                                  \
		&picard_impl_##name,                                           \
	};
#endif

#endif
