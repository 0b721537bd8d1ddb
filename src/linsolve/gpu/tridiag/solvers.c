/* solvers.c - the list of GPU tridiagonal solvers that the bench and the
 * test run, in the order they are reported, and the methods a scheme
 * names (tridiag.h). */
#include <stdio.h>
#include <string.h>

#include "tridiag/tridiag.h"

const struct tridiag_solver *const tridiag_solvers[] = {
	&tridiag_thomas,
	&tridiag_checkerboard_global,
	&tridiag_checkerboard_shared,
	&tridiag_pcr_shared,
	&tridiag_cusparse,
	NULL,
};

int tridiag_any_layout(enum tridiag_layout layout)
{
	(void)layout;
	return 1;
}

int tridiag_solver_takes(const struct tridiag_solver *solver, const struct tridiag_batch *batch)
{
	return solver->takes_layout(batch->layout) && batch->n >= solver->min_n &&
	       (solver->max_n == 0 || batch->n <= solver->max_n);
}

static const struct tridiag_method thomas = {"thomas", &tridiag_thomas, TRIDIAG_INTERLEAVED};
static const struct tridiag_method checkerboard = {"checkerboard", &tridiag_checkerboard_global,
						   TRIDIAG_INTERLEAVED};
static const struct tridiag_method pcr = {"pcr", &tridiag_pcr_shared, TRIDIAG_INTERLEAVED};
static const struct tridiag_method cusparse = {"cusparse", &tridiag_cusparse, TRIDIAG_CONTIGUOUS};

const struct tridiag_method *const tridiag_method_list[] = {
	&thomas, &checkerboard, &pcr, &cusparse, NULL,
};

const struct tridiag_method *tridiag_method_named(const char *name)
{
	for (int k = 0; name && tridiag_method_list[k]; k++)
		if (strcmp(tridiag_method_list[k]->name, name) == 0)
			return tridiag_method_list[k];
	return NULL;
}

const char *tridiag_method_names(char *buf, size_t len)
{
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	for (int k = 0; tridiag_method_list[k] && used < len; k++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", k ? ", " : "",
					 tridiag_method_list[k]->name);
	return buf;
}
