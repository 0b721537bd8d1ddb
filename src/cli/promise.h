/* promise.h - what picard-run promises per trajectory (issue 14): with
 * --tol (or --atol/--rtol) every trajectory it calls ok met the tolerance,
 * checked against GSL rk8pd or bounded by its error estimate; one that did
 * not is tol-exceeded. A configuration that came from tuning is tightened
 * and the members that missed are solved again, a bounded number of times,
 * before any is handed back as failed. With --check alone the same
 * per-trajectory errors are reported, without failing the run.
 */
#ifndef PICARD_CLI_PROMISE_H
#define PICARD_CLI_PROMISE_H

#include "run.h"

/* Allocate the per-trajectory arrays (err, err_est, ref_failed). Returns
 * 0 or PICARD_ENOMEM after a message. */
int promise_allocate(struct run *run);

/* After the solve of a batch: the estimates, the check (every checked
 * trajectory's own error, a failed reference marking its trajectory only),
 * the statuses, and, for a tuned configuration, the members that missed
 * solved again; the batch added to run->tally and run->checked. Returns 0
 * or a library error (reported). */
int promise_keep(struct run *run);

/* After the last batch, once the summary is out: the job's check (under
 * mpirun, every rank's), the verify and retry lines, the check line.
 * Collective. Returns 0 or the error of the check's reduction. */
int promise_finish(struct run *run);

/* The tolerance line of the summary, and an error naming the members
 * that missed it. Returns the exit status's share: CLI_EXIT_OK, or
 * CLI_EXIT_FAILED when a member is tol-exceeded or a check found a
 * non-finite state. */
int promise_report(const struct run *run);

void promise_free(struct run *run);

#endif
