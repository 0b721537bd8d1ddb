/* test_progress.c - picard-run says long work on stderr (issue 35, item
 * 4; suite progress): a phase still running after about 2 s is said once
 * on stderr (not a terminal here), never on stdout, and a quick run says
 * nothing. The host compiler is made slow on purpose: PICARD_CXX is a
 * script that sleeps 3 s before each compile (not before --version, part
 * of the cache key). The caches are the test's own, so the model is
 * compiled afresh.
 */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "support.h"

static void make_progress_workdir(void)
{
	make_workdir("progress", "cache");
	setenv("PICARD_JIT_CACHE_DIR", in_workdir("cache").s, 1);
}

TestSuite(progress, .init = make_progress_workdir, .fini = remove_workdir, .timeout = 120);

/* A host compiler 3 s slower than g++, and decay's model file, in the
 * workdir; the command line that runs it. */
static void slow_compile_setup(char *line, size_t len)
{
	const char *script = "#!/bin/sh\n"
			     "case \"$1\" in --version) exec g++ \"$@\";; esac\n"
			     "sleep 3\n"
			     "exec g++ \"$@\"\n";
	size_t size = 0;
	char *text = slurp("models/decay.cu", &size);

	cr_assert_gt(size, 0, "no models/decay.cu");
	write_file(in_workdir("decay.cu").s, text, size);
	free(text);
	write_file(in_workdir("slowcxx").s, script, strlen(script));
	cr_assert_eq(chmod(in_workdir("slowcxx").s, 0755), 0);
	setenv("PICARD_CXX", in_workdir("slowcxx").s, 1);
	snprintf(line, len, "%s --traj 4 --backend cpu", in_workdir("decay.cu").s);
}

/* The first run compiles the model for 3 s or more: one line says so on
 * stderr, when it has run 2 s; stdout has no such line. The same run again
 * finds the model compiled and says nothing on stderr. */
Test(progress, slow_phase_is_said_quick_run_says_nothing)
{
	const char *said = "picard-run: compiling decay.cu for the host (";
	char line[512];
	struct cli_run run;
	const char *at;

	slow_compile_setup(line, sizeof(line));
	run = run_program_line("picard-run", line);
	cr_assert_eq(run.status, 0, "exit status %d\n%s%s", run.status, run.out, run.err);
	at = strstr(run.err, said);
	cr_expect_not_null(at, "stderr:\n%s", run.err);
	cr_expect(at && strstr(at, ") ...\n"), "stderr:\n%s", run.err);
	cr_expect(at && !strstr(at + 1, said), "said twice:\n%s", run.err);
	cr_expect_null(strstr(run.out, "compiling"), "stdout:\n%s", run.out);
	cr_expect_null(strstr(run.out, " ..."), "stdout:\n%s", run.out);
	cr_expect_not_null(strstr(run.out, "trajectories 4"), "stdout:\n%s", run.out);
	free_run(&run);

	run = run_program_line("picard-run", line);
	cr_assert_eq(run.status, 0, "exit status %d\n%s%s", run.status, run.out, run.err);
	cr_expect_str_eq(run.err, "", "a quick run said:\n%s", run.err);
	free_run(&run);
}
