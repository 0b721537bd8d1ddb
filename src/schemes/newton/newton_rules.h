/* newton_rules.h - what the newton scheme's host loop (src/newton.c) and
 * its kernels (kernels/newton_kernel.cuh) decide alike: when a window's
 * root is plausible, when a window restarts, and the device's per-
 * trajectory state. Plain C, host and device. */
#ifndef PICARD_NEWTON_RULES_H
#define PICARD_NEWTON_RULES_H

#include <math.h>
#include <stdbool.h>

#include "window_plausible.h"

#ifdef __CUDACC__
#define PICARD_NEWTON_HD __host__ __device__
#else
#define PICARD_NEWTON_HD
#endif

/* A window that becomes the block's first with a last change past this
 * (scaled) is far outside Newton's region of convergence: its iterate came
 * from linearisations around states it never had. It starts afresh from
 * its now exact start instead. */
#define PICARD_NEWTON_FAR_CHANGE 1e4
/* A block's first window, its start exact, that has not converged after
 * this many iterations is stuck near a linearisation that does not hold
 * (the iterate came from far-off neighbours, and Newton's method on the
 * whole block can wander to another root of the collocation equations):
 * it starts afresh from its start, alone, as the serial method would. */
#define PICARD_NEWTON_STUCK_AGE 8
/* Far from its start, Newton's method on a window can converge to a
 * spurious root of the collocation equations, one with states far from
 * the window's start that only exists because H ||J|| is large there
 * (lotka: a root at |x| ~ 5000 from a start at 40). A window's root is
 * plausible when every node is within PLAUSIBLE_GROWTH (|x_w| + atol/rtol)
 * of its start (infinity norm); an implausible root counts only once the
 * window has been iterated from its exact start's constant, as the serial
 * method would, and otherwise restarts from it. */
#define PICARD_NEWTON_PLAUSIBLE_GROWTH 8

/* Whether the m nodes X (m*n, X_0 the start) are a plausible root. */
static inline PICARD_NEWTON_HD bool picard_newton_plausible(const double *X, int n, int m,
							    double atol, double rtol)
{
	double start, far;

	picard_window_motion(X, n, m, &start, &far);
	return far <= PICARD_NEWTON_PLAUSIBLE_GROWTH * (start + (rtol > 0 ? atol / rtol : INFINITY));
}

/* A stiff problem's collocation equations over a long window can have
 * roots that are not the solution's (hires at H = 0.1: a root with x8 at
 * -0.7 from a start at 5e-5, through its quadratic terms), and a window
 * iterated from its neighbours' guesses can converge to one. Nothing in
 * the equations tells them apart; the linearly implicit Euler step from
 * the window's start, dx = (I - H J_0)^-1 H f_0 (L-stable, so a stiff
 * component damps in it as in the solution), does: a window of the
 * solution moves about as it does, a spurious root elsewhere. The
 * newton-radau scheme checks its roots against it: one whose change
 * differs from the predictor's by more than PREDICTOR_DRIFT of the larger
 * of the two (infinity norms; past the iteration's tolerance) is
 * implausible. */
#define PICARD_NEWTON_PREDICTOR_DRIFT 0.5

/* Whether the m nodes X (X_0 the start) end near the predictor's change
 * dx (n); dx not finite (a singular I - H J_0) is never near. */
static inline PICARD_NEWTON_HD bool picard_newton_near_predictor(const double *X,
								 const double *dx, int n,
								 int m, double atol,
								 double rtol)
{
	double moved = 0, predicted = 0, apart = 0, scale = 0;

	for (int k = 0; k < n; k++) {
		const double d = X[(m - 1) * n + k] - X[k];

		if (!isfinite(dx[k]))
			return false;
		moved = fmax(moved, fabs(d));
		predicted = fmax(predicted, fabs(dx[k]));
		apart = fmax(apart, fabs(d - dx[k]));
		scale = fmax(scale, atol + rtol * fabs(X[k]));
	}
	return apart <= PICARD_NEWTON_PREDICTOR_DRIFT * fmax(moved, predicted) + scale;
}

/* Reals of shared memory a window's linearisation holds on the GPU (N =
 * (m-1) n unknowns): M with rows N + 1 apart, [B | -R], and J_l and f_l
 * of its m nodes (kernels/newton_kernel.cuh). */
static inline PICARD_NEWTON_HD int picard_newton_window_reals(int N, int n, int m)
{
	return N * (N + 1) + N * (n + 1) + m * n * n + m * n;
}

/* A trajectory's state on the device between iterations. */
struct picard_newton_control {
	long w0, next;      /* the block: windows w0 .. next-1 */
	long fresh;         /* windows fresh .. next-1 are new this iteration */
	long filled;        /* windows below it were filled before: a refill
			       (the reach pulled back) keeps their count */
	long reached;       /* the first window whose linearisation failed */
	int span;           /* windows the iteration reaches, at most B */
	int done;           /* every window final, or the trajectory failed */
	double last_lead;   /* the first open window's last change */
	int status;         /* picard_traj_status */
	long fail_window;
	long iterations, linearisations;
	int iterations_max, linearisations_max;
};

/* The device's buffers of a chunk of trajectories, each with a ring of B
 * windows (window w in slot w % B). */
struct picard_newton_workspace {
	int B;              /* windows in a trajectory's ring */
	int N;              /* (m-1) n: a window's unknowns */
	int step_threads;   /* threads of a trajectory's step (phase 2) */
	int linearise_warps; /* windows per block of the linearisation, a warp
			       each (phase 1) */
	double *X;          /* [traj][slot][m*n] the nodes */
	double *R;          /* [traj][slot][N*(n+1)]: [B | -R], then [P | q] */
	double *start;      /* [traj][n]: the block's first start, exact */
	double *change;     /* [traj][slot] the last iteration's change */
	double *slope;      /* [traj][slot] the largest |f| of the nodes past
			       the start at the last linearisation (src/
			       window_plausible.h) */
	int *age, *linearised, *trusted; /* [traj][slot] */
	double *predicted;  /* [traj][slot][n]: the linearly implicit Euler
			       step's change, for the predictor check; NULL
			       when the scheme makes none */
	struct picard_newton_control *ctl; /* [traj] */
	int *ndone;         /* trajectories done */
};

#endif
