/* mpi_ensemble.c - picard over MPI from C, built against the installed
 * libraries alone (libpicard_mpi exists where picard was built with MPI):
 *
 *   make install PREFIX=$HOME/picard
 *   export PKG_CONFIG_PATH=$HOME/picard/lib/pkgconfig
 *   gcc -std=c11 examples/mpi_ensemble.c $(pkg-config --cflags --libs picard-mpi) \
 *       -o mpi_ensemble
 *   mpirun -np 4 ./mpi_ensemble
 *
 * 100000 Lotka-Volterra trajectories, start states spread by 10%, split
 * over the ranks: each rank binds its GPU (or the CPU backend), draws its
 * members of the ensemble (the rows one process would draw), solves them
 * by Verner's 9(8) pair in double, and the job's statistics are reduced.
 * Exit status 0 when no trajectory failed. */
#include <stdio.h>
#include <stdlib.h>

#include <picard_mpi.h>

#define NTRAJ 100000

static int fail(int rank, const char *what, int err)
{
	fprintf(stderr, "mpi_ensemble: rank %d: %s: %s (%s)\n", rank, what, picard_strerror(err),
		picard_error_detail());
	return err;
}

int main(int argc, char **argv)
{
	const picard_options opt = {
		.scheme = PICARD_SCHEME_VERN9, .iter_rtol = 1e-10, .iter_atol = 1e-10,
		.precision = PICARD_DOUBLE,
	};
	const picard_model *model;
	picard_solver *solver = NULL;
	picard_mpi_stats stats;
	double *x0 = NULL, *x1 = NULL;
	long first, count;
	int rank, err;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	/* before anything touches CUDA */
	err = picard_mpi_bind_device(MPI_COMM_WORLD, NULL, NULL);
	model = picard_model_find("lotka");
	if (!err && !model)
		err = fail(rank, "lotka", PICARD_ENOMODEL);
	if (!err)
		err = picard_mpi_range(MPI_COMM_WORLD, NTRAJ, 1, &first, &count);
	if (!err) {
		x0 = malloc(count * model->dim * sizeof(double));
		x1 = malloc(count * model->dim * sizeof(double));
		err = x0 && x1 ? 0 : fail(rank, "memory", PICARD_ENOMEM);
	}
	if (!err)
		err = picard_mpi_ensemble_model(model, first, count, 0.1, NULL, 42,
						PICARD_BACKEND_AUTO, x0, NULL);
	if (!err)
		err = picard_solver_create(&solver, model, &opt, count);
	if (err)
		fail(rank, "setting up", err);
	/* every rank learns whether one failed before the collective solve */
	err = picard_mpi_agree(MPI_COMM_WORLD, err, NULL, NULL);
	if (!err)
		err = picard_mpi_solve(MPI_COMM_WORLD, solver, count, x0, NULL, x1, NULL, NULL, NULL,
				       0, &stats);
	if (rank == 0 && (!err || err == PICARD_EFAILED))
		printf("picard %s: %ld lotka trajectories on %d ranks (%s on rank 0) in %.3g ms, "
		       "load balance %.2f, %ld failed\n", picard_version(), stats.ntraj, stats.ranks,
		       stats.local.device, stats.solve_seconds * 1e3, stats.load_balance,
		       stats.failed);
	picard_solver_free(solver);
	free(x0);
	free(x1);
	MPI_Finalize();
	return err ? 1 : 0;
}
