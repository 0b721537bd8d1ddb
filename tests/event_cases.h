/* event_cases.h - the events tests' cases with closed forms
 * (tests/events/): a bouncing ball's bounce times, its members, a model
 * file whose members fail each in their own way, a stiff model file with
 * events, the members of the other models with events; and the solve
 * and the checks the explicit, stiff and Picard schemes' tests share. */
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

/* The BALLS members' logs of a solve up to t1 = 4 against the closed
 * form, each bounce to within tol; the largest time error into *worst. */
void expect_bounces(const picard_solver *s, const picard_traj_status *status, double tol,
		    const char *what, double *worst);

/* bouncing_ball's BALLS members under scheme (named name) on the CPU,
 * adaptive at rtol = atol = rtol and in fixed steps (K = 50 over output
 * intervals of 0.5), every bounce within 1e-10 of the closed form. */
void expect_ball_bounces(picard_scheme scheme, const char *name, double rtol);

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

/* Members of the other event models (models/NAME.cu), drawn off round
 * numbers, each of a few events over its span t1 (tests/events/
 * test_event_models.c checks them against closed forms or references):
 * start states x0 and parameters p in the models' order. */
#define EVENT_MEMBERS 4
/* impact_oscillator (w, zeta, A, Omega, d, r) to t1 = IMPACT_T1 */
#define IMPACT_T1 120.0
extern const double impact_x0[EVENT_MEMBERS][2];
extern const double impact_p[EVENT_MEMBERS][6];
/* izhikevich (a, b, c, d, I): regular spiking, fast spiking, chattering,
 * intrinsically bursting, to t1 = IZHIKEVICH_T1 (ms) */
#define IZHIKEVICH_T1 400.0
extern const double izhikevich_x0[EVENT_MEMBERS][2];
extern const double izhikevich_p[EVENT_MEMBERS][5];
/* lotka_harvest (a1, b1, c1, a2, b2, c2, H, q): the first two with
 * lotka's self-limitation, the last two without (c1 = c2 = 0: a first
 * integral between harvests), to t1 = HARVEST_T1 */
#define HARVEST_T1 200.0
extern const double harvest_x0[EVENT_MEMBERS][2];
extern const double harvest_p[EVENT_MEMBERS][8];
/* kepler_periapsis (mu, e): bound orbits of eccentricity 0.1, 0.5, 0.9
 * and 0.7, each started off its periapsis, to t1 = PERIAPSIS_T1 (30
 * orbits of the longest) */
#define PERIAPSIS_T1 750.0
void periapsis_members(double x0[EVENT_MEMBERS][4], double p[EVENT_MEMBERS][2]);

/* A model file, robertson_events: Robertson's kinetics (models/
 * robertson.cu, parameters k1, k2, k3) with two events: mark, y3 rising
 * to p[4] (record), and level, y1 falling to p[3] (terminate); t1 =
 * 1e3. At most EVENT_FAULTS_MAX characters. */
extern const char robertson_events_text[];

/* A solve of model on the CPU backend in double (o's scheme and steps):
 * statuses, final states (x_final may be NULL); the solve's code must be
 * expect. The solver is returned for its event log and stop times. */
picard_solver *event_solve_cpu(const picard_model *model, picard_options o, long ntraj,
			       const double *x0, const double *params, double *x_final,
			       picard_traj_status *status, int expect);

/* The rows of a CSV text after its header. */
int csv_rows(const char *text);

/* models/thermostat.cu's switching times from T0 under parameters p (k,
 * Ta, q, low, high, on), low < T0 < high, those before t1 into t and the
 * event of each (0 off at high, 1 on at low) into event (at most max);
 * their count, and T at t1 into *T1. The heater must reach high (Ta +
 * q/k > high) and the room cool below low (Ta < low). */
int thermostat_switches(const double *p, double T0, double t1, double *t, int *event, int max,
			double *T1);

/* Its members: T0, and k, Ta, q, low, high, on. */
#define THERMOSTATS 5
extern const double thermostat_x0[THERMOSTATS];
extern const double thermostat_p[THERMOSTATS][6];

/* A solve of the THERMOSTATS members over [0, 10] against the closed
 * form: each switch (its event and time) and T at t1 to within tol; the
 * largest switching time error. */
double expect_switches(const picard_solver *s, const picard_traj_status *status,
		       const double *x_final, double tol, const char *what);

#endif
