/* backend.h - the two backends behind picard_solve: what they are given
 * (checked inputs, a fitted grid) and what they fill in. */
#ifndef PICARD_BACKEND_H
#define PICARD_BACKEND_H

#include <math.h>
#include <stdbool.h>

#include "picard.h"
#include "portable.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a solve's trajectories add up to: each backend fills them, the
 * CUDA backend on the device, so that per-trajectory counts need not
 * travel. Sums of whole numbers, exact in any order. */
struct picard_job_totals {
	long failed;        /* status not OK */
	double sweeps;      /* sweeps over all windows of all trajectories */
	double windows_run; /* windows run: all, or up to a stopping failure */
	int sweeps_max;     /* most sweeps in one window */
};

/* A status that stopped its trajectory before t1: it ran its windows up to
 * the failing one. */
static inline __host__ __device__ bool picard_traj_stopped(int status)
{
	return status == PICARD_TRAJ_NONFINITE || status == PICARD_TRAJ_DIVERGED ||
	       status == PICARD_TRAJ_STEP_UNDERFLOW || status == PICARD_TRAJ_MAX_STEPS ||
	       status == PICARD_TRAJ_LINSOLVE_FAILED || status == PICARD_TRAJ_EVENT ||
	       status == PICARD_TRAJ_EVENT_LIMIT || status == PICARD_TRAJ_EVENT_FAILED;
}

/* A status that is a failure: all but OK and a terminal event. */
static inline __host__ __device__ bool picard_traj_failed(int status)
{
	return status != PICARD_TRAJ_OK && status != PICARD_TRAJ_EVENT;
}

/* The event log's arrays as a solve fills them (picard_event_log): the
 * solver's, capacity entries per member; NULL in a job whose model has
 * no events. */
struct picard_event_store {
	int capacity;   /* entries per member */
	int *count;     /* ntraj */
	int *index;     /* ntraj * capacity */
	double *time;   /* ntraj * capacity */
	double *before; /* ntraj * capacity * dim */
	double *after;  /* the same */
};

/* A status whose final state the error estimate compares. */
static inline __host__ __device__ bool picard_traj_estimated(int status)
{
	return status == PICARD_TRAJ_OK || status == PICARD_TRAJ_NOT_CONVERGED;
}

/* An ensemble drawn where it is solved (picard_solve_drawn, src/solver.h):
 * member i of a solve is member first + i of the ensemble whose states
 * are start spread by spread with seed (picard_ensemble_spread_range's
 * numbers), and whose parameter q is param_values[q], spread by
 * param_spreads[q] with seed + 1 + q where that is not 0. These are
 * picard_ensemble_model_range's members wherever the model's start does
 * not depend on a parameter spread. The CUDA backend draws them on the
 * device: the states never cross the bus. */
struct picard_draw {
	long first;                  /* the ensemble's index of member 0 */
	double spread;               /* of the states */
	unsigned long long seed;
	const double *start;         /* dim: the states' centre */
	const double *param_values;  /* nparams (NULL: none) */
	const double *param_spreads; /* nparams, or NULL: none spread */
};

/* Whether the draw gives each member parameters of its own. */
static inline bool picard_draw_own_params(const struct picard_draw *draw, int nparams)
{
	for (int q = 0; draw->param_spreads && q < nparams; q++)
		if (draw->param_spreads[q] > 0)
			return true;
	return false;
}

/* Whether every value drawn around value by spread (picard_spread_value)
 * is within what precision holds: |value| (1 + spread), a few roundings
 * spared. */
static inline bool picard_draw_value_fits(double value, double spread,
					  picard_precision precision)
{
	const double limit = (precision == PICARD_FLOAT ? 3.4028234663852886e38 :
			      1.7976931348623157e308) / (1 + 1e-14);

	return spread >= 0 && fabs(value) * (1 + spread) <= limit;
}

/* Whether every member of draw fits precision (picard_draw_value_fits). */
static inline bool picard_draw_fits(const struct picard_draw *draw, const picard_model *model,
				    picard_precision precision)
{
	for (int k = 0; k < model->dim; k++)
		if (!picard_draw_value_fits(draw->start[k], draw->spread, precision))
			return false;
	for (int q = 0; q < model->nparams; q++)
		if (!picard_draw_value_fits(draw->param_values[q], draw->param_spreads ?
					    draw->param_spreads[q] : 0, precision))
			return false;
	return true;
}

/* Members offset .. offset+count-1 of a solve's draw into the host's x0
 * (count*dim) and, where params is not NULL, their rows of parameters
 * (count*nparams): drawn where spread, the shared values elsewhere
 * (src/ensemble.c). */
int picard_draw_host(const struct picard_draw *draw, int dim, int nparams, long offset,
		     long count, double *x0, double *params);

/* One solve's inputs and outputs as the backends see them. */
struct picard_job {
	const picard_model *model;   /* the model */
	const picard_grid *grid;     /* windows, m, K, fitted h */
	bool lobatto_grid;           /* its windows hold Gauss-Lobatto nodes
				        (src/scheme.h): where windows end */
	picard_precision precision;  /* arithmetic of the sweeps */
	double bound;                /* |x| past this is divergence */
	long ntraj;                  /* trajectories */
	const double *x0;            /* ntraj*dim, row per trajectory; NULL
					where draw says what they are */
	const struct picard_draw *draw; /* CUDA backend: the members drawn on
					   the device, not uploaded, or NULL;
					   params then NULL where they have
					   their own (param_stride nparams) */
	const double *params;        /* row per trajectory, param_stride apart */
	int param_stride;            /* nparams, or 0: one row shared by all */
	double *x_final;             /* ntraj*dim, or NULL */
	/* ntraj each: member i integrates from span_t0[i] to span_t1[i]
	 * (picard_solver_set_spans), its windows the grid's count over its
	 * own span; NULL: the grid's span for all */
	const double *span_t0, *span_t1;
	picard_traj_status *status;  /* ntraj, never NULL here */
	long *fail_window;           /* ntraj, never NULL here */
	double *fail_time;           /* 2 ntraj, NaN-filled by picard_solve:
					a scheme that knows the step where a
					trajectory failed writes its start and
					end there (the per-thread Runge-Kutta
					schemes), never NULL here */
	long *sweeps;                /* ntraj: sweeps over all windows; NULL
					for the CUDA backend, which keeps
					them on the device */
	int *sweeps_max;             /* ntraj: most sweeps in one window;
					the same */
	struct picard_job_totals *totals; /* filled by the backend */
	const picard_record *records; /* nrecords window-end records */
	int nrecords;
	const struct picard_event_store *events; /* the event log, or NULL:
					     the model has no events */
	struct picard_failure_note *note; /* the first failure's words, or
					     NULL (picard_note_failure) */
	const struct picard_cuda_solver *inputs_of; /* CUDA backend: start
					from this solver's device copy of its
					last solve's x0 and params, not from
					the host's (picard_cuda_shares_inputs):
					the error estimate's companion */
	bool single_pass;            /* CUDA backend: the device arrays hold
					every member after the solve (the
					error estimate compares there), so
					one chunk is not solved in parts */
	bool outcomes_on_device;     /* CUDA backend: status, fail_window
					and fail_time are left as they are,
					the members' own stay on the device
					(picard_cuda_final_errors reads them):
					only the totals come back */
};

/* The first trajectory (lowest index) whose failure a status alone does
 * not explain (a linear solve's: which solver, which code), in words:
 * picard_solve puts them in picard_error_detail(). */
struct picard_failure_note {
	long traj;         /* -1: none */
	char message[384]; /* "window W, step J, stage I: cg: ..." */
};

/* Note trajectory traj's failure in job->note if it is the first (lowest
 * index) so far; safe from the backend's threads. */
void picard_note_failure(const struct picard_job *job, long traj, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Slots of a record: trajectories i % traj_stride == 0 of ntraj. */
static inline long picard_record_slots(long ntraj, int traj_stride)
{
	return (ntraj + traj_stride - 1) / traj_stride;
}

/* Rows of a record: its times, or the window ends it keeps. */
static inline long picard_record_rows(const picard_grid *grid,
				      const picard_record *rec)
{
	return rec->times ? rec->ntimes : grid->windows / rec->every;
}

/* CPU backend (src/cpu_backend.c): OpenMP over trajectories. */
int picard_cpu_solve(const struct picard_job *job, double *seconds);

/* A scheme on the CPU backend (its table in src/scheme.h names it). */
struct picard_cpu_scheme {
	/* Reals of scratch one trajectory needs. */
	size_t (*scratch_len)(const struct picard_job *job);
	/* Tables shared read-only by every trajectory of a solve, into
	 * *tables (NULL: the scheme has none); release frees them, also
	 * after a failed prepare. */
	int (*prepare)(const struct picard_job *job, void **tables);
	void (*release)(void *tables);
	/* Integrate trajectory traj, [0] in float, [1] in double: its status,
	 * and the failing window into *fail_window. */
	picard_traj_status (*trajectory[2])(const struct picard_job *job, const void *tables,
					    long traj, void *scratch, long *fail_window);
	/* A trajectory spreads its windows over the threads itself: an
	 * ensemble smaller than the threads runs one trajectory at a time. */
	bool across_windows;
};
extern const struct picard_cpu_scheme picard_cpu_trapezoid, picard_cpu_lobatto, picard_cpu_rk,
	picard_cpu_newton, picard_cpu_imex;
/* A scheme on the CUDA backend: defined there (kernels/cuda_backend.cu). */
struct picard_cuda_scheme;
extern const struct picard_cuda_scheme picard_cuda_trapezoid, picard_cuda_lobatto, picard_cuda_rk,
	picard_cuda_newton, picard_cuda_imex;

/* The thread layout asked for (picard_options), checked by the solver. */
typedef struct picard_options_layout {
	picard_layout layout; /* AUTO: the backend's measured rule */
	int traj_per_block;   /* 0: the layout's default */
	picard_scan scan;     /* AUTO: the faster for m */
} picard_options_layout;

/* CUDA backend (kernels/cuda_backend.cu). Settles grid->layout,
 * traj_per_block and scan (AUTO resolved by the device and ntraj); its
 * buffers hold at most batch trajectories (a solve's job->ntraj), and a
 * model with events event_log entries of its log per trajectory (the
 * chunk sized for both). */
struct picard_cuda_solver;
int picard_cuda_create(struct picard_cuda_solver **out,
		       const picard_model *model, picard_grid *grid,
		       const picard_options_layout *layout,
		       picard_precision precision, long ntraj, long batch,
		       size_t device_limit, int event_log);
/* The name of the kernel instance picard_cuda_create would load for grid
 * (settling its layout as that does), into buf; nothing compiled. */
int picard_cuda_kernel_name(const picard_model *model, picard_grid *grid,
			    const picard_options_layout *layout, picard_precision precision,
			    long ntraj, char *buf, size_t len);
/* The kernel instance a CUDA solver of options for ntraj trajectories
 * would load, into buf: options resolved as picard_solver_create resolves
 * them (src/solver.c); nothing compiled or allocated. */
int picard_solver_kernel_name(const picard_model *model, const picard_options *options,
			      long ntraj, char *buf, size_t len);
/* Chunks a solve of ntraj trajectories takes (1 when they fit the device
 * at once). */
long picard_cuda_chunks(const struct picard_cuda_solver *cuda, long ntraj);
int picard_cuda_solve(struct picard_cuda_solver *cuda,
		      const struct picard_job *job, double *seconds);
void picard_cuda_free(struct picard_cuda_solver *cuda);
/* Whether a solve here can start from from's inputs on the device
 * (job->inputs_of): both hold count members in one chunk, in the same
 * precision. */
bool picard_cuda_shares_inputs(const struct picard_cuda_solver *to,
			       const struct picard_cuda_solver *from, long count);
/* Whether a solve of count members runs here in one chunk, so that the
 * device's arrays hold all of them after it (with job->single_pass: a
 * solve in parts leaves only its last part there). */
bool picard_cuda_one_chunk(const struct picard_cuda_solver *cuda, long count);
/* The scaled errors (picard_scaled_error) of solve's final states against
 * ref's, each after a solve of the same count members in one chunk, ref
 * in double; NaN where either status is neither OK nor NOT_CONVERGED:
 * compared on the device, only the errors copied to the host. */
int picard_cuda_final_errors(const struct picard_cuda_solver *solve,
			     const struct picard_cuda_solver *ref, long count,
			     const picard_tolerance *scale, double *errors);

#ifdef __cplusplus
}
#endif

#endif
