/* solver_create.c - picard_solver_create: a solver (solver.c) and, where
 * the options ask for one, its error estimate (estimate.c) beside it. The
 * estimate's companion is itself a plain solver, so neither file calls
 * the other back. */
#include "estimate.h"
#include "solver.h"

int picard_solver_create(picard_solver **out, const picard_model *model,
			 const picard_options *options, long ntraj)
{
	picard_options resolved;
	int err = picard_solver_create_plain(out, model, options, ntraj, &resolved);

	if (!err && resolved.estimate_error) {
		err = picard_estimate_attach(*out, model, &resolved, ntraj);
		if (err) {
			picard_solver_free(*out);
			*out = NULL;
		}
	}
	return err;
}
