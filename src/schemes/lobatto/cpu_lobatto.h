/* cpu_lobatto.h - the tables of a solve on the lobatto grid (src/schemes/lobatto/lobatto.h)
 * on the CPU backend, shared by the schemes on that grid (src/schemes/lobatto/cpu_lobatto.c,
 * src/schemes/newton/cpu_newton.c). */
#ifndef PICARD_CPU_LOBATTO_H
#define PICARD_CPU_LOBATTO_H

#include "backend.h"
#include "launch.h"

/* The tables of one solve, in its precision, [j][l]
 * (picard_lobatto_tables), shared read-only by the threads. */
struct picard_cpu_lobatto_tables {
	void *A;        /* (H/2) S, m*m reals */
	void *X;        /* extrapolation E, m*m reals */
	double *offset; /* node times from the window start */
	/* the window on [-1, 1] (nodes, S, the Legendre expansions): the
	 * tables of a window cut short at an event are built from it */
	struct picard_lobatto *lob;
	/* dense output's weights for each record of times (ntimes * m
	 * reals, picard_lobatto_dense_weights), else NULL */
	void *dense_weights[PICARD_MAX_RECORDS];
};

/* Build the job's tables into *tables (a struct picard_cpu_lobatto_tables);
 * release frees them, also after a failed prepare. */
int picard_cpu_lobatto_prepare(const struct picard_job *job, void **tables);
void picard_cpu_lobatto_release(void *tables);

#endif
