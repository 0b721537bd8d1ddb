/* test_tune_search.c - picard-tune as issue 35 wants it (suite
 * tune_search): it takes a model file where picard-run does and stores an
 * entry picard-run then uses; it goes through picard-run's quick-search
 * candidates, so what it stores is never predicted slower than the quick
 * search's pick; it says on stderr what each candidate reached; and it
 * stops at --budget; its entry is keyed by the ensemble it tuned on. The
 * programs run from beside this test binary, the
 * tuning cache in the test's own directory (PICARD_CACHE_DIR), on the CPU
 * backend.
 */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static void make_search_workdir(void)
{
	make_workdir("tsearch", "cache");
}

TestSuite(tune_search, .init = make_search_workdir, .fini = remove_workdir, .timeout = 300);

/* x' = -k x, k = 0.7, x(0) = 2 over [0, 8]: x(t) = x(0) exp(-k t). A model
 * file no build of picard ships. */
#define SHRINK_K 0.7
#define SHRINK_T1 8.0
static const char shrink_cu[] =
	"/* shrink.cu - x' = -k x: exact x0 exp(-k (t - t0)) */\n"
	"#include \"picard_model.cuh\"\n"
	"struct shrink {\n"
	"	static constexpr int dim = 1, nparams = 1;\n"
	"	static constexpr const char *param_names[] = {\"k\"};\n"
	"	static constexpr double param_defaults[] = {0.7};\n"
	"	static constexpr double x0[] = {2};\n"
	"	static constexpr double t0 = 0, t1 = 8;\n"
	"	static constexpr const char *summary = \"x' = -k x\";\n"
	"	static constexpr const char *reference = \"exact: x0 exp(-k (t - t0))\";\n"
	"	template <typename real>\n"
	"	__host__ __device__ static void rhs(real, const real *x, const real *p, real *dxdt)\n"
	"	{\n"
	"		dxdt[0] = -p[0] * x[0];\n"
	"	}\n"
	"};\n"
	"PICARD_REGISTER_MODEL(shrink)\n";

/* The model file, written into the work directory. */
static struct path write_shrink(void)
{
	struct path path = in_workdir("shrink.cu");

	write_file(path.s, shrink_cu, strlen(shrink_cu));
	return path;
}

/* The number after prefix in text; the test fails when there is none. */
static double number_after(const char *text, const char *prefix)
{
	const char *at = strstr(text, prefix);
	double value;

	cr_assert_not_null(at, "no '%s' in:\n%s", prefix, text);
	cr_assert_eq(sscanf(at + strlen(prefix), "%lf", &value), 1, "no number after '%s' in:\n%s",
		     prefix, text);
	return value;
}

/* The predicted time of picard-tune's winner, in ms, from its line "best
 * ... E = 6.25e-06, 0.01701 ms predicted for 64 trajectories". */
static double predicted_ms(const char *out)
{
	const char *best = strstr(out, "\nbest ");
	double error, ms;

	cr_assert_not_null(best, "no best line:\n%s", out);
	best = strstr(best, "E = ");
	cr_assert_not_null(best, "%s", out);
	cr_assert_eq(sscanf(best, "E = %lf, %lf ms predicted", &error, &ms), 2, "%s", out);
	return ms;
}

/* The predicted time of the scheme picard-run's quick search ran, in ms,
 * from its "schemes" line ("dp5 ran; each scheme's least predicted time on
 * N trajectories: dp5 0.017 ms, ..."); its name into scheme. */
static double quick_pick_ms(const char *out, char *scheme, size_t len)
{
	const char *line = strstr(out, "\nschemes ");
	char name[32], key[48];

	cr_assert_not_null(line, "no schemes line:\n%s", out);
	cr_assert_eq(sscanf(line, "\nschemes %31s ran;", name), 1, "%s", line);
	snprintf(scheme, len, "%s", name);
	snprintf(key, sizeof(key), "trajectories: ");
	line = strstr(line, key);
	cr_assert_not_null(line, "%s", out);
	snprintf(key, sizeof(key), " %s ", name);
	line = strstr(line - 1, key);
	cr_assert_not_null(line, "no time of %s in:\n%s", name, out);
	return number_after(line, key);
}

/* The largest |x(t1) - x(t0) exp(-decay)| over the ntraj members of
 * picard-run's --save-at T0,T1 CSV (t,traj,status,x1,...: t0's rows, then
 * t1's), each ok: the error of x' = -k x, decay = k (t1 - t0). */
static double exp_decay_error(const char *path, long ntraj, double decay)
{
	char *csv = slurp(path, NULL);
	double *start = calloc(ntraj, sizeof(double)), worst = 0;
	const char *line = strchr(csv, '\n');
	long rows = 0;

	cr_assert_not_null(start);
	while (line && line[1]) {
		double t, x;
		long traj;
		char status[32];

		line++;
		cr_assert_eq(sscanf(line, "%lf,%ld,%31[^,],%lf", &t, &traj, status, &x), 4, "row %.60s",
			     line);
		cr_assert(traj >= 0 && traj < ntraj, "row %.60s", line);
		cr_expect_str_eq(status, "ok", "row %.60s", line);
		if (rows++ < ntraj)
			start[traj] = x;
		else
			worst = fmax(worst, fabs(x - start[traj] * exp(-decay)));
		line = strchr(line, '\n');
	}
	cr_expect_eq(rows, 2 * ntraj, "%ld rows, not %ld", rows, 2 * ntraj);
	free(start);
	free(csv);
	return worst;
}

/* Issue 35, item 3, on a model file: picard-run's quick search names the
 * picard-tune command by the file's path; that command (given the path)
 * goes through the quick search's candidates with a line per candidate on
 * stderr, stores an entry never predicted slower than the quick search's
 * pick (the quick search ran first: the same costs per evaluation serve
 * both, and both sample and cost the same ensemble), names the picard-run
 * command that uses it; and that command does, with every member within
 * the tolerance of the closed form. On the base, picard-tune searched the
 * trapezoid alone, its entry predicted many times slower than dp5's, and
 * the hints named "shrink", an unknown model. */
Test(tune_search, model_file_tuned_never_slower_than_the_quick_search)
{
	const struct path model = write_shrink(), saved = in_workdir("saved.csv");
	char line[512], want[512], scheme[32];
	struct cli_run run;
	double quick_ms, tuned_ms;
	int candidates = 0, lines = 0;

	snprintf(line, sizeof(line), "%s --tol 1e-5 --backend cpu --traj 64", model.s);
	run = run_program_line("picard-run", line);
	cr_assert_eq(run.status, 0, "picard-run: exit status %d\n%s%s", run.status, run.out, run.err);
	cr_expect_not_null(strstr(run.out, "from a quick search"), "%s", run.out);
	quick_ms = quick_pick_ms(run.out, scheme, sizeof(scheme));
	snprintf(want, sizeof(want), "picard-tune %s --tol 1e-05 --backend cpu --traj 64\n", model.s);
	cr_expect_not_null(strstr(run.out, want), "no '%s' in:\n%s", want, run.out);
	free_run(&run);

	run = run_program_line("picard-tune", line);
	cr_log_info("picard-tune:\n%s%s", run.out, run.err);
	cr_assert_eq(run.status, 0, "picard-tune: exit status %d\n%s%s", run.status, run.out,
		     run.err);
	tuned_ms = predicted_ms(run.out);
	/* the quick search prints 3 digits, picard-tune 4 */
	cr_expect_leq(tuned_ms, quick_ms * 1.006, "picard-tune stored %g ms predicted, the quick "
		      "search's %s %g ms:\n%s", tuned_ms, scheme, quick_ms, run.out);
	snprintf(want, sizeof(want), "picard-run %s --tol 1e-05 --backend cpu --traj 64 uses it",
		 model.s);
	cr_expect_not_null(strstr(run.out, want), "no '%s' in:\n%s", want, run.out);
	/* a line per candidate, numbered, each naming a scheme searched */
	cr_assert_gt(number_after(run.err, "picard-tune: [1/"), 0, "%s", run.err);
	candidates = (int)number_after(run.err, "picard-tune: [1/");
	for (const char *at = run.err; (at = strstr(at, "picard-tune: [")); at++) {
		int i, n;

		cr_assert_eq(sscanf(at, "picard-tune: [%d/%d]", &i, &n), 2, "%.80s", at);
		cr_expect_eq(i, ++lines, "%.80s", at);
		cr_expect_eq(n, candidates, "%.80s", at);
	}
	cr_expect_eq(lines, candidates, "%d progress lines of %d candidates:\n%s", lines,
		     candidates, run.err);
	for (const char *name = "dp5\0dp8\0radau5\0lobatto\0trapezoid\0"; *name;
	     name += strlen(name) + 1) {
		snprintf(want, sizeof(want), "] %s m=", name);
		cr_expect_not_null(strstr(run.err, want), "no '%s' line:\n%s", want, run.err);
	}
	free_run(&run);

	snprintf(line, sizeof(line), "%s --tol 1e-5 --backend cpu --traj 64 --save-at 0,8 --out %s",
		 model.s, saved.s);
	run = run_program_line("picard-run", line);
	cr_expect_eq(run.status, 0, "picard-run: exit status %d\n%s%s", run.status, run.out,
		     run.err);
	cr_expect_not_null(strstr(run.out, "from the tuning cache"), "%s", run.out);
	cr_expect_leq(exp_decay_error(saved.s, 64, SHRINK_K * SHRINK_T1), 1e-5, "%s", run.out);
	free_run(&run);
}

/* The cache's configuration lines (not the costs per evaluation), as a new
 * string ("" when none). */
static char *cache_entries(void)
{
	char *text = slurp(in_workdir("cache/tune.txt").s, NULL), *entries;
	size_t used = 0;

	entries = calloc(strlen(text) + 1, 1);
	cr_assert_not_null(entries);
	for (const char *line = text; *line;) {
		const size_t len = strcspn(line, "\n");

		if (line[0] != '#' && strstr(line, " tol=") && strstr(line, " tol=") < line + len) {
			memcpy(entries + used, line, len);
			used += len;
			entries[used++] = '\n';
		}
		line += len + (line[len] == '\n');
	}
	free(text);
	return entries;
}

/* picard-run decay --tol 1e-5 --backend cpu --traj 64 FLAGS takes its grid
 * from the tuning cache, exits 0, and every member's x(10) is within 1e-5
 * of decay's closed form x(0) exp(-0.5 10). */
static void decay_from_the_cache(const char *flags)
{
	const struct path saved = in_workdir("decay.csv");
	char line[512];
	struct cli_run run;

	snprintf(line, sizeof(line), "decay --tol 1e-5 --backend cpu --traj 64 %s --save-at 0,10 "
		 "--out %s", flags, saved.s);
	run = run_program_line("picard-run", line);
	cr_expect_eq(run.status, 0, "%s: %s%s", line, run.out, run.err);
	cr_expect_not_null(strstr(run.out, "from the tuning cache"), "%s: %s", line, run.out);
	cr_expect_leq(exp_decay_error(saved.s, 64, 0.5 * 10), 1e-5, "%s: %s", line, run.out);
	free_run(&run);
}

/* Issue 35, item 3: --budget. So small a budget that no point is
 * measured: it says the budget ran out before any configuration met E*,
 * exit 1, nothing stored. A budget of half a second, where the whole
 * search takes seconds: either it found one before the end (exit 0, the
 * budget named on stdout, the fastest so far stored, and picard-run's
 * answer from it within the tolerance of decay's closed form), or none
 * (exit 1, said). On the base --budget was an unknown flag. */
Test(tune_search, budget_stores_the_best_so_far_or_says_none_met)
{
	struct cli_run run = run_program_line("picard-tune", "decay --tol 1e-5 --backend cpu "
					      "--traj 64 --budget 1e-9");
	char *entries;

	cr_expect_eq(run.status, 1, "exit status %d\n%s%s", run.status, run.out, run.err);
	cr_expect_not_null(strstr(run.err, "picard-tune: --budget 1e-09: the search ran out of time "
				  "before any configuration met E* = 1e-05; nothing stored"), "%s",
			   run.err);
	entries = cache_entries();
	cr_expect_str_empty(entries, "stored:\n%s", entries);
	free(entries);
	free_run(&run);

	run = run_program_line("picard-tune", "decay --tol 1e-5 --backend cpu --traj 64 "
			       "--budget 0.5");
	cr_log_info("picard-tune --budget 0.5:\n%s%s", run.out, run.err);
	entries = cache_entries();
	if (run.status == 1) {
		cr_expect_not_null(strstr(run.err, "the search ran out of time before any "
					  "configuration met"), "%s", run.err);
		cr_expect_str_empty(entries, "stored:\n%s", entries);
		free(entries);
		free_run(&run);
		return;
	}
	cr_assert_eq(run.status, 0, "exit status %d\n%s%s", run.status, run.out, run.err);
	cr_expect_not_null(strstr(run.out, "\nbudget       0.5 s ran out with "), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "the fastest configuration found so far wins"), "%s",
			   run.out);
	cr_expect_not_null(strstr(run.out, "cache        stored in "), "%s", run.out);
	cr_expect_eq(strchr(entries, '\n') - entries + 1, (long)strlen(entries),
		     "one entry:\n%s", entries);
	free(entries);
	free_run(&run);
	decay_from_the_cache("");
}

/* An entry tuned on --spread 0.2 is keyed by that ensemble, as picard-run
 * --spread 0.2 names it (a hash of its states): that run uses it and its
 * members are within the tolerance of decay's closed form; a run of the
 * default ensemble does not. On the base picard-tune keyed every ensemble
 * "default": the --spread 0.2 run searched anew and the default one took
 * the entry of another ensemble. */
Test(tune_search, entry_of_its_own_ensemble)
{
	struct cli_run run = run_program_line("picard-tune", "decay --tol 1e-5 --backend cpu "
					      "--traj 64 --spread 0.2 --scheme dp5");

	cr_assert_eq(run.status, 0, "picard-tune: exit status %d\n%s%s", run.status, run.out,
		     run.err);
	free_run(&run);
	decay_from_the_cache("--spread 0.2");
	run = run_program_line("picard-run", "decay --tol 1e-5 --backend cpu --traj 64 "
			       "--scheme dp5");
	cr_expect_eq(run.status, 0, "%s%s", run.out, run.err);
	cr_expect_null(strstr(run.out, "from the tuning cache"), "%s", run.out);
	free_run(&run);
}
