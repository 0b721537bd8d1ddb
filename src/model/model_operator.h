/* model_operator.h - a semi-linear model's linear part A (picard_model.op,
 * x' = A x + g) as a matrix on the host, and the check that the model's
 * declaration of it agrees with its rhs (src/model/model_operator.c). */
#ifndef PICARD_MODEL_OPERATOR_H
#define PICARD_MODEL_OPERATOR_H

#include "linsolve/sparse.h"
#include "picard.h"

#ifdef __cplusplus
extern "C" {
#endif

/* shift I + scale A for params (NULL: the defaults) into *a, a CSR matrix
 * with its columns in increasing order and every diagonal stored: a
 * stencil through picard_stencil_1d/_2d from the model's k_faces, a CSR
 * operator from its csr. PICARD_EINVAL, the detail naming the model and
 * the part, for an operator that breaks the contract (no op, a k not
 * finite or negative, a CSR pattern out of range or unsorted, a value not
 * finite); PICARD_ENOMEM. picard_sparse_free releases *a. */
int picard_operator_matrix(const picard_model *model, const double *params, double shift,
			   double scale, picard_sparse *a);

/* The contract's rules for an operator that only running it can check
 * (docs/models.md, "Semi-linear models"): at the defaults and at random
 * parameter sets spread +-20% around them, at random states and times of
 * the span, rhs = A x + g to rounding (A from picard_operator_matrix, g
 * from op->nonlinear); the CSR pattern is valid; op->symmetric only where
 * A is symmetric. PICARD_OK for a model without op. PICARD_EINVAL with
 * "model NAME: ..." naming the component, state and parameter set where
 * it breaks. */
int picard_model_check_operator(const picard_model *model);

#ifdef __cplusplus
}
#endif

#endif
