/* rows.cuh - what every tridiagonal kernel shares: strided access to one
 * system's rows under either layout, and the pivot check behind status[]. */
#ifndef PICARD_TRIDIAG_ROWS_CUH
#define PICARD_TRIDIAG_ROWS_CUH

#include "tridiag/tridiag.h"

/* One row of a tridiagonal system. */
struct tridiag_row {
	double lower; /* a_i, the coefficient of x_{i-1} */
	double diag;  /* b_i */
	double upper; /* c_i, the coefficient of x_{i+1} */
	double rhs;   /* d_i */
};

/* Element i of a sequence stored at p[first + i * step]: a system's rows
 * in global memory under either layout, or a thread's workspace in shared
 * memory. */
struct strided {
	double *p;
	long first;
	long step;
	__device__ double &operator[](long i) const { return p[first + i * step]; }
};

/* Where system s starts and how far apart its rows are. */
__device__ inline void tridiag_system_at(const struct tridiag_batch &batch, long s, long *first,
					 long *step)
{
	if (batch.layout == TRIDIAG_INTERLEAVED) {
		*first = s;
		*step = batch.batch;
	} else {
		*first = s * batch.n;
		*step = 1;
	}
}

/* Rows lo .. lo+len-1 of one system as a system of their own: the
 * couplings to the rows outside it are dropped, and the caller may fold
 * known values of the unknowns just outside into the end rows' right-hand
 * sides (left_term = a_lo x_{lo-1}, right_term = c_hi x_{hi+1}). */
struct tridiag_rows {
	const double *lower, *diag, *upper, *rhs; /* the batch's arrays */
	long first; /* index of row lo in the arrays */
	long step;  /* distance between rows */
	int len;
	double left_term;
	double right_term;

	__device__ struct tridiag_row operator()(int i) const
	{
		long at = first + i * step;
		struct tridiag_row row = {i > 0 ? lower[at] : 0.0, diag[at],
					  i < len - 1 ? upper[at] : 0.0, rhs[at]};
		if (i == 0)
			row.rhs -= left_term;
		if (i == len - 1)
			row.rhs -= right_term;
		return row;
	}
};

/* Rows lo .. lo+len-1 of the system at (first, step) of batch. */
__device__ inline struct tridiag_rows tridiag_rows_of(const struct tridiag_batch &batch, long first,
						       long step, int lo, int len)
{
	return {batch.lower, batch.diag, batch.upper, batch.rhs, first + lo * step, step, len, 0.0, 0.0};
}

/* TRIDIAG_OK, or why pivot cannot be divided by. */
__device__ inline int tridiag_pivot_status(double pivot)
{
	if (!isfinite(pivot))
		return TRIDIAG_NONFINITE_PIVOT;
	return pivot == 0.0 ? TRIDIAG_ZERO_PIVOT : TRIDIAG_OK;
}

/* The Thomas algorithm (LU without pivoting, then back substitution) on
 * len rows given by rows(i), the modified upper diagonal in scratch and the
 * solution in x. Returns TRIDIAG_OK or the status of the first bad pivot,
 * where it stops with x undefined. */
template <class Rows>
__device__ int tridiag_thomas_sweep(const Rows &rows, int len, struct strided scratch,
				    struct strided x)
{
	double upper_prev = 0.0, x_prev = 0.0;

	for (int i = 0; i < len; i++) {
		struct tridiag_row row = rows(i);
		double pivot = row.diag - row.lower * upper_prev;
		int status = tridiag_pivot_status(pivot);

		if (status != TRIDIAG_OK)
			return status;
		upper_prev = row.upper / pivot;
		x_prev = (row.rhs - row.lower * x_prev) / pivot;
		scratch[i] = upper_prev;
		x[i] = x_prev;
	}
	for (int i = len - 2; i >= 0; i--) {
		x_prev = x[i] - scratch[i] * x_prev;
		x[i] = x_prev;
	}
	return TRIDIAG_OK;
}

#endif
