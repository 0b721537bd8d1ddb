/* test_usage_exit.c - a bad command line ends picard-run and picard-tune
 * with exit status 2 (the README's promise), one line on stderr that
 * starts with the program's name and names what was wrong, and no output
 * file: neither the one asked for nor a temporary one beside it. The
 * table holds values of every kind (non-numbers, negatives, unknown
 * names, values the library refuses only once it sees the whole grid)
 * for both programs. */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

static void make_usage_workdir(void)
{
	make_workdir("usage", NULL);
}

TestSuite(usage_exit, .init = make_usage_workdir, .fini = remove_workdir, .timeout = 120);

/* One bad command line: the program, its arguments (blank separated; the
 * output flag and file are added), and what the error line names. */
struct bad_line {
	const char *program;
	const char *args;
	const char *needle;
};

static const struct bad_line bad_lines[] = {
	/* picard-run: values the option parser refuses */
	{"picard-run", "decay --traj abc", "--traj"},
	{"picard-run", "decay --traj -4", "--traj"},
	{"picard-run", "decay --h nan", "--h"},
	{"picard-run", "decay --m 1", "--m"},
	{"picard-run", "decay --K two", "--K"},
	{"picard-run", "decay --scheme simpson", "--scheme"},
	{"picard-run", "decay --precision half", "--precision"},
	{"picard-run", "decay --backend opencl", "--backend"},
	{"picard-run", "decay --param lambda=x", "--param"},
	{"picard-run", "decay --param mu=1", "mu"},
	{"picard-run", "decay --spread-param lambda=-1", "lambda=-1"},
	{"picard-run", "decay --seed -1", "--seed"},
	{"picard-run", "decay --tol -1", "--tol"},
	{"picard-run", "decay --block x", "--block"},
	{"picard-run", "decay --scheme dp5 --max-steps 0", "--max-steps"},
	{"picard-run", "decay --t0 5 --t1 1", "--t1"},
	{"picard-run", "nosuchmodel", "nosuchmodel"},
	/* picard-run: grids the library refuses when the solver is made
	 * (these exited 1) */
	{"picard-run", "decay --backend cpu --traj 2 --h 1e-19", "h = 1e-19"},
	{"picard-run", "decay --backend cpu --traj 2 --scheme lobatto --window 1e-19", "windows"},
	{"picard-run", "decay --backend cpu --traj 2 --scheme dp5 --h 1e-19", "h = 1e-19"},
	{"picard-run", "decay --backend cpu --traj 2 --scheme newton --window 1e-19", "windows"},
	{"picard-run", "decay --backend cpu --traj 2 --scheme lobatto --layout paper", "layout"},
	/* picard-tune */
	{"picard-tune", "decay --tol abc", "--tol"},
	{"picard-tune", "decay --tol -1", "--tol"},
	{"picard-tune", "decay", "--tol"},
	{"picard-tune", "decay --tol 1e-3 --sample 0", "--sample"},
	{"picard-tune", "decay --tol 1e-3 --repeats x", "--repeats"},
	{"picard-tune", "decay --tol 1e-3 --m 4,x", "--m"},
	{"picard-tune", "decay --tol 1e-3 --seed 0", "--seed"},
	{"picard-tune", "decay --tol 1e-3 --spread -1", "--spread"},
	{"picard-tune", "decay --tol 1e-3 --scheme nosuch", "--scheme"},
	{"picard-tune", "nosuchmodel --tol 1e-3", "nosuchmodel"},
	/* the scheme's node limit (this exited 1, after the --csv file was
	 * made) */
	{"picard-tune", "decay --tol 1e-3 --backend cpu --scheme dp5 --m 4", "--m 4"},
	{"picard-tune", "decay --tol 1e-3 --backend cpu --precision double --scheme newton --m 1000",
	 "--m 1000"},
};

/* Entries of the work directory (no dot files are expected there). */
static int workdir_entries(char *names, size_t len)
{
	DIR *dir = opendir(workdir);
	struct dirent *e;
	int count = 0;

	names[0] = '\0';
	cr_assert_not_null(dir);
	while ((e = readdir(dir))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		count++;
		snprintf(names + strlen(names), len - strlen(names), " %s", e->d_name);
	}
	closedir(dir);
	return count;
}

Test(usage_exit, bad_lines_exit_2_and_leave_no_file)
{
	const struct path out = in_workdir("out.csv");
	char line[512], prefix[32], names[512];
	size_t lines = sizeof(bad_lines) / sizeof(bad_lines[0]);

	cr_assert_gt(lines, 0);
	for (size_t i = 0; i < lines; i++) {
		const struct bad_line *bad = &bad_lines[i];
		struct cli_run run;

		snprintf(line, sizeof(line), "%s %s %s", bad->args,
			 strcmp(bad->program, "picard-tune") ? "--out" : "--csv", out.s);
		run = run_program_line(bad->program, line);
		snprintf(prefix, sizeof(prefix), "%s: ", bad->program);
		cr_expect_eq(run.status, 2, "%s %s: exit status %d, expected 2 (stderr: %s)",
			     bad->program, line, run.status, run.err);
		cr_expect_eq(strncmp(run.err, prefix, strlen(prefix)), 0, "%s %s: stderr '%s'",
			     bad->program, line, run.err);
		cr_expect_not_null(strstr(run.err, bad->needle), "%s %s: stderr '%s' does not name "
				   "'%s'", bad->program, line, run.err, bad->needle);
		cr_expect_eq(workdir_entries(names, sizeof(names)), 0, "%s %s: left behind:%s",
			     bad->program, line, names);
		free_run(&run);
		unlink(out.s);
	}
}
