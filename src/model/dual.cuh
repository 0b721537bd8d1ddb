/* dual.cuh - forward-mode automatic differentiation: a number carrying its
 * value and N directional derivatives, so that a model's templated rhs,
 * run with dual<real, N> as its real type, gives f and N columns of its
 * Jacobian at once, exact to rounding (no finite differences). Device and
 * host alike; for the three compilers of picard_model.cuh (no standard
 * library under NVRTC: the math functions are the C ones, found by the
 * usual lookup for float and double and by argument-dependent lookup
 * here). */
#ifndef PICARD_DUAL_CUH
#define PICARD_DUAL_CUH

#include <math.h>

#include "portable.h"

namespace picard {
/* Its own namespace: argument-dependent lookup finds these functions for a
 * dual, and they hide nothing from picard's other code. */
namespace ad {

/* The C functions for plain numbers, beside the overloads for duals. */
using ::atan;
using ::cbrt;
using ::cos;
using ::cosh;
using ::exp;
using ::fabs;
using ::log;
using ::pow;
using ::sin;
using ::sinh;
using ::sqrt;
using ::tan;
using ::tanh;

template <typename T, int N>
struct dual {
	T v;    /* the value */
	T d[N]; /* its derivatives along the N seeded directions */

	__host__ __device__ dual() : v(0)
	{
		for (int i = 0; i < N; i++)
			d[i] = 0;
	}
	/* A constant: any number a model writes (2, 0.5, real(dim)). */
	template <typename S>
	__host__ __device__ dual(S s) : v((T)s)
	{
		for (int i = 0; i < N; i++)
			d[i] = 0;
	}
	/* The independent variable of direction k (-1: none). */
	__host__ __device__ static dual variable(T value, int k)
	{
		dual x(value);

		if (k >= 0 && k < N)
			x.d[k] = 1;
		return x;
	}
};

/* x with its derivatives scaled by df (the chain rule for f(x), value fv). */
template <typename T, int N>
__host__ __device__ inline dual<T, N> chain(const dual<T, N> &x, T fv, T df)
{
	dual<T, N> r;

	r.v = fv;
	for (int i = 0; i < N; i++)
		r.d[i] = df * x.d[i];
	return r;
}

/* ---- arithmetic ----------------------------------------------------------------- */

template <typename T, int N>
__host__ __device__ inline dual<T, N> operator+(const dual<T, N> &a) { return a; }

template <typename T, int N>
__host__ __device__ inline dual<T, N> operator-(const dual<T, N> &a)
{
	return chain(a, -a.v, (T)-1);
}

template <typename T, int N>
__host__ __device__ inline dual<T, N> operator+(const dual<T, N> &a, const dual<T, N> &b)
{
	dual<T, N> r;

	r.v = a.v + b.v;
	for (int i = 0; i < N; i++)
		r.d[i] = a.d[i] + b.d[i];
	return r;
}

template <typename T, int N>
__host__ __device__ inline dual<T, N> operator-(const dual<T, N> &a, const dual<T, N> &b)
{
	dual<T, N> r;

	r.v = a.v - b.v;
	for (int i = 0; i < N; i++)
		r.d[i] = a.d[i] - b.d[i];
	return r;
}

template <typename T, int N>
__host__ __device__ inline dual<T, N> operator*(const dual<T, N> &a, const dual<T, N> &b)
{
	dual<T, N> r;

	r.v = a.v * b.v;
	for (int i = 0; i < N; i++)
		r.d[i] = a.d[i] * b.v + a.v * b.d[i];
	return r;
}

template <typename T, int N>
__host__ __device__ inline dual<T, N> operator/(const dual<T, N> &a, const dual<T, N> &b)
{
	dual<T, N> r;

	r.v = a.v / b.v; /* as the plain rhs rounds it */
	for (int i = 0; i < N; i++)
		r.d[i] = (a.d[i] - r.v * b.d[i]) / b.v;
	return r;
}

/* With a plain number on either side (int, float, double): as a constant. */
#define PICARD_DUAL_MIXED(op)                                                  \
	template <typename T, int N, typename S>                               \
	__host__ __device__ inline dual<T, N> operator op(const dual<T, N> &a, S s) \
	{                                                                      \
		return a op dual<T, N>(s);                                     \
	}                                                                      \
	template <typename T, int N, typename S>                               \
	__host__ __device__ inline dual<T, N> operator op(S s, const dual<T, N> &a) \
	{                                                                      \
		return dual<T, N>(s) op a;                                     \
	}
PICARD_DUAL_MIXED(+)
PICARD_DUAL_MIXED(-)
PICARD_DUAL_MIXED(*)
PICARD_DUAL_MIXED(/)
#undef PICARD_DUAL_MIXED

#define PICARD_DUAL_ASSIGN(op)                                                 \
	template <typename T, int N, typename S>                               \
	__host__ __device__ inline dual<T, N> &operator op##=(dual<T, N> &a, const S &b) \
	{                                                                      \
		return a = a op b;                                             \
	}
PICARD_DUAL_ASSIGN(+)
PICARD_DUAL_ASSIGN(-)
PICARD_DUAL_ASSIGN(*)
PICARD_DUAL_ASSIGN(/)
#undef PICARD_DUAL_ASSIGN

/* Comparisons by value: a branch of the model takes the same side. */
template <typename T, int N>
__host__ __device__ inline T value_of(const dual<T, N> &a) { return a.v; }
template <typename S>
__host__ __device__ inline S value_of(S s) { return s; }

#define PICARD_DUAL_COMPARE(op)                                                \
	template <typename T, int N, typename S>                               \
	__host__ __device__ inline bool operator op(const dual<T, N> &a, const S &b) \
	{                                                                      \
		return a.v op value_of(b);                                     \
	}                                                                      \
	template <typename T, int N, typename S>                               \
	__host__ __device__ inline bool operator op(const S &b, const dual<T, N> &a) \
	{                                                                      \
		return value_of(b) op a.v;                                     \
	}                                                                      \
	template <typename T, int N>                                           \
	__host__ __device__ inline bool operator op(const dual<T, N> &a, const dual<T, N> &b) \
	{                                                                      \
		return a.v op b.v;                                             \
	}
PICARD_DUAL_COMPARE(<)
PICARD_DUAL_COMPARE(<=)
PICARD_DUAL_COMPARE(>)
PICARD_DUAL_COMPARE(>=)
PICARD_DUAL_COMPARE(==)
PICARD_DUAL_COMPARE(!=)
#undef PICARD_DUAL_COMPARE

/* ---- functions: value and derivative ------------------------------------------------ */

template <typename T, int N>
__host__ __device__ inline dual<T, N> sqrt(const dual<T, N> &x)
{
	const T s = sqrt(x.v);

	return chain(x, s, (T)0.5 / s);
}

template <typename T, int N>
__host__ __device__ inline dual<T, N> cbrt(const dual<T, N> &x)
{
	const T c = cbrt(x.v);

	return chain(x, c, (T)1 / (3 * c * c));
}

template <typename T, int N>
__host__ __device__ inline dual<T, N> exp(const dual<T, N> &x)
{
	const T e = exp(x.v);

	return chain(x, e, e);
}

template <typename T, int N>
__host__ __device__ inline dual<T, N> log(const dual<T, N> &x)
{
	return chain(x, log(x.v), (T)1 / x.v);
}

template <typename T, int N>
__host__ __device__ inline dual<T, N> sin(const dual<T, N> &x)
{
	return chain(x, sin(x.v), cos(x.v));
}

template <typename T, int N>
__host__ __device__ inline dual<T, N> cos(const dual<T, N> &x)
{
	return chain(x, cos(x.v), -sin(x.v));
}

template <typename T, int N>
__host__ __device__ inline dual<T, N> tan(const dual<T, N> &x)
{
	const T t = tan(x.v);

	return chain(x, t, 1 + t * t);
}

template <typename T, int N>
__host__ __device__ inline dual<T, N> sinh(const dual<T, N> &x)
{
	return chain(x, sinh(x.v), cosh(x.v));
}

template <typename T, int N>
__host__ __device__ inline dual<T, N> cosh(const dual<T, N> &x)
{
	return chain(x, cosh(x.v), sinh(x.v));
}

template <typename T, int N>
__host__ __device__ inline dual<T, N> tanh(const dual<T, N> &x)
{
	const T t = tanh(x.v);

	return chain(x, t, 1 - t * t);
}

template <typename T, int N>
__host__ __device__ inline dual<T, N> atan(const dual<T, N> &x)
{
	return chain(x, atan(x.v), (T)1 / (1 + x.v * x.v));
}

template <typename T, int N>
__host__ __device__ inline dual<T, N> fabs(const dual<T, N> &x)
{
	return chain(x, fabs(x.v), x.v < 0 ? (T)-1 : (T)1);
}

/* x^s for a constant s. */
template <typename T, int N, typename S>
__host__ __device__ inline dual<T, N> pow(const dual<T, N> &x, S s)
{
	const T e = (T)value_of(s), p = pow(x.v, e);

	return chain(x, p, e == 0 ? (T)0 : e * pow(x.v, e - 1));
}

/* x^y: exp(y log x), x > 0. */
template <typename T, int N>
__host__ __device__ inline dual<T, N> pow(const dual<T, N> &x, const dual<T, N> &y)
{
	return exp(y * log(x));
}

/* s^y for a constant s > 0. */
template <typename T, int N, typename S>
__host__ __device__ inline dual<T, N> pow(S s, const dual<T, N> &y)
{
	return exp(y * (T)log((T)s));
}

} /* namespace ad */
} /* namespace picard */

#endif
