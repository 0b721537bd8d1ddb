/* solver.h - the insides of the batched Krylov solvers (krylov.h) that
 * its .cu files share: the SpMV object, the per-member state on the
 * device, and the solver's workspace. Internal to src/linsolve/gpu/krylov/. */
#ifndef PICARD_KRYLOV_SOLVER_H
#define PICARD_KRYLOV_SOLVER_H

#include "krylov/krylov.h"
#include "krylov/spmv.cuh"

struct krylov_spmv {
	krylov_dpattern p;  /* device arrays, owned: p.start (and p.col for CSR) */
	long values;        /* per member */
	const struct krylov_spmv_kernel *choice;
	bool cached;        /* the choice came from the process's cache */
	unsigned long long hash; /* of the pattern, the cache's key with batch */
	int *diag_pos;      /* device, n: CSR position of a_ii, -1 where none
			       (MSR: unused, NULL) */
	int *transpose;     /* device, values: the position of a_ji for entry
			       a_ij, -1 where none (made on demand, CG) */
	int sms;            /* the device's multiprocessors */
};

/* Device arrays of batch entries: each member's scalars. */
struct krylov_members {
	int *status;     /* KRYLOV_RUNNING, then a picard_linsolve_code */
	int *iters;      /* iterations done */
	int *flag;       /* the recurrence's residual met rtol: check it */
	int *first_bad;  /* 2 row + (0 zero, 1 non-finite) of the first bad
			    diagonal (Jacobi, Neumann), INT_MAX-ish for none */
	int *zero_x;     /* b = 0: x becomes 0 */
	int *running;    /* one int: members still RUNNING */
	double *b_norm;  /* ||b|| (1 where b = 0) */
	double *a_norm;  /* ||A||_inf */
	double *rz;      /* CG: r^T z; BiCGStab: rho */
	double *alpha;
	double *beta;    /* CG: beta; BiCGStab: the p update's coefficient */
	double *omega;   /* BiCGStab */
	double *residual; /* ||b - A x|| / ||b|| at the end */
};

/* The launch shape of the reductions. */
struct krylov_plan {
	int bx;     /* members per block (a power of 2 <= 32) */
	int chunks; /* blocks over the rows */
};

#define KRYLOV_VECTORS 8
#define KRYLOV_REDUCE_VALUES 3 /* the most values one reduction sums */

struct krylov_solver {
	const struct krylov_method *method;
	const struct krylov_precond *precond;
	struct krylov_spmv *spmv;
	int n, batch;
	double rtol;
	int max_iters, degree, check_every;
	bool direct;                 /* no CUDA graph */
	/* this solve's arguments */
	const double *val, *b;
	double *x;
	double *vec[KRYLOV_VECTORS]; /* n batch each: the methods' vectors */
	double *inv_diag;            /* n batch: 1 / a_ii (Jacobi, Neumann) */
	double *work;                /* n batch: Neumann's A z */
	krylov_members st;
	double *partial;             /* chunks KRYLOV_REDUCE_VALUES batch */
	unsigned *ticket;            /* the reductions' block counter */
	int *host_running;           /* pinned: st.running read back */
	cudaStream_t capture;        /* where check_every steps are captured */
	cudaGraphExec_t graph;       /* their graph, or NULL */
	const void *graph_key[3];    /* val, b, x it was captured with */
	struct krylov_plan plan;
};

/* The SpMV of solver's members with its chosen kernel. */
int krylov_solver_multiply(struct krylov_solver *s, const double *x, double *y,
			   cudaStream_t stream);
/* Make spmv->transpose (CG's symmetry check) from the host pattern. */
int krylov_spmv_make_transpose(struct krylov_spmv *spmv, const struct krylov_pattern *pattern);

#endif
