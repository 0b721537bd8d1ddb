/* linsolve.h - what the linear solvers of src/linsolve/ report: one code
 * per solve (a tridiagonal system of a batch, a Krylov solve) and its
 * message, from one X-macro list. The solvers serve the implicit linear
 * part of semi-discrete PDEs (GitHub issue 21); these are the host (CPU)
 * versions, over plain arrays of doubles. */
#ifndef PICARD_LINSOLVE_H
#define PICARD_LINSOLVE_H

#ifdef __cplusplus
extern "C" {
#endif

#define PICARD_LINSOLVE_CODES(X)                                                              \
	X(PICARD_LINSOLVE_OK, "solved")                                                       \
	X(PICARD_LINSOLVE_ZERO_PIVOT,                                                         \
	  "zero pivot: the matrix is singular, or not diagonally dominant where the "        \
	  "method needs it")                                                                  \
	X(PICARD_LINSOLVE_NONFINITE, "non-finite value (NaN or Inf) in a pivot, the matrix or " \
	  "the right-hand side")                                                              \
	X(PICARD_LINSOLVE_NOT_CONVERGED, "not converged within the iteration limit")         \
	X(PICARD_LINSOLVE_BREAKDOWN, "breakdown: a Krylov recurrence divided by zero")        \
	X(PICARD_LINSOLVE_NOT_SPD,                                                            \
	  "the matrix is not symmetric positive definite (p^T A p <= 0): CG cannot solve it") \
	X(PICARD_LINSOLVE_SINGULAR, "the matrix is singular")                                \
	X(PICARD_LINSOLVE_BAD_INPUT, "bad input: a size, count or option out of range")      \
	X(PICARD_LINSOLVE_NO_MEMORY, "out of memory")

typedef enum picard_linsolve_code {
#define PICARD_LINSOLVE_ENUM(code, message) code,
	PICARD_LINSOLVE_CODES(PICARD_LINSOLVE_ENUM)
#undef PICARD_LINSOLVE_ENUM
} picard_linsolve_code;

/* The message of a code ("unknown linear solver code" for none). */
const char *picard_linsolve_strerror(picard_linsolve_code code);

/* ||r - M y|| / ||r|| (||r - M y|| where r = 0) of n components, M y
 * given: the residual the linear solvers stop on. */
double picard_relative_residual(int n, const double *r, const double *m_y);

#ifdef __cplusplus
}
#endif

#endif
