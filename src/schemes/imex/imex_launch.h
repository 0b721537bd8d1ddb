/* imex_launch.h - what the imex schemes' run-time compiled kernel
 * (kernels/imex_kernel.cuh) is given by the host loop that drives it
 * (kernels/imex/engine.cu), as plain C: the model's parts that only its
 * text has, k on the faces and g, evaluated for a chunk of members. */
#ifndef PICARD_IMEX_LAUNCH_H
#define PICARD_IMEX_LAUNCH_H

/* The phases of picard::picard_imex_kernel. */
enum picard_imex_phase {
	PICARD_IMEX_K_FACES = 0,   /* a thread per member: its k faces */
	PICARD_IMEX_NONLINEAR = 1, /* a thread per member, step and stage: g */
};

#define PICARD_IMEX_LAUNCH_STAGES 2

struct picard_imex_launch {
	long ntraj;          /* members of the chunk */
	int dim;             /* unknowns of a member */
	int stages;          /* s: stages per step */
	int steps;           /* m - 1: steps per window */
	double h;            /* step */
	double t_window;     /* the window's start */
	double c[PICARD_IMEX_LAUNCH_STAGES]; /* stage q at t_j + c[q] h */
	const double *params; /* device, SoA [q][ntraj] */
	/* stage values and g at them: element k of (step j, stage q, member
	 * i) at ((j s + q) ntraj + i) dim + k, a member's state contiguous,
	 * as the model's functions take it */
	const double *stage;
	double *g;
	const int *sweeping; /* member i's at sweeping[i * sweeping_stride]:
				nonzero while its window sweeps */
	long sweeping_stride;
	double *kx, *ky;     /* k on the faces, kx_len and ky_len per member */
	long kx_len, ky_len;
};

#endif
