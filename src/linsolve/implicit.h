/* implicit.h - the linear systems of an implicit stage, (I - gamma h A) y = r,
 * A a semi-linear model's operator (picard_model.op), as type objects
 * listed in picard_implicit_list (as the schemes are, src/schemes/scheme.h): the
 * tridiagonal methods of tridiag.h (a 1D stencil is one system; a 2D one
 * is solved by Peaceman-Rachford ADI iteration over its lines, adi.c) and
 * the Krylov solvers of krylov.h over the operator assembled to CSR. A
 * solver is set up for one trajectory's parameters and one gamma h (they
 * fix the matrix) and then solves every stage with it. Host, double. */
#ifndef PICARD_IMPLICIT_H
#define PICARD_IMPLICIT_H

#include <stdbool.h>
#include <stddef.h>

#include "linsolve/krylov.h"
#include "linsolve/tridiag.h"
#include "picard.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The operator kinds a solver applies to: bits 1 << picard_operator_kind. */
#define PICARD_OP_BIT(kind) (1u << (kind))

/* How the iterative solves stop, settled (no zeros): picard_implicit_settle. */
typedef struct picard_implicit_config {
	picard_preconditioner precond; /* Krylov's (never AUTO) */
	double rtol;                   /* ||r - M y|| <= rtol ||r|| */
	int maxit;                     /* iterations per solve at most */
} picard_implicit_config;

struct picard_implicit;

typedef struct picard_implicit_type {
	picard_linsolver id;   /* its value in picard_options.linsolve */
	const char *name;      /* --linsolve NAME */
	const char *summary;   /* the method, one line */
	unsigned kinds;        /* PICARD_OP_BIT of each operator kind it solves */
	bool needs_symmetric;  /* refuses a non-symmetric operator (cg) */
	bool krylov;           /* takes a preconditioner; rtol, maxit apply
				  (a tridiagonal type's apply to ADI, 2D) */
	const picard_tridiag_type *tridiag; /* tridiagonal: the line method */
	const picard_krylov_type *krylov_type; /* Krylov: the iteration */
	/* Set a solver up for op at params with M = I - gamma_h A into *out
	 * (NULL: the CUDA backend's alone). A failure's message is in
	 * (*out)->message when *out is not NULL; release it either way. */
	picard_linsolve_code (*setup)(const struct picard_implicit_type *self,
				      const picard_operator *op, const double *params,
				      double gamma_h, const picard_implicit_config *cfg,
				      struct picard_implicit **out);
	/* M y = r: y holds a guess on entry (the iterative ones start from
	 * it), the solution on return; r and y do not overlap. A failure's
	 * code returned, its words in s->message, y left NaN. */
	picard_linsolve_code (*solve)(struct picard_implicit *s, const double *r, double *y);
	void (*release)(struct picard_implicit *s);
} picard_implicit_type;

/* A solver set up for one matrix M = I - gamma_h A. */
typedef struct picard_implicit {
	const picard_implicit_type *type; /* what solves */
	const picard_operator *op;        /* A, not owned */
	int n;                            /* unknowns */
	double gamma_h;                   /* M's factor */
	picard_implicit_config cfg;       /* the iteration's limits */
	int iters;                        /* iterations of the last solve (a
					     direct one: 1) */
	double residual;                  /* ||r - M y|| / ||r|| of the last
					     iterative solve */
	char message[256];                /* the last failure, in words */
	/* a stencil's tridiagonal bands: 1D, M's own; 2D (ADI), the
	 * couplings of lines across x and across y (adi.c) */
	double *lower, *diag, *upper;
	struct picard_adi *adi;           /* 2D: ADI's state, else NULL */
	/* Krylov: M in CSR and its preconditioner */
	picard_sparse matrix;
	picard_precond pc;
	picard_tridiag_status *line_status; /* a batch's per system */
} picard_implicit;

/* Every solver, NULL-terminated; cusparse is listed (its name and kinds)
 * with no host setup. */
extern const picard_implicit_type *const picard_implicit_list[];
/* The solver of id, or NULL. */
const picard_implicit_type *picard_implicit_of(picard_linsolver id);

/* The solver for op when which is given (AUTO: the operator's default:
 * thomas in 1D, ADI over thomas in 2D, cg for a symmetric CSR operator,
 * bicgstab otherwise), or NULL with why (len) saying what it cannot take:
 * an unknown value, an operator kind it does not solve, cg on an operator
 * not declared symmetric, a preconditioner for a solver that takes none.
 * why begins with the option's name as `what` spells it ("linsolve",
 * "--linsolve"): picard_options' messages and picard-run's alike. */
const picard_implicit_type *picard_implicit_choose(const picard_operator *op,
						   picard_linsolver which,
						   picard_preconditioner precond,
						   bool cli_names, char *why, size_t len);

/* The limits of the iterative solves: rtol, maxit, precond with their
 * defaults for type on op (zero or AUTO: the default). */
picard_implicit_config picard_implicit_settle(const picard_implicit_type *type,
					      const picard_operator *op,
					      picard_preconditioner precond, double rtol,
					      int maxit);

/* M = I - gamma_h A in CSR for any operator kind at params, into *m (the
 * Krylov solvers' matrix; the CUDA backend's too, one a member). */
picard_linsolve_code picard_implicit_assemble(const picard_operator *op, const double *params,
					      double gamma_h, picard_sparse *m);

/* ||r - M y|| / ||r|| for M = I - gamma_h A of solver s, M y computed
 * from the stencil or the CSR matrix; work holds n doubles. */
double picard_implicit_residual(const picard_implicit *s, const double *r, const double *y,
				double *work);

/* What the tridiagonal types share (implicit.c) and ADI's part (adi.c). */
picard_linsolve_code picard_adi_setup(picard_implicit *s, const double *params);
picard_linsolve_code picard_adi_solve(picard_implicit *s, const double *r, double *y);
void picard_adi_release(picard_implicit *s);
/* M y of a 2D stencil solver (adi.c): y + Px y + Py y. */
void picard_adi_apply(const picard_implicit *s, const double *y, double *out);

#ifdef __cplusplus
}
#endif

#endif
