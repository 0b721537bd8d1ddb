/* shard.c - shard.h for picard-run: one process's side, and under an MPI
 * launcher the plugin lib/libpicard_mpirun.so (src/mpi/cli/), found
 * through picard-run's RPATH beside its library, whose table of
 * operations then takes every call. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "shard.h"

#define SHARD_PLUGIN "libpicard_mpirun.so"

/* The processes an MPI launcher started (Open MPI's, PMI's: MPICH, Slurm's
 * srun), or 0 when none did. */
static long launched_processes(void)
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"};

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (getenv(vars[i]))
			return atol(getenv(vars[i]));
	return getenv("PMIX_RANK") ? 2 : 0; /* PMIx without its size: assume several */
}

void shard_start(struct shard *shard, int *argc, char ***argv)
{
	const long processes = launched_processes();
	void *plugin;

	*shard = (struct shard){.rank = 0, .size = 1};
	if (!processes)
		return;
	/* global: Open MPI's own components resolve libmpi's symbols */
	plugin = dlopen(SHARD_PLUGIN, RTLD_NOW | RTLD_GLOBAL);
	shard->ops = plugin ? dlsym(plugin, "picard_shard_mpi_ops") : NULL;
	if (shard->ops) {
		shard->ops->start(shard, argc, argv);
		return;
	}
	if (processes == 1)
		return; /* mpirun -np 1: one process either way */
	cli_error(CLI_EUSAGE, "started by an MPI launcher (%ld processes), but MPI cannot start: %s",
		  processes, plugin ? "no picard_shard_mpi_ops in " SHARD_PLUGIN : dlerror());
	cli_hint("each process would solve the whole ensemble: build picard with Open MPI "
		 "(apt-get install libopenmpi-dev; make says \"MPI found\"), or run without mpirun");
	exit(CLI_EXIT_USAGE);
}

int shard_finish(struct shard *shard, int status)
{
	return shard->ops ? shard->ops->finish(shard, status) : status;
}

bool shard_is_root(const struct shard *shard)
{
	return shard->rank == 0;
}

void shard_quiet(const struct shard *shard)
{
	if (shard->ops)
		shard->ops->quiet(shard);
}

int shard_quiet_begin(const struct shard *shard)
{
	return shard->ops ? shard->ops->quiet_begin(shard) : -1;
}

void shard_quiet_end(const struct shard *shard, int saved, int err)
{
	if (shard->ops)
		shard->ops->quiet_end(shard, saved, err);
}

int shard_split(struct shard *shard, long total, long align, long *count)
{
	if (shard->ops)
		return shard->ops->split(shard, total, align, count);
	shard->first = 0;
	shard->total = total;
	*count = total;
	return 0;
}

int shard_agree(const struct shard *shard, int err, struct output *out)
{
	return shard->ops ? shard->ops->agree(shard, err, out) : err;
}

int shard_share_tuning(const struct shard *shard, struct run_options *opts, int err)
{
	return shard->ops ? shard->ops->share_tuning(shard, opts, err) : err;
}

void shard_reduce_stats(const struct shard *shard, long count, picard_stats *stats,
			struct shard_job *job)
{
	*job = (struct shard_job){.slowest_rank = 0, .load_balance = 1, .fewest = count,
				  .most = count};
	if (shard->ops)
		shard->ops->reduce_stats(shard, count, stats, job);
}

void shard_max(const struct shard *shard, double *values, int n)
{
	if (shard->ops)
		shard->ops->max(shard, values, n);
}

void shard_sum(const struct shard *shard, long *values, int n)
{
	if (shard->ops)
		shard->ops->sum(shard, values, n);
}

void shard_print_summary(const struct shard *shard, const struct shard_job *job)
{
	if (shard->ops)
		shard->ops->print_summary(shard, job);
}

void shard_print_traffic(const struct shard *shard)
{
	if (shard->ops)
		shard->ops->print_traffic(shard);
}

void shard_gather_failures(const struct shard *shard, struct shard_failure *shown,
			   long *nshown, long cap, long *failed)
{
	if (shard->ops)
		shard->ops->gather_failures(shard, shown, nshown, cap, failed);
}

int shard_reduce_check(const struct shard *shard, int err, struct output *out,
		       picard_check_result *res)
{
	return shard->ops ? shard->ops->reduce_check(shard, err, out, res) : err;
}

int shard_output_open(const struct shard *shard, struct output *out, const char *path)
{
	return shard->ops ? shard->ops->output_open(shard, out, path) : output_open(out, path);
}

void shard_output_append(const struct shard *shard, struct output *out,
			 const struct run_results *res)
{
	if (shard->ops)
		shard->ops->output_append(shard, out, res);
}

int shard_output_write(const struct shard *shard, struct output *out,
		       const struct run_results *res)
{
	return shard->ops ? shard->ops->output_write(shard, out, res) : output_write(out, res);
}

int shard_concat(const struct shard *shard, const char *flag, const char *path, const char *part)
{
	if (shard->ops)
		return shard->ops->concat(shard, flag, path, part);
	if (rename(part, path) == 0)
		return 0;
	unlink(part);
	return cli_error(PICARD_EIO, "%s %s: cannot rename %s into place: %s", flag, path, part,
			 strerror(errno));
}
