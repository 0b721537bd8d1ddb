/* test_mpi.c - picard-run under mpirun on the CPU backend (issue 19): the
 * files of 2 and 3 ranks byte for byte those of one process (.csv and .npy,
 * --save-every, --check, --init text and binary, a count the ranks do not
 * divide), a bad --init value in one rank's rows, failed
 * trajectories reported once, a rank that fails ending the job with a
 * message and no output under a timeout, and libpicard_mpi's functions
 * (bin/mpi-api-check). Without MPI at build time, or without mpirun, every
 * test skips saying so, and fails instead under PICARD_REQUIRE_MPI=1. */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

#ifndef PICARD_TEST_MPI
#define PICARD_TEST_MPI 0
#endif
#ifndef PICARD_TEST_MPIRUN
#define PICARD_TEST_MPIRUN ""
#endif

#define MPI_TIMEOUT "120" /* seconds before timeout(1) ends a hung job */
#define TIMED_OUT 124     /* timeout(1)'s exit status */

static void make_mpi_workdir(void)
{
	make_workdir("mpi", NULL);
	/* CI runs as root; mpirun refuses root without these */
	setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
	setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
	/* containers often forbid the cross-memory attach of Open MPI's
	 * shared-memory transport, which then warns on every message */
	setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 0);
}

TestSuite(mpi, .init = make_mpi_workdir, .fini = remove_workdir, .timeout = 300);

/* Why the mpi tests cannot run here, or NULL when they can. */
static const char *mpi_missing(void)
{
	return !PICARD_TEST_MPI ? "picard-run was built without MPI "
				  "(apt-get install libopenmpi-dev, then make)" :
	       !PICARD_TEST_MPIRUN[0] ? "no mpirun was found at build time" : NULL;
}

/* Said once, before any test, by the runner: a skip must be visible, but
 * a Criterion warning logged from a skipped test fails the whole run. */
ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
	const char *why = mpi_missing();

	(void)set;
	if (why && !getenv("PICARD_REQUIRE_MPI"))
		fprintf(stderr, "[SKIP] the mpi tests skip: %s\n", why);
}

/* Skip without an MPI build or mpirun, or fail under PICARD_REQUIRE_MPI=1. */
static void require_mpi(void)
{
	const char *required = getenv("PICARD_REQUIRE_MPI");
	const char *why = mpi_missing();

	if (!why)
		return;
	if (required && strcmp(required, "1") == 0)
		cr_assert_fail("PICARD_REQUIRE_MPI=1 but %s", why);
	cr_skip_test("%s", why);
}

/* mpirun -np ranks PROGRAM with a blank-separated argument line, under a
 * timeout, output captured. */
static struct cli_run mpirun_line(int ranks, const char *name, const char *line)
{
	char copy[1024], np[16], *argv[48], *save = NULL;
	int argc = 0;

	snprintf(np, sizeof(np), "%d", ranks);
	snprintf(copy, sizeof(copy), "%s", line);
	argv[argc++] = "timeout";
	argv[argc++] = "-k";
	argv[argc++] = "10";
	argv[argc++] = MPI_TIMEOUT;
	argv[argc++] = PICARD_TEST_MPIRUN;
	argv[argc++] = "--oversubscribe";
	argv[argc++] = "-np";
	argv[argc++] = np;
	argv[argc++] = (char *)program(name);
	for (char *tok = strtok_r(copy, " ", &save); tok && argc < 47;
	     tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	return run_argv(argv);
}

/* picard-run ARGS --out FILE: file made in the work directory, as one
 * process (ranks 1, no mpirun) or under mpirun; exit status 0 expected. */
static struct cli_run picard_run(int ranks, const char *args, const char *file)
{
	char line[900];
	struct cli_run run;

	snprintf(line, sizeof(line), "%s --out %s", args, in_workdir(file).s);
	run = ranks == 1 ? run_program_line("picard-run", line) :
			   mpirun_line(ranks, "picard-run", line);
	cr_assert_eq(run.status, 0, "%d rank(s): picard-run %s: status %d\nstdout:\n%s\nstderr:\n%s",
		     ranks, line, run.status, run.out, run.err);
	return run;
}

/* Files a and b of the work directory hold the same bytes (and a is not
 * empty). */
static void expect_same_bytes(const char *a, const char *b)
{
	size_t size_a, size_b;
	char *text_a = slurp(in_workdir(a).s, &size_a), *text_b = slurp(in_workdir(b).s, &size_b);

	cr_expect_gt(size_a, 0, "%s is empty", a);
	cr_expect_eq(size_a, size_b, "%s: %zu bytes, %s: %zu", a, size_a, b, size_b);
	if (size_a == size_b) {
		size_t at = 0;

		while (at < size_a && text_a[at] == text_b[at])
			at++;
		cr_expect_eq(at, size_a, "%s and %s differ first at byte %zu", a, b, at);
	}
	free(text_a);
	free(text_b);
}

/* The line of text that starts with key, into buf ("" if none). */
static void line_of(const char *text, const char *key, char *buf, size_t len)
{
	const char *at = text;

	buf[0] = '\0';
	while (at && *at) {
		if (strncmp(at, key, strlen(key)) == 0) {
			snprintf(buf, len, "%.*s", (int)strcspn(at, "\n"), at);
			return;
		}
		at = strchr(at, '\n');
		at = at ? at + 1 : NULL;
	}
}

/* Occurrences of needle in text. */
static int occurrences(const char *text, const char *needle)
{
	int count = 0;

	for (const char *at = strstr(text, needle); at; at = strstr(at + 1, needle))
		count++;
	return count;
}

/* One process and ranks ranks on args, each writing file NAME.EXT: the
 * same bytes, and the same check line when args check. */
static void expect_same_run(int ranks, const char *args, const char *ext)
{
	char one[32], many[32], check_one[512], check_many[512], line[64];
	struct cli_run single, job;

	snprintf(one, sizeof(one), "one.%s", ext);
	snprintf(many, sizeof(many), "many.%s", ext);
	single = picard_run(1, args, one);
	job = picard_run(ranks, args, many);
	expect_same_bytes(one, many);
	snprintf(line, sizeof(line), "ranks        %d (mpirun)", ranks);
	cr_expect(strstr(job.out, line), "no '%s' in the summary:\n%s", line, job.out);
	line_of(single.out, "check ", check_one, sizeof(check_one));
	line_of(job.out, "check ", check_many, sizeof(check_many));
	cr_expect_str_eq(check_one, check_many, "the check of %d ranks is not one process's",
			 ranks);
	free_run(&single);
	free_run(&job);
}

Test(mpi, two_ranks_csv_with_save_every_and_check_match_one_process)
{
	require_mpi();
	expect_same_run(2, "lotka --backend cpu --traj 1000 --save-every 10 --check", "csv");
}

Test(mpi, two_ranks_npy_with_save_every_and_spread_params_match_one_process)
{
	require_mpi();
	expect_same_run(2, "lotka --backend cpu --traj 1000 --save-every 10 --spread-param a1=0.1",
			"npy");
	expect_same_bytes("one.status.csv", "many.status.csv");
}

/* 1001 = 3 * 333 + 2, and 3000 checked every 3rd (--check-traj 1000): the
 * ranks' ranges start at multiples of the stride. */
Test(mpi, three_ranks_on_counts_they_do_not_divide_match_one_process)
{
	require_mpi();
	expect_same_run(3, "lotka --backend cpu --traj 1001 --save-every 25 --precision double",
			"csv");
	expect_same_run(3, "lotka --backend cpu --traj 1001 --save-every 25", "npy");
	expect_same_run(3, "lotka --backend cpu --traj 3001 --check --check-traj 1000", "csv");
}

Test(mpi, three_ranks_read_their_rows_of_an_init_file)
{
	char text[64 * 80] = "x1,x2\n";
	size_t used = strlen(text);

	require_mpi();
	for (int i = 0; i < 77; i++)
		used += snprintf(text + used, sizeof(text) - used, "%.17g %.17g\n",
				 50 + 0.013 * i, 30 - 0.007 * i);
	write_file(in_workdir("init.csv").s, text, used);
	char args[512];

	snprintf(args, sizeof(args), "lotka --backend cpu --init %s --save-every 50",
		 in_workdir("init.csv").s);
	expect_same_run(3, args, "csv");
}

/* --init's t0 and t1 columns under mpirun: each rank's members on their
 * own spans (the spans follow the rows a rank takes, in batches too), the
 * rows outside a span marked, and the check on each member's span: the
 * bytes and the check line of one process. */
Test(mpi, three_ranks_solve_their_rows_on_their_own_spans)
{
	char text[64 * 80] = "x1,x2,t0,t1\n";
	size_t used = strlen(text);
	char args[512];

	require_mpi();
	for (int i = 0; i < 41; i++)
		used += snprintf(text + used, sizeof(text) - used, "%.17g %.17g %.17g %.17g\n",
				 1 + 0.01 * i, 0.5 - 0.02 * i, -0.25 * i, 3 + 0.4 * i);
	write_file(in_workdir("spans.csv").s, text, used);
	snprintf(args, sizeof(args), "oscillator --backend cpu --precision double --scheme dp8 "
		 "--iter-rtol 1e-9 --init %s --save-every 2 --check", in_workdir("spans.csv").s);
	expect_same_run(3, args, "csv");
	snprintf(args, sizeof(args), "oscillator --backend cpu --precision double --scheme dp8 "
		 "--iter-rtol 1e-9 --init %s --save-every 2 --check --batch 5",
		 in_workdir("spans.csv").s);
	expect_same_run(3, args, "npy");
}

/* Nothing named name or name.* left in the work directory. */
static void expect_no_file(const char *name)
{
	DIR *dir = opendir(workdir);
	struct dirent *entry;

	cr_assert_not_null(dir);
	while ((entry = readdir(dir)))
		cr_expect_neq(strncmp(entry->d_name, name, strlen(name)), 0,
			      "%s left in the work directory", entry->d_name);
	closedir(dir);
}

/* Under mpirun every rank solves its share in batches, keeps their rows
 * and places them at the end: one process's files. 1001 members in
 * batches of 111 make 4 batches on ranks 0 and 1 and 3 on rank 2, which
 * agrees on an empty fourth; 3001 with 1000 of them checked, in batches
 * of 100 (a multiple of the check's stride, 4): 1004, 1000 and 997 members
 * in 11 batches. Also no file left beside --out. */
Test(mpi, three_ranks_in_batches_match_one_process)
{
	static const struct {
		const char *args, *ext;
	} cases[] = {
		{"lotka --backend cpu --traj 1001 --save-every 25 --spread-param a1=0.1", "npy"},
		{"lotka --backend cpu --traj 1001 --precision double", "csv"},
		{"lotka --backend cpu --traj 3001 --check --check-traj 1000", "npy"},
	};
	char batched[512], check_one[512], check_many[512];

	require_mpi();
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char one[32], many[32];
		struct cli_run single, job;

		snprintf(one, sizeof(one), "one%zu.%s", c, cases[c].ext);
		snprintf(many, sizeof(many), "many%zu.%s", c, cases[c].ext);
		snprintf(batched, sizeof(batched), "%s --batch %d", cases[c].args, c == 2 ? 100 : 111);
		single = picard_run(1, cases[c].args, one);
		job = picard_run(3, batched, many);
		expect_same_bytes(one, many);
		cr_expect(strstr(job.out, c == 2 ? "batches      11 of at most 100" :
					     "batches      4 of at most 111"),
			  "no batches line:\n%s", job.out);
		line_of(single.out, "check ", check_one, sizeof(check_one));
		line_of(job.out, "check ", check_many, sizeof(check_many));
		cr_expect_str_eq(check_one, check_many);
		if (!strcmp(cases[c].ext, "npy")) {
			snprintf(one, sizeof(one), "one%zu.status.csv", c);
			snprintf(many, sizeof(many), "many%zu.status.csv", c);
			expect_same_bytes(one, many);
		}
		snprintf(many, sizeof(many), "many%zu.%s.", c, cases[c].ext);
		expect_no_file(many); /* the ranks' kept batches */
		free_run(&single);
		free_run(&job);
	}
}

/* The event log under mpirun: each rank's members' rows placed together,
 * the bytes of one process's log, beside --out (.npy, in batches) and at
 * --events (CSV); the ranks' parts not left behind. */
Test(mpi, three_ranks_write_the_event_log_of_one_process)
{
	const char *balls = "bouncing_ball --backend cpu --traj 301 --spread 0.2 --seed 3 "
			    "--iter-rtol 1e-10 --event-log 8";
	char args[512];
	struct cli_run single, job;

	require_mpi();
	single = picard_run(1, balls, "one.npy");
	snprintf(args, sizeof(args), "%s --batch 37", balls);
	job = picard_run(3, args, "many.npy");
	char events_one[256], events_many[256];

	expect_same_bytes("one.events.npy", "many.events.npy");
	line_of(single.out, "events ", events_one, sizeof(events_one));
	line_of(job.out, "events ", events_many, sizeof(events_many));
	cr_expect(events_one[0], "no events line:\n%s", single.out);
	cr_expect_str_eq(events_one, events_many, "the job's event count is not one process's");
	free_run(&single);
	free_run(&job);
	snprintf(args, sizeof(args), "%s --events %s", balls, in_workdir("one_log.csv").s);
	single = picard_run(1, args, "one.csv");
	snprintf(args, sizeof(args), "%s --events %s", balls, in_workdir("many_log.csv").s);
	job = picard_run(3, args, "many.csv");
	expect_same_bytes("one_log.csv", "many_log.csv");
	expect_same_bytes("one.csv", "many.csv");
	expect_no_file("many.events.npy.");
	expect_no_file("many_log.csv.");
	free_run(&single);
	free_run(&job);
}

/* 101 trajectories of float64 pairs; value bad_at (if >= 0) is NaN. */
static void write_binary_init(const char *name, int bad_at)
{
	double values[202];

	for (int i = 0; i < 202; i++)
		values[i] = i == bad_at ? NAN : i % 2 ? 30 - 0.02 * i : 50 + 0.01 * i;
	write_file(in_workdir(name).s, values, sizeof(values)); /* little-endian hosts */
}

Test(mpi, three_ranks_read_their_own_rows_of_a_binary_init_file)
{
	char args[512];

	require_mpi();
	write_binary_init("init.bin", -1);
	snprintf(args, sizeof(args), "lotka --backend cpu --init %s --save-every 50",
		 in_workdir("init.bin").s);
	expect_same_run(3, args, "csv");
}

/* A NaN in the last rank's rows: only that rank sees it, names it as one
 * process does, and the job ends with status 2 and no output. */
Test(mpi, a_bad_value_in_one_ranks_rows_of_an_init_file_aborts_the_job)
{
	char line[512];
	struct cli_run job;

	require_mpi();
	write_binary_init("bad.bin", 181); /* trajectory 90, component 2 */
	snprintf(line, sizeof(line), "lotka --backend cpu --init %s --out %s",
		 in_workdir("bad.bin").s, in_workdir("bad.csv").s);
	job = mpirun_line(3, "picard-run", line);
	cr_expect_eq(job.status, 2, "status %d\n%s", job.status, job.err);
	cr_expect(strstr(job.err, "trajectory 90, component 2 (byte 1448): not finite"), "%s",
		  job.err);
	cr_expect(strstr(job.err, "rank 2 of 3 failed"), "%s", job.err);
	expect_no_file("bad.csv");
	free_run(&job);
}

/* picard-run on line under mpirun: exit status status, and needle once on
 * stderr (one message for the job, not one per rank). */
static struct cli_run expect_said_once(int ranks, const char *line, int status,
				       const char *needle)
{
	struct cli_run job = mpirun_line(ranks, "picard-run", line);

	cr_expect_eq(job.status, status, "status %d\n%s", job.status, job.err);
	cr_expect_eq(occurrences(job.err, needle), 1, "'%s' said %d times:\n%s", needle,
		     occurrences(job.err, needle), job.err);
	return job;
}

Test(mpi, failed_trajectories_are_reported_once_for_the_job)
{
	struct cli_run job;

	require_mpi();
	job = expect_said_once(2, "lotka --backend cpu --traj 600 --h 3", 1,
			       "600 of 600 trajectories failed");
	cr_expect(strstr(job.out, "failed       600 of 600 trajectories"), "%s", job.out);
	free_run(&job);
}

Test(mpi, too_few_trajectories_for_the_ranks_is_a_usage_error_said_once)
{
	struct cli_run job;

	require_mpi();
	job = expect_said_once(2, "lotka --backend cpu --traj 1", 2, "some rank would get none");
	free_run(&job);
}

Test(mpi, a_failing_rank_aborts_the_job_with_a_message_and_no_output)
{
	char line[512];
	struct cli_run job;

	require_mpi();
	setenv("PICARD_TEST_FAIL_RANK", "1", 1);
	snprintf(line, sizeof(line), "lotka --backend cpu --traj 1000 --out %s",
		 in_workdir("aborted.csv").s);
	job = mpirun_line(3, "picard-run", line);
	cr_expect_neq(job.status, TIMED_OUT, "the job hung until the timeout");
	cr_expect_neq(job.status, 0, "a failed rank, yet status 0");
	cr_expect(strstr(job.err, "rank 1: failing on purpose"), "no message from rank 1:\n%s",
		  job.err);
	cr_expect(strstr(job.err, "rank 1 of 3 failed"), "no message from rank 0:\n%s", job.err);
	expect_no_file("aborted.csv");
	free_run(&job);
}

/* Each rank sees one GPU, its rank's on the node among those visible,
 * round robin (3 ranks, 2 GPUs): bound before MPI_Init from the launcher's
 * local rank (picard_mpi_start_device), kept by picard_mpi_bind_device.
 * The listed GPUs need not exist: the binding reads the list, and the
 * solves fall back to the CPU. */
Test(mpi, each_rank_sees_its_own_gpu_of_those_visible)
{
	struct cli_run job;

	require_mpi();
	setenv("CUDA_VISIBLE_DEVICES", "7,9", 1);
	job = mpirun_line(3, "mpi-api-check", "--devices 7,9");
	cr_expect_eq(job.status, 0, "status %d\nstdout:\n%s\nstderr:\n%s", job.status, job.out,
		     job.err);
	cr_expect(strstr(job.out, "mpi-api-check: 3 ranks"), "%s", job.out);
	free_run(&job);
}

Test(mpi, the_library_over_a_communicator)
{
	struct cli_run job;

	require_mpi();
	job = mpirun_line(3, "mpi-api-check", "");
	cr_expect_eq(job.status, 0, "status %d\nstdout:\n%s\nstderr:\n%s", job.status, job.out,
		     job.err);
	cr_expect(strstr(job.out, "mpi-api-check: 3 ranks"), "%s", job.out);
	free_run(&job);
}
