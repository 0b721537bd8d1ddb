/* members.h - where a run's members are drawn. On the host, into the
 * batch's arrays, as the --init file and a start that depends on a
 * spread parameter need; or where they are solved (picard_solve_drawn: on
 * the device for the CUDA backend), the host then drawing only the rows
 * it reads, the checked members and those solved again (members_at_hand). */
#ifndef PICARD_CLI_MEMBERS_H
#define PICARD_CLI_MEMBERS_H

#include "run.h"

/* Settle run->draw: the members drawn where they are solved, or
 * draw.start NULL where the host draws them (--init; a model whose start
 * depends on a parameter that --spread-param spreads; a start that could
 * pass what --precision holds, which the host's draw names). 0, or
 * PICARD_ENOMEM after a message. */
int members_plan(struct run *run);

/* The batch's draw: run->draw from the batch's first member on. */
struct picard_draw members_of_batch(const struct run *run);

/* Batch member i's row of run->x0 (and of run->params) at hand on the
 * host: drawn now where the batch's rows are drawn on demand
 * (run->rows_on_demand), else there already. Safe from several threads
 * for distinct i. */
void members_at_hand(const struct run *run, long i);

void members_free(struct run *run);

#endif
