/* bench_cpu_models.h - the models for bench-cpu (plain C): each model's
 * right-hand side compiled in (bench_cpu_models.cu includes the model
 * structs; no registry lookup, no double indirection), as the GSL system
 * function and as explicit Euler loops with the right-hand side inlined. */
#ifndef BENCH_CPU_MODELS_H
#define BENCH_CPU_MODELS_H

#ifdef __cplusplus
extern "C" {
#endif

/* The GSL system's params: counts the evaluations of one trajectory. One
 * per thread, each on its own cache line (a shared line made 16 threads
 * hardly faster than one). */
typedef struct bench_gsl_ctx {
	long evals;     /* right-hand side evaluations so far */
	char pad[56];   /* to 64 bytes: the next thread's counter on another line */
} bench_gsl_ctx;

typedef struct bench_cpu_model {
	const char *name;          /* as in the registry */
	int dim;                   /* components */
	const double *x0;          /* default initial state */
	/* f(t, y) with the model's default parameters, for gsl_odeiv2_system;
	 * ctx is a bench_gsl_ctx. Always GSL_SUCCESS: a non-finite result is
	 * caught in the state afterwards. */
	int (*gsl_rhs)(double t, const double y[], double dydt[], void *ctx);
	/* Explicit Euler from t0 to t1 in steps equal steps (rk_fixed of
	 * rk_ensemble.cuh): returns 0 or 1 (a non-finite state, where it
	 * stopped); *evals: the evaluations. */
	int (*euler_double)(double *x, double t0, double t1, long steps, long *evals);
	int (*euler_float)(float *x, float t0, float t1, long steps, long *evals);
} bench_cpu_model;

/* The model called name, or NULL; bench_cpu_model_at(i) for i < count. */
const bench_cpu_model *bench_cpu_model_find(const char *name);
int bench_cpu_model_count(void);
const bench_cpu_model *bench_cpu_model_at(int i);

#ifdef __cplusplus
}
#endif

#endif
