/* reference_events.h - the GSL reference of a model with events
 * (src/reference/reference_events.c): rk8pd stepped to each record time,
 * each step's crossings located to a few units in the last place of t by
 * Illinois on g over rk8pd steps from the step's start, acted on as the
 * engine acts (src/schemes/events_step.cuh), and one member's run
 * compared with it: the events (count, indices, times, states after) and
 * how it ended. */
#ifndef PICARD_REFERENCE_EVENTS_H
#define PICARD_REFERENCE_EVENTS_H

#include <stdbool.h>

#include "picard.h"

/* One member's events as the reference finds them. The caller gives the
 * arrays, capacity entries each (after: capacity * dim). */
struct ref_events {
	int capacity;              /* entries kept: the first capacity */
	int count;                 /* events fired, all of them */
	int *index;                /* which event, 0 .. nevents - 1 */
	double *time;              /* when */
	double *after;             /* the state after its action */
	picard_traj_status status; /* OK; EVENT: a terminal event stopped
				      it; EVENT_LIMIT, EVENT_FAILED and
				      NONFINITE (a jump's result) as the
				      engine has them */
	double t_stop;             /* where it stopped: +Inf when it reached
				      its end */
};

/* ev's arrays for capacity entries of states of dim (PICARD_ENOMEM when
 * they cannot be had: ev is then as ref_events_free leaves it). */
int ref_events_alloc(struct ref_events *ev, int capacity, int dim);
void ref_events_free(struct ref_events *ev);

/* From x0 at t0 to t_end (the solve's t1; the last time where that is
 * later) at rk8pd's rtol = atol = tol, the states at the ntimes times
 * (non-decreasing, from t0)
 * into out (ntimes * dim): at a time up to an event's the state before
 * its action, NaN past where the member stopped. The model must have
 * events. A failure of the reference itself (PICARD_EREF) names
 * trajectory traj as picard_reference_tol() does. */
int picard_reference_events(const picard_model *model, const double *params,
			    const double *x0, double t0, double t_end,
			    const double *times, long ntimes, double tol, long traj,
			    double *out, struct ref_events *ev);

/* Whether a status is one the events give, an end the reference
 * reproduces (OK included). */
bool picard_event_status(picard_traj_status status);

/* One member's events against the reference's. */
struct event_compare {
	long events;         /* events compared (kept by both) */
	double time_error;   /* the largest |t - t_ref| */
	double time_scaled;  /* the largest |t - t_ref| / (atol + rtol |t_ref|):
				the time scaled as a state's component is */
	double after_scaled; /* the largest scaled error of the states after
				the events */
	double after_error;  /* and the largest |x - x_ref| of them */
	double after_rel_error; /* and of max_k |x - x_ref| / max_k |x_ref| */
	bool mismatch;       /* the count, an index or the end differ */
	char detail[200];    /* the first difference, "member 12: 19
				events, the reference 20" */
};

/* Member i of log (the solve's event log), which ended with status,
 * against ref under tol (both parts 0: absolute errors); member names it
 * in the detail. */
void picard_events_compare(const picard_model *model, const struct ref_events *ref,
			   const picard_event_log *log, long i, picard_traj_status status,
			   const picard_tolerance *tol, long member, struct event_compare *c);

/* Where a member that ended with status stopped by its events: its
 * fail time (picard_solver_fail_times()'s start) for EVENT, EVENT_LIMIT
 * and EVENT_FAILED, +Inf otherwise. The check compares the states at the
 * record times up to the earlier of its and the reference's stops. */
double picard_event_stop(picard_traj_status status, double fail_time);

#endif
