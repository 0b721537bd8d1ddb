/* traffic.h - what picard-run's ranks spend talking to each other (the
 * reductions of the summary, check and failures; the MPI-IO write of
 * --out), measured by rank 0 for the "mpi" line of the summary
 * (shard_print_traffic) and bench/mpi/. */
#ifndef PICARD_MPI_CLI_TRAFFIC_H
#define PICARD_MPI_CLI_TRAFFIC_H

/* One reduction took seconds. */
void traffic_note_reduction(double seconds);
/* The output (bytes, all ranks' together) was written in seconds. */
void traffic_note_write(double seconds, double bytes);

#endif
