/* test_quick_cache.c - picard-run --tol's quick search decision, kept and
 * reused (issue 35, item 2; suite quick_cache). A copy of decay's model
 * file is the model, so that a test may edit it; its closed form x0
 * exp(-lambda (t1 - t0)) over [0, 10] judges every answer. The caches are
 * the test's own (PICARD_CACHE_DIR; PICARD_JIT_CACHE_DIR too where the
 * test needs the compiled models fresh). CPU backend; --scheme dp5 keeps
 * each search to a couple of seconds.
 */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_files.h"
#include "support.h"

#define NTRAJ 4
#define TOL 1e-6

static void make_qcache_workdir(void)
{
	make_workdir("qcache", "cache");
}

TestSuite(quick_cache, .init = make_qcache_workdir, .fini = remove_workdir, .timeout = 300);

/* ---- helpers -------------------------------------------------------------------------- */

/* decay's model file copied into the workdir with lambda's default set to
 * lambda; its path. */
static struct path decay_file(const char *lambda)
{
	const struct path copy = in_workdir("decay.cu");
	char *text = slurp("models/decay.cu", NULL), *at, edited[8192];
	const char *was = "param_defaults[] = {0.5}";

	at = strstr(text, was);
	cr_assert_not_null(at, "models/decay.cu no longer holds '%s'", was);
	snprintf(edited, sizeof(edited), "%.*sparam_defaults[] = {%s}%s", (int)(at - text), text,
		 lambda, at + strlen(was));
	write_file(copy.s, edited, strlen(edited));
	free(text);
	return copy;
}

/* An --init file of NTRAJ states 1, 2, ...; the states into x0. */
static struct path init_file(double *x0)
{
	const struct path path = in_workdir("init.csv");
	char text[256];
	size_t used = snprintf(text, sizeof(text), "x1\n");

	for (int i = 0; i < NTRAJ; i++) {
		x0[i] = i + 1;
		used += snprintf(text + used, sizeof(text) - used, "%g\n", x0[i]);
	}
	write_file(path.s, text, used);
	return path;
}

/* The command line of the run these tests repeat, its final states into
 * the workdir's file out. */
static void command(char *line, size_t len, const char *out)
{
	snprintf(line, len, "%s --init %s --out %s --tol %g --backend cpu --precision double "
		 "--scheme dp5", in_workdir("decay.cu").s, in_workdir("init.csv").s,
		 in_workdir(out).s, TOL);
}

static struct cli_run run_decay(const char *out)
{
	char line[1024];

	command(line, sizeof(line), out);
	return run_program_line("picard-run", line);
}

/* The largest |x - x0 exp(-10 lambda)| of a run's final states in out. */
static double worst_error(const char *out, const double *x0, double lambda)
{
	double x[NTRAJ], worst = 0;

	read_final_csv(in_workdir(out).s, NTRAJ, 1, x);
	for (int i = 0; i < NTRAJ; i++)
		worst = fmax(worst, fabs(x[i] - x0[i] * exp(-10 * lambda)));
	return worst;
}

/* The line of text that starts with prefix, less what follows " from ",
 * into buf ("" when none). */
static void grid_said(const char *text, const char *prefix, char *buf, size_t len)
{
	const char *at = strstr(text, prefix);
	size_t n = at ? strcspn(at, "\n") : 0;
	const char *from = at ? strstr(at, " from ") : NULL;

	if (from && from < at + n)
		n = (size_t)(from - at);
	snprintf(buf, len, "%.*s", (int)n, at ? at : "");
}

/* The one decision file in the test's cache. */
static struct path decision_file(void)
{
	DIR *dir = opendir(in_workdir("cache/decisions").s);
	struct dirent *entry;
	struct path path = {{0}};
	char name[64];
	int found = 0;

	cr_assert_not_null(dir, "no cache/decisions");
	while ((entry = readdir(dir)))
		if (strstr(entry->d_name, ".txt") && !strstr(entry->d_name, ".tmp")) {
			snprintf(name, sizeof(name), "cache/decisions/%.32s", entry->d_name);
			path = in_workdir(name);
			found++;
		}
	closedir(dir);
	cr_assert_eq(found, 1, "%d decision files, not 1", found);
	return path;
}

/* ---- reuse ---------------------------------------------------------------------------- */

/* The same command twice more after its search: the decision is reused
 * (said so, with its file), the same grid runs each time, and the answer
 * is still judged, member by member, and within E* of the closed form. */
Test(quick_cache, repeated_command_reuses_decision)
{
	double x0[NTRAJ];
	char first[512], again[512];
	struct cli_run run;

	decay_file("0.5");
	init_file(x0);
	run = run_decay("first.csv");
	cr_assert_eq(run.status, 0, "exit status %d\n%s%s", run.status, run.out, run.err);
	cr_expect_not_null(strstr(run.out, "from a quick search on this ensemble"), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "; kept in "), "%s", run.out);
	cr_expect_leq(worst_error("first.csv", x0, 0.5), TOL, "%s", run.out);
	grid_said(run.out, "parameters", first, sizeof(first));
	free_run(&run);
	for (int i = 0; i < 2; i++) {
		run = run_decay("again.csv");
		cr_assert_eq(run.status, 0, "exit status %d\n%s%s", run.status, run.out, run.err);
		cr_expect_not_null(strstr(run.out, "from a quick search's decision reused from "),
				   "%s", run.out);
		cr_expect_not_null(strstr(run.out, decision_file().s), "%s", run.out);
		cr_expect_not_null(strstr(run.out, "met by 4 of 4 trajectories"), "%s", run.out);
		cr_expect_leq(worst_error("again.csv", x0, 0.5), TOL, "%s", run.out);
		grid_said(run.out, "parameters", again, sizeof(again));
		cr_expect_str_eq(again, first, "run %d:\n%s", i + 2, run.out);
		free_run(&run);
	}
}

/* The model file edited between two runs (lambda 0.5 to 0.25): the second
 * searches anew, and its answer is the new model's closed form; a third
 * reuses the new decision. */
Test(quick_cache, edited_model_is_searched_again)
{
	double x0[NTRAJ];
	struct cli_run run;

	decay_file("0.5");
	init_file(x0);
	run = run_decay("old.csv");
	cr_assert_eq(run.status, 0, "exit status %d\n%s%s", run.status, run.out, run.err);
	cr_expect_leq(worst_error("old.csv", x0, 0.5), TOL, "%s", run.out);
	free_run(&run);

	decay_file("0.25");
	run = run_decay("new.csv");
	cr_assert_eq(run.status, 0, "exit status %d\n%s%s", run.status, run.out, run.err);
	cr_expect_null(strstr(run.out, "reused"), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "from a quick search on this ensemble"), "%s", run.out);
	cr_expect_leq(worst_error("new.csv", x0, 0.25), TOL, "%s", run.out);
	free_run(&run);

	run = run_decay("new.csv");
	cr_assert_eq(run.status, 0, "exit status %d\n%s%s", run.status, run.out, run.err);
	cr_expect_not_null(strstr(run.out, "decision reused"), "%s", run.out);
	cr_expect_leq(worst_error("new.csv", x0, 0.25), TOL, "%s", run.out);
	free_run(&run);
}

/* Two runs started at once on a fresh cache (the compiled model's too):
 * both succeed with the closed form's answer, and leave a decision that a
 * third run reuses. */
Test(quick_cache, two_runs_at_once_share_a_fresh_cache)
{
	struct cli_started started[2];
	char line[1024];
	double x0[NTRAJ];
	struct cli_run run;

	setenv("PICARD_JIT_CACHE_DIR", in_workdir("jit").s, 1);
	decay_file("0.5");
	init_file(x0);
	for (int i = 0; i < 2; i++) {
		command(line, sizeof(line), i ? "b.csv" : "a.csv");
		started[i] = start_program_line("picard-run", line, i ? "b" : "a");
	}
	for (int i = 0; i < 2; i++) {
		run = finish_run(&started[i]);
		cr_expect_eq(run.status, 0, "run %d: exit status %d\n%s%s", i, run.status, run.out,
			     run.err);
		cr_expect_not_null(strstr(run.out, "met by 4 of 4 trajectories"), "%s", run.out);
		free_run(&run);
	}
	cr_expect_leq(worst_error("a.csv", x0, 0.5), TOL);
	cr_expect_leq(worst_error("b.csv", x0, 0.5), TOL);
	run = run_decay("c.csv");
	cr_assert_eq(run.status, 0, "exit status %d\n%s%s", run.status, run.out, run.err);
	cr_expect_not_null(strstr(run.out, "decision reused"), "%s", run.out);
	cr_expect_leq(worst_error("c.csv", x0, 0.5), TOL, "%s", run.out);
	free_run(&run);
}

/* A picard-tune entry wins over a kept decision: after a run has kept one,
 * picard-tune stores an entry for the same model file, precision,
 * tolerance and ensemble (its default, so no --init), and the run takes
 * the entry; its states at t1 are x(t0) exp(-10 lambda), each member ok. */
Test(quick_cache, tune_entry_wins_over_a_decision)
{
	char line[1024], tune[1024];
	double x[2][NTRAJ]; /* the states at t0 and t1 */
	struct cli_run run;

	decay_file("0.5");
	snprintf(line, sizeof(line), "%s --traj %d --tol %g --backend cpu --precision double "
		 "--scheme dp5 --out %s --save-at 0,10", in_workdir("decay.cu").s, NTRAJ, TOL,
		 in_workdir("saved.npy").s);
	run = run_program_line("picard-run", line);
	cr_assert_eq(run.status, 0, "exit status %d\n%s%s", run.status, run.out, run.err);
	cr_expect_not_null(strstr(run.out, "; kept in "), "%s", run.out);
	free_run(&run);
	snprintf(tune, sizeof(tune), "%s --traj %d --tol %g --backend cpu --precision double "
		 "--scheme dp5", in_workdir("decay.cu").s, NTRAJ, TOL);
	run = run_program_line("picard-tune", tune);
	cr_assert_eq(run.status, 0, "picard-tune: exit status %d\n%s%s", run.status, run.out,
		     run.err);
	free_run(&run);
	run = run_program_line("picard-run", line);
	cr_assert_eq(run.status, 0, "exit status %d\n%s%s", run.status, run.out, run.err);
	cr_expect_not_null(strstr(run.out, "from the tuning cache"), "%s", run.out);
	cr_expect_null(strstr(run.out, "reused"), "%s", run.out);
	read_npy(in_workdir("saved.npy").s, "(2, 4, 1)", 2 * NTRAJ, &x[0][0]);
	for (int i = 0; i < NTRAJ; i++)
		cr_expect_leq(fabs(x[1][i] - x[0][i] * exp(-0.5 * 10)), TOL, "member %d: %g from %g",
			      i, x[1][i], x[0][i]);
	cr_expect_not_null(strstr(run.out, "met by 4 of 4 trajectories"), "%s", run.out);
	free_run(&run);
}

/* ---- a damaged file ----------------------------------------------------------------------- */

/* How a decision file is damaged: what replaces what. */
struct damage {
	char what[24];  /* "" cuts the file short before its end line */
	char with[24];
};

ParameterizedTestParameters(quick_cache, damaged_decision_is_not_trusted)
{
	static struct damage damages[] = {
		{"", ""},                                  /* cut short */
		{" m=2 ", " m=1 "},                        /* out of range */
		{" windows=", " windows=x"},               /* does not read */
		{"point scheme=dp5", "point scheme=dp6"},  /* no such scheme */
	};

	return cr_make_param_array(struct damage, damages, sizeof(damages) / sizeof(damages[0]));
}

/* A decision file cut short or corrupt: one warning naming it, a new
 * search, and the closed form's answer. */
ParameterizedTest(struct damage *damage, quick_cache, damaged_decision_is_not_trusted)
{
	double x0[NTRAJ];
	struct cli_run run;
	struct path file;
	char *text, *at, damaged[8192];

	decay_file("0.5");
	init_file(x0);
	run = run_decay("first.csv");
	cr_assert_eq(run.status, 0, "exit status %d\n%s%s", run.status, run.out, run.err);
	free_run(&run);
	file = decision_file();
	text = slurp(file.s, NULL);
	if (!damage->what[0]) {
		at = strstr(text, "\nend\n");
		cr_assert_not_null(at, "%s", text);
		at[1] = '\0';
		snprintf(damaged, sizeof(damaged), "%s", text);
	} else {
		at = strstr(text, damage->what);
		cr_assert_not_null(at, "no '%s' in\n%s", damage->what, text);
		snprintf(damaged, sizeof(damaged), "%.*s%s%s", (int)(at - text), text, damage->with,
			 at + strlen(damage->what));
	}
	write_file(file.s, damaged, strlen(damaged));
	free(text);

	run = run_decay("again.csv");
	cr_assert_eq(run.status, 0, "exit status %d\n%s%s", run.status, run.out, run.err);
	cr_expect_not_null(strstr(run.err, "warning: ignoring the quick search decision in "),
			   "%s", run.err);
	cr_expect_not_null(strstr(run.err, file.s), "%s", run.err);
	cr_expect_null(strstr(run.out, "reused"), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "from a quick search on this ensemble"), "%s", run.out);
	cr_expect_leq(worst_error("again.csv", x0, 0.5), TOL, "%s", run.out);
	free_run(&run);
}

/* ---- --clear-cache ------------------------------------------------------------------------ */

/* After a run has filled both cache directories: --clear-cache exits 0,
 * says what it removed from where, and leaves none of it, nor the
 * decision (the next run searches again); a file of the user's in the
 * same directory stays. */
Test(quick_cache, clear_cache_empties_what_it_names)
{
	const char *parts[] = {"jit/kernels", "jit/models", "jit/include", "cache/tune.txt",
			       "cache/decisions"};
	double x0[NTRAJ];
	struct cli_run run;

	setenv("PICARD_JIT_CACHE_DIR", in_workdir("jit").s, 1);
	decay_file("0.5");
	init_file(x0);
	run = run_decay("first.csv");
	cr_assert_eq(run.status, 0, "exit status %d\n%s%s", run.status, run.out, run.err);
	free_run(&run);
	write_file(in_workdir("cache/mine.txt").s, "mine\n", 5);
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		cr_assert(access(in_workdir(parts[i]).s, F_OK) == 0, "no %s after a run", parts[i]);

	run = run_program_line("picard-run", "--clear-cache");
	cr_assert_eq(run.status, 0, "exit status %d\n%s%s", run.status, run.out, run.err);
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		char said[256];

		snprintf(said, sizeof(said), "removed   %s (", in_workdir(parts[i]).s);
		cr_expect_not_null(strstr(run.out, said), "no '%s' in\n%s", said, run.out);
		cr_expect(access(in_workdir(parts[i]).s, F_OK) != 0, "%s left", parts[i]);
	}
	cr_expect(access(in_workdir("cache/mine.txt").s, F_OK) == 0, "the user's file removed");
	free_run(&run);

	run = run_decay("again.csv");
	cr_assert_eq(run.status, 0, "exit status %d\n%s%s", run.status, run.out, run.err);
	cr_expect_null(strstr(run.out, "reused"), "%s", run.out);
	cr_expect_leq(worst_error("again.csv", x0, 0.5), TOL, "%s", run.out);
	free_run(&run);
}

/* --clear-cache clears every model's: a MODEL with it is a usage error,
 * and nothing is removed (the compiled files' directory is the test's own
 * all the same, never the one the other tests share). */
Test(quick_cache, clear_cache_takes_no_model)
{
	struct cli_run run;

	setenv("PICARD_JIT_CACHE_DIR", in_workdir("jit").s, 1);
	mkdir(in_workdir("cache").s, 0755);
	write_file(in_workdir("cache/decisions").s, "x", 1);
	run = run_program_line("picard-run", "decay --clear-cache");
	cr_expect_eq(run.status, 2, "exit status %d\n%s%s", run.status, run.out, run.err);
	cr_expect_not_null(strstr(run.err, "picard-run: --clear-cache takes no MODEL"), "%s",
			   run.err);
	cr_expect(access(in_workdir("cache/decisions").s, F_OK) == 0, "removed");
	free_run(&run);
}
