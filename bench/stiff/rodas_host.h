/* rodas_host.h - the Rodas5P ensemble driver of rodas.cuh on the host,
 * instantiated for every model of models/ (rodas_host.cpp, built by the
 * system C++ compiler with OpenMP), callable from C: bin/bench-rodas
 * --backend host and the Criterion suite (tests/reference/test_rodas.c) run it. */
#ifndef BENCH_STIFF_RODAS_HOST_H
#define BENCH_STIFF_RODAS_HOST_H

#ifdef __cplusplus
extern "C" {
#endif

/* One ensemble solve; arrays row per trajectory. */
typedef struct rodas_host_job {
	long ntraj;            /* trajectories */
	const double *x0;      /* ntraj * dim initial states */
	const double *params;  /* ntraj * nparams parameters, NULL: the defaults */
	double t0;             /* start */
	const double *tout;    /* nout increasing output times, the last the end */
	int nout;              /* 1 .. 16 */
	double rtol, atol;     /* tolerances */
	double h0;             /* first step, 0: automatic */
	int fixed;             /* non-zero: fixed steps h0, no control */
	long max_steps;        /* per trajectory (0: 1e6) */
	int threads;           /* OpenMP threads, 0: all */
	double *xout;          /* ntraj * nout * dim: [i][o][k] */
	int *status;           /* ntraj: picard_traj_status (0 ok) */
	long *evals, *jacs;    /* ntraj each (may be NULL): f and J evaluations */
	long *accepted, *rejected; /* ntraj each (may be NULL): steps */
} rodas_host_job;

/* Solve job for the model named model. Returns 0, or -1 for a model
 * without a host instantiation, -2 for bad arguments or no memory. */
int rodas_host_solve(const char *model, const rodas_host_job *job);

#ifdef __cplusplus
}
#endif

#endif
