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

} /* namespace picard */

#endif
