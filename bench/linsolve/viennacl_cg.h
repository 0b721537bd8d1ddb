/* viennacl_cg.h - ViennaCL's CG (Debian libviennacl-dev 1.7.1) for
 * bench-krylov: the library Mossaiby 2013 compares against, on its CUDA
 * backend (the GPU) and its OpenMP backend (the CPU), built only where
 * the Makefile found ViennaCL (BENCH_VIENNACL). */
#ifndef PICARD_BENCH_VIENNACL_CG_H
#define PICARD_BENCH_VIENNACL_CG_H

#ifdef __cplusplus
extern "C" {
#endif

/* Run ViennaCL's CG (no preconditioner, or its Jacobi one) on the CSR
 * matrix (host arrays) for iters iterations from x = 0 (its tolerance set
 * so that it does not stop sooner), on the GPU (on_gpu) or the CPU. The
 * solution into x, the iterations done into *done, and the time of the
 * solve alone (the matrix and vectors already in place) into *solve_us.
 * 0, or -1 with the exception's text in error (of size len). */
int viennacl_cg(int on_gpu, int jacobi, int n, const int *row_start, const int *col,
		const double *val, const double *b, double *x, int iters, int *done,
		double *solve_us, char *error, int len);

#ifdef __cplusplus
}
#endif

#endif
