/* newton.h - Lobatto IIIA collocation (the lobatto scheme's equations,
 * lobatto.h) over many windows at once, solved by Newton's method across
 * windows (issue 17; DEER, Lim et al. 2024). Linearised around the current
 * iterate, each window's collocation system is a linear one whose solution
 * is an affine map of its start, x_{w+1} = A_w x_w + b_w; the maps are
 * composed across the windows (a scan of affine maps: here in order, on the
 * host) and the nodes follow from the starts. Converged, the answer is the
 * lobatto scheme's: the window length is set by accuracy, not by the
 * contraction of Picard sweeps. One trajectory on the host, in double: the
 * reference of the scheme's kernels to come. */
#ifndef PICARD_NEWTON_H
#define PICARD_NEWTON_H

#include "picard.h"

struct picard_lobatto;

struct picard_newton_problem {
	const picard_model *model;
	const double *params;   /* the trajectory's, model->nparams */
	double t0, window;      /* span start, window length H */
	long windows;           /* W */
	int m;                  /* nodes per window, 2..32, the start first */
	/* the window's collocation (src/schemes/lobatto/lobatto.h): picard_lobatto_build
	 * (Lobatto IIIA) or picard_radau_build (Radau IIA, m-1 stages) */
	int (*collocation)(int m, struct picard_lobatto *lob);
	/* roots checked against the linearly implicit Euler step from the
	 * window's start (src/schemes/newton/newton_rules.h): a stiff scheme's */
	bool check_predictor;
	int block;              /* windows iterated together (the sliding
				   horizon), 1..W */
	int max_iterations;     /* Newton iterations a window may take as the
				   block's first (its start exact) */
	double atol, rtol;      /* converged: every node's last change within
				   atol + rtol |x| */
	double bound;           /* |x| past this is divergence */
	/* Called for each window once final, in order: its m nodes (m*n,
	 * node j at t0 + w H + offset_j), or NULL. */
	void (*window_done)(void *ctx, long w, const double *nodes);
	void *ctx;
};

struct picard_newton_result {
	picard_traj_status status;
	long fail_window;   /* -1, or the window it failed (or first did not
			       converge) in */
	long iterations;    /* Newton iterations of the blocks, all together:
			       the serial chain */
	int iterations_max; /* most iterations one window took as the block's
			       first */
	long linearisations; /* windows linearised, all together: m right-hand
			       sides and Jacobians each */
	int linearisations_max; /* most times one window was linearised */
};

/* Integrate from x0 (model->dim) through the windows: window_ends[w*dim +
 * k] the state at the end of window w (window_ends may be NULL: then only
 * window_done sees them). A window that does not converge
 * within max_iterations keeps its last iterate and the trajectory goes on
 * (NOT_CONVERGED, as the Picard schemes report it); non-finite states,
 * |x| > bound or a converged window that is no solution (IMPLAUSIBLE, src/
 * schemes/window_plausible.h) stop it. Returns PICARD_OK or an error (bad problem, out of
 * memory). */
int picard_newton_trajectory(const struct picard_newton_problem *pb, const double *x0,
			     double *window_ends, struct picard_newton_result *result);

#endif
