/* quad.h - picard::hp::quad, binary128 (gcc's __float128, libquadmath)
 * as a number a model's templated rhs can be run with on the host, for
 * the Gauss-Legendre judge (src/reference/gauss_reference.c): its
 * arithmetic, comparisons and the math functions of quadmath.h, found by
 * argument-dependent lookup as dual.cuh's are. The system C++ compiler
 * alone reads it (picard_model.cuh includes it where __float128 exists). */
#ifndef PICARD_QUAD_H
#define PICARD_QUAD_H

#include <quadmath.h>

namespace picard {
namespace hp {

struct quad {
	__float128 v;

	quad() : v(0) {}
	/* Any number a model writes (2, 0.5, real(dim)) converts; back to
	 * double only when asked, so that no mixed expression silently
	 * drops to double. */
	template <typename S>
	quad(S s) : v((__float128)s) {}
	explicit operator double() const { return (double)v; }

	quad &operator+=(quad b) { v += b.v; return *this; }
	quad &operator-=(quad b) { v -= b.v; return *this; }
	quad &operator*=(quad b) { v *= b.v; return *this; }
	quad &operator/=(quad b) { v /= b.v; return *this; }

	friend quad operator+(quad a) { return a; }
	friend quad operator-(quad a) { return quad(-a.v); }
	friend quad operator+(quad a, quad b) { return quad(a.v + b.v); }
	friend quad operator-(quad a, quad b) { return quad(a.v - b.v); }
	friend quad operator*(quad a, quad b) { return quad(a.v * b.v); }
	friend quad operator/(quad a, quad b) { return quad(a.v / b.v); }
	friend bool operator<(quad a, quad b) { return a.v < b.v; }
	friend bool operator>(quad a, quad b) { return a.v > b.v; }
	friend bool operator<=(quad a, quad b) { return a.v <= b.v; }
	friend bool operator>=(quad a, quad b) { return a.v >= b.v; }
	friend bool operator==(quad a, quad b) { return a.v == b.v; }
	friend bool operator!=(quad a, quad b) { return a.v != b.v; }
};

#define PICARD_QUAD_UNARY(name, fn)                                            \
	inline quad name(quad a) { return quad(fn(a.v)); }
#define PICARD_QUAD_BINARY(name, fn)                                           \
	inline quad name(quad a, quad b) { return quad(fn(a.v, b.v)); }
PICARD_QUAD_UNARY(sqrt, sqrtq)
PICARD_QUAD_UNARY(cbrt, cbrtq)
PICARD_QUAD_UNARY(exp, expq)
PICARD_QUAD_UNARY(expm1, expm1q)
PICARD_QUAD_UNARY(log, logq)
PICARD_QUAD_UNARY(log1p, log1pq)
PICARD_QUAD_UNARY(log10, log10q)
PICARD_QUAD_UNARY(sin, sinq)
PICARD_QUAD_UNARY(cos, cosq)
PICARD_QUAD_UNARY(tan, tanq)
PICARD_QUAD_UNARY(asin, asinq)
PICARD_QUAD_UNARY(acos, acosq)
PICARD_QUAD_UNARY(atan, atanq)
PICARD_QUAD_UNARY(sinh, sinhq)
PICARD_QUAD_UNARY(cosh, coshq)
PICARD_QUAD_UNARY(tanh, tanhq)
PICARD_QUAD_UNARY(erf, erfq)
PICARD_QUAD_UNARY(erfc, erfcq)
PICARD_QUAD_UNARY(fabs, fabsq)
PICARD_QUAD_UNARY(floor, floorq)
PICARD_QUAD_UNARY(ceil, ceilq)
PICARD_QUAD_UNARY(round, roundq)
PICARD_QUAD_BINARY(pow, powq)
PICARD_QUAD_BINARY(atan2, atan2q)
PICARD_QUAD_BINARY(fmod, fmodq)
PICARD_QUAD_BINARY(fmax, fmaxq)
PICARD_QUAD_BINARY(fmin, fminq)
PICARD_QUAD_BINARY(hypot, hypotq)
PICARD_QUAD_BINARY(copysign, copysignq)
#undef PICARD_QUAD_UNARY
#undef PICARD_QUAD_BINARY

/* pow with one plain number: pow(x, 1.5), pow(2, x). */
template <typename S>
inline quad pow(quad a, S s) { return pow(a, quad(s)); }
template <typename S>
inline quad pow(S s, quad b) { return pow(quad(s), b); }

inline bool isfinite(quad a) { return !isinfq(a.v) && !isnanq(a.v); }
inline bool isnan(quad a) { return isnanq(a.v); }

} /* namespace hp */
} /* namespace picard */

#endif
