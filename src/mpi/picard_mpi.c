/* picard_mpi.c - picard_mpi.h: the ranks' shares, the device of each rank,
 * its members of the ensemble, and the reductions of a solve and a check.
 * Built into libpicard_mpi only where MPI is found; libpicard itself
 * knows nothing of MPI. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ensemble_range.h"
#include "errors.h"
#include "picard_mpi.h"

#define GPU_NAME_MAX 64 /* one entry of CUDA_VISIBLE_DEVICES */

int picard_mpi_range(MPI_Comm comm, long ntraj, long align, long *first, long *count)
{
	long blocks, base, extra, my_blocks, first_block, end;
	int rank, size;

	if (ntraj < 1 || align < 1 || !first || !count)
		return picard_fail(PICARD_EINVAL, "picard_mpi_range: ntraj %ld, align %ld", ntraj,
				   align);
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	blocks = (ntraj + align - 1) / align;
	base = blocks / size;
	extra = blocks % size;
	my_blocks = base + (rank < extra);
	first_block = rank * base + (rank < extra ? rank : extra);
	*first = first_block * align;
	end = (first_block + my_blocks) * align;
	if (*first > ntraj)
		*first = ntraj;
	*count = (end < ntraj ? end : ntraj) - *first;
	return PICARD_OK;
}

/* Entry `which` of the comma-separated list into name; false past its end. */
static bool list_entry(const char *list, int which, char *name, size_t len)
{
	const char *p = list;

	for (int i = 0; i < which; i++) {
		p = strchr(p, ',');
		if (!p)
			return false;
		p++;
	}
	size_t n = strcspn(p, ",");
	if (n == 0 || n >= len)
		return false;
	memcpy(name, p, n);
	name[n] = '\0';
	return true;
}

/* The GPUs this process may use, counted without touching CUDA (whose
 * runtime reads CUDA_VISIBLE_DEVICES once, when it starts): the entries of
 * CUDA_VISIBLE_DEVICES, else the driver's list of GPUs. */
static int count_gpus(const char *visible)
{
	char name[GPU_NAME_MAX];
	int count = 0;

	if (visible) {
		while (list_entry(visible, count, name, sizeof(name)) && strcmp(name, "-1") != 0 &&
		       strcmp(name, "NoDevFiles") != 0)
			count++;
		return count;
	}
	DIR *dir = opendir("/proc/driver/nvidia/gpus");
	struct dirent *entry;

	if (!dir)
		return 0;
	while ((entry = readdir(dir)))
		count += entry->d_name[0] != '.';
	closedir(dir);
	return count;
}

/* Local rank rank's device: the (rank % GPUs)-th of those visible made the
 * only one this process sees; false where it sees none. */
static bool see_one_gpu(int rank)
{
	const char *visible = getenv("CUDA_VISIBLE_DEVICES");
	const int gpus = count_gpus(visible);
	char name[GPU_NAME_MAX];

	if (gpus < 1)
		return false;
	if (visible)
		list_entry(visible, rank % gpus, name, sizeof(name));
	else
		snprintf(name, sizeof(name), "%d", rank % gpus);
	return setenv("CUDA_VISIBLE_DEVICES", name, 1) == 0;
}

/* The local rank picard_mpi_start_device bound the device by, or -1, and
 * the thread starting the runtime (joined by picard_mpi_bind_device: a
 * process must not exit while it runs). */
static int started_rank = -1;
static pthread_t starting;
static bool start_running;

/* This process's place on its node as its launcher says it, before
 * MPI_Init: Open MPI, MPICH's Hydra, Slurm; -1 where none does. */
static int launcher_local_rank(void)
{
	static const char *const names[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
					    "SLURM_LOCALID"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *v = getenv(names[i]);
		char *end;
		long r = v ? strtol(v, &end, 10) : -1;

		if (v && *v && !*end && r >= 0 && r < 1 << 20)
			return (int)r;
	}
	return -1;
}

static void *start_runtime(void *unused)
{
	(void)unused;
	picard_cuda_warm_up();
	return NULL;
}

void picard_mpi_start_device(void)
{
	const int rank = launcher_local_rank();

	if (rank < 0 || started_rank >= 0 || !see_one_gpu(rank))
		return;
	started_rank = rank;
	start_running = pthread_create(&starting, NULL, start_runtime, NULL) == 0;
}

int picard_mpi_bind_device(MPI_Comm comm, int *local_rank, int *local_size)
{
	MPI_Comm node;
	int rank, size, err = PICARD_OK;

	if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
		return picard_fail(PICARD_EINVAL, "MPI_Comm_split_type: cannot group the node's ranks");
	MPI_Comm_rank(node, &rank);
	MPI_Comm_size(node, &size);
	MPI_Comm_free(&node);
	if (local_rank)
		*local_rank = rank;
	if (local_size)
		*local_size = size;
	if (start_running)
		pthread_join(starting, NULL);
	start_running = false;
	if (started_rank < 0)
		see_one_gpu(rank);
	else if (started_rank != rank) /* CUDA has started: its device stays */
		err = picard_fail(PICARD_EINVAL, "the launcher called this rank %d of its node, MPI "
				  "calls it %d: it runs on device %s, bound by the first",
				  started_rank, rank, getenv("CUDA_VISIBLE_DEVICES"));
	/* the host's threads (the CPU backend, the checks): the node's cores
	 * shared, not each rank taking all */
	if (!getenv("OMP_NUM_THREADS")) {
		long cores = sysconf(_SC_NPROCESSORS_ONLN);
		int share = cores > 0 ? (int)(cores / size) : 1;
		int mine = omp_get_num_procs();

		omp_set_num_threads(share < 1 ? 1 : share < mine ? share : mine);
	}
	return err;
}

int picard_mpi_ensemble_model(const picard_model *model, long first, long count,
			      double spread, const double *param_spreads,
			      unsigned long long seed, picard_backend backend,
			      double *x0, double *params)
{
	return picard_ensemble_model_range(model, first, count, spread, param_spreads, seed,
					   backend, x0, params);
}

int picard_mpi_agree(MPI_Comm comm, int err, int *failed_rank, int *failed_ranks)
{
	int size, lowest = -1, failures = 0, *errs;

	MPI_Comm_size(comm, &size);
	errs = malloc((size_t)size * sizeof(int));
	if (!errs) {
		/* without the table the answer is still agreed on: the worst code */
		int worst;

		MPI_Allreduce(&err, &worst, 1, MPI_INT, MPI_MIN, comm);
		if (failed_rank)
			*failed_rank = worst ? 0 : -1;
		if (failed_ranks)
			*failed_ranks = worst != 0;
		return worst;
	}
	MPI_Allgather(&err, 1, MPI_INT, errs, 1, MPI_INT, comm);
	for (int r = 0; r < size; r++) {
		if (!errs[r])
			continue;
		failures++;
		if (lowest < 0)
			lowest = r;
	}
	err = lowest >= 0 ? errs[lowest] : 0;
	free(errs);
	if (failed_rank)
		*failed_rank = lowest;
	if (failed_ranks)
		*failed_ranks = failures;
	return err;
}

void picard_mpi_stats_reduce(MPI_Comm comm, long count, const picard_stats *local,
			     picard_mpi_stats *stats)
{
	const picard_stats *mine = local;
	struct { double value; int rank; } slow = {mine->solve_seconds, 0}, slowest;
	double sums[4] = {mine->solve_seconds, mine->sweeps_mean * (double)count,
			  mine->rhs_evals, (double)count};
	long counts[2] = {count, mine->failed};
	double total[4];
	long job[2];

	MPI_Comm_rank(comm, &slow.rank);
	MPI_Comm_size(comm, &stats->ranks);
	MPI_Allreduce(sums, total, 4, MPI_DOUBLE, MPI_SUM, comm);
	MPI_Allreduce(counts, job, 2, MPI_LONG, MPI_SUM, comm);
	MPI_Allreduce(&slow, &slowest, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm);
	MPI_Allreduce(&mine->sweeps_max, &stats->sweeps_max, 1, MPI_INT, MPI_MAX, comm);
	stats->ntraj = job[0];
	stats->failed = job[1];
	stats->solve_seconds = slowest.value;
	stats->slowest_rank = slowest.rank;
	stats->solve_seconds_mean = total[0] / stats->ranks;
	stats->load_balance = slowest.value > 0 ? stats->solve_seconds_mean / slowest.value : 1;
	stats->sweeps_mean = total[3] > 0 ? total[1] / total[3] : 0;
	stats->rhs_evals = total[2];
	if (local != &stats->local)
		stats->local = *local;
}

int picard_mpi_solve(MPI_Comm comm, picard_solver *solver, long count, const double *x0,
		     const double *params, double *x_final, picard_traj_status *status,
		     long *fail_window, const picard_record *records, int nrecords,
		     picard_mpi_stats *stats)
{
	int err = PICARD_OK, agreed;
	long failed;

	memset(stats, 0, sizeof(*stats));
	if (count > 0 && !solver)
		err = picard_fail(PICARD_EINVAL, "picard_mpi_solve: %ld trajectories, no solver", count);
	else if (count > 0)
		err = picard_solve(solver, x0, params, x_final, status, fail_window, records,
				   nrecords, &stats->local);
	agreed = picard_mpi_agree(comm, err == PICARD_EFAILED ? 0 : err, NULL, NULL);
	if (agreed)
		return agreed;
	picard_mpi_stats_reduce(comm, count, &stats->local, stats);
	failed = stats->failed;
	return failed ? PICARD_EFAILED : PICARD_OK;
}

/* The fields of a check result that add up, and those that are maxima. */
enum {
	CHECK_TRAJ, CHECK_POINTS, CHECK_NONFINITE, CHECK_REF_FAILED, CHECK_OUTSIDE, CHECK_JUDGED,
	CHECK_COUNTS
};
/* A rank's row of maxima and places (global), to pick from. */
#define CHECK_ROW 11

int picard_mpi_check_reduce(MPI_Comm comm, long first, picard_check_result *res)
{
	const long mine[CHECK_COUNTS] = {res->checked_traj, res->points, res->nonfinite,
					 res->ref_failed, res->outside_span, res->judged_gauss};
	const double judge_error = res->judge_error;
	long sums[CHECK_COUNTS];
	/* E, its place (global), the relative and scaled maxima, the first
	 * failed reference (global), the events' (a model with events; the
	 * words of a mismatch stay the rank's own): every rank's, to pick
	 * from */
	double row[CHECK_ROW] = {
		res->error, (double)(res->worst_traj >= 0 ? first + res->worst_traj : -1),
		(double)res->worst_window, res->rel_error, res->scaled_error,
		(double)(res->first_ref_failed >= 0 ? first + res->first_ref_failed : -1),
		(double)res->checked_traj, (double)res->events, res->event_error,
		(double)(res->worst_event_traj >= 0 ? first + res->worst_event_traj : -1),
		res->event_scaled_error};
	const long mismatch = res->event_mismatch, first_mismatch = res->first_event_mismatch;
	char detail[sizeof(res->event_detail)];
	double *rows;
	int size;

	MPI_Comm_size(comm, &size);
	rows = malloc((size_t)size * sizeof(row));
	if (!rows)
		return picard_fail(PICARD_ENOMEM, "picard_mpi_check_reduce: %d ranks", size);
	MPI_Allreduce(mine, sums, CHECK_COUNTS, MPI_LONG, MPI_SUM, comm);
	MPI_Allgather(row, CHECK_ROW, MPI_DOUBLE, rows, CHECK_ROW, MPI_DOUBLE, comm);
	memcpy(detail, res->event_detail, sizeof(detail));
	/* every rank's errors and places (global already), in rank order */
	*res = PICARD_CHECK_NONE;
	for (int r = 0; r < size; r++) {
		const double *rr = rows + CHECK_ROW * r;
		const picard_check_result part = {
			.error = rr[0], .worst_traj = (long)rr[1], .worst_window = (long)rr[2],
			.rel_error = rr[3], .scaled_error = rr[4], .first_ref_failed = (long)rr[5],
			.checked_traj = (long)rr[6], .events = (long)rr[7], .event_error = rr[8],
			.worst_event_traj = (long)rr[9], .event_scaled_error = rr[10],
		};

		picard_check_merge(res, &part, 0);
	}
	res->checked_traj = sums[CHECK_TRAJ];
	res->points = sums[CHECK_POINTS];
	res->nonfinite = sums[CHECK_NONFINITE];
	res->ref_failed = sums[CHECK_REF_FAILED];
	res->outside_span = sums[CHECK_OUTSIDE];
	/* who judged: the members gauss16 judged, and the judges' largest
	 * own error, over the job */
	res->judged_gauss = sums[CHECK_JUDGED];
	MPI_Allreduce(&judge_error, &res->judge_error, 1, MPI_DOUBLE, MPI_MAX, comm);
	/* the mismatches: counted over the job, this rank's first in words */
	MPI_Allreduce(&mismatch, &res->event_mismatch, 1, MPI_LONG, MPI_SUM, comm);
	res->first_event_mismatch = mismatch ? first + first_mismatch : -1;
	memcpy(res->event_detail, mismatch ? detail : "", mismatch ? sizeof(detail) : 1);
	free(rows);
	return PICARD_OK;
}
