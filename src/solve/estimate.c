/* estimate.c - each trajectory's error estimated without a reference, by a
 * companion solve: the same scheme, in double, on a grid twice as fine,
 * compared with the solve at its window ends and at t1 (step doubling,
 * Hairer, Norsett & Wanner, Solving ODEs I, II.4).
 *
 * Why a companion rather than an embedded formula on the same nodes: the
 * lobatto scheme's window is of order 2m-2 once converged, while any
 * lower-order formula on its m nodes is of order m at most, so an embedded
 * difference measures the lower formula's error, larger than the scheme's
 * by a factor that grows like H^(m-2): it would call nearly every
 * trajectory over the tolerance. The companion measures the solve's own
 * global error, rounding of float and the iteration's stopping error
 * included, since it runs in double with a tighter iteration tolerance.
 *
 * Each scheme's table (src/schemes/scheme.h) refines its grid and holds the factor:
 * - trapezoid: the companion at h/2 with the same m and K. With an error
 *   C h^p, the difference is C h^p (1 - 2^-p), at least half the error for
 *   any order p >= 1: the estimate is twice the difference, a bound that
 *   is 1.5 times the error at the converged scheme's p = 2.
 * - lobatto: the companion at H/2 with m nodes, adaptive sweeps to 1/100
 *   of the solve's iteration tolerance: its error is 2^-(2m-2) of the
 *   solve's discretisation error and its iteration error a hundredth, so
 *   the difference is the solve's error to a few per cent: factor 1.
 *
 * The comparison keeps at most ESTIMATE_ROWS window ends per trajectory
 * (every-th), and fewer where the ensemble is large (ESTIMATE_DOUBLES in
 * all), plus the final state: every window end where memory allows, since
 * float rounding makes the error jump from one window end to the next and
 * a sparse comparison misses its peaks (brusselator, lobatto float: a
 * third of the error seen at every 64th window end).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "estimate.h"
#include "scheme.h"
#include "solver.h"

/* What an estimate holds between solves: the companion solver, the record
 * of the solve's window ends it compares with, and the estimates. */
struct picard_estimate {
	picard_solver *companion;   /* double, finer grid */
	double factor;              /* estimate = factor * |x - x_companion| */
	picard_tolerance scale;     /* of the scaled errors */
	long batch;                 /* trajectories one solve holds */
	int dim;                    /* components */
	long rows;                  /* window ends compared before t1: none
				       where the only one would be t1's, which
				       the final states are already */
	picard_record coarse;       /* the solve's window ends compared */
	picard_record fine;         /* the companion's, at the same times */
	double *x_final;            /* the solve's final states (ntraj*dim) */
	double *fine_final;         /* the companion's */
	picard_traj_status *fine_status; /* the companion's outcomes */
	double *errors;             /* ntraj estimates of the last solve */
};

#define ESTIMATE_ROWS 4096            /* window ends compared per trajectory */
#define ESTIMATE_DOUBLES (1L << 22)   /* 32 MB of records at most, each */
#define COMPANION_RTOL_SHARE 1e-2     /* its iteration tolerance, of the solve's */
#define COMPANION_RTOL_FLOOR 1e-14    /* double rounding over a sweep */
#define COMPANION_K_MAX 80

/* The companion's options: double, twice the windows, a tighter iteration. */
static picard_options companion_options(const picard_options *o, const picard_grid *g)
{
	picard_options c = picard_scheme_of(o->scheme)->refined(o, g, 0.5, COMPANION_RTOL_SHARE,
								 COMPANION_RTOL_FLOOR, COMPANION_K_MAX);

	c.t0 = g->t0;
	c.t1 = g->t1;
	c.precision = PICARD_DOUBLE;
	c.layout = PICARD_LAYOUT_AUTO;
	c.traj_per_block = 0;
	c.scan = PICARD_SCAN_AUTO;
	c.estimate_error = false;
	c.error_scale = (picard_tolerance){0};
	/* twice the windows of a grid within the work limit, and more sweeps:
	 * the estimate's own cost, not a grid asked for */
	c.max_work = HUGE_VAL;
	return c;
}

/* Every-th window end compared: at most ESTIMATE_ROWS, and within
 * ESTIMATE_DOUBLES for the ensemble. */
static long compared_every(long windows, long ntraj, int dim)
{
	long rows = ESTIMATE_DOUBLES / ((double)ntraj * dim) > ESTIMATE_ROWS ? ESTIMATE_ROWS :
		    (long)(ESTIMATE_DOUBLES / ((double)ntraj * dim));

	if (rows < 1)
		rows = 1;
	if (rows > windows)
		rows = windows;
	return (windows + rows - 1) / rows;
}

static void estimate_free(void *state);

/* Make the companion of a solver of model on grid (as fitted) for ntraj
 * trajectories, batch at a time: options are the solver's own, resolved. */
static int estimate_create(struct picard_estimate *est, const picard_model *model,
			   const picard_options *options, const picard_grid *grid,
			   long ntraj, long batch)
{
	picard_options unused;
	picard_options c = companion_options(options, grid);
	/* the window ends compared are the ensemble's choice, whatever the
	 * batch: a batch's estimates are those of one solve of all */
	const long every = compared_every(grid->windows, ntraj, model->dim);
	const size_t states = (size_t)batch * model->dim;
	size_t rows;
	int err;

	memset(est, 0, sizeof(*est));
	est->batch = batch;
	est->dim = model->dim;
	est->scale = options->error_scale;
	est->factor = picard_scheme_of(options->scheme)->estimate_factor;
	c.batch = batch;
	err = picard_solver_create_plain(&est->companion, model, &c, ntraj, &unused);
	if (err)
		goto fail;
	if (picard_solver_grid(est->companion)->windows != 2 * grid->windows) {
		err = picard_fail(PICARD_EINVAL, "error estimate: the companion has %ld windows, not 2 x %ld",
				  picard_solver_grid(est->companion)->windows, grid->windows);
		goto fail;
	}
	est->coarse = (picard_record){.every = every, .traj_stride = 1};
	est->fine = (picard_record){.every = 2 * every, .traj_stride = 1};
	rows = (size_t)(grid->windows / every);
	if (every == grid->windows)
		rows = 0; /* t1 alone: the final states */
	est->rows = (long)rows;
	if (rows) {
		est->coarse.states = malloc(rows * states * sizeof(double));
		est->fine.states = malloc(rows * states * sizeof(double));
	}
	est->x_final = malloc(states * sizeof(double));
	est->fine_final = malloc(states * sizeof(double));
	est->fine_status = malloc(batch * sizeof(*est->fine_status));
	est->errors = malloc(batch * sizeof(double));
	if ((rows && (!est->coarse.states || !est->fine.states)) || !est->x_final || !est->fine_final ||
	    !est->fine_status || !est->errors) {
		err = picard_fail(PICARD_ENOMEM, "error estimate: %zu window ends of %ld trajectories",
				  rows, batch);
		goto fail;
	}
#pragma omp parallel for
	for (long i = 0; i < batch; i++)
		est->errors[i] = NAN;
	return PICARD_OK;
fail:
	estimate_free(est);
	return err;
}

/* Everything est holds, est too. */
static void estimate_free(void *state)
{
	struct picard_estimate *est = state;

	if (!est)
		return;
	picard_solver_free(est->companion);
	free(est->coarse.states);
	free(est->fine.states);
	free(est->x_final);
	free(est->fine_final);
	free(est->fine_status);
	free(est->errors);
	free(est);
}

static const picard_record *compared_record(const void *state)
{
	const struct picard_estimate *est = state;

	return est->rows ? &est->coarse : NULL;
}

static double *final_states(void *state)
{
	return ((struct picard_estimate *)state)->x_final;
}

static const double *estimates(const void *state)
{
	return ((const struct picard_estimate *)state)->errors;
}

/* Trajectory i's scaled difference from the companion at t1; NaN when
 * either failed (as picard_io_final_errors on the device). */
static double final_error(const struct picard_estimate *est, long i, const double *x_final,
			  const picard_traj_status *status)
{
	const int n = est->dim;

	if (!picard_traj_estimated(status[i]) || !picard_traj_estimated(est->fine_status[i]))
		return NAN;
	return picard_scaled_error(&est->scale, x_final + i * n, est->fine_final + i * n, n);
}

/* The estimate of trajectory i: factor times its largest scaled
 * difference from the companion, at t1 (worst: final_error) and at the
 * window ends compared; NaN when either failed. */
static double trajectory_estimate(const struct picard_estimate *est, long count, long rows,
				  long i, double worst)
{
	const int n = est->dim;
	const size_t row = (size_t)count * n;

	if (isnan(worst))
		return NAN;
	for (long r = 0; r < rows; r++)
		worst = fmax(worst, picard_scaled_error(&est->scale,
							est->coarse.states + r * row + i * n,
							est->fine.states + r * row + i * n, n));
	return est->factor * worst;
}

/* Where the solve and its companion each hold the batch in one chunk on
 * the device, the companion starts from the solve's inputs there (when
 * both are in double) and the final states are compared there: only the
 * differences come back, not the companion's states. */
static int compare(void *state, const picard_solver *solver, long count, const double *x0,
		   const double *params, const struct picard_draw *draw, const double *x_final,
		   const picard_traj_status *status)
{
	struct picard_estimate *est = state;
	const struct picard_cuda_solver *cuda = picard_solver_cuda(solver),
					*companion = picard_solver_cuda(est->companion);
	const bool on_device = cuda && companion && picard_cuda_one_chunk(cuda, count) &&
			       picard_cuda_one_chunk(companion, count);
	const bool shared = on_device && picard_cuda_shares_inputs(companion, cuda, count);
	const long rows = est->rows;
	int err;

	err = picard_solve_from(est->companion, shared ? solver : NULL, shared ? NULL : draw,
				count, x0, params,
				on_device ? NULL : est->fine_final,
				on_device ? NULL : est->fine_status, &est->fine, rows ? 1 : 0);
	if (err && err != PICARD_EFAILED) /* a failing member is the estimate's NaN */
		return err;
	if (on_device) {
		err = picard_cuda_final_errors(cuda, companion, count, &est->scale, est->errors);
		if (err)
			return err;
	}
#pragma omp parallel for schedule(static)
	for (long i = 0; i < count; i++)
		est->errors[i] = trajectory_estimate(
			est, count, rows, i,
			on_device ? est->errors[i] : final_error(est, i, x_final, status));
	return PICARD_OK;
}

int picard_estimate_attach(picard_solver *s, const picard_model *model,
			   const picard_options *resolved, long ntraj)
{
	struct picard_estimate *est = calloc(1, sizeof(*est));
	int err = est ? estimate_create(est, model, resolved, picard_solver_grid(s), ntraj,
					picard_solver_batch(s)) :
			picard_fail(PICARD_ENOMEM, "error estimate");

	if (err) /* estimate_create frees what it made, est too */
		return err;
	picard_solver_attach(s, &(struct picard_solve_companion){
		.state = est, .record = compared_record, .final_states = final_states,
		.after = compare, .results = estimates, .free = estimate_free,
	});
	return PICARD_OK;
}
