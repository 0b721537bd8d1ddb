/* api_check.c - bin/mpi-api-check, run by tests/mpi/test_mpi.c under
 * mpirun: libpicard_mpi (picard_mpi.h) as a C program with its own MPI
 * uses it. Each rank takes its range of a Lotka-Volterra ensemble whose
 * states and two parameters are spread, draws its members, solves them
 * and checks them; every rank also builds and solves the whole ensemble
 * alone, and its share must be bit for bit those rows; the reduced
 * statistics and check must be the whole's. Exit status 0 when all holds
 * on every rank. With "--devices LIST" (CUDA_VISIBLE_DEVICES), each rank
 * must also see its own entry of LIST. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "picard_mpi.h"

#define NTRAJ 1001 /* not divisible by 2, 3 or 4 ranks */
#define SEED 7

static int failures;

static void expect(int rank, bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "mpi-api-check: rank %d: %s\n", rank, what);
		failures++;
	}
}

/* The device rank sees: entry rank % entries of the list devices. */
static void expect_device(int rank, const char *devices)
{
	const char *seen = getenv("CUDA_VISIBLE_DEVICES"), *p = devices;
	int entries = 1, which;

	for (const char *c = devices; *c; c++)
		entries += *c == ',';
	for (which = rank % entries; which > 0; which--)
		p = strchr(p, ',') + 1;
	expect(rank, seen && !strncmp(seen, p, strcspn(p, ",")) && strlen(seen) == strcspn(p, ","),
	       "CUDA_VISIBLE_DEVICES is not this rank's entry of the list");
}

/* Solve n trajectories (x0, params) with a check record of every window
 * end: final states and the check into x1, res. */
static int solve_and_check(const picard_model *model, const picard_options *opt, long n,
			   const double *x0, const double *params, double *x1,
			   picard_check_result *res, picard_stats *stats, picard_solver **out)
{
	picard_record check = {.every = 1, .traj_stride = 1};
	int err = picard_solver_create(out, model, opt, n);

	if (err)
		return err;
	check.states = malloc(picard_record_size(*out, &check) * sizeof(double));
	if (!check.states)
		return PICARD_ENOMEM;
	err = picard_solve(*out, x0, params, x1, NULL, NULL, &check, 1, stats);
	if (!err)
		err = picard_check(model, picard_solver_grid(*out), n, x0, params, &check, res);
	free(check.states);
	return err;
}

int main(int argc, char **argv)
{
	const picard_options opt = {.scheme = PICARD_SCHEME_DP5, .precision = PICARD_DOUBLE,
				    .iter_rtol = 1e-8, .iter_atol = 1e-8};
	double spreads[6] = {0.1, 0.1, 0, 0, 0, 0};
	picard_check_result whole_res, mine_res;
	picard_solver *whole_solver = NULL, *solver = NULL;
	picard_stats whole_stats, stats;
	picard_mpi_stats job;
	const picard_model *model;
	long first, count;
	int rank, size, n, np, err, failed_rank, failed_ranks;

	/* "--devices A,B,..": CUDA_VISIBLE_DEVICES is that list, and each rank
	 * must see the one of its rank on the node (one node here) */
	const char *devices = argc == 3 && !strcmp(argv[1], "--devices") ? argv[2] : NULL;

	picard_mpi_start_device(); /* the device bound before MPI_Init */
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	err = picard_mpi_bind_device(MPI_COMM_WORLD, NULL, NULL);
	model = picard_model_find("lotka");
	expect(rank, !err && model, "binding a device, finding lotka");
	if (devices)
		expect_device(rank, devices);
	if (!model)
		MPI_Abort(MPI_COMM_WORLD, 1);
	n = model->dim;
	np = model->nparams;
	err = picard_mpi_range(MPI_COMM_WORLD, NTRAJ, 1, &first, &count);
	expect(rank, !err && count >= NTRAJ / size && count <= NTRAJ / size + 1, "the range");

	double *x0 = malloc(NTRAJ * n * sizeof(double)), *p = malloc(NTRAJ * np * sizeof(double));
	double *x1 = malloc(NTRAJ * n * sizeof(double));
	double *my_x0 = malloc(count * n * sizeof(double)), *my_p = malloc(count * np * sizeof(double));
	double *my_x1 = malloc(count * n * sizeof(double));

	/* the whole, alone, then this rank's share by the API */
	err = picard_ensemble_model(model, NTRAJ, 0.1, spreads, SEED, PICARD_BACKEND_AUTO, x0, p);
	if (!err)
		err = solve_and_check(model, &opt, NTRAJ, x0, p, x1, &whole_res, &whole_stats,
				      &whole_solver);
	expect(rank, !err, "the whole ensemble alone");
	err = picard_mpi_ensemble_model(model, first, count, 0.1, spreads, SEED,
					PICARD_BACKEND_AUTO, my_x0, my_p);
	expect(rank, !err && !memcmp(my_x0, x0 + first * n, count * n * sizeof(double)) &&
		     !memcmp(my_p, p + first * np, count * np * sizeof(double)),
	       "the rank's members are not the whole's rows");
	err = solve_and_check(model, &opt, count, my_x0, my_p, my_x1, &mine_res, &stats, &solver);
	expect(rank, !err && !memcmp(my_x1, x1 + first * n, count * n * sizeof(double)),
	       "the rank's final states are not the whole's rows");

	/* the job's statistics and check, reduced */
	picard_mpi_stats_reduce(MPI_COMM_WORLD, count, &stats, &job);
	expect(rank, job.ntraj == NTRAJ && job.ranks == size && job.failed == 0 &&
		     job.solve_seconds >= stats.solve_seconds && job.load_balance > 0 &&
		     job.load_balance <= 1 && job.slowest_rank >= 0 && job.slowest_rank < size &&
		     job.rhs_evals > 0,
	       "the reduced statistics");
	err = picard_mpi_check_reduce(MPI_COMM_WORLD, first, &mine_res);
	expect(rank, !err && mine_res.error == whole_res.error &&
		     mine_res.worst_traj == whole_res.worst_traj &&
		     mine_res.checked_traj == whole_res.checked_traj &&
		     mine_res.points == whole_res.points && mine_res.rel_error == whole_res.rel_error,
	       "the reduced check is not the whole's");

	/* picard_mpi_solve: the same results, the same verdict on every rank */
	err = picard_mpi_solve(MPI_COMM_WORLD, solver, count, my_x0, my_p, my_x1, NULL, NULL,
			       NULL, 0, &job);
	expect(rank, !err && job.ntraj == NTRAJ &&
		     !memcmp(my_x1, x1 + first * n, count * n * sizeof(double)),
	       "picard_mpi_solve");

	/* one rank's error reaches all */
	err = picard_mpi_agree(MPI_COMM_WORLD, rank == size - 1 ? PICARD_EINVAL : 0, &failed_rank,
			       &failed_ranks);
	expect(rank, err == PICARD_EINVAL && failed_rank == size - 1 && failed_ranks == 1,
	       "picard_mpi_agree");

	MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("mpi-api-check: %d ranks, %d trajectories, E = %.3g: %s\n", size, NTRAJ,
		       mine_res.error, failures ? "FAILED" : "ok");
	picard_solver_free(whole_solver);
	picard_solver_free(solver);
	free(x0), free(p), free(x1), free(my_x0), free(my_p), free(my_x1);
	MPI_Finalize();
	return failures ? 1 : 0;
}
