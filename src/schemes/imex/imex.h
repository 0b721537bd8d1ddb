/* imex.h - the two implicit-explicit schemes' stages, shared by their
 * scheme tables (src/schemes/imex/scheme_imex.c) and each backend's part (src/
 * schemes/imex/cpu_imex.c, the CUDA backend's). A step of h from y_j solves, stage by
 * stage, with one matrix M = I - gamma h A for all,
 *     M Y_i = y_j + carry_i (Y_{i-1} - y_j) + gamma h g(t_j + c_i h, G_i)
 * (carry_1 = 0), G_i the stage's value from the previous Picard sweep,
 * and y_{j+1} = Y_s (stiffly accurate). Converged (G_i = Y_i) it is the
 * diagonally implicit method applied to the whole f = A x + g:
 * - imex-euler: implicit Euler, one stage, gamma = c = 1;
 * - imex-sdirk2: Alexander's 2-stage SDIRK (R. Alexander, "Diagonally
 *   implicit Runge-Kutta methods for stiff O.D.E.'s", SIAM J. Numer.
 *   Anal. 14 (1977) 1006-1021, the s = 2 method of its Table 1: gamma =
 *   1 - 1/sqrt(2), a_21 = 1 - gamma, c = (gamma, 1)), order 2, L-stable;
 *   its stage 2's (1 - gamma) h f(Y_1) is written through stage 1's
 *   equation, h f(Y_1) = (Y_1 - y_j) / gamma, so no product with A is
 *   needed: carry_2 = (1 - gamma) / gamma. */
#ifndef PICARD_IMEX_H
#define PICARD_IMEX_H

#include "picard.h"

#define PICARD_IMEX_MAX_STAGES 2

struct picard_imex_method {
	int stages;                            /* s: linear solves per step */
	double gamma;                          /* M = I - gamma h A */
	double c[PICARD_IMEX_MAX_STAGES];      /* stage i at t_j + c_i h */
	double carry[PICARD_IMEX_MAX_STAGES];  /* of Y_{i-1} - y_j, above */
};

/* The method of an imex scheme, or NULL for any other scheme. */
const struct picard_imex_method *picard_imex_method_of(picard_scheme scheme);

#endif
