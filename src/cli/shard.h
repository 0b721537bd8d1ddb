/* shard.h - picard-run's share of the job under mpirun (issue 19): the
 * trajectories split into contiguous ranges by rank, each rank on its own
 * GPU or the CPU backend, its members of the ensemble drawn as one process
 * draws them, the summary, failures and check reduced, the output written
 * by all ranks into one file. shard.c holds one process's side (one shard
 * holds everything, nothing is exchanged); started by an MPI launcher,
 * picard-run loads the MPI side, the plugin lib/libpicard_mpirun.so
 * (src/mpi/cli/, built where MPI is found), and shard.c hands every call
 * to its table of operations. picard-run itself never links MPI: it starts
 * on machines without it.
 *
 * Every function marked collective is called by every rank at the same
 * point of the run. A rank that fails tells the others at the next
 * shard_agree(), never leaving them waiting in a collective.
 */
#ifndef PICARD_CLI_SHARD_H
#define PICARD_CLI_SHARD_H

#include <stdbool.h>

#include "output.h"
#include "picard.h"

struct run;
struct run_options;

struct shard_ops;

/* This process's place in the job. */
struct shard {
	int rank;     /* 0 alone */
	int size;     /* ranks of the job, 1 alone */
	long first;   /* global index of this rank's first trajectory */
	long total;   /* trajectories of the whole job */
	const struct shard_ops *ops; /* the MPI plugin's, NULL alone */
};

/* What the job's summary adds to one rank's. */
struct shard_job {
	int slowest_rank;      /* the rank whose solve took longest */
	double load_balance;   /* mean over ranks / slowest solve time */
	long fewest, most;     /* trajectories of the smallest and largest share */
};

/* One failed trajectory, as the failures line names it. */
struct shard_failure {
	long traj;    /* global index */
	long window;  /* the window where it failed */
	double from, to; /* between these times (picard_solver_fail_times) */
	int status;   /* picard_traj_status */
	int ref_failed; /* its reference fails too */
};

/* Start: under an MPI launcher, load the plugin, MPI_Init and this rank's
 * device (picard_mpi_bind_device); stdout of ranks other than 0 is
 * discarded. Exits with a message when a launcher started several
 * processes and MPI cannot start (picard-run built without it): each would
 * solve the whole ensemble. */
void shard_start(struct shard *shard, int *argc, char ***argv);
/* Collective. The job's exit status from each rank's status (the worst),
 * MPI finalised. */
int shard_finish(struct shard *shard, int status);
/* Rank 0: the rank that prints the job's summary and reports. */
bool shard_is_root(const struct shard *shard);
/* From here on, discard stderr of ranks other than 0: everything later is
 * a report of the whole job, printed once by rank 0. */
void shard_quiet(const struct shard *shard);
/* Around a step every rank does alike (parsing the command line, reading
 * --init): the messages of ranks other than 0 are held back, and shown at
 * end (collective) only when that rank failed (err) where rank 0 did not
 * fail alike. begin returns what end takes. */
int shard_quiet_begin(const struct shard *shard);
void shard_quiet_end(const struct shard *shard, int saved, int err);

/* Collective. Split total trajectories by rank, each rank's first a
 * multiple of align (the --check stride: the checked members are those of
 * one process). Sets shard->first and *count, this rank's share. Returns
 * 0, or CLI_EUSAGE after a message when a rank would get none. */
int shard_split(struct shard *shard, long total, long align, long *count);
/* Collective. Every rank's err: 0 when none failed; the error all ranks
 * share when every one failed (a bad input, reported by rank 0 for all);
 * when some ranks failed and others not, rank 0 names the failed one,
 * removes out's temporary file, and aborts the job (MPI_Abort) with the
 * exit status of the error. The test suite makes rank R fail at the first
 * call with PICARD_TEST_FAIL_RANK=R. */
int shard_agree(const struct shard *shard, int err, struct output *out);
/* Collective. --tol: rank 0 has tuned (err its outcome); the options it
 * chose, and err, are given to every rank. */
int shard_share_tuning(const struct shard *shard, struct run_options *opts, int err);

/* Collective. The job's statistics into *stats from each rank's (count
 * trajectories), and the job's spread over ranks into *job. */
void shard_reduce_stats(const struct shard *shard, long count, picard_stats *stats,
			struct shard_job *job);
/* Collective. The slowest rank's time of each of n values (--repeat's
 * median and min). */
void shard_max(const struct shard *shard, double *values, int n);
/* Collective. Sums over the ranks, in place. */
void shard_sum(const struct shard *shard, long *values, int n);
/* The ranks line of the summary (nothing alone). */
void shard_print_summary(const struct shard *shard, const struct shard_job *job);
/* The mpi line, near the end: the time the reductions and the MPI-IO
 * write of --out took (nothing alone). */
void shard_print_traffic(const struct shard *shard);
/* Collective. The job's failed trajectories: each rank's first shown (at
 * most cap) and count in; on rank 0 the first cap of the job (by index)
 * and on every rank the job's count out. */
void shard_gather_failures(const struct shard *shard, struct shard_failure *shown,
			   long *nshown, long cap, long *failed);
/* Collective. The --check result of the job from each rank's (global
 * trajectory indices). err: this rank's check, agreed on first
 * (shard_agree, out its output); returns the agreed error. */
int shard_reduce_check(const struct shard *shard, int err, struct output *out,
		       picard_check_result *res);

/* Collective. --out: rank 0 checks the path and creates the temporary file
 * (output_open), every rank learns its name. Returns 0 or CLI_EUSAGE
 * (every rank) after rank 0's message. */
int shard_output_open(const struct shard *shard, struct output *out, const char *path);
/* Collective. Every rank writes its rows of res into the one file (and a
 * .npy's status file), rank 0 renames it into place: the bytes one
 * process writes. Returns 0 or PICARD_EIO (every rank) after a message. */
int shard_output_write(const struct shard *shard, struct output *out,
		       const struct run_results *res);
/* Under mpirun, in batches: a batch's rows of res kept by this rank until
 * shard_output_write places them with the other ranks' (in a temporary
 * file beside the output: memory holds a batch). Local: a failure says so
 * and makes shard_output_write fail on every rank. Nothing alone. */
void shard_output_append(const struct shard *shard, struct output *out,
			 const struct run_results *res);
/* Collective. A file every rank wrote a part of (its rows, in the order
 * of its trajectories; rank 0's with the file's header first) placed as
 * path: the parts in rank order, the bytes one process writes of its one
 * part. Alone, part is renamed to path. Each part is removed. flag names
 * the option in messages. Returns 0 or PICARD_EIO (every rank) after a
 * message. */
int shard_concat(const struct shard *shard, const char *flag, const char *path,
		 const char *part);

/* The MPI side: the functions above, under mpirun (shard_mpi.c's table,
 * picard_shard_mpi_ops in the plugin). */
struct shard_ops {
	void (*start)(struct shard *shard, int *argc, char ***argv);
	int (*finish)(struct shard *shard, int status);
	void (*quiet)(const struct shard *shard);
	int (*quiet_begin)(const struct shard *shard);
	void (*quiet_end)(const struct shard *shard, int saved, int err);
	int (*split)(struct shard *shard, long total, long align, long *count);
	int (*agree)(const struct shard *shard, int err, struct output *out);
	int (*share_tuning)(const struct shard *shard, struct run_options *opts, int err);
	void (*reduce_stats)(const struct shard *shard, long count, picard_stats *stats,
			     struct shard_job *job);
	void (*max)(const struct shard *shard, double *values, int n);
	void (*sum)(const struct shard *shard, long *values, int n);
	void (*print_summary)(const struct shard *shard, const struct shard_job *job);
	void (*print_traffic)(const struct shard *shard);
	void (*gather_failures)(const struct shard *shard, struct shard_failure *shown,
				long *nshown, long cap, long *failed);
	int (*reduce_check)(const struct shard *shard, int err, struct output *out,
			    picard_check_result *res);
	int (*output_open)(const struct shard *shard, struct output *out, const char *path);
	int (*output_write)(const struct shard *shard, struct output *out,
			    const struct run_results *res);
	int (*output_append)(const struct shard *shard, struct output *out,
			     const struct run_results *res);
	int (*concat)(const struct shard *shard, const char *flag, const char *path,
		      const char *part);
};

#endif
