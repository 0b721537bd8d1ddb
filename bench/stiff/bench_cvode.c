/* bench_cvode.c - bin/bench-cvode: SUNDIALS CVODE, the trusted stiff
 * solver, on picard's ensembles (issue 18), measured like bin/bench-rodas
 * (stiff_common.h).
 *
 *   bench-cvode MODEL [--rtol R --atol A] [--threads N] [options]
 *
 * CVODE's BDF (variable order 1-5, Newton iteration) with the dense direct
 * linear solver and the model's Jacobian on the host (picard_model_jacobian:
 * the model's own, else forward-mode AD), scalar tolerances rtol, atol. A
 * semi-linear model (picard_model.op: a discretised PDE, issue 21) gets
 * the band direct solver instead, its bandwidth the operator's (1 for a
 * three-point line, nx for a five-point grid, the widest row of a CSR
 * pattern), with CVODE's difference-quotient band Jacobian: what a user of
 * CVODE would pick for a method-of-lines system.
 * OpenMP across trajectories, one CVODE instance (and SUNContext) per
 * thread, created before the clock starts and re-initialised per
 * trajectory (CVodeReInit); each trajectory is advanced to each output time
 * in CV_NORMAL mode (CVODE interpolates there) with the stop time at the
 * end. Timed: the OpenMP loop over the ensemble, after one warm-up solve.
 * Built when libsundials-dev is installed (Debian 12: SUNDIALS 6.4.1; the
 * Makefile says when it is not).
 */
#define _GNU_SOURCE
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_band.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_band.h>
#include <sunmatrix/sunmatrix_dense.h>

#include "bench_common.h"
#include "stiff_common.h"

static const char *program = "bench-cvode";

/* What CVODE's callbacks need: the model and the trajectory's parameters. */
struct traj_data {
	const picard_model *model;
	const double *params;
	double J[64 * 64]; /* the row-major Jacobian before it is copied */
};

static int cv_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user)
{
	const struct traj_data *d = user;

	picard_model_rhs(d->model, t, N_VGetArrayPointer(y), d->params, N_VGetArrayPointer(ydot));
	return 0;
}

/* J (column-major in SUNDIALS) from picard's row-major J[i*n + k]. */
static int cv_jac(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *user,
		  N_Vector tmp1, N_Vector tmp2, N_Vector tmp3)
{
	struct traj_data *d = user;
	const int n = d->model->dim;

	(void)fy, (void)tmp1, (void)tmp2, (void)tmp3;
	picard_model_jacobian(d->model, t, N_VGetArrayPointer(y), d->params, d->J);
	for (int i = 0; i < n; i++)
		for (int k = 0; k < n; k++)
			SM_ELEMENT_D(J, i, k) = d->J[i * n + k];
	return 0;
}

/* One thread's CVODE. */
struct cv_worker {
	SUNContext ctx;
	void *mem;
	N_Vector y;
	SUNMatrix A;
	SUNLinearSolver ls;
	struct traj_data data;
};

static void cv_check(int flag, const char *what)
{
	if (flag < 0)
		bench_die(program, "%s failed (flag %d)", what, flag);
}

/* The half-bandwidth of a semi-linear model's operator A (the Jacobian's
 * band, g being local to a cell), or -1: a model without one. */
static int operator_bandwidth(const picard_model *model, const double *params)
{
	const picard_operator *op = model->op;
	int width = 0;

	if (!op)
		return -1;
	if (op->kind == PICARD_OP_STENCIL_1D)
		return 1;
	if (op->kind == PICARD_OP_STENCIL_2D)
		return op->nx;
	int *row_start = malloc((model->dim + 1) * sizeof(int));
	int *col = malloc(op->nnz * sizeof(int));
	double *val = malloc(op->nnz * sizeof(double));

	if (!row_start || !col || !val)
		bench_die(program, "out of memory");
	op->csr(params, row_start, col, val);
	for (int i = 0; i < model->dim; i++)
		for (int k = row_start[i]; k < row_start[i + 1]; k++)
			width = abs(col[k] - i) > width ? abs(col[k] - i) : width;
	free(row_start);
	free(col);
	free(val);
	return width;
}

static void worker_init(struct cv_worker *w, const stiff_opts *o, const stiff_problem *pb)
{
	const int n = pb->dim;
	const int band = operator_bandwidth(o->model, pb->params);

	if (band < 0 && n > 64)
		bench_die(program, "dim %d > 64 with the dense solver (a model with an operator gets the band one)", n);
	cv_check(SUNContext_Create(NULL, &w->ctx), "SUNContext_Create");
	w->y = N_VNew_Serial(n, w->ctx);
	if (band >= 0) {
		w->A = SUNBandMatrix(n, band, band, w->ctx);
		w->ls = SUNLinSol_Band(w->y, w->A, w->ctx);
	} else {
		w->A = SUNDenseMatrix(n, n, w->ctx);
		w->ls = SUNLinSol_Dense(w->y, w->A, w->ctx);
	}
	w->mem = CVodeCreate(CV_BDF, w->ctx);
	if (!w->y || !w->A || !w->ls || !w->mem)
		bench_die(program, "CVODE: out of memory");
	memcpy(N_VGetArrayPointer(w->y), pb->x0, n * sizeof(double));
	w->data.model = o->model;
	w->data.params = pb->params;
	cv_check(CVodeInit(w->mem, cv_rhs, pb->t0, w->y), "CVodeInit");
	cv_check(CVodeSetUserData(w->mem, &w->data), "CVodeSetUserData");
	cv_check(CVodeSStolerances(w->mem, o->rtol, o->atol), "CVodeSStolerances");
	cv_check(CVodeSetLinearSolver(w->mem, w->ls, w->A), "CVodeSetLinearSolver");
	if (band < 0) /* the band solver's is CVODE's difference quotient */
		cv_check(CVodeSetJacFn(w->mem, cv_jac), "CVodeSetJacFn");
	cv_check(CVodeSetMaxNumSteps(w->mem, o->max_steps), "CVodeSetMaxNumSteps");
	cv_check(CVodeSetStopTime(w->mem, pb->tout[pb->nout - 1]), "CVodeSetStopTime");
}

static void worker_free(struct cv_worker *w)
{
	CVodeFree(&w->mem);
	SUNLinSolFree(w->ls);
	SUNMatDestroy(w->A);
	N_VDestroy(w->y);
	SUNContext_Free(&w->ctx);
}

/* Trajectory i through the output times; its counters. */
static void cv_trajectory(struct cv_worker *w, const stiff_problem *pb, long i, double *xout,
			  int *status, long *accepted, long *rejected, long *evals, long *jacs)
{
	const int n = pb->dim;
	double *y = N_VGetArrayPointer(w->y), t = pb->t0;
	long nst = 0, nfe = 0, nje = 0, netf = 0, nfels = 0;
	int flag = 0;

	memcpy(y, pb->x0 + i * n, n * sizeof(double));
	w->data.params = pb->params + i * pb->nparams;
	flag = CVodeReInit(w->mem, pb->t0, w->y);
	if (flag >= 0)
		flag = CVodeSetStopTime(w->mem, pb->tout[pb->nout - 1]);
	for (int o = 0; o < pb->nout; o++) {
		if (flag >= 0)
			flag = CVode(w->mem, pb->tout[o], w->y, &t, CV_NORMAL);
		for (int k = 0; k < n; k++)
			xout[(i * pb->nout + o) * n + k] = flag >= 0 ? y[k] : NAN;
	}
	CVodeGetNumSteps(w->mem, &nst);
	CVodeGetNumRhsEvals(w->mem, &nfe);
	CVodeGetNumLinRhsEvals(w->mem, &nfels);
	CVodeGetNumJacEvals(w->mem, &nje);
	CVodeGetNumErrTestFails(w->mem, &netf);
	status[i] = flag < 0 ? -flag : 0;
	accepted[i] = nst;
	rejected[i] = netf;
	evals[i] = nfe + nfels;
	jacs[i] = nje;
}

int main(int argc, char **argv)
{
	char **command = malloc((argc + 1) * sizeof(char *));
	char device[256], config[64];
	stiff_opts o;
	stiff_problem pb;
	stiff_sample sample;

	/* stiff_parse permutes argv: keep the command as typed for the CSV. */
	for (int i = 0; i <= argc; i++)
		command[i] = argv[i];
	stiff_parse(argc, argv, program, false, &o);
	const int nthreads = o.threads > 0 ? o.threads : omp_get_max_threads();

	bench_cpu_name(device, sizeof(device));
	snprintf(config, sizeof(config), "threads=%d", nthreads);

	bool new_file;
	FILE *out = bench_csv_open(program, o.csv, &new_file);

	stiff_problem_make(&o, program, &pb);
	stiff_sample_make(&o, &pb, &sample);
	stiff_csv_header(out, argc, command, program, device, &o, &pb, &sample, new_file);
	if (o.model->op)
		fprintf(out, "# CVODE: SUNDIALS %s, BDF, band linear solver of the operator's "
			"bandwidth (%d), difference-quotient band Jacobian, CV_NORMAL to each "
			"output, stop time t1\n",
			SUNDIALS_VERSION, operator_bandwidth(o.model, pb.params));
	else
		fprintf(out, "# CVODE: SUNDIALS %s, BDF, dense linear solver, the model's "
			"Jacobian (picard_model_jacobian), CV_NORMAL to each output, stop time "
			"t1\n",
			SUNDIALS_VERSION);

	const long N = pb.ntraj;
	double *xout = malloc(N * pb.nout * pb.dim * sizeof(double));
	int *status = malloc(N * sizeof(int));
	long *counts = malloc(4 * N * sizeof(long));
	double *times_us = malloc(o.repeats * sizeof(double));
	struct cv_worker *workers = calloc(nthreads, sizeof(*workers));

	if (!xout || !status || !counts || !times_us || !workers)
		bench_die(program, "out of memory");
	/* Each thread creates its own instance (first touch on its core). */
#pragma omp parallel num_threads(nthreads)
	worker_init(&workers[omp_get_thread_num()], &o, &pb);
	for (int rep = -1; rep < o.repeats; rep++) { /* -1: the warm-up */
		double begin = bench_now_us();

#pragma omp parallel for schedule(dynamic, 16) num_threads(nthreads)
		for (long i = 0; i < N; i++)
			cv_trajectory(&workers[omp_get_thread_num()], &pb, i, xout, status,
				      counts + 2 * N, counts + 3 * N, counts, counts + N);
		if (rep >= 0)
			times_us[rep] = bench_now_us() - begin;
	}
#pragma omp parallel num_threads(nthreads)
	worker_free(&workers[omp_get_thread_num()]);

	stiff_counts c = stiff_counts_of(N, status, counts + 2 * N, counts + 3 * N, counts,
					 counts + N);
	stiff_errors e = stiff_errors_of(&o, &pb, &sample, xout, status);
	if (c.failed)
		fprintf(out, "# failed trajectories: %ld\n", c.failed);
	stiff_csv_row(out, device, "-", &o, &pb, "cvode-bdf", config, times_us, o.repeats, &c,
		      &e, sample.n);
	if (out != stdout) {
		fclose(out);
		stiff_csv_row(stdout, device, "-", &o, &pb, "cvode-bdf", config, times_us,
			      o.repeats, &c, &e, sample.n);
	}
	free(workers);
	free(times_us);
	free(xout);
	free(status);
	free(counts);
	free(command);
	stiff_sample_free(&sample);
	stiff_problem_free(&pb);
	return c.failed ? 1 : 0;
}
