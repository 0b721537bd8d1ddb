/* small_lu_check.h - small_lu.cuh's factorisations and solves (radau5's
 * and the Rosenbrock schemes' per-thread linear algebra) at a size given
 * at run time, callable from C: test_small_lu.c holds them to the
 * residual of the system they solve. */
#ifndef PICARD_TESTS_SMALL_LU_CHECK_H
#define PICARD_TESTS_SMALL_LU_CHECK_H

#ifdef __cplusplus
extern "C" {
#endif

/* The largest size instantiated. */
#define SMALL_LU_CHECK_MAX 11

/* Solve a x = b (row-major n x n, b overwritten by x) by small_lu and
 * small_lu_solve: 0, -1 when small_lu finds a zero pivot, -2 for a size
 * not instantiated (2, 3, 4 and 11 are). */
int small_lu_check_solve(int n, const double *a, double *b);

/* The same in complex arithmetic (small_lu_complex, small_lu_solve_complex):
 * (ar + i ai) x = br + i bi, x into br, bi. */
int small_lu_check_solve_complex(int n, const double *ar, const double *ai, double *br,
				 double *bi);

#ifdef __cplusplus
}
#endif

#endif
