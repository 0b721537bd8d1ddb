/* ensemble.c - picard from C, built against the installed library alone:
 *
 *   make install PREFIX=$HOME/picard
 *   export PKG_CONFIG_PATH=$HOME/picard/lib/pkgconfig
 *   gcc -std=c11 examples/ensemble.c $(pkg-config --cflags --libs picard) -o ensemble
 *   ./ensemble
 *
 * 4096 Lotka-Volterra trajectories, their start states and two parameters
 * spread by 10%, integrated by Verner's 9(8) pair in double (on the GPU if
 * there is one, else on the CPU), each trajectory's status counted, and 64
 * of them checked against GSL's rk8pd at t1. Exit status 0 when every
 * trajectory is fine and the check is within 1e-6. */
#include <stdio.h>
#include <stdlib.h>

#include <picard.h>

#define NTRAJ 4096
#define CHECKED_EVERY 64 /* trajectories 0, 64, 128, ... are checked */
#define BOUND 1e-6

static int fail(const char *what, int err)
{
	fprintf(stderr, "ensemble: %s: %s (%s)\n", what, picard_strerror(err),
		picard_error_detail());
	return 1;
}

int main(void)
{
	const picard_model *model = picard_model_find("lotka");
	picard_options opt = {
		.scheme = PICARD_SCHEME_VERN9, .iter_rtol = 1e-10, .iter_atol = 1e-10,
		.precision = PICARD_DOUBLE,
	};
	picard_record check = {.every = 1, .traj_stride = CHECKED_EVERY};
	picard_check_result res;
	picard_solver *solver = NULL;
	picard_stats stats;
	double *x0, *params, *x1, param_spreads[6] = {0.1, 0.1, 0, 0, 0, 0};
	picard_traj_status *status;
	long failed = 0;
	int err;

	if (!model || model->nparams != 6)
		return fail("lotka", PICARD_ENOMODEL);
	x0 = malloc(NTRAJ * model->dim * sizeof(double));
	params = malloc(NTRAJ * model->nparams * sizeof(double));
	x1 = malloc(NTRAJ * model->dim * sizeof(double));
	status = malloc(NTRAJ * sizeof(*status));
	if (!x0 || !params || !x1 || !status)
		return fail("memory", PICARD_ENOMEM);
	err = picard_ensemble_model(model, NTRAJ, 0.1, param_spreads, 42, PICARD_BACKEND_AUTO, x0,
				    params);
	if (!err)
		err = picard_solver_create(&solver, model, &opt, NTRAJ);
	if (err)
		return fail("setting up", err);
	check.states = malloc(picard_record_size(solver, &check) * sizeof(double));
	if (!check.states)
		return fail("memory", PICARD_ENOMEM);
	err = picard_solve(solver, x0, params, x1, status, NULL, &check, 1, &stats);
	if (err && err != PICARD_EFAILED)
		return fail("solving", err);
	for (long i = 0; i < NTRAJ; i++)
		failed += status[i] != PICARD_TRAJ_OK;
	err = picard_check(model, picard_solver_grid(solver), NTRAJ, x0, params, &check, &res);
	if (err)
		return fail("checking", err);
	printf("picard %s on %s: %d lotka trajectories by vern9 in %.3g ms, %ld failed; "
	       "E = %.3g against rk8pd on %ld of them\n", picard_version(), stats.device, NTRAJ,
	       stats.solve_seconds * 1e3, failed, res.error, res.checked_traj);
	printf("trajectory 0 at t = %g: (%.9g, %.9g)\n", picard_solver_grid(solver)->t1, x1[0],
	       x1[1]);
	picard_solver_free(solver);
	free(x0);
	free(params);
	free(x1);
	free(status);
	free(check.states);
	return failed == 0 && res.error <= BOUND ? 0 : 1;
}
