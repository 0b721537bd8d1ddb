/* shard_serial.c - shard.h without MPI: one process holds the whole
 * ensemble, nothing is exchanged, and picard-run writes its own file. */
#include "cli/shard.h"

void shard_start(struct shard *shard, int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	*shard = (struct shard){.rank = 0, .size = 1};
}

int shard_finish(struct shard *shard, int status)
{
	(void)shard;
	return status;
}

bool shard_is_root(const struct shard *shard)
{
	(void)shard;
	return true;
}

void shard_quiet(const struct shard *shard)
{
	(void)shard;
}

int shard_quiet_begin(const struct shard *shard)
{
	(void)shard;
	return -1;
}

void shard_quiet_end(const struct shard *shard, int saved, int err)
{
	(void)shard;
	(void)saved;
	(void)err;
}

int shard_split(struct shard *shard, long total, long align, long *count)
{
	(void)align;
	shard->first = 0;
	shard->total = total;
	*count = total;
	return 0;
}

int shard_agree(const struct shard *shard, int err, struct output *out)
{
	(void)shard;
	(void)out;
	return err;
}

int shard_share_tuning(const struct shard *shard, struct run_options *opts, int err)
{
	(void)shard;
	(void)opts;
	return err;
}

void shard_reduce_stats(const struct shard *shard, long count, picard_stats *stats,
			struct shard_job *job)
{
	(void)shard;
	(void)stats;
	*job = (struct shard_job){.slowest_rank = 0, .load_balance = 1, .fewest = count,
				  .most = count};
}

void shard_max(const struct shard *shard, double *values, int n)
{
	(void)shard;
	(void)values;
	(void)n;
}

void shard_sum(const struct shard *shard, long *values, int n)
{
	(void)shard;
	(void)values;
	(void)n;
}

void shard_print_summary(const struct shard *shard, const struct shard_job *job)
{
	(void)shard;
	(void)job;
}

void shard_print_traffic(const struct shard *shard)
{
	(void)shard;
}

void shard_gather_failures(const struct shard *shard, struct shard_failure *shown,
			   long *nshown, long cap, long *failed)
{
	(void)shard;
	(void)shown;
	(void)nshown;
	(void)cap;
	(void)failed;
}

int shard_reduce_check(const struct shard *shard, int err, struct output *out,
		       picard_check_result *res)
{
	(void)shard;
	(void)out;
	(void)res;
	return err;
}

int shard_output_open(const struct shard *shard, struct output *out, const char *path)
{
	(void)shard;
	return output_open(out, path);
}

int shard_output_write(const struct shard *shard, struct output *out,
		       const struct run_results *res)
{
	(void)shard;
	return output_write(out, res);
}
