/* krylov.c - the list of Krylov solvers (krylov.h) and what they share
 * (krylov_run.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linsolve/krylov_run.h"

extern const picard_krylov_type picard_krylov_cg, picard_krylov_bicgstab;

const picard_krylov_type *const picard_krylov_list[] = {
	&picard_krylov_cg,
	&picard_krylov_bicgstab,
	NULL,
};

const picard_krylov_type *picard_krylov_named(const char *name)
{
	for (int i = 0; name && picard_krylov_list[i]; i++)
		if (strcmp(picard_krylov_list[i]->name, name) == 0)
			return picard_krylov_list[i];
	return NULL;
}

double krylov_dot(int n, const double *x, const double *y)
{
	double sum = 0;

#pragma omp parallel for reduction(+ : sum) schedule(static) if (n > 65536)
	for (int i = 0; i < n; i++)
		sum += x[i] * y[i];
	return sum;
}

void krylov_axpy(int n, double alpha, const double *x, double *y)
{
	for (int i = 0; i < n; i++)
		y[i] += alpha * x[i];
}

/* ||b - A x|| / ||b|| into run->result, the vector into run->residual. */
static double recompute_residual(krylov_run *run)
{
	picard_sparse_spmv(run->a, run->x, run->residual);
	for (int i = 0; i < run->n; i++)
		run->residual[i] = run->b[i] - run->residual[i];
	run->result->residual = sqrt(krylov_dot(run->n, run->residual, run->residual)) / run->b_norm;
	return run->result->residual;
}

picard_linsolve_code krylov_begin(krylov_run *run, const char *name, const picard_sparse *a,
				  const picard_precond *pc, const double *b, double *x,
				  const picard_krylov_options *opt, picard_krylov_result *result)
{
	static const picard_krylov_options defaults = { 0 };

	if (!opt)
		opt = &defaults;
	*run = (krylov_run){ .name = name, .a = a, .pc = pc, .b = b, .x = x, .result = result,
			     .b_norm = 1 };
	*result = (picard_krylov_result){ .code = PICARD_LINSOLVE_OK };
	if (!a || !pc || !b || !x || a->n < 1 || pc->a != a || opt->rtol < 0 ||
	    opt->max_iters < 0)
		return krylov_end(run, PICARD_LINSOLVE_BAD_INPUT, 0,
				  "no matrix, a preconditioner set up for another, or a "
				  "negative rtol or iteration limit");
	run->n = a->n;
	run->rtol = opt->rtol > 0 ? opt->rtol : 1e-10;
	run->max_iters = opt->max_iters > 0 ? opt->max_iters : 10 * run->n + 100;
	run->residual = malloc(sizeof(double) * run->n);
	if (!run->residual)
		return krylov_end(run, PICARD_LINSOLVE_NO_MEMORY, 0, "%d unknowns", run->n);
	run->b_norm = sqrt(krylov_dot(run->n, b, b));
	if (!isfinite(run->b_norm))
		return krylov_end(run, PICARD_LINSOLVE_NONFINITE, 0, "in the right-hand side");
	if (run->b_norm == 0) {
		memset(x, 0, sizeof(double) * run->n);
		run->b_norm = 1;
		return krylov_end(run, PICARD_LINSOLVE_OK, 0, NULL);
	}
	if (!isfinite(recompute_residual(run)))
		return krylov_end(run, PICARD_LINSOLVE_NONFINITE, 0,
				  "in the matrix or the initial guess");
	return PICARD_LINSOLVE_OK;
}

bool krylov_converged(krylov_run *run)
{
	/* a solve krylov_begin already ended (b = 0: x = 0) has converged;
	 * its residual vector is gone */
	return !run->residual || recompute_residual(run) <= run->rtol;
}

picard_linsolve_code krylov_end(krylov_run *run, picard_linsolve_code code, int iters,
				const char *detail, ...)
{
	picard_krylov_result *result = run->result;
	char *out = result->message;
	size_t room = sizeof result->message;
	int used;

	result->code = code;
	result->iters = iters;
	if (run->residual && run->n > 0)
		recompute_residual(run);
	used = snprintf(out, room, "%s: %s", run->name, picard_linsolve_strerror(code));
	if (used < 0 || (size_t)used >= room)
		goto out;
	out += used, room -= used;
	if (code == PICARD_LINSOLVE_OK || code == PICARD_LINSOLVE_NOT_CONVERGED) {
		snprintf(out, room, " after %d iterations: residual %.3g %s rtol %.3g", iters,
			 result->residual, code == PICARD_LINSOLVE_OK ? "<=" : ">", run->rtol);
	} else if (detail) {
		va_list args;

		snprintf(out, room, " (iteration %d): ", iters);
		used = strlen(out);
		va_start(args, detail);
		vsnprintf(out + used, room - used, detail, args);
		va_end(args);
	}
out:
	free(run->residual);
	run->residual = NULL;
	return code;
}
