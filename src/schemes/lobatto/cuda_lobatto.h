/* cuda_lobatto.h - the lobatto grid's state on the CUDA backend
 * (cuda_lobatto.c): the kernel's tables and, with dense output, each
 * record's weights. The lobatto scheme keeps one; the newton schemes,
 * whose windows are lobatto windows, keep one beside their workspace. */
#ifndef PICARD_CUDA_LOBATTO_H
#define PICARD_CUDA_LOBATTO_H

#include "cuda_solver.h"

struct picard_cuda_lobatto {
	int groups_per_warp; /* group layout: trajectories per warp */
	int block_threads;   /* group layout: threads per block */
	void *tables;        /* device, see picard_launch.lobatto_tables */
	void *weights[PICARD_MAX_RECORDS]; /* device, each record's dense
				output weights, kept for the next solve
				(grown, never per solve) */
	size_t weights_size[PICARD_MAX_RECORDS]; /* their bytes */
};

/* The kernel's shape for a chunk of ntraj (group layout) and its tables
 * on the device. */
int picard_cuda_lobatto_upload(struct picard_cuda_solver *cuda, struct picard_cuda_lobatto *state,
			       long ntraj, int sm_count, int kernel_threads);
/* Record r's dense output weights to the device, into *weights. */
int picard_cuda_lobatto_upload_dense(struct picard_cuda_solver *cuda,
				     struct picard_cuda_lobatto *state, int r,
				     const picard_record *rec, const void **weights);
/* A launch's lobatto fields. */
void picard_cuda_lobatto_fill_launch(const struct picard_cuda_lobatto *state,
				     struct picard_launch *L);
/* Its device buffers freed (state itself is the caller's). */
void picard_cuda_lobatto_free(struct picard_cuda_lobatto *state);
/* G lanes per trajectory, m rounded up to a power of two. */
int picard_cuda_lobatto_group(const picard_grid *grid);

#endif
