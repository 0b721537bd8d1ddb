/* cuda_solver.h - what the CUDA backend's core (cuda_backend.cu) shares
 * with each scheme's CUDA part (src/schemes/NAME/cuda_NAME.c): the solver,
 * the hooks a scheme fills in (struct picard_cuda_scheme, named by its
 * table in src/schemes/scheme.h) and the helpers more than one part uses.
 * Plain C: a scheme's part that only calls the CUDA runtime needs no
 * nvcc. */
#ifndef PICARD_CUDA_SOLVER_H
#define PICARD_CUDA_SOLVER_H

#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stddef.h>

#include "backend.h"
#include "device_io.h"
#include "launch.h"

#ifdef __cplusplus
extern "C" {
#endif

struct picard_cuda_solver {
	const picard_model *model;  /* what is integrated */
	picard_grid grid;           /* the fitted grid */
	picard_precision precision; /* float or double kernels */
	long chunk;                 /* trajectories the device buffers hold:
				       larger ensembles are solved in chunks */
	size_t real_size;           /* sizeof(float) or sizeof(double) */
	void *x0, *params, *x_final; /* device, real SoA [component][traj] */
	int *status;                /* device, per trajectory */
	long *fail_window;          /* device, per trajectory */
	double *fail_time;          /* device, 2 per trajectory (launch.h) */
	long *sweeps;               /* device, sweeps per trajectory */
	int *sweeps_max;            /* device, most sweeps in a window */
	double *spans;              /* device, 2 chunk: the chunk's members'
				       own t0, then their t1 (made by the first
				       solve with spans), or NULL */
	const void *kernel;         /* the instance of the layout and precision */
	const void *kernel_job;     /* the instance a job needs where it differs:
				       dense output, members' own spans (loaded
				       by the first such solve) */
	void *record_dev[PICARD_MAX_RECORDS]; /* device record buffers, kept
				       for the next solve (grown, never per solve) */
	size_t record_dev_size[PICARD_MAX_RECORDS]; /* their bytes */
	double *times_dev[PICARD_MAX_RECORDS]; /* device copies of records'
				       times, grown likewise */
	size_t times_dev_size[PICARD_MAX_RECORDS]; /* their bytes */
	struct picard_device_events events; /* a model with events: the
				       chunk's log (device_events.c), grown
				       like the records */
	size_t events_entries;      /* entries its buffers hold */
	cudaEvent_t start, stop;    /* timing of the kernel alone */
	cudaStream_t pipe;          /* a pipelined solve's kernels (solve_pipelined) */
	cudaEvent_t pipe_start[2], pipe_stop[2]; /* their timing, a pair per half */
	cudaEvent_t inputs_ready;   /* a part's inputs on the device: the
				       copies and draws on stream 0 before it */
	void *own;                  /* the scheme's own state (its tables,
				       workspace or engine): made by its upload,
				       freed by its release */
	const struct picard_job *job; /* the solve under way: its note */
};

/* A scheme on the CUDA backend: how it settles the layout, which kernels
 * run, the block's shape and the state it keeps on the device. */
struct picard_cuda_scheme {
	/* Settle grid->layout, traj_per_block and scan for ntraj trajectories
	 * on a device of sms multiprocessors: what was asked, or AUTO's rule
	 * (measured, beside each scheme's). */
	void (*layout)(picard_grid *grid, const picard_options_layout *asked, int dim,
		       long ntraj, int sms);
	/* The kernel instance a launch runs, as the template's name with its
	 * arguments (model and real type given) into buf: src/model/jit.c compiles
	 * it. */
	int (*instance)(const picard_grid *grid, const struct picard_launch *L, const char *model,
			const char *real, char *buf, size_t len);
	/* Lanes per trajectory of the launch (launch_shape). */
	int (*group)(const picard_grid *grid);
	/* Threads of a block per trajectory, for the automatic block within
	 * the kernel's limit and the device's (0: the block's shape is the
	 * scheme's own, sized by its upload). */
	int (*threads_per_traj)(const picard_grid *grid, const struct picard_launch *L);
	/* Threads per block of a launch. */
	int (*block_threads)(const struct picard_cuda_solver *cuda, const struct picard_launch *L);
	/* Refuse, before any compile, a model the device cannot run in
	 * real_size reals under the settled layout, with the reason; or
	 * NULL. */
	int (*check_model)(const picard_model *model, const picard_grid *grid, size_t real_size);
	/* Dynamic shared memory a block of the settled layout takes, or NULL
	 * (none, but the paper layout's 2*m*n reals). A scheme with this hook
	 * shapes its own block in every layout, the paper layout's too
	 * (lobatto's windows in flight); the backend's paper rules (m*n
	 * threads, 2*m*n reals) are for the schemes without it. */
	size_t (*shared_bytes)(const picard_grid *grid, int dim, size_t real_size);
	/* Its own state (cuda->own) to the device once the chunk is known,
	 * or NULL. */
	int (*upload)(struct picard_cuda_solver *cuda, long chunk, int sm_count,
		      int kernel_threads);
	/* Its fields of a launch from its own state, or NULL. */
	void (*fill_launch)(const struct picard_cuda_solver *cuda, struct picard_launch *L);
	/* Dense output's weights of record r to the device, into *weights,
	 * or NULL. */
	int (*upload_dense)(struct picard_cuda_solver *cuda, int r, const picard_record *rec,
			    const void **weights);
	/* Device bytes a trajectory needs beyond its states, or NULL. */
	size_t (*traj_bytes)(const picard_grid *grid, int dim);
	/* Run the solve of a chunk (L) itself, launches and all, or NULL:
	 * one launch of the kernel. */
	int (*run)(struct picard_cuda_solver *cuda, const struct picard_launch *L);
	/* Free its own state (after a failed upload too), or NULL. */
	void (*release)(void *own);
};

/* Threads per block of the thread layouts (trapezoid's, lobatto's, the
 * per-thread schemes'): 32, 64 or 128 alike, 256 slower (measured with
 * the trapezoid's layouts, src/schemes/trapezoid/cuda_trapezoid.c). */
#define PICARD_CUDA_THREAD_BLOCK 128
/* A large state: the thread layouts hold a window's states in registers
 * (bound(m) * n reals, fisher_kpp's 8 * 32 the most a shipped model runs
 * there), the warp layout a node's state per lane (n reals, twice); past
 * these the model runs where it loops over components in shared memory
 * (the paper's m*n threads), or in the lobatto group layout. */
#define PICARD_CUDA_THREAD_MAX_STATE 256

/* On a CUDA error: err says what was being done (picard_cuda_fail), and
 * control goes to out. */
#define CUDA_TRY(call, what)                                                   \
	do {                                                                   \
		cudaError_t cuda_err_ = (call);                                \
		if (cuda_err_ != cudaSuccess) {                                \
			err = picard_cuda_fail(cuda_err_, what);               \
			goto out;                                              \
		}                                                              \
	} while (0)

/* Grow a device buffer to bytes (a repeated solve allocates nothing) and
 * copy host there. */
int picard_cuda_upload_grown(void **dev, size_t *size, const void *host, size_t bytes,
			     const char *what);

/* Smallest power of two >= m: the lanes of a group of m nodes. */
static inline int picard_cuda_group_lanes(int m)
{
	int g = 1;

	while (g < m)
		g <<= 1;
	return g;
}

/* The kernel L runs: the solver's own, or the job's where L asks for
 * dense output or spans (picard_cuda_solve loads it). */
static inline const void *picard_cuda_kernel_of(const struct picard_cuda_solver *cuda,
						const struct picard_launch *L)
{
	return L->dense || L->span_t0 ? cuda->kernel_job : cuda->kernel;
}

/* Template flags as C++ spells them. */
static inline const char *picard_cuda_flag(bool b)
{
	return b ? "true" : "false";
}

/* A one-dimensional grid or block of x, as C spells dim3(x). */
static inline dim3 picard_cuda_dim(unsigned x)
{
	dim3 d = {x, 1, 1};

	return d;
}

/* The hooks of a scheme that runs one thread per trajectory. */
static inline int picard_cuda_one_lane(const picard_grid *grid)
{
	(void)grid;
	return 1;
}

static inline int picard_cuda_one_thread_each(const picard_grid *grid,
					      const struct picard_launch *L)
{
	(void)grid;
	(void)L;
	return 1;
}

static inline int picard_cuda_traj_per_block(const struct picard_cuda_solver *cuda,
					     const struct picard_launch *L)
{
	(void)cuda;
	return L->traj_per_block;
}

/* The event log on the device (device_events.c): the chunk's buffers
 * for job's log, grown, its counts zeroed, into L->events (count NULL for
 * a model without events); a chunk's log into the job's at offset; the
 * buffers freed. */
int picard_cuda_events_start(struct picard_cuda_solver *cuda, const struct picard_job *job,
			     struct picard_launch *L, long count);
int picard_cuda_events_download(const struct picard_cuda_solver *cuda,
				const struct picard_job *job, const struct picard_launch *L,
				long offset, long count);
void picard_cuda_events_free(struct picard_cuda_solver *cuda);

#ifdef __cplusplus
}
#endif

#endif
