/* launch.h - everything a Picard kernel launch needs, as plain C, so the
 * host side (C) fills it and the kernels (CUDA) read it by value. */
#ifndef PICARD_LAUNCH_H
#define PICARD_LAUNCH_H

/* Records a launch carries: the caller's two (picard_solve) and the window
 * ends an error estimate compares (src/estimate.c). */
#define PICARD_MAX_RECORDS 3
#define PICARD_MAX_USER_RECORDS 2
/* The most stages of a Rosenbrock tableau (rodas5p's), for which the host
 * sizes the warp layout's shared memory (rk_warp_kernel.cuh). */
#define PICARD_ROS_MAX_STAGES 8

/* A record on the device: states[r][slot][k] in the solve's precision,
 * for trajectories i % traj_stride == 0, and rows r at windows every-th
 * or, with times, at those times (dense output, src/dense_output.h). */
struct picard_device_record {
	long every;      /* window period (0 with times) */
	int traj_stride; /* trajectory period */
	long slots;      /* slots in this buffer (this chunk's) */
	long first_slot; /* global slot of the buffer's first */
	void *states;    /* device buffer */
	const double *times; /* device: ntimes non-decreasing times, or NULL */
	long ntimes;
	const void *weights; /* lobatto, with times: device, ntimes*m reals,
				picard_lobatto_dense_weights */
};

/* A chunk's event log on the device (a model with events: the per-thread
 * schemes locate them, events_step.cuh): capacity entries per
 * trajectory, by its index in the chunk, in picard_event_log's layout;
 * count NULL: the model has no events. */
struct picard_device_events {
	int capacity; /* entries per trajectory */
	int *count;   /* events each trajectory had (zeroed before the launch) */
	int *index;   /* [traj * capacity + entry] */
	double *time; /* the same */
	double *before, *after; /* [(traj * capacity + entry) * dim + k] */
};
struct picard_launch {
	int layout;          /* picard_layout, never AUTO */
	int group;           /* warp layout and lobatto: lanes per trajectory,
				m rounded up to a power of two */
	int traj_per_block;  /* warp and thread layouts: trajectories per block */
	int block;           /* windows a trajectory sweeps at once (lobatto's
				lobatto_time_kernel.cuh: grid.block > 1), else
				the grid's block or 0 */
	int scan;            /* warp layout: picard_scan, never AUTO */
	long ntraj;          /* trajectories of this chunk */
	long traj_offset;    /* global index of the chunk's first trajectory */
	int m, K;            /* nodes per window, sweeps (at most, if adaptive);
				per-thread Runge-Kutta: steps per window, or
				steps over the span at most, if adaptive */
	int adaptive;        /* stop sweeping once converged (convergence.h);
				Runge-Kutta: adaptive steps */
	int warm_start;      /* x_j^0 = x_w + (previous window's x_j - its x_w) */
	double iter_atol, iter_rtol; /* scaled change = |dx| / (atol + rtol |x|) */
	double h, t0, t1;    /* node spacing, span */
	/* device: the chunk's members' own spans (picard_solver_set_spans),
	 * [traj] each, or NULL: every member's is t0, t1 */
	const double *span_t0, *span_t1;
	long windows;        /* number of windows */
	double bound;        /* |x| past this is divergence */
	const void *x0;      /* device, real SoA [k][ntraj] */
	const void *params;  /* device, real SoA [q][ntraj] */
	void *x_final;       /* device, real SoA [k][ntraj] */
	int *status;         /* device, picard_traj_status per trajectory */
	long *fail_window;   /* device, window of failure or -1 */
	double *fail_time;   /* device, 2 per trajectory: the failing step's
				start and end (per-thread Runge-Kutta), else
				NaN (the backend fills it so) */
	long *sweeps;        /* device, sweeps done over all windows */
	int *sweeps_max;     /* device, most sweeps in one window */
	int nrecords;        /* 0..PICARD_MAX_RECORDS */
	int dense;           /* some record keeps times: launch the kernels'
				dense-output instances (the others compile
				without that code, so it costs their sweeps
				no registers) */
	struct picard_device_record records[PICARD_MAX_RECORDS];
	struct picard_device_events events; /* the event log, or count NULL */
	void *stream;        /* cudaStream_t, NULL for the default stream */
	/* lobatto scheme only (kernels/lobatto_kernel.cuh) */
	double window;       /* window length H */
	int groups_per_warp; /* trajectories per warp: 32/group, or 1 for an
				ensemble too small to fill the device (the
				other lanes idle, no group waits on another) */
	int block_threads;   /* threads per block, a multiple of 32 */
	const void *lobatto_tables; /* device: A^T [l][j] (group*group reals,
				(H/2) S), E^T [l][j] (group*group reals), node
				offsets (group doubles), src/lobatto.h */
};

#endif
