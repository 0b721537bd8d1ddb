/* test_batch_cli.c - picard-run --batch: an ensemble solved, checked and
 * written a batch at a time gives the files and reports of one solve,
 * byte for byte (timings and file names aside), on inputs with failures,
 * failed references, parameters and saved times; what cannot be written
 * in batches is refused before any work. CPU backend only. */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

static void make_batch_workdir(void)
{
	make_workdir("batch-cli", NULL);
}

TestSuite(batch_cli, .init = make_batch_workdir, .fini = remove_workdir, .timeout = 180);

/* text without the lines drop picks (line: len bytes, without its
 * newline). */
static char *lines_without(const char *text, bool (*drop)(const char *line, size_t len))
{
	char *kept = calloc(strlen(text) + 1, 1);
	const char *line = text;

	cr_assert_not_null(kept);
	while (*line) {
		const char *end = strchr(line, '\n');
		const size_t len = end ? (size_t)(end - line + 1) : strlen(line);

		if (!drop(line, end ? len - 1 : len))
			strncat(kept, line, len);
		line += len;
	}
	return kept;
}

/* A line of stdout that differs between equal runs: times, file names,
 * the batches line itself. */
static bool varying_line(const char *line, size_t len)
{
	static const char *const varying[] = {"solve ", "estimate ", "throughput ", "total ",
					      "statuses ", "output ", "batches "};

	(void)len;
	for (size_t v = 0; v < sizeof(varying) / sizeof(varying[0]); v++)
		if (strncmp(line, varying[v], strlen(varying[v])) == 0)
			return true;
	return false;
}

/* A progress line of stderr ("picard-run: solving N trajectories ..."),
 * which comes or not by how long a phase takes; a list cut short ends
 * ", ...", and that is a message. */
static bool progress_line(const char *line, size_t len)
{
	return len >= 5 && strncmp(line + len - 4, " ...", 4) == 0 && line[len - 5] != ',';
}

/* The run of args writing out, once whole and once with batch: the same
 * exit status, stderr, stdout (but for timings and names), and files
 * (suffixes: the .npy's status file beside it). */
static void batches_match_one_solve(const char *args, const char *ext, const char *batch,
				    int want_status, const char *want_out)
{
	const struct path whole = in_workdir(ext[1] == 'n' ? "whole.npy" : "whole.csv");
	const struct path parts = in_workdir(ext[1] == 'n' ? "parts.npy" : "parts.csv");
	char line[1024];
	struct cli_run a, b;

	snprintf(line, sizeof(line), "%s --out %s", args, whole.s);
	a = run_program_line("picard-run", line);
	snprintf(line, sizeof(line), "%s --out %s --batch %s", args, parts.s, batch);
	b = run_program_line("picard-run", line);
	cr_assert_eq(a.status, want_status, "'%s': exit %d (stderr: %s)", args, a.status, a.err);
	cr_assert_eq(b.status, want_status, "'%s --batch %s': exit %d (stderr: %s)", args, batch,
		     b.status, b.err);
	cr_expect_not_null(strstr(b.out, "batches "), "no batches line: %s", b.out);
	cr_expect_not_null(strstr(a.out, want_out), "'%s' not in %s", want_out, a.out);
	char *sa = lines_without(a.out, varying_line), *sb = lines_without(b.out, varying_line);

	char *ea = lines_without(a.err, progress_line), *eb = lines_without(b.err, progress_line);

	cr_expect_str_eq(sa, sb, "stdout differs");
	cr_expect_str_eq(ea, eb, "stderr differs: %s\n--- against ---\n%s", a.err, b.err);
	free(ea);
	free(eb);
	expect_same_file(whole.s, parts.s);
	if (ext[1] == 'n')
		expect_same_file(in_workdir("whole.status.csv").s, in_workdir("parts.status.csv").s);
	free(sa);
	free(sb);
	free_run(&a);
	free_run(&b);
}

/* --spread-param, --check of every 10th member, saved times in a .npy:
 * batches of 300 (a multiple of the check's stride), the last of 100. */
Test(batch_cli, npy_saved_times_and_check)
{
	batches_match_one_solve("lotka --backend cpu --traj 1000 --check --check-traj 100 "
				"--spread-param a1=0.3 --save-every 10", ".npy", "300", 0,
				"check        E = ");
}

/* Members that blow up (their references too), a tolerance on a given
 * grid (every member judged, the misses verified), a CSV: batches of 200,
 * the last of 197. */
Test(batch_cli, csv_failures_and_tolerance)
{
	const struct path init = in_workdir("init.txt");
	FILE *f = fopen(init.s, "w");
	char args[512];

	/* states and every parameter, a1 spread */
	cr_assert_not_null(f);
	for (int i = 0; i < 997; i++) {
		const double s = i % 37 == 5 ? -40 : 1, u = (double)((i * 7919) % 1000) / 1000;

		fprintf(f, "%.17g %.17g %.17g 0.01 0.001 -0.3 0.01 0.002\n", s * 50 * (0.95 + 0.1 * u),
			s * 30 * (1.05 - 0.1 * u), 0.25 * (0.9 + 0.2 * u));
	}
	fclose(f);
	snprintf(args, sizeof(args), "lotka --backend cpu --init %s --tol 1e-4 --h 0.05 --m 6 "
		 "--K 3", init.s);
	batches_match_one_solve(args, ".csv", "200", 1, "failed       27 of 997 trajectories");
}

/* --param set for all, dp8 with its failing steps: batches of 64. */
Test(batch_cli, npy_param_and_per_thread_scheme)
{
	batches_match_one_solve("lotka --backend cpu --traj 500 --param a1=0.3 --scheme dp8 "
				"--steps 40 --check --save-at 1,50,100", ".npy", "64", 0,
				"trajectories 500");
}

/* A batch smaller than the check's stride is rounded up to it. */
Test(batch_cli, batch_rounded_to_the_check_stride)
{
	struct cli_run run = run_program_line("picard-run", "lotka --backend cpu --traj 100 "
					      "--check-traj 10 --batch 7");

	cr_assert_eq(run.status, 0, "exit %d: %s", run.status, run.err);
	cr_expect_not_null(strstr(run.out, "batches      10 of at most 10 trajectories each"), "%s",
			   run.out);
	free_run(&run);
}

/* Bad values, and what batches cannot do: exit 2 naming the flag, no
 * summary, no file. */
static void expect_refused(const char *args, const char *needle)
{
	struct cli_run run = run_program_line("picard-run", args);

	cr_expect_eq(run.status, 2, "'%s': exit %d (stderr: %s)", args, run.status, run.err);
	cr_expect_not_null(strstr(run.err, needle), "'%s': stderr '%s' lacks '%s'", args, run.err,
			   needle);
	cr_expect_str_empty(run.out, "'%s': stdout %s", args, run.out);
	free_run(&run);
}

Test(batch_cli, refused)
{
	const struct path csv = in_workdir("saved.csv");
	char args[512];

	expect_refused("lotka --backend cpu --batch 0", "--batch");
	expect_refused("lotka --backend cpu --batch -5", "--batch");
	expect_refused("lotka --backend cpu --batch 12x", "--batch");
	expect_refused("lotka --backend cpu --traj 100 --batch 10 --repeat 3", "--repeat 3");
	snprintf(args, sizeof(args), "lotka --backend cpu --traj 100 --batch 10 --save-every 5 "
		 "--out %s", csv.s);
	expect_refused(args, "write a .npy");
	cr_expect_eq(access(csv.s, F_OK), -1, "a refused run left %s", csv.s);
	/* a start past float's range in a later batch: named by its row in
	 * the file, and no file left */
	const struct path init = in_workdir("far.txt");
	FILE *f = fopen(init.s, "w");

	cr_assert_not_null(f);
	for (int i = 0; i < 100; i++)
		fprintf(f, "50 %g\n", i == 77 ? 1e39 : 30.0);
	fclose(f);
	snprintf(args, sizeof(args), "lotka --backend cpu --init %s --batch 30 --out %s", init.s,
		 csv.s);
	expect_refused(args, "trajectory 77 (data row 78), column 2");
	cr_expect_eq(access(csv.s, F_OK), -1, "a refused run left %s", csv.s);
	/* a batch as large as the ensemble is one batch: nothing to refuse */
	struct cli_run run = run_program_line("picard-run", "lotka --backend cpu --traj 10 "
					      "--batch 50 --repeat 2");

	cr_expect_eq(run.status, 0, "exit %d: %s", run.status, run.err);
	cr_expect_null(strstr(run.out, "batches "), "%s", run.out);
	free_run(&run);
}

/* A tuned tolerance in batches: the grid is tuned on the first batch, and
 * every member of every batch is judged against the tolerance. */
Test(batch_cli, tuned_tolerance)
{
	struct cli_run run = run_program_line("picard-run", "lotka --backend cpu --traj 600 "
					      "--tol 1e-5 --batch 200");

	cr_assert_eq(run.status, 0, "exit %d: %s", run.status, run.err);
	cr_expect_not_null(strstr(run.out, "met by 600 of 600 trajectories"), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "batches      3 of at most 200 trajectories each"), "%s", run.out);
	free_run(&run);
}
