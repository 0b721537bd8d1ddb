/* small_lu_check.cpp - small_lu.cuh's templates at the sizes the tests ask
 * for (small_lu_check.h), built by the system C++ compiler like a model's
 * host side. */
#include <string.h>

#include "picard_model.cuh"
#include "small_lu.cuh"
#include "small_lu_check.h"

namespace {

template <int n>
int solve(const double *a, double *b)
{
	double lu[n * n];
	int piv[n];

	memcpy(lu, a, sizeof lu);
	if (!picard::small_lu<n>(lu, piv))
		return -1;
	picard::small_lu_solve<n>(lu, piv, b);
	return 0;
}

template <int n>
int solve_complex(const double *ar, const double *ai, double *br, double *bi)
{
	double lr[n * n], li[n * n];
	int piv[n];

	memcpy(lr, ar, sizeof lr);
	memcpy(li, ai, sizeof li);
	if (!picard::small_lu_complex<n>(lr, li, piv))
		return -1;
	picard::small_lu_solve_complex<n>(lr, li, piv, br, bi);
	return 0;
}

} /* namespace */

int small_lu_check_solve(int n, const double *a, double *b)
{
	switch (n) {
	case 2: return solve<2>(a, b);
	case 3: return solve<3>(a, b);
	case 4: return solve<4>(a, b);
	case 11: return solve<11>(a, b);
	default: return -2;
	}
}

int small_lu_check_solve_complex(int n, const double *ar, const double *ai, double *br,
				 double *bi)
{
	switch (n) {
	case 2: return solve_complex<2>(ar, ai, br, bi);
	case 3: return solve_complex<3>(ar, ai, br, bi);
	case 4: return solve_complex<4>(ar, ai, br, bi);
	case 11: return solve_complex<11>(ar, ai, br, bi);
	default: return -2;
	}
}
