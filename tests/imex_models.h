/* imex_models.h - semi-linear test models x' = A x + g built in C (the
 * reference and the CPU backend need only their host side): each a
 * picard_model with an operator (picard_model.op) and rhs = A x + g, its
 * Jacobian for the reference's msbdf. Inputs no scheme was tuned for:
 * variable coefficients, a grid that is not square, odd sizes. */
#ifndef PICARD_TESTS_IMEX_MODELS_H
#define PICARD_TESTS_IMEX_MODELS_H

#include "picard.h"

/* u_t = (k(x) u_x)_x + r u (1 - s u) on 31 points of (0, 1), u = 0 at
 * the ends, k(x) = k (1 + x/2); parameters k (1), r (1), s (1); [0, 0.4] */
extern const picard_model imex_heat1d;
/* the same on a 9 x 7 grid of (0, 1)^2, k(x, y) = k (1 + x/2 + y/4) on
 * faces across x, k (1 + y/2) across y; parameters k (0.5), r (1) */
extern const picard_model imex_heat2d;
/* the symmetric CSR operator of diffusion on a ring of 24 points
 * (periodic: not tridiagonal), reaction r u (1 - u); k (0.3), r (1) */
extern const picard_model imex_ring;
/* u_t = k u_xx - v u_x + r u (1 - u), 31 points, central differences: a
 * non-symmetric CSR operator; k (0.2), v (2), r (1) */
extern const picard_model imex_convection;
/* two points, dx = 1, u_t = k u_xx and g = 0, gamma h = 1/2: k = -1
 * makes I - gamma h A = [[0, 1/2], [1/2, 0]] (Thomas's first pivot
 * zero), k = -4 [[-3, 2], [2, -3]] (negative definite); k (0.1) */
extern const picard_model imex_tiny;

#endif
