/* host_events.h - a model's events (docs/models.md, "Events") located on
 * the host over a Picard window, in double: after a window converged its
 * nodes are scanned in order, each sub-interval between two nodes as the
 * per-thread schemes scan a step (src/schemes/events_step.cuh, the same
 * rules: src/schemes/event_rules.h), a crossing located by the Illinois
 * method on the scheme's dense output (the window's collocation
 * polynomial), given as a function. The scheme then restarts its window
 * at the event (src/schemes/lobatto/cpu_lobatto.inc). */
#ifndef PICARD_HOST_EVENTS_H
#define PICARD_HOST_EVENTS_H

#include <stdbool.h>

#include "backend.h"
#include "picard.h"

#define PICARD_HOST_EVENTS_MAX 64 /* nevents at most (the contract's) */

/* One trajectory's events. */
struct picard_host_events {
	const picard_events *ev;
	unsigned long long rising, falling; /* bit k: event k wants the direction */
	double g[PICARD_HOST_EVENTS_MAX];   /* g at the current time */
	signed char side[PICARD_HOST_EVENTS_MAX];     /* +1, -1; 0: exactly 0 at t0 so far */
	signed char last_dir[PICARD_HOST_EVENTS_MAX]; /* the direction it last fired, 0: never */
	double last_time[PICARD_HOST_EVENTS_MAX];     /* when */
	int count;                          /* events fired */
};

/* What a scan of a sub-interval decided. */
enum picard_host_event_result {
	PICARD_HOST_EVENT_NONE, /* no event in it */
	PICARD_HOST_EVENT_CUT,  /* an event acted: restart from it */
	PICARD_HOST_EVENT_STOP, /* the trajectory stopped */
};

/* A converged window as the scheme has it: its m nodes (node j's time
 * and state, dim doubles) and its dense output (the state at t). */
struct picard_host_dense {
	int m;
	void (*node)(const void *ctx, int j, double *t, double *x);
	void (*at)(const void *ctx, double t, double *x);
	const void *ctx;
};

/* Where a trajectory's events go, and its state's size and bound. */
struct picard_host_event_run {
	const struct picard_event_store *log; /* NULL: none kept */
	long traj;
	int dim;
	double lim;  /* |x| past this after a jump: diverged */
	double eps;  /* the solve's precision's epsilon */
	double rtol; /* > 0: the location's tolerance is also 1e-3 rtol |h| */
};

/* A scan's verdict: CUT, the event's time (x the state after its
 * actions); STOP, why and the sub-interval it happened in (t .. t_end;
 * x the state it stopped in). */
struct picard_host_event_step {
	double t, t_end;
	picard_traj_status status;
};

/* Start at (t, x) with parameters p: g and its sides; false when g is not
 * finite there. */
bool picard_host_events_start(struct picard_host_events *he, const picard_events *ev, double t,
			      const double *x, const double *p);

/* The sub-interval from (t, x) to (t_new, xn) of a converged window:
 * NONE (he holds g at t_new), CUT or STOP as the result says, the state
 * into x_out. Logged into run->log as they act; he->count counts them.
 * p is the member's own copy of its parameters: a jump may change them
 * (the caller's solve then goes on with them). */
enum picard_host_event_result picard_host_events_step(struct picard_host_events *he,
						       const struct picard_host_event_run *run,
						       double t, const double *x, double t_new,
						       const double *xn, double *p,
						       const struct picard_host_dense *dense,
						       double *x_out,
						       struct picard_host_event_step *step);

/* The events over a converged window: its sub-intervals in order
 * (picard_host_events_step), up to the first that is not NONE. */
enum picard_host_event_result picard_host_events_window(struct picard_host_events *he,
							 const struct picard_host_event_run *run,
							 const struct picard_host_dense *window,
							 double *p, double *x_out,
							 struct picard_host_event_step *step);

#endif
