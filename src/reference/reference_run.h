/* reference_run.h - one GSL integration of the reference as
 * src/reference/reference.c sets it up (its driver, the system and the
 * state, its failures in words), for the files of the reference that
 * march it their own way (reference_events.c). Internal. */
#ifndef PICARD_REFERENCE_RUN_H
#define PICARD_REFERENCE_RUN_H

#include <gsl/gsl_odeiv2.h>

#include "picard.h"

/* ref_step()'s word that rk8pd met a stiff stretch: not an error code
 * (those are negative), never returned to a caller of the reference. */
#define REF_STIFF 1

/* The GSL stepper of a reference integration (reference.c's head). */
enum ref_stepper {
	REF_RK8PD, /* explicit Prince-Dormand 8(9): non-stiff models */
	REF_MSBDF, /* implicit BDF of orders 1-5 with the Jacobian: stiff ones */
};

/* What the GSL right-hand side and Jacobian adapters need. */
struct ref_system {
	const picard_model *model; /* whose f is integrated */
	const double *params;      /* nparams values, never NULL */
	double *work;              /* 2*dim (ref_jac) and 3*dim*dim
				      (ref_spectral_radius) scratch */
};

/* Whose reference failed, for the messages: "of trajectory 3", or with
 * no trajectory the model's name in front. */
struct ref_who {
	const picard_model *model; /* the model */
	long traj;                 /* the caller's trajectory, or -1 */
};

/* One integration's GSL state: the system, its driver and the state y.
 * Holds a pointer into itself (sys.params is &rs): open it in place. */
struct ref_run {
	struct ref_system rs;
	gsl_odeiv2_system sys;
	gsl_odeiv2_driver *driver;
	enum ref_stepper stepper;
	long steps;   /* accepted steps so far, all intervals */
	double *y;
};

/* Set r up for model from x0 at rtol = atol = tol with stepper; free it
 * with ref_close() whatever this returned. */
int ref_open(struct ref_run *r, const picard_model *model, const double *params,
	     const double *x0, double tol, enum ref_stepper stepper);
void ref_close(struct ref_run *r);

/* One accepted step of r's stepper from *t toward target (never past it):
 * 0, PICARD_EREF (with the detail) or, for rk8pd, REF_STIFF every so many
 * steps that its step is held by stability. */
int ref_step(struct ref_run *r, const struct ref_who *who, double *t, double target);

/* The stepper (its GSL name) stopped at t with GSL status: PICARD_EREF
 * with a detail in the caller's terms. */
int ref_stopped(const struct ref_who *who, const char *stepper, double t, int status);

/* PICARD_EREF naming the first non-finite component of y at t, else 0. */
int ref_check_state(const struct ref_who *who, double t, const double *y);

#endif
