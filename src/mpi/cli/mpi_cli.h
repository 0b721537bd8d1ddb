/* mpi_cli.h - what the two files of picard-run's MPI plugin share
 * (shard_mpi.c, output_mpi.c): the --out writers for its table of
 * shard.h operations, and rank 0's account of what the ranks spend talking
 * to each other (the reductions of the summary, check and failures; the
 * MPI-IO write), for the "mpi" line of the summary and bench/mpi/. */
#ifndef PICARD_MPI_CLI_H
#define PICARD_MPI_CLI_H

#include "shard.h"

/* shard_output_open() and shard_output_write() under mpirun. */
int mpi_output_open(const struct shard *shard, struct output *out, const char *path);
/* A batch's rows of res kept by this rank until mpi_output_write places
 * them with the others' (picard-run in batches). Local; 0 or PICARD_EIO
 * after a message. */
int mpi_output_append(const struct shard *shard, struct output *out,
		      const struct run_results *res);
/* The batches kept and not written (a run that failed) removed. */
void mpi_output_forget(void);
int mpi_output_write(const struct shard *shard, struct output *out,
		     const struct run_results *res);
/* shard_concat() under mpirun. */
int mpi_concat(const struct shard *shard, const char *flag, const char *path, const char *part);

/* One reduction took seconds. */
void traffic_note_reduction(double seconds);
/* The output (bytes, all ranks' together) was written in seconds. */
void traffic_note_write(double seconds, double bytes);

#endif
