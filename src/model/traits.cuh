/* traits.cuh - the few type traits the model contract and the Jacobians
 * need, picard's own: NVRTC has no standard library. */
#ifndef PICARD_TRAITS_CUH
#define PICARD_TRAITS_CUH

namespace picard {

template <bool v>
struct bool_constant { static constexpr bool value = v; };
typedef bool_constant<false> false_type;
typedef bool_constant<true> true_type;
template <class...>
using void_t = void;
template <bool c, class T = void>
struct enable_if {};
template <class T>
struct enable_if<true, T> { typedef T type; };
template <bool c, class T = void>
using enable_if_t = typename enable_if<c, T>::type;

/* has_NAME<M>: M::template NAME<real>(t, x, p, out) can be called in float
 * and double, the signature of a model's rhs and jacobian. In namespace
 * picard. */
#define PICARD_CALLABLE_TRAIT(name)                                            \
	template <class M, class = void>                                       \
	struct has_##name : false_type {};                                     \
	template <class M>                                                     \
	struct has_##name<M, void_t<                                           \
		decltype(M::template name<float>(0.0f, (const float *)0,      \
						  (const float *)0, (float *)0)), \
		decltype(M::template name<double>(0.0, (const double *)0,     \
						   (const double *)0, (double *)0))>> \
		: true_type {};

} /* namespace picard */

#endif
