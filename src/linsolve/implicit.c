/* implicit.c - the solvers of an implicit stage's (I - gamma h A) y = r
 * (implicit.h): their list and names, the choice by operator, and the two
 * families' setup and solve: the tridiagonal methods over a stencil's
 * bands (1D here; 2D by ADI, adi.c) and the Krylov solvers over M
 * assembled to CSR (stencil.c's builders, or the model's CSR matrix). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linsolve/implicit.h"

#define DEFAULT_RTOL 1e-10
/* ADI's iterations per solve at most: a cycle of parameters gains a
 * digit or more (adi.c); hundreds is a solve that is not converging */
#define DEFAULT_ADI_MAXIT 500
/* Neumann's terms past Jacobi's: two Jacobi sweeps per application */
#define NEUMANN_DEGREE 2

static const char *const linsolver_names[] = {
	[PICARD_LINSOLVER_AUTO] = "auto",
	[PICARD_LINSOLVER_THOMAS] = "thomas",
	[PICARD_LINSOLVER_CHECKERBOARD] = "checkerboard",
	[PICARD_LINSOLVER_PCR] = "pcr",
	[PICARD_LINSOLVER_CUSPARSE] = "cusparse",
	[PICARD_LINSOLVER_CG] = "cg",
	[PICARD_LINSOLVER_BICGSTAB] = "bicgstab",
};
#define NLINSOLVERS ((int)(sizeof(linsolver_names) / sizeof(linsolver_names[0])))

static const char *const precond_names[] = {
	[PICARD_PRECOND_AUTO] = "auto",
	[PICARD_PRECOND_NONE] = "none",
	[PICARD_PRECOND_JACOBI] = "jacobi",
	[PICARD_PRECOND_NEUMANN] = "neumann",
};
#define NPRECONDS ((int)(sizeof(precond_names) / sizeof(precond_names[0])))

const char *picard_linsolver_name(picard_linsolver linsolver)
{
	return (int)linsolver >= 0 && (int)linsolver < NLINSOLVERS ? linsolver_names[linsolver] :
									   NULL;
}

int picard_linsolver_parse(const char *name)
{
	for (int i = 0; name && i < NLINSOLVERS; i++)
		if (strcmp(name, linsolver_names[i]) == 0)
			return i;
	return -1;
}

const char *picard_preconditioner_name(picard_preconditioner precond)
{
	return (int)precond >= 0 && (int)precond < NPRECONDS ? precond_names[precond] : NULL;
}

int picard_preconditioner_parse(const char *name)
{
	for (int i = 0; name && i < NPRECONDS; i++)
		if (strcmp(name, precond_names[i]) == 0)
			return i;
	return -1;
}

/* The failure's words into s->message, y NaN; returns code. */
static picard_linsolve_code solve_failed(picard_implicit *s, double *y, picard_linsolve_code code,
					 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static picard_linsolve_code solve_failed(picard_implicit *s, double *y, picard_linsolve_code code,
					 const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vsnprintf(s->message, sizeof(s->message), fmt, args);
	va_end(args);
	for (int i = 0; y && i < s->n; i++)
		y[i] = NAN;
	return code;
}

/* A solver's common part, allocated for setup. */
static picard_implicit *implicit_new(const picard_implicit_type *self, const picard_operator *op,
				     double gamma_h, const picard_implicit_config *cfg)
{
	picard_implicit *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->type = self;
	s->op = op;
	s->n = op->nx * op->ny; /* every kind: nx ny = dim */
	s->gamma_h = gamma_h;
	s->cfg = *cfg;
	s->pc.failed_row = -1;
	return s;
}

/* ---- tridiagonal: a 1D stencil's one system, a 2D one's lines by ADI ---- */

static picard_linsolve_code tridiag_setup(const picard_implicit_type *self,
					  const picard_operator *op, const double *params,
					  double gamma_h, const picard_implicit_config *cfg,
					  picard_implicit **out)
{
	picard_implicit *s = *out = implicit_new(self, op, gamma_h, cfg);
	const int n = op->nx;
	const double scale = gamma_h / (op->dx * op->dx);
	double *k_face;

	if (!s)
		return PICARD_LINSOLVE_NO_MEMORY;
	if (op->kind == PICARD_OP_STENCIL_2D)
		return picard_adi_setup(s, params);
	s->lower = malloc(sizeof(double) * 4 * (n + 1));
	s->line_status = malloc(sizeof(*s->line_status));
	if (!s->lower || !s->line_status)
		return PICARD_LINSOLVE_NO_MEMORY;
	s->diag = s->lower + n, s->upper = s->diag + n, k_face = s->upper + n;
	op->k_faces(params, k_face, NULL);
	/* M = I - gamma h A, A's row i (k_{i+1} (u_{i+1} - u_i) - k_i (u_i -
	 * u_{i-1})) / dx^2 (sparse.h) */
	for (int i = 0; i < n; i++) {
		s->lower[i] = -scale * k_face[i];
		s->upper[i] = -scale * k_face[i + 1];
		s->diag[i] = 1 + scale * (k_face[i] + k_face[i + 1]);
	}
	return PICARD_LINSOLVE_OK;
}

static picard_linsolve_code tridiag_solve(picard_implicit *s, const double *r, double *y)
{
	const picard_tridiag_type *method = s->type->tridiag;
	picard_tridiag_batch batch = {
		.lower = s->lower, .diag = s->diag, .upper = s->upper, .rhs = r, .x = y,
		.n = s->n, .count = 1, .row_stride = 1, .system_stride = s->n,
	};
	picard_linsolve_code code;

	if (s->adi)
		return picard_adi_solve(s, r, y);
	s->iters = 1;
	code = method->solve(method, &batch, s->line_status);
	if (code != PICARD_LINSOLVE_OK)
		return solve_failed(s, y, code, "%s: %s (row %d of %d)", method->name,
				    picard_linsolve_strerror(code), s->line_status[0].row, s->n);
	return PICARD_LINSOLVE_OK;
}

static void tridiag_release(picard_implicit *s)
{
	if (!s)
		return;
	picard_adi_release(s);
	free(s->lower);
	free(s->line_status);
	free(s);
}

/* ---- Krylov: M assembled to CSR --------------------------------------- */

/* M = I - gamma_h A from the model's CSR matrix: every row keeps its
 * pattern, with a diagonal entry added where A has none. */
static picard_linsolve_code csr_shifted(const picard_operator *op, const double *params,
					double gamma_h, picard_sparse *m)
{
	const int n = op->nx * op->ny;
	int *row_start = malloc(sizeof(int) * (n + 1)), *col = malloc(sizeof(int) * op->nnz);
	double *val = malloc(sizeof(double) * op->nnz);
	picard_linsolve_code code = PICARD_LINSOLVE_NO_MEMORY;
	int filled = 0;

	if (!row_start || !col || !val)
		goto out;
	op->csr(params, row_start, col, val);
	code = picard_sparse_alloc_csr(n, row_start[n] + n, m);
	if (code != PICARD_LINSOLVE_OK)
		goto out;
	for (int i = 0; i < n; i++) {
		bool diagonal = false;

		for (int k = row_start[i]; k < row_start[i + 1]; k++) {
			if (!diagonal && col[k] > i) {
				picard_sparse_push(m, &filled, i, 1.0);
				diagonal = true;
			}
			if (col[k] == i && !diagonal) {
				picard_sparse_push(m, &filled, i, 1.0 - gamma_h * val[k]);
				diagonal = true;
				continue;
			}
			/* a repeated entry adds up (picard_sparse_entry) */
			picard_sparse_push(m, &filled, col[k], -gamma_h * val[k]);
		}
		if (!diagonal)
			picard_sparse_push(m, &filled, i, 1.0);
		picard_sparse_end_row(m, i, filled);
	}
out:
	free(row_start);
	free(col);
	free(val);
	return code;
}

picard_linsolve_code picard_implicit_assemble(const picard_operator *op, const double *params,
					      double gamma_h, picard_sparse *m)
{
	const int nx = op->nx, ny = op->kind == PICARD_OP_STENCIL_2D ? op->ny : 1;
	double *kx, *ky;
	picard_linsolve_code code;

	if (op->kind == PICARD_OP_CSR)
		return csr_shifted(op, params, gamma_h, m);
	kx = malloc(sizeof(double) * ((size_t)(nx + 1) * ny + (size_t)nx * (ny + 1)));
	if (!kx)
		return PICARD_LINSOLVE_NO_MEMORY;
	ky = kx + (size_t)(nx + 1) * ny;
	op->k_faces(params, kx, op->kind == PICARD_OP_STENCIL_2D ? ky : NULL);
	code = op->kind == PICARD_OP_STENCIL_2D ?
		picard_stencil_2d(nx, ny, op->dx, op->dy, kx, ky, 1, -gamma_h, m) :
		picard_stencil_1d(nx, op->dx, kx, 1, -gamma_h, m);
	free(kx);
	return code;
}

static picard_linsolve_code krylov_setup(const picard_implicit_type *self,
					 const picard_operator *op, const double *params,
					 double gamma_h, const picard_implicit_config *cfg,
					 picard_implicit **out)
{
	picard_implicit *s = *out = implicit_new(self, op, gamma_h, cfg);
	picard_linsolve_code code;

	if (!s)
		return PICARD_LINSOLVE_NO_MEMORY;
	code = picard_implicit_assemble(op, params, gamma_h, &s->matrix);
	if (code != PICARD_LINSOLVE_OK)
		return solve_failed(s, NULL, code, "%s: assembling I - gamma h A: %s", self->name,
				    picard_linsolve_strerror(code));
	if (!picard_preconditioner_name(cfg->precond) || cfg->precond == PICARD_PRECOND_AUTO)
		return solve_failed(s, NULL, PICARD_LINSOLVE_BAD_INPUT, "%s: preconditioner %d not "
				    "settled (picard_implicit_settle)", self->name, (int)cfg->precond);
	code = picard_precond_setup(&s->pc, picard_precond_named(precond_names[cfg->precond]),
				    &s->matrix, NEUMANN_DEGREE);
	if (code != PICARD_LINSOLVE_OK)
		return solve_failed(s, NULL, code, "%s: preconditioner %s: %s (row %d)", self->name,
				    precond_names[cfg->precond], picard_linsolve_strerror(code),
				    s->pc.failed_row);
	return PICARD_LINSOLVE_OK;
}

static picard_linsolve_code krylov_solve(picard_implicit *s, const double *r, double *y)
{
	const picard_krylov_options opt = { .rtol = s->cfg.rtol, .max_iters = s->cfg.maxit };
	picard_krylov_result result;
	picard_linsolve_code code;

	code = s->type->krylov_type->solve(&s->matrix, &s->pc, r, y, &opt, &result);
	s->iters = result.iters;
	s->residual = result.residual;
	if (code != PICARD_LINSOLVE_OK)
		return solve_failed(s, y, code, "%s", result.message);
	return PICARD_LINSOLVE_OK;
}

static void krylov_release(picard_implicit *s)
{
	if (!s)
		return;
	picard_precond_free(&s->pc);
	picard_sparse_free(&s->matrix);
	free(s);
}

double picard_implicit_residual(const picard_implicit *s, const double *r, const double *y,
				double *work)
{
	if (s->adi) {
		picard_adi_apply(s, y, work);
	} else if (s->type->krylov) {
		picard_sparse_spmv(&s->matrix, y, work);
	} else {
		for (int i = 0; i < s->n; i++)
			work[i] = s->diag[i] * y[i] + (i > 0 ? s->lower[i] * y[i - 1] : 0) +
				  (i < s->n - 1 ? s->upper[i] * y[i + 1] : 0);
	}
	return picard_relative_residual(s->n, r, work);
}

/* ---- the list ---------------------------------------------------------- */

extern const picard_krylov_type picard_krylov_cg, picard_krylov_bicgstab;

#define STENCILS (PICARD_OP_BIT(PICARD_OP_STENCIL_1D) | PICARD_OP_BIT(PICARD_OP_STENCIL_2D))
#define ANY_OPERATOR (STENCILS | PICARD_OP_BIT(PICARD_OP_CSR))

#define TRIDIAG_TYPE(ID, NAME, METHOD, SUMMARY)                                              \
	static const picard_implicit_type implicit_##NAME = {                                \
		.id = ID, .name = #NAME, .summary = SUMMARY, .kinds = STENCILS,             \
		.tridiag = METHOD, .setup = tridiag_setup, .solve = tridiag_solve,           \
		.release = tridiag_release,                                                  \
	}

TRIDIAG_TYPE(PICARD_LINSOLVER_THOMAS, thomas, &picard_tridiag_thomas,
	     "Thomas's algorithm on the stencil's lines (2D: Peaceman-Rachford ADI)");
TRIDIAG_TYPE(PICARD_LINSOLVER_CHECKERBOARD, checkerboard, &picard_tridiag_checkerboard,
	     "checkerboard Thomas on the stencil's lines (2D: Peaceman-Rachford ADI)");
TRIDIAG_TYPE(PICARD_LINSOLVER_PCR, pcr, &picard_tridiag_pcr,
	     "parallel cyclic reduction on the stencil's lines (2D: Peaceman-Rachford ADI)");

/* cuSPARSE's gtsv2StridedBatch: on the CUDA backend alone (no setup here) */
static const picard_implicit_type implicit_cusparse = {
	.id = PICARD_LINSOLVER_CUSPARSE, .name = "cusparse",
	.summary = "cuSPARSE gtsv2StridedBatch on the stencil's lines (CUDA backend only)",
	.kinds = STENCILS,
};

static const picard_implicit_type implicit_cg = {
	.id = PICARD_LINSOLVER_CG, .name = "cg",
	.summary = "preconditioned conjugate gradients on I - gamma h A in CSR (symmetric A)",
	.kinds = ANY_OPERATOR, .needs_symmetric = true, .krylov = true,
	.krylov_type = &picard_krylov_cg,
	.setup = krylov_setup, .solve = krylov_solve, .release = krylov_release,
};

static const picard_implicit_type implicit_bicgstab = {
	.id = PICARD_LINSOLVER_BICGSTAB, .name = "bicgstab",
	.summary = "preconditioned BiCGStab on I - gamma h A in CSR (any A)",
	.kinds = ANY_OPERATOR, .krylov = true,
	.krylov_type = &picard_krylov_bicgstab,
	.setup = krylov_setup, .solve = krylov_solve, .release = krylov_release,
};

const picard_implicit_type *const picard_implicit_list[] = {
	&implicit_thomas,
	&implicit_checkerboard,
	&implicit_pcr,
	&implicit_cusparse,
	&implicit_cg,
	&implicit_bicgstab,
	NULL,
};

const picard_implicit_type *picard_implicit_of(picard_linsolver id)
{
	for (int i = 0; picard_implicit_list[i]; i++)
		if (picard_implicit_list[i]->id == id)
			return picard_implicit_list[i];
	return NULL;
}

/* The refusal's words into why; returns NULL. */
static const picard_implicit_type *refuse(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static const picard_implicit_type *refuse(char *why, size_t len, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vsnprintf(why, len, fmt, args);
	va_end(args);
	return NULL;
}

const picard_implicit_type *picard_implicit_choose(const picard_operator *op,
						   picard_linsolver which,
						   picard_preconditioner precond,
						   bool cli_names, char *why, size_t len)
{
	const char *solver_opt = cli_names ? "--linsolve " : "linsolve = ";
	const char *precond_opt = cli_names ? "--precond " : "precond = ";
	const picard_implicit_type *type;

	if (!picard_preconditioner_name(precond))
		return refuse(why, len, "%s%d unknown (none, jacobi or neumann)", precond_opt,
			      (int)precond);
	if (which == PICARD_LINSOLVER_AUTO)
		which = op->kind != PICARD_OP_CSR ? PICARD_LINSOLVER_THOMAS :
			op->symmetric ? PICARD_LINSOLVER_CG : PICARD_LINSOLVER_BICGSTAB;
	type = picard_implicit_of(which);
	if (!type)
		return refuse(why, len, "%s%d unknown (thomas, checkerboard, pcr, cusparse, cg or "
			      "bicgstab)", solver_opt, (int)which);
	if (!(type->kinds & PICARD_OP_BIT(op->kind)))
		return refuse(why, len, "%s%s: a tridiagonal solver, for a stencil operator (1D; 2D "
			      "by ADI); this operator is a CSR matrix: cg (symmetric) or bicgstab",
			      solver_opt, type->name);
	if (type->needs_symmetric && !op->symmetric)
		return refuse(why, len, "%s%s: the operator is not symmetric, and cg needs a "
			      "symmetric positive definite matrix: bicgstab, or a tridiagonal "
			      "solver for a stencil", solver_opt, type->name);
	if (precond != PICARD_PRECOND_AUTO && !type->krylov)
		return refuse(why, len, "%s%s: %s%s takes no preconditioner (cg and bicgstab do)",
			      precond_opt, precond_names[precond], solver_opt, type->name);
	return type;
}

picard_implicit_config picard_implicit_settle(const picard_implicit_type *type,
					      const picard_operator *op,
					      picard_preconditioner precond, double rtol,
					      int maxit)
{
	const long n = (long)op->nx * op->ny;
	picard_implicit_config c = { .precond = precond, .rtol = rtol, .maxit = maxit };

	if (type->krylov && c.precond == PICARD_PRECOND_AUTO)
		c.precond = PICARD_PRECOND_JACOBI;
	if (c.rtol == 0)
		c.rtol = DEFAULT_RTOL;
	if (c.maxit == 0)
		c.maxit = type->krylov ? (int)(10 * n + 100 < 1000000 ? 10 * n + 100 : 1000000) :
			  DEFAULT_ADI_MAXIT;
	return c;
}
