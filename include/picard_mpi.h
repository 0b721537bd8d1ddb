/* picard_mpi.h - one ensemble over the ranks of an MPI communicator, for C
 * programs that run their own MPI: each rank takes a contiguous range of
 * the trajectories, its own GPU (or the CPU backend), draws its members of
 * the ensemble exactly as one process would, solves them with picard.h,
 * and the job's statistics and check are reduced across the ranks.
 *
 *   pkg-config --cflags --libs picard-mpi   (libpicard_mpi, built where MPI is)
 *
 * Functions marked collective must be called by every rank of comm. They
 * return the same value on every rank: 0 or a negative PICARD_E... code
 * (picard.h). No function calls MPI_Abort or exit(). examples/mpi_ensemble.c
 * shows the whole sequence.
 */
#ifndef PICARD_MPI_H
#define PICARD_MPI_H

#include <mpi.h>

#include "picard.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Collective. This rank's contiguous share [*first, *first + *count) of
 * ntraj trajectories: ranks in order, blocks of align trajectories dealt
 * as evenly as they go (the last block may be short), so every *first is
 * a multiple of align. align = 1 splits to the trajectory; align = a
 * record's traj_stride makes each rank's record sample the members one
 * process would (trajectories whose global index is a multiple of it).
 * A rank may get none when ntraj < size * align. EINVAL: ntraj < 1 or
 * align < 1. */
int picard_mpi_range(MPI_Comm comm, long ntraj, long align, long *first, long *count);

/* Collective; call it before anything touches CUDA. Binds this rank to a
 * device by its rank on its node (MPI_Comm_split_type SHARED): the
 * (local rank % GPUs)-th of the GPUs in CUDA_VISIBLE_DEVICES or present,
 * set as this process's CUDA_VISIBLE_DEVICES (more ranks than GPUs share
 * them round robin); with no GPU the CPU backend runs. Unless
 * OMP_NUM_THREADS is set, each rank of the node gets an equal share of
 * its cores as OpenMP threads (the CPU backend's, the checks'). local_rank,
 * local_size (may be NULL): this rank's place on its node. */
int picard_mpi_bind_device(MPI_Comm comm, int *local_rank, int *local_size);

/* Before MPI_Init, which takes as long as the CUDA runtime's start (a few
 * hundred ms each, the runtime's longer when the node's ranks start theirs
 * at once): where the launcher says which rank of its node this process is
 * (Open MPI, MPICH's Hydra, Slurm), bind the device by it as
 * picard_mpi_bind_device would, and start the CUDA runtime on a thread.
 * picard_mpi_bind_device then keeps that device (an error, if MPI numbers
 * the node's ranks otherwise). Nothing where no launcher says, or no GPU
 * is present. */
void picard_mpi_start_device(void);

/* Members first .. first+count-1 of picard_ensemble_model()'s ensemble of
 * the same arguments: x0 count*dim, params count*nparams (or NULL as
 * there). Bit-identical to those rows of the whole ensemble on either
 * backend: a member's random numbers depend on its index alone. Local. */
int picard_mpi_ensemble_model(const picard_model *model, long first, long count,
			      double spread, const double *param_spreads,
			      unsigned long long seed, picard_backend backend,
			      double *x0, double *params);

/* A solve over the job: each rank's picard_stats and what they add up to. */
typedef struct picard_mpi_stats {
	picard_stats local;        /* this rank's own solve */
	int ranks;                 /* size of the communicator */
	long ntraj;                /* trajectories of the job */
	long failed;               /* failed trajectories of the job */
	double solve_seconds;      /* the slowest rank's solve: the job's */
	double solve_seconds_mean; /* mean over the ranks */
	int slowest_rank;          /* the rank that took solve_seconds */
	double load_balance;       /* mean / slowest (1: perfectly even) */
	double sweeps_mean;        /* per window, over all trajectories */
	int sweeps_max;            /* most sweeps any rank's window took */
	double rhs_evals;          /* right-hand side evaluations, all ranks */
} picard_mpi_stats;

/* Collective. The job's statistics from each rank's own picard_stats of
 * its count trajectories, on every rank (what picard_mpi_solve reports). */
void picard_mpi_stats_reduce(MPI_Comm comm, long count, const picard_stats *local,
			     picard_mpi_stats *stats);

/* Collective. Each rank solves its count trajectories with its solver
 * (made for count; picard_solve()'s arguments, this rank's rows, records
 * included); a rank with none passes solver NULL. Then the statistics are
 * reduced into *stats on every rank. Returns 0, PICARD_EFAILED when a
 * trajectory of any rank failed (results written, as picard_solve), or the
 * error of the lowest rank whose solve failed outright. */
int picard_mpi_solve(MPI_Comm comm, picard_solver *solver, long count, const double *x0,
		     const double *params, double *x_final, picard_traj_status *status,
		     long *fail_window, const picard_record *records, int nrecords,
		     picard_mpi_stats *stats);

/* Collective. Each rank's picard_check_result of its own trajectories
 * (first: the global index of its first, so worst_traj and
 * first_ref_failed name global trajectories) combined into the job's on
 * every rank: E and the scaled error their maxima (worst_* of the rank
 * that reached E), counts summed. */
int picard_mpi_check_reduce(MPI_Comm comm, long first, picard_check_result *res);

/* Collective. The check a program makes before its next collective call,
 * so that no rank waits in it for one that failed: every rank passes its
 * own err and gets back the error of the lowest rank whose err is not 0
 * (0 when none), and in *failed_rank (may be NULL) that rank, -1 with none;
 * *failed_ranks (may be NULL) how many ranks failed. */
int picard_mpi_agree(MPI_Comm comm, int err, int *failed_rank, int *failed_ranks);

#ifdef __cplusplus
}
#endif

#endif /* PICARD_MPI_H */
