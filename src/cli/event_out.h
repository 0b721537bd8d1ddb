/* event_out.h - picard-run's event log (a model with events): the counts
 * in the summary, and a file with a row per kept entry, members in order,
 * each member's entries in time order: --events FILE, or FILE.events.EXT
 * beside --out FILE.EXT. By the extension:
 *   .csv  header member,event,name,time,before_x1..,after_x1..;
 *   .npy  a structured array of shape (rows,), fields member and event
 *         (int64), time, before (n float64) and after (n).
 * It is written under a temporary name beside FILE and renamed to FILE
 * once the run has solved: a run that fails leaves no partial log (an
 * existing FILE as it was). Under mpirun each rank writes its members'
 * rows, placed together: the bytes one process writes. */
#ifndef PICARD_CLI_EVENT_OUT_H
#define PICARD_CLI_EVENT_OUT_H

#include "run.h"

/* Open FILE's temporary and write the header; 0 or the error, said. */
int events_out_open(struct run *run);
/* The batch's log into the file and the run's counts. */
void events_out_take(struct run *run);
/* The run's events in the summary: how many, and every member whose
 * events the log could not keep (counted, the first named). */
void events_out_report(const struct run *run);
/* Close the temporary and rename it to FILE; 0 or the error, said. */
int events_out_finish(struct run *run);
/* Close and remove the temporary, if one is open (a failed run). */
void events_out_discard(struct run *run);

#endif
