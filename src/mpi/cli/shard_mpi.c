/* shard_mpi.c - shard.h over MPI_COMM_WORLD: picard-run under mpirun,
 * built into the plugin lib/libpicard_mpirun.so that picard-run loads only
 * when a launcher started it (src/cli/shard.c), so picard-run itself never
 * links MPI. The output's MPI-IO is output_mpi.c; the split, the device
 * and the reductions are those of the library's picard_mpi.h. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "options.h"
#include "picard_mpi.h"
#include "shard.h"
#include "mpi_cli.h"

/* Rank 0's account of the exchanges after the solve (traffic.h). */
static struct {
	long reductions;      /* collective reductions timed */
	double reduce_s;      /* their time together */
	double write_s;       /* the --out file's MPI-IO write, 0: none */
	double write_bytes;   /* its bytes */
} traffic;

void traffic_note_reduction(double seconds)
{
	traffic.reductions++;
	traffic.reduce_s += seconds;
}

void traffic_note_write(double seconds, double bytes)
{
	traffic.write_s += seconds;
	traffic.write_bytes += bytes;
}

static bool mpi_running(const struct shard *shard)
{
	return shard->size > 1;
}

/* Point fd at /dev/null. */
static void discard_fd(int fd)
{
	int null = open("/dev/null", O_WRONLY);

	if (null >= 0) {
		dup2(null, fd);
		close(null);
	}
}

static void mpi_start(struct shard *shard, int *argc, char ***argv)
{
	picard_mpi_start_device(); /* while MPI starts */
	if (MPI_Init(argc, argv) != MPI_SUCCESS) {
		fprintf(stderr, "picard-run: MPI_Init failed\n");
		exit(CLI_EXIT_FAILED);
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &shard->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &shard->size);
	if (picard_mpi_bind_device(MPI_COMM_WORLD, NULL, NULL))
		cli_warning("rank %d: %s", shard->rank, picard_error_detail());
	if (shard->size == 1) {
		/* mpirun -np 1: one process, as without MPI */
		MPI_Finalize();
		shard->ops = NULL;
		return;
	}
	if (shard->rank != 0) {
		fflush(stdout);
		discard_fd(STDOUT_FILENO);
	}
}

static int mpi_finish(struct shard *shard, int status)
{
	int worst = status;

	if (!mpi_running(shard))
		return status;
	fflush(stdout);
	fflush(stderr);
	mpi_output_forget(); /* batches kept for a write that never came */
	MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	MPI_Finalize();
	return worst;
}

static void mpi_quiet(const struct shard *shard)
{
	if (shard->rank != 0) {
		fflush(stderr);
		discard_fd(STDERR_FILENO);
	}
}

static int mpi_quiet_begin(const struct shard *shard)
{
	FILE *held;
	int saved;

	if (!mpi_running(shard) || shard->rank == 0)
		return -1;
	held = tmpfile();
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	if (!held || saved < 0) {
		if (held)
			fclose(held);
		if (saved >= 0)
			close(saved);
		return -1; /* every message shown: better twice than never */
	}
	dup2(fileno(held), STDERR_FILENO);
	fclose(held); /* the descriptor on 2 keeps the file */
	return saved;
}

/* Copy what the held stderr (now on fd 2, at its end) took to fd out. */
static void show_held(int out)
{
	char buf[4096];
	ssize_t got;

	lseek(STDERR_FILENO, 0, SEEK_SET);
	while ((got = read(STDERR_FILENO, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)got) != got)
			break;
}

static void mpi_quiet_end(const struct shard *shard, int saved, int err)
{
	int root_err = err;

	if (!mpi_running(shard))
		return;
	MPI_Bcast(&root_err, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (saved < 0)
		return;
	fflush(stderr);
	if (err && err != root_err)
		show_held(saved);
	dup2(saved, STDERR_FILENO);
	close(saved);
}

static int mpi_split(struct shard *shard, long total, long align, long *count)
{
	int err;

	shard->total = total;
	if (!mpi_running(shard)) {
		shard->first = 0;
		*count = total;
		return 0;
	}
	err = picard_mpi_range(MPI_COMM_WORLD, total, align, &shard->first, count);
	if (err)
		return cli_library_error(err);
	if ((total + align - 1) / align >= shard->size)
		return 0;
	/* a rank gets no block: every rank sees it, rank 0 says it */
	if (shard->rank == 0) {
		cli_error(CLI_EUSAGE, "%ld trajectories for %d ranks: some rank would get none",
			  total, shard->size);
		cli_hint(align > 1 ? "more trajectories or fewer ranks (--check-traj 0 checks each, "
				     "splitting to the trajectory)" :
				     "more trajectories (--traj) or fewer ranks (mpirun -np)");
	}
	return CLI_EUSAGE;
}

/* PICARD_TEST_FAIL_RANK=R: rank R fails at the first check of the run. */
static int injected_failure(const struct shard *shard)
{
	static bool done;
	const char *which = getenv("PICARD_TEST_FAIL_RANK");

	if (done || !which)
		return 0;
	done = true;
	if (atoi(which) != shard->rank)
		return 0;
	return cli_error(PICARD_EINVAL, "rank %d: failing on purpose (PICARD_TEST_FAIL_RANK)",
			 shard->rank);
}

static int mpi_agree(const struct shard *shard, int err, struct output *out)
{
	int failed_rank, failed_ranks, agreed;

	if (!mpi_running(shard))
		return err;
	if (!err)
		err = injected_failure(shard);
	agreed = picard_mpi_agree(MPI_COMM_WORLD, err, &failed_rank, &failed_ranks);
	if (!agreed || failed_ranks == shard->size)
		return agreed;
	/* some ranks failed, the others would go on without them */
	if (shard->rank == 0) {
		if (out)
			output_discard(out);
		cli_error(agreed, "rank %d of %d failed%s (its message above): the job is aborted, "
			  "no output written", failed_rank, shard->size,
			  failed_ranks > 1 ? " with others" : "");
		fflush(stdout);
		fflush(stderr);
		MPI_Abort(MPI_COMM_WORLD, agreed == CLI_EUSAGE ? CLI_EXIT_USAGE : CLI_EXIT_FAILED);
	}
	/* rank 0's MPI_Abort ends this process too */
	MPI_Barrier(MPI_COMM_WORLD);
	exit(CLI_EXIT_FAILED);
}

/* What --tol's tuning sets in the options (picard_choose_apply): plain
 * values, the same on every rank. */
struct tuned {
	int err, scheme, m, K, K_max, layout, traj_per_block, block;
	double h, window, iter_rtol;
	bool warm_start, tuned, tuned_closest;
};

static int mpi_share_tuning(const struct shard *shard, struct run_options *opts, int err)
{
	struct tuned t = {
		.err = err, .scheme = opts->scheme, .m = opts->m, .K = opts->K,
		.K_max = opts->K_max, .layout = opts->layout, .traj_per_block = opts->traj_per_block,
		.block = opts->block, .h = opts->h, .window = opts->window,
		.iter_rtol = opts->iter_rtol, .warm_start = opts->warm_start, .tuned = opts->tuned,
		.tuned_closest = opts->tuned_closest,
	};

	if (!mpi_running(shard))
		return err;
	MPI_Bcast(&t, sizeof(t), MPI_BYTE, 0, MPI_COMM_WORLD);
	opts->scheme = t.scheme;
	opts->m = t.m;
	opts->K = t.K;
	opts->K_max = t.K_max;
	opts->layout = t.layout;
	opts->traj_per_block = t.traj_per_block;
	opts->block = t.block;
	opts->h = t.h;
	opts->window = t.window;
	opts->iter_rtol = t.iter_rtol;
	opts->warm_start = t.warm_start;
	opts->tuned = t.tuned;
	opts->tuned_closest = t.tuned_closest;
	return t.err;
}

/* values (n of type) combined over the ranks by op, in place, timed. */
static void allreduce_timed(void *values, int n, MPI_Datatype type, MPI_Op op)
{
	const double start = MPI_Wtime();

	MPI_Allreduce(MPI_IN_PLACE, values, n, type, op, MPI_COMM_WORLD);
	traffic_note_reduction(MPI_Wtime() - start);
}

static void mpi_max(const struct shard *shard, double *values, int n)
{
	if (mpi_running(shard))
		allreduce_timed(values, n, MPI_DOUBLE, MPI_MAX);
}

static void mpi_sum(const struct shard *shard, long *values, int n)
{
	if (mpi_running(shard))
		allreduce_timed(values, n, MPI_LONG, MPI_SUM);
}

static void mpi_reduce_stats(const struct shard *shard, long count, picard_stats *stats,
			struct shard_job *job)
{
	picard_mpi_stats all;
	double start = MPI_Wtime();

	if (!mpi_running(shard))
		return;
	picard_mpi_stats_reduce(MPI_COMM_WORLD, count, stats, &all);
	traffic_note_reduction(MPI_Wtime() - start);
	mpi_max(shard, &stats->estimate_seconds, 1);
	stats->solve_seconds = all.solve_seconds;
	stats->failed = all.failed;
	stats->sweeps_mean = all.sweeps_mean;
	stats->sweeps_max = all.sweeps_max;
	stats->rhs_evals = all.rhs_evals;
	job->slowest_rank = all.slowest_rank;
	job->load_balance = all.load_balance;
	MPI_Allreduce(&count, &job->fewest, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
	MPI_Allreduce(&count, &job->most, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
}

static void mpi_print_traffic(const struct shard *shard)
{
	if (!mpi_running(shard))
		return;
	/* a reduction's time holds its wait for the last rank to arrive */
	printf("%-12s %ld reductions in %.3g ms (waits included)", "mpi", traffic.reductions,
	       traffic.reduce_s * 1e3);
	if (traffic.write_s > 0)
		printf("; output %.3g MB formatted and written in %.3g ms (MPI-IO)",
		       traffic.write_bytes / 1e6, traffic.write_s * 1e3);
	putchar('\n');
}

static void mpi_print_summary(const struct shard *shard, const struct shard_job *job)
{
	if (!mpi_running(shard))
		return;
	printf("%-12s %d (mpirun), %ld", "ranks", shard->size, job->fewest);
	if (job->most != job->fewest)
		printf(" to %ld", job->most);
	printf(" trajectories each; slowest rank %d, load balance %.3g (mean / slowest solve)\n",
	       job->slowest_rank, job->load_balance);
}

/* A failure as 6 longs, to gather: its times' bits in two of them. */
enum { FAILURE_LONGS = 6 };
_Static_assert(sizeof(double) == sizeof(long), "a failure's times travel as longs");

static void mpi_gather_failures(const struct shard *shard, struct shard_failure *shown,
			   long *nshown, long cap, long *failed)
{
	long *all = NULL, *counts = NULL, count = *nshown;
	const double start = MPI_Wtime();

	if (!mpi_running(shard))
		return;
	long mine[cap * FAILURE_LONGS];

	mpi_sum(shard, failed, 1);
	memset(mine, 0, sizeof(mine));
	if (shard->rank == 0) {
		all = calloc((size_t)cap * FAILURE_LONGS * shard->size, sizeof(long));
		counts = calloc((size_t)shard->size, sizeof(long));
		if (!all || !counts) {
			cli_error(PICARD_ENOMEM, "the failures of %d ranks", shard->size);
			MPI_Abort(MPI_COMM_WORLD, CLI_EXIT_FAILED);
		}
	}
	for (long i = 0; i < count; i++) {
		long *f = mine + i * FAILURE_LONGS;

		f[0] = shown[i].traj;
		f[1] = shown[i].window;
		f[2] = shown[i].status;
		f[3] = shown[i].ref_failed;
		memcpy(&f[4], &shown[i].from, sizeof(double));
		memcpy(&f[5], &shown[i].to, sizeof(double));
	}
	MPI_Gather(&count, 1, MPI_LONG, counts, 1, MPI_LONG, 0, MPI_COMM_WORLD);
	MPI_Gather(mine, (int)(cap * FAILURE_LONGS), MPI_LONG, all, (int)(cap * FAILURE_LONGS),
		   MPI_LONG, 0, MPI_COMM_WORLD);
	if (shard->rank == 0) {
		/* ranks hold ascending ranges: their lists in rank order are sorted */
		*nshown = 0;
		for (int r = 0; r < shard->size && *nshown < cap; r++)
			for (long i = 0; i < counts[r] && *nshown < cap; i++) {
				const long *f = all + ((long)r * cap + i) * FAILURE_LONGS;

				shown[*nshown] = (struct shard_failure){
					.traj = f[0], .window = f[1], .status = (int)f[2],
					.ref_failed = (int)f[3],
				};
				memcpy(&shown[*nshown].from, &f[4], sizeof(double));
				memcpy(&shown[(*nshown)++].to, &f[5], sizeof(double));
			}
	}
	free(all);
	free(counts);
	traffic_note_reduction(MPI_Wtime() - start);
}

static int mpi_reduce_check(const struct shard *shard, int err, struct output *out,
		       picard_check_result *res)
{
	err = mpi_agree(shard, err, out);
	if (err || !mpi_running(shard))
		return err;
	const double start = MPI_Wtime();

	err = picard_mpi_check_reduce(MPI_COMM_WORLD, shard->first, res);
	traffic_note_reduction(MPI_Wtime() - start);
	return err ? cli_library_error(err) : 0;
}

/* What picard-run's shard.c takes from this plugin (dlsym). */
const struct shard_ops picard_shard_mpi_ops = {
	.start = mpi_start, .finish = mpi_finish, .quiet = mpi_quiet,
	.quiet_begin = mpi_quiet_begin, .quiet_end = mpi_quiet_end, .split = mpi_split,
	.agree = mpi_agree, .share_tuning = mpi_share_tuning, .reduce_stats = mpi_reduce_stats,
	.max = mpi_max, .sum = mpi_sum, .print_summary = mpi_print_summary,
	.print_traffic = mpi_print_traffic, .gather_failures = mpi_gather_failures,
	.reduce_check = mpi_reduce_check, .output_open = mpi_output_open,
	.output_write = mpi_output_write, .output_append = mpi_output_append,
	.concat = mpi_concat,
};
