/* event_cases.h - the events tests' cases with closed forms
 * (tests/events/): a bouncing ball's bounce times, its members, a model
 * file whose members fail each in their own way, a stiff model file with
 * events; and the solve and the check the explicit and the stiff
 * schemes' tests share. */
#ifndef PICARD_TESTS_EVENT_CASES_H
#define PICARD_TESTS_EVENT_CASES_H

#include "picard.h"

#define G 9.81

/* The bounce times of a ball from height y0 at speed v0 (up) under
 * gravity g with restitution e, those before t1, into t (at most max):
 * t_1 = (v0 + V)/g, t_{n+1} = t_n + 2 e^n V/g, V = sqrt(v0^2 + 2 g y0).
 * Their count. */
int bounce_times(double y0, double v0, double g, double e, double t1, double *t, int max);

/* Members of bouncing_ball: start (y0, v0) and parameters (g, e), each
 * with fewer bounces than the limit before t1 = 4 (their accumulation
 * points are past it). */
#define BALLS 4
extern const double ball_x0[BALLS][2];
extern const double ball_p[BALLS][2];

/* A model file, event_faults: a bouncing ball whose parameter mode
 * breaks it (1: an event function never finite, 2: a jump to NaN), its
 * limit 30 events and minimum spacing 1e-3; at most EVENT_FAULTS_MAX
 * characters. */
#define EVENT_FAULTS_MAX 2048
extern const char event_faults_text[];

/* Its members, start (y0, v0) and parameters (g, e, mode): 0 good; 1 g
 * never finite; 2 a jump to NaN; 3 chattering (e = 0.5: bounces closer
 * than the spacing); 4 on the floor falling at t0; 5 e = 1 from 1 mm, a
 * bounce every 29 ms: past the limit of 30; 6 good. */
#define EVENT_FAULTS_N 7
extern const double event_faults_x0[EVENT_FAULTS_N][2];
extern const double event_faults_p[EVENT_FAULTS_N][3];

/* A model file, robertson_events: Robertson's kinetics (models/
 * robertson.cu, parameters k1, k2, k3) with two events: mark, y3 rising
 * to p[4] (record), and level, y1 falling to p[3] (terminate); t1 =
 * 1e3. At most EVENT_FAULTS_MAX characters. */
extern const char robertson_events_text[];

/* A solve of model on the CPU backend in double (o's scheme and steps):
 * statuses, final states; the solve's code must be expect. The solver is
 * returned for its event log and stop times. */
picard_solver *event_solve_cpu(const picard_model *model, picard_options o, long ntraj,
			       const double *x0, const double *params, double *x_final,
			       picard_traj_status *status, int expect);

/* The log of a solve of bouncing_ball's BALLS members up to t1 = 4
 * against the closed form: each bounce's time within tol, the state
 * before (y = 0, v falling) and after (v <- -e v); the largest time
 * error into *worst. */
void expect_bounces(const picard_solver *s, const picard_traj_status *status, double tol,
		    const char *what, double *worst);

#endif
