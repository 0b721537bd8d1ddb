/* radau5_hairer.h - radau5 on the problems of Hairer's own RADAU5 drivers,
 * with radau5.f's counts, callable from C: the Criterion suite
 * (test_radau5.c) holds the scheme to Hairer's code with it. */
#ifndef PICARD_TESTS_RADAU5_HAIRER_H
#define PICARD_TESTS_RADAU5_HAIRER_H

#ifdef __cplusplus
extern "C" {
#endif

/* radau5.f's statistics (IWORK(14..20), NFCN without the driver's +1)
 * and the end state. */
typedef struct radau5_hairer_run {
	long fcn, jac, step, accept, reject, dec, sol;
	double y[3];
	int status; /* picard_traj_status */
} radau5_hairer_run;

/* The drivers' problems, with their analytic Jacobians:
 * van der Pol in Hairer's scaling, y1' = y2, y2' = ((1 - y1^2) y2 - y1) /
 * 1e-6 (dr1_radau5.f), and Robertson's kinetics (k = 0.04, 1e4, 3e7). */
typedef enum { RADAU5_HAIRER_VDP, RADAU5_HAIRER_ROBERTSON } radau5_hairer_problem;

/* From y0 at 0 to t1, scalar rtol and atol as radau5.f takes them (its
 * tolerance transform applied), first step h0. */
radau5_hairer_run radau5_hairer_solve(radau5_hairer_problem problem, const double *y0, double t1,
				      double rtol, double atol, double h0);

#ifdef __cplusplus
}
#endif

#endif
