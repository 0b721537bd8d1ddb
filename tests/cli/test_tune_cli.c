/* test_tune_cli.c - picard-tune and picard-run --tol as a user meets them
 * (suite tune_cli; one GPU test in suite gpu). The built programs are run
 * from beside this test binary with stdout and stderr captured; the tuning
 * cache is the test's own directory (PICARD_CACHE_DIR, set in the fixture,
 * inside the forked test process). Bad input: exit status 2 and one
 * "picard-tune: " line naming the flag. Good runs use --backend cpu and
 * small grids, except the GPU test, which skips without a device and fails
 * under PICARD_REQUIRE_GPU=1 (as test_gpu.c).
 */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "picard.h"
#include "scheme.h"
#include "support.h"

/* ---- fixtures ------------------------------------------------------------------ */

static void make_tcli_workdir(void)
{
	make_workdir("tcli", "cache");
}

TestSuite(tune_cli, .init = make_tcli_workdir, .fini = remove_workdir, .timeout = 300);

/* ---- helpers -------------------------------------------------------------------------- */

/* The cache file of this test. */
static struct path cache_file(void)
{
	return in_workdir("cache/tune.txt");
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* Run program name with a blank-separated argument line, output captured. */
static struct cli_run run_line(const char *name, const char *line)
{
	return run_program_line(name, line);
}

/* m, K, h after "prefix" in text ("best         m=4 K=3 h=0.0295"). */
static void find_grid(const char *text, const char *prefix, int *m, int *K, double *h)
{
	const char *at = strstr(text, prefix);

	cr_assert_not_null(at, "no '%s' in:\n%s", prefix, text);
	cr_assert_eq(sscanf(at + strlen(prefix), " m=%d K=%d h=%lf", m, K, h), 3,
		     "cannot read m, K, h after '%s' in:\n%s", prefix, text);
}

/* The line of text that starts with prefix, as a new string ("" when none). */
static char *line_of(const char *text, const char *prefix)
{
	const char *at = strstr(text, prefix);
	size_t len = at ? strcspn(at, "\n") : 0;
	char *line = calloc(len + 1, 1);

	cr_assert_not_null(line);
	if (at)
		memcpy(line, at, len);
	return line;
}

/* The largest |x - x0 exp(-lambda (t1 - t0))| over the rows of picard-run's
 * --out CSV of decay (traj,status,x1 final states; x0 from the run's
 * --init file of one column), lambda 0.5 its default, over [0, 10]; every
 * row must be ok, and there must be rows rows. */
static double decay_error(const char *out_path, const double *x0, long rows)
{
	char *text = slurp(out_path, NULL);
	const char *line;
	double worst = 0;
	long count = 0;

	cr_assert_not_null(text, "no %s", out_path);
	line = strchr(text, '\n'); /* past the header */
	while (line && line[1]) {
		long traj;
		char status[32];
		double x;

		line++;
		cr_assert_eq(sscanf(line, "%ld,%31[^,],%lf", &traj, status, &x), 3, "row: %.60s", line);
		cr_assert(traj >= 0 && traj < rows, "row of trajectory %ld", traj);
		cr_expect_str_eq(status, "ok", "trajectory %ld", traj);
		worst = fmax(worst, fabs(x - x0[traj] * exp(-0.5 * 10)));
		count++;
		line = strchr(line, '\n');
	}
	cr_expect_eq(count, rows, "%ld rows, not %ld", count, rows);
	free(text);
	return worst;
}

/* An --init file of decay's n states 1, 2, ..., n into the workdir. */
static struct path decay_init(long n, double *x0)
{
	struct path path = in_workdir("decay_init.csv");
	char text[4096];
	size_t used = snprintf(text, sizeof(text), "x1\n");

	for (long i = 0; i < n; i++) {
		x0[i] = (double)(i + 1);
		used += snprintf(text + used, sizeof(text) - used, "%g\n", x0[i]);
	}
	write_file(path.s, text, used);
	return path;
}

/* ---- bad command lines -------------------------------------------------------------- */

/* One bad command line of picard-tune and what its error line must name. */
struct bad_input {
	char args[160];  /* arguments, blank separated */
	char needle[48]; /* the flag or value the message names */
};

ParameterizedTestParameters(tune_cli, bad_input)
{
	static struct bad_input cases[] = {
		{"", "MODEL"},
		{"--tol 1e-3", "MODEL"},
		{"nosuchmodel --tol 1e-3", "nosuchmodel"},
		{"decay", "--tol"},                        /* the bound is required */
		{"decay --tol", "--tol"},
		{"decay --tol 0", "--tol"},
		{"decay --tol -1e-3", "--tol"},
		{"decay --tol abc", "--tol"},
		{"decay --tol nan", "--tol"},
		{"decay --tol 1e-3x", "--tol"},
		{"decay --tol 1e-3 --m 4,,8", "--m"},
		{"decay --tol 1e-3 --m 4,x", "--m"},
		{"decay --tol 1e-3 --m 4,", "--m"},
		{"decay --tol 1e-3 --m 1", "--m"},
		{"decay --tol 1e-3 --m 4,4", "--m"},
		{"decay --tol 1e-3 --m 2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18", "--m"},
		{"decay --tol 1e-3 --kmax 0", "--kmax"},
		{"decay --tol 1e-3 --kmax 2.5", "--kmax"},
		{"decay --tol 1e-3 --traj 0", "--traj"},
		{"decay --tol 1e-3 --sample -1", "--sample"},
		{"decay --tol 1e-3 --repeats 0", "--repeats"},
		{"decay --tol 1e-3 --max-windows 0", "--max-windows"},
		{"decay --tol 1e-3 --precision half", "--precision"},
		{"decay --tol 1e-3 --backend opencl", "--backend"},
		{"decay --tol 1e-3 --spread -0.1", "--spread"},
		{"decay --tol 1e-3 --seed -1", "--seed"},
		{"decay --tol 1e-3 --seed 0", "--seed"},
		{"decay --tol 1e-3 --t0 5 --t1 1", "--t1"},
		{"decay --tol 1e-3 --t1 inf", "--t1"},
		{"decay --tol 1e-3 --csv=", "--csv"},
		{"decay --tol 1e-3 --no-cache=1", "--no-cache"},
		{"decay --tol 1e-3 --frobnicate", "--frobnicate"},
		/* issue 35: the budget is a number of seconds > 0 */
		{"decay --tol 1e-3 --budget 0", "--budget 0: must be > 0"},
		{"decay --tol 1e-3 --budget -5", "--budget -5: must be > 0"},
		{"decay --tol 1e-3 --budget nan", "--budget nan: must be finite"},
		{"decay --tol 1e-3 --budget inf", "--budget inf: must be finite"},
		{"decay --tol 1e-3 --budget 1min", "--budget '1min': expected a number"},
		{"decay --tol 1e-3 --budget=", "--budget '': expected a number"},
		{"decay lotka --tol 1e-3", "lotka"},
	};

	return cr_make_param_array(struct bad_input, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct bad_input *input, tune_cli, bad_input)
{
	struct cli_run run = run_line("picard-tune", input->args);

	cr_expect_eq(run.status, 2, "'%s': exit status %d, expected 2 (stderr: %s)",
		     input->args, run.status, run.err);
	cr_expect_eq(strncmp(run.err, "picard-tune: ", 13), 0, "'%s': stderr '%s'",
		     input->args, run.err);
	cr_expect_not_null(strstr(run.err, input->needle), "'%s': '%s' does not mention '%s'",
			   input->args, run.err, input->needle);
	cr_expect_str_empty(run.out, "'%s': stdout not empty: %s", input->args, run.out);
	cr_expect(!exists(cache_file().s), "'%s': the cache was written", input->args);
	free_run(&run);
}

Test(tune_cli, csv_unwritable)
{
	struct cli_run run = run_line("picard-tune", "decay --tol 1e-3 --backend cpu "
				      "--csv /nonexistent-dir/points.csv");

	cr_expect_eq(run.status, 2, "exit status %d (stderr: %s)", run.status, run.err);
	cr_expect_not_null(strstr(run.err, "picard-tune: --csv /nonexistent-dir/points.csv"),
			   "%s", run.err);
	free_run(&run);
}

Test(tune_cli, help)
{
	struct cli_run run = run_line("picard-tune", "--help");
	static const char *const flags[] = {"--tol", "--precision", "--backend", "--traj",
		"--sample", "--kmax", "--m", "--t0", "--t1", "--spread", "--seed", "--repeats",
		"--max-windows", "--csv", "--no-cache", "--budget", "--help"};

	cr_expect_eq(run.status, 0);
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		cr_expect_not_null(strstr(run.out, flags[i]), "--help lacks %s", flags[i]);
	cr_expect_not_null(strstr(run.out, cache_file().s), "--help names the cache:\n%s", run.out);
	free_run(&run);
}

/* --version, as picard-run's. */
Test(tune_cli, version)
{
	struct cli_run run = run_line("picard-tune", "decay --tol 1e-3 --version");
	char want[160];

	snprintf(want, sizeof(want), "picard-tune (picard) %s\nbuild %s\n", picard_version(),
		 picard_build_id());
	cr_expect_eq(run.status, 0, "exit status %d: %s", run.status, run.err);
	cr_expect_eq(strncmp(run.out, want, strlen(want)), 0, "%s", run.out);
	free_run(&run);
}

/* ---- searching, storing, using ------------------------------------------------------ */

/* picard-tune prints a table and stores its winner; picard-run --tol then
 * takes m, K, h from the cache and its check passes. --sample 64 = --traj:
 * the search measures E on the very trajectories picard-run checks. */
Test(tune_cli, tune_then_run_uses_cache)
{
	const struct path csv = in_workdir("points.csv");
	char line[512], *text;
	struct cli_run run;
	int m, K, run_m, run_K;
	double h, run_h;

	snprintf(line, sizeof(line), "decay --tol 1e-5 --backend cpu --m 4,8 --kmax 3 --traj 64 "
		 "--sample 64 --repeats 2 --csv %s", csv.s);
	run = run_line("picard-tune", line);
	cr_assert_eq(run.status, 0, "picard-tune: exit status %d\n%s%s", run.status, run.out, run.err);
	cr_expect_not_null(strstr(run.out, "windows"), "no table:\n%s", run.out);
	cr_expect_not_null(strstr(run.out, "\n     4 "), "no row for m = 4:\n%s", run.out);
	cr_expect_not_null(strstr(run.out, "\n     8 "), "no row for m = 8:\n%s", run.out);
	cr_expect_not_null(strstr(run.out, cache_file().s), "cache not named:\n%s", run.out);
	find_grid(run.out, "best", &m, &K, &h);
	cr_expect(m == 4 || m == 8, "m = %d", m);
	cr_expect(K >= 1 && K <= 3, "K = %d", K);
	free_run(&run);

	text = slurp(cache_file().s, NULL);
	cr_expect_not_null(strstr(text, "model=decay precision=float tol=1e-05 t0=0 t1=10 traj=64 "
				  "device=\"CPU\" build="), "cache:\n%s", text);
	free(text);
	text = slurp(csv.s, NULL);
	cr_expect_eq(strncmp(text, "m,K,h,windows,E,seconds,meets,scheme\n", 37), 0, "csv:\n%s",
		     text);
	cr_expect_not_null(strstr(text, ",trapezoid\n"), "csv lacks the scheme:\n%s", text);
	cr_expect_not_null(strstr(text, "\n4,1,"), "csv lacks m = 4, K = 1:\n%s", text);
	cr_expect_not_null(strstr(text, "\n8,3,"), "csv lacks m = 8, K = 3:\n%s", text);
	free(text);

	run = run_line("picard-run", "decay --tol 1e-5 --backend cpu --traj 64");
	cr_expect_eq(run.status, 0, "picard-run: exit status %d\n%s%s", run.status, run.out, run.err);
	cr_expect_not_null(strstr(run.out, "from the tuning cache"), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "PASS"), "%s", run.out);
	find_grid(run.out, "parameters", &run_m, &run_K, &run_h);
	cr_expect(run_m == m && run_K == K && run_h == h, "picard-run m=%d K=%d h=%g, "
		  "picard-tune m=%d K=%d h=%g", run_m, run_K, run_h, m, K, h);
	free_run(&run);

	/* another tolerance, precision or span is another key */
	run = run_line("picard-run", "decay --tol 1e-5 --backend cpu --traj 16 --t1 5");
	cr_expect_not_null(strstr(run.out, "quick search"), "%s", run.out);
	free_run(&run);
}

/* A per-thread pair tuned by picard-tune runs in picard-run as it was
 * measured: fixed steps of the tuned h, as many as cover the span, in one
 * window checked at t1 (or adaptive at its local tolerance). */
Test(tune_cli, tune_then_run_rk_steps)
{
	struct cli_run run = run_line("picard-tune", "lotka --scheme dp8 --tol 1e-8 --precision double "
				      "--backend cpu --traj 16 --sample 16 --repeats 1");
	char want[160];
	int m, K;
	double h;

	cr_assert_eq(run.status, 0, "picard-tune: exit status %d\n%s%s", run.status, run.out, run.err);
	find_grid(run.out, "best", &m, &K, &h);
	if (K < 1000000) /* fixed steps: one window */
		cr_expect_not_null(strstr(run.out, " (1 window): "), "%s", run.out);
	free_run(&run);
	run = run_line("picard-run", "lotka --scheme dp8 --tol 1e-8 --precision double --backend cpu "
		       "--traj 16");
	cr_expect_eq(run.status, 0, "picard-run: exit status %d\n%s%s", run.status, run.out, run.err);
	cr_expect_not_null(strstr(run.out, "from the tuning cache"), "%s", run.out);
	if (K >= 1000000) { /* adaptive: K is its step budget */
		cr_log_info("picard-tune chose adaptive steps");
		cr_expect_not_null(strstr(run.out, "dp8 adaptive"), "%s", run.out);
	} else {
		cr_expect_eq(m, 2);
		snprintf(want, sizeof(want), "dp8 fixed step h=%g, %d per output interval", h, K);
		cr_expect_not_null(strstr(run.out, want), "no '%s' in:\n%s", want, run.out);
		snprintf(want, sizeof(want), "dp8 %d steps of %g per window, 1 window, t in [0, 100]",
			 K, h);
		cr_expect_not_null(strstr(run.out, want), "no '%s' in:\n%s", want, run.out);
		cr_expect_lt(fabs(K * h - 100), 1e-9, "%d steps of %.17g do not cover [0, 100]", K, h);
	}
	cr_expect_not_null(strstr(run.out, "x 1 window ends"), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "PASS"), "%s", run.out);
	free_run(&run);
}

/* Given --m, --K, --h win over the cache, one at a time or all. */
Test(tune_cli, explicit_parameters_win)
{
	struct cli_run run = run_line("picard-tune", "decay --tol 1e-5 --backend cpu --m 4,8 "
				      "--kmax 3 --traj 16 --repeats 1");
	int m, K;
	double h;

	cr_assert_eq(run.status, 0, "picard-tune: %s%s", run.out, run.err);
	free_run(&run);
	run = run_line("picard-run", "decay --tol 1e-5 --backend cpu --traj 16 --K 7");
	find_grid(run.out, "parameters", &m, &K, &h);
	cr_expect_eq(K, 7, "%s", run.out);
	cr_expect_not_null(strstr(run.out, "from the tuning cache"), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "--K as given"), "%s", run.out);
	cr_expect_not_null(strstr(run.out, " K=7 "), "%s", run.out);
	free_run(&run);
	/* all given: nothing tuned, and the given grid meets a tolerance of
	 * 1% of the smallest answer (its error is 7.7e-5), the final states
	 * checked against decay's closed form */
	double x0[4];
	struct path init = decay_init(4, x0);
	char line[512];
	snprintf(line, sizeof(line), "decay --init %s --tol 2e-4 --backend cpu --m 5 --K 6 "
		 "--h 0.05 --precision double --out %s", init.s, in_workdir("all.csv").s);
	run = run_line("picard-run", line);
	cr_expect_eq(run.status, 0, "%s%s", run.out, run.err);
	cr_expect_null(strstr(run.out, "parameters"), "all given, nothing tuned:\n%s", run.out);
	cr_expect_not_null(strstr(run.out, "grid         m=5 K=6 h=0.05,"), "%s", run.out);
	cr_expect_leq(decay_error(in_workdir("all.csv").s, x0, 4), 2e-4, "%s", run.out);
	free_run(&run);
}

/* No cache entry: a quick search, said so, with the full search suggested,
 * and no configuration stored (only the costs per evaluation it timed).
 * The promise holds: every one of the 64 members is checked, the members
 * the tuned grid missed are solved again, and the run exits 0 with every
 * final state within E* of decay's closed form x0 exp(-t/2). */
Test(tune_cli, run_quick_search_without_cache)
{
	struct cli_run run;
	double x0[64];
	char text[2048], line[512];
	size_t used = snprintf(text, sizeof(text), "x1\n");
	char *cache;

	for (int i = 0; i < 64; i++) { /* 0.9 .. 1.1, as a spread of 0.1 */
		x0[i] = 0.9 + 0.2 * i / 63.0;
		used += snprintf(text + used, sizeof(text) - used, "%.17g\n", x0[i]);
	}
	write_file(in_workdir("init64.csv").s, text, used);
	snprintf(line, sizeof(line), "decay --init %s --tol 1e-5 --backend cpu --precision double "
		 "--out %s", in_workdir("init64.csv").s, in_workdir("quick.csv").s);
	run = run_line("picard-run", line);
	cr_expect_not_null(strstr(run.out, "from a quick search"), "%s", run.out);
	/* picard-tune cannot draw an --init ensemble: no command is named */
	cr_expect_not_null(strstr(run.out, "no full search for this ensemble"), "%s", run.out);
	cr_expect_eq(run.status, 0, "exit status %d\n%s%s", run.status, run.out, run.err);
	cr_expect_not_null(strstr(run.out, "met by 64 of 64 trajectories"), "%s", run.out);
	cr_expect_leq(decay_error(in_workdir("quick.csv").s, x0, 64), 1e-5, "%s", run.out);
	cache = slurp(cache_file().s, NULL);
	cr_expect(!cache || !strstr(cache, " tol="), "the quick search was stored:\n%s", cache);
	free(cache);
	/* the schemes searched: not newton, which is searched only by name */
	cr_expect_not_null(strstr(run.out, "lobatto"), "%s", run.out);
	cr_expect_null(strstr(run.out, "newton"), "%s", run.out);
	free_run(&run);
}

/* Issue 35 (1): the implicit pair is searched (and compiled) only where
 * it can win. decay is not stiff: the summary says radau5 was not
 * searched, and the answer meets 1e-8 against the closed form. vanderpol
 * at mu = 1000 is not declared stiff but is: the sample's reference finds
 * it so, the stiff schemes are searched and one of them chosen (which
 * one is a timing: radau5 or ros23 on one member), and its answer meets
 * 1e-6 against the implicit reference. */
Test(tune_cli, run_quick_search_implicit_only_where_stiff, .timeout = 600)
{
	static const double x0[] = {1, 0.8};
	const picard_model *vdp = picard_model_find("vanderpol");
	const double mu_1000[] = {1000};
	double t1 = 100, ref[2], x[2];
	struct cli_run run;
	char line[512], scheme[32], *text, *row, *chosen;

	write_file(in_workdir("two.csv").s, "x1\n1\n0.8\n", strlen("x1\n1\n0.8\n"));
	snprintf(line, sizeof(line), "decay --init %s --tol 1e-8 --backend cpu --precision double "
		 "--out %s", in_workdir("two.csv").s, in_workdir("decay.csv").s);
	run = run_line("picard-run", line);
	cr_expect_eq(run.status, 0, "%s%s", run.out, run.err);
	cr_expect_not_null(strstr(run.out, "radau5 not searched (no sampled member is stiff)"), "%s",
			   run.out);
	cr_expect_null(strstr(run.out, "parameters   radau5"), "%s", run.out);
	cr_expect_leq(decay_error(in_workdir("decay.csv").s, x0, 2), 1e-8, "%s", run.out);
	free_run(&run);

	snprintf(line, sizeof(line), "vanderpol --param mu=1000 --t1 100 --traj 1 --spread 0 "
		 "--tol 1e-6 --backend cpu --precision double --out %s", in_workdir("vdp.csv").s);
	run = run_line("picard-run", line);
	cr_expect_eq(run.status, 0, "%s%s", run.out, run.err);
	cr_expect_null(strstr(run.out, "not searched (no sampled member is stiff)"), "%s", run.out);
	chosen = strstr(run.out, "parameters   ");
	cr_assert(chosen && sscanf(chosen, "parameters   %31s", scheme) == 1, "%s", run.out);
	cr_expect(picard_scheme_named(scheme) && picard_scheme_named(scheme)->solves_stiff,
		  "chose %s, not a scheme for stiff models: %s", scheme, run.out);
	cr_assert_eq(picard_reference(vdp, mu_1000, vdp->x0, vdp->t0, &t1, 1, ref), 0, "%s",
		     picard_error_detail());
	text = slurp(in_workdir("vdp.csv").s, NULL);
	cr_assert_not_null(text);
	row = strchr(text, '\n');
	cr_assert(row && sscanf(row + 1, "0,ok,%lf,%lf", &x[0], &x[1]) == 2, "%s", text);
	cr_expect(fabs(x[0] - ref[0]) <= 1e-6 && fabs(x[1] - ref[1]) <= 1e-6,
		  "x(100) = (%.10g, %.10g), reference (%.10g, %.10g)", x[0], x[1], ref[0], ref[1]);
	free(text);
	free_run(&run);
}

/* picard-run decay from (1, 0.8) at --tol tol: exit 0, the summary's
 * precision line as precision says, and the final states within tol of
 * the closed form. */
static void expect_precision(const char *tol, const char *precision, const char *out)
{
	static const double x0[] = {1, 0.8};
	struct cli_run run;
	char line[512];

	snprintf(line, sizeof(line), "decay --init %s --tol %s --backend cpu --out %s",
		 in_workdir("two.csv").s, tol, in_workdir(out).s);
	run = run_line("picard-run", line);
	cr_expect_eq(run.status, 0, "%s%s", run.out, run.err);
	cr_expect_not_null(strstr(run.out, precision), "%s", run.out);
	cr_expect_leq(decay_error(in_workdir(out).s, x0, 2), strtod(tol, NULL), "%s", run.out);
	free_run(&run);
}

/* Issue 35: --tol without --precision asks for double where float cannot
 * reach the tolerance (below 1e-6 of the largest start state): decay at
 * 1e-8 runs in double, says so, and meets 1e-8 against the closed form
 * (it was refused: "below what float reaches"); at 1e-3 it stays in
 * float; a given --precision float is still refused at 1e-8. */
Test(tune_cli, tolerance_beyond_float_runs_in_double)
{
	struct cli_run run;
	char line[512];

	write_file(in_workdir("two.csv").s, "x1\n1\n0.8\n", strlen("x1\n1\n0.8\n"));
	expect_precision("1e-8", "precision    double (for --tol", "d.csv");
	expect_precision("1e-3", "precision    float\n", "f.csv");

	snprintf(line, sizeof(line), "decay --init %s --tol 1e-8 --precision float --backend cpu",
		 in_workdir("two.csv").s);
	run = run_line("picard-run", line);
	cr_expect_eq(run.status, 2, "%s%s", run.out, run.err);
	cr_expect_not_null(strstr(run.err, "below what float reaches"), "%s", run.err);
	free_run(&run);
}

/* The full search picard-run names serves its ensemble: with --spread
 * and --seed the picard-tune command carries them, and its entry is the
 * one the same picard-run then takes (every member checked against the
 * reference within 1e-5); with --init, which picard-tune cannot draw, no
 * command is named (it named one whose entry served another ensemble). */
Test(tune_cli, full_search_named_serves_the_run)
{
	struct cli_run run;

	run = run_line("picard-run", "decay --spread 0.2 --seed 7 --traj 16 --tol 1e-5 "
		       "--backend cpu");
	cr_expect_not_null(strstr(run.out, "stored for later runs: picard-tune decay --tol 1e-05 "
				  "--backend cpu --traj 16 --spread 0.2 --seed 7\n"), "%s", run.out);
	free_run(&run);
	run = run_line("picard-tune", "decay --tol 1e-05 --backend cpu --traj 16 --spread 0.2 "
		       "--seed 7");
	cr_assert_eq(run.status, 0, "%s%s", run.out, run.err);
	free_run(&run);
	run = run_line("picard-run", "decay --spread 0.2 --seed 7 --traj 16 --tol 1e-5 "
		       "--backend cpu");
	cr_expect_eq(run.status, 0, "%s%s", run.out, run.err);
	cr_expect_not_null(strstr(run.out, "from the tuning cache"), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "met by 16 of 16 trajectories (16 checked"), "%s",
			   run.out);
	free_run(&run);

	write_file(in_workdir("i.csv").s, "x1\n1\n0.5\n", strlen("x1\n1\n0.5\n"));
	char line[512];
	snprintf(line, sizeof(line), "decay --init %s --tol 1e-5 --backend cpu",
		 in_workdir("i.csv").s);
	run = run_line("picard-run", line);
	cr_expect_eq(run.status, 0, "%s%s", run.out, run.err);
	cr_expect_null(strstr(run.out, "stored for later runs"), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "no full search for this ensemble"), "%s", run.out);
	free_run(&run);
}

/* Named, newton is searched: its window and block come from the quick
 * search, the run meets the tolerance, and the full search's command
 * names the scheme. */
Test(tune_cli, run_quick_search_newton)
{
	struct cli_run run = run_line("picard-run", "lotka --scheme newton --tol 1e-7 --backend cpu "
				      "--traj 16 --precision double");

	cr_expect_eq(run.status, 0, "exit status %d\n%s%s", run.status, run.out, run.err);
	cr_expect_not_null(strstr(run.out, "parameters   newton m="), "%s", run.out);
	cr_expect_not_null(strstr(run.out, " block="), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "picard-tune lotka --tol 1e-07 --scheme newton "
				  "--precision double --backend cpu"), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "met by 16 of 16 trajectories"), "%s", run.out);
	free_run(&run);
}

/* newton-radau on hires: its first window holds the initial layer, and
 * the error stalls (0.045) from one window to about 64; the search starts
 * at 200 windows (tune_first_windows), where it falls, and meets E*. */
Test(tune_cli, run_quick_search_newton_radau_stiff, .timeout = 120)
{
	struct cli_run run = run_line("picard-run", "hires --scheme newton-radau --tol 1e-4 "
				      "--backend cpu --traj 1 --precision double");

	cr_expect_eq(run.status, 0, "exit status %d\n%s%s", run.status, run.out, run.err);
	cr_expect_not_null(strstr(run.out, "parameters   newton-radau m="), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "met by 1 of 1 trajectories"), "%s", run.out);
	free_run(&run);
}

/* --h, which only the trapezoid has, settles the quick search on it and
 * keeps the given h (lobatto would drop it); the tuned K meets a
 * tolerance of 1% of the smallest answer, the final states checked
 * against decay's closed form. */
Test(tune_cli, run_quick_search_keeps_h)
{
	double x0[4];
	struct path init = decay_init(4, x0);
	char line[512];
	struct cli_run run;

	snprintf(line, sizeof(line), "decay --init %s --tol 2e-4 --backend cpu --m 5 --h 0.05 "
		 "--precision double --out %s", init.s, in_workdir("keeps_h.csv").s);
	run = run_line("picard-run", line);
	cr_expect_eq(run.status, 0, "exit status %d\n%s%s", run.status, run.out, run.err);
	cr_expect_not_null(strstr(run.out, "quick search on this ensemble (4 trajectories sampled, trapezoid:"),
			   "%s", run.out);
	cr_expect_not_null(strstr(run.out, "grid         m=5 K="), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "over 4 trajectories x 50 window ends"), "%s",
			   run.out);
	cr_expect_leq(decay_error(in_workdir("keeps_h.csv").s, x0, 4), 2e-4, "%s", run.out);
	free_run(&run);
}

/* Issue 34, item 9: the same --tol command five times picks the same
 * configuration. lotka at 1e-9 in double is a near-tie of dp8 and vern9
 * (timed, it chose either); the five runs share this test's cache, where
 * the first leaves the costs per evaluation it timed and no configuration
 * (a quick search stores none); its decision, which the next would
 * reuse, is removed, so each run searches again. Their predicted times
 * are equal too: the line that lists them is the same. */
Test(tune_cli, run_quick_search_same_choice, .timeout = 600)
{
	char *parameters = NULL, *schemes = NULL;

	for (int i = 0; i < 5; i++) {
		remove_tree(in_workdir("cache/decisions").s);
		struct cli_run run = run_line("picard-run", "lotka --tol 1e-9 --precision double "
					      "--backend cpu --traj 64");
		char *p = line_of(run.out, "parameters"), *s = line_of(run.out, "schemes");

		cr_expect_eq(run.status, 0, "run %d: exit status %d\n%s%s", i, run.status, run.out,
			     run.err);
		/* the grid and where it came from, less the search's time */
		*strstr(p, " points, ") = 0;
		cr_expect_neq(*s, 0, "no schemes line:\n%s", run.out);
		if (i == 0) {
			parameters = p;
			schemes = s;
			cr_expect_null(strstr(run.out, "(0 timed by this search"), "%s", run.out);
		} else {
			cr_expect_str_eq(p, parameters, "run %d chose otherwise", i);
			cr_expect_str_eq(s, schemes, "run %d predicted otherwise", i);
			cr_expect_not_null(strstr(run.out, "(0 timed by this search"), "%s", run.out);
			free(p);
			free(s);
		}
		free_run(&run);
	}
	char *cache = slurp(cache_file().s, NULL);
	cr_expect(cache && strstr(cache, "seconds_per_eval=") && !strstr(cache, " tol="),
		  "the cache holds:\n%s", cache ? cache : "(nothing)");
	free(cache);
	free(parameters);
	free(schemes);
}

/* Issue 34, item 10: --help says what the quick search does: as many
 * trajectories sampled as a run says it sampled, and lobatto's --tol
 * tunes (it does: a run prints the lobatto grid it tuned). */
Test(tune_cli, run_help_matches_the_search)
{
	struct cli_run help = run_line("picard-run", "--help");
	struct cli_run run = run_line("picard-run", "decay --scheme lobatto --tol 1e-6 "
				      "--precision double --backend cpu --traj 40");
	const char *said = strstr(help.out, "quick search (");
	const char *done = strstr(run.out, "quick search on this ensemble (");
	long said_n = 0, done_n = 0;

	cr_assert_not_null(said, "%s", help.out);
	cr_assert_not_null(done, "%s%s", run.out, run.err);
	cr_expect_eq(sscanf(said, "quick search (%ld trajectories sampled", &said_n), 1, "%s", said);
	cr_expect_eq(sscanf(done, "quick search on this ensemble (%ld trajectories sampled",
			    &done_n), 1, "%s", done);
	cr_expect_eq(said_n, done_n, "--help says %ld sampled, the run %ld", said_n, done_n);
	cr_expect_null(strstr(help.out, "without tuning"), "%s", help.out);
	cr_expect_not_null(strstr(help.out, "--tol tunes m, the window"), "%s", help.out);
	cr_expect_eq(run.status, 0, "%s%s", run.out, run.err);
	cr_expect_not_null(strstr(run.out, "parameters   lobatto m="), "%s", run.out);
	free_run(&help);
	free_run(&run);
}

/* Issue 34, item 10: a refusal quotes the rule that refused. The best E
 * of decay on at most 4 windows, at E* = 1e-6 (nothing reaches it; above
 * double's floor), is then asked for with E* = 1.05 E: E is below E*,
 * and the message must say the margin refused it, not only that E was
 * its best. */
Test(tune_cli, refusal_quotes_the_rule)
{
	const char *common = "decay --backend cpu --precision double --traj 16 --sample 16 "
			     "--m 4 --kmax 1 --repeats 1 --max-windows 4 --no-cache";
	char line[512];
	struct cli_run run;
	const char *at;
	double best = 0;

	snprintf(line, sizeof(line), "%s --tol 1e-6", common);
	run = run_line("picard-tune", line);
	cr_expect_eq(run.status, 1, "%s%s", run.out, run.err);
	at = strstr(run.err, "the best E was ");
	cr_assert_not_null(at, "%s", run.err);
	cr_assert_eq(sscanf(at, "the best E was %lf", &best), 1, "%s", at);
	cr_expect_null(strstr(run.err, "refused because"), "%s", run.err);
	free_run(&run);
	/* the printed E has 3 digits: E* = 1.05 of it keeps E within E*
	 * and above 0.8 E* */
	snprintf(line, sizeof(line), "%s --tol %.17g", common, best * 1.05);
	run = run_line("picard-tune", line);
	cr_expect_eq(run.status, 1, "%s%s", run.out, run.err);
	cr_expect_not_null(strstr(run.err, "refused because the sample must meet 0.8 of E*"),
			   "%s", run.err);
	free_run(&run);
}

/* A corrupt cache: one warning, then the quick search; never a crash. */
Test(tune_cli, run_with_corrupt_cache)
{
	FILE *f;
	struct cli_run run;

	mkdir(in_workdir("cache").s, 0755);
	f = fopen(cache_file().s, "w");
	cr_assert_not_null(f);
	fputs("\x7f" "ELF garbage\nmodel=decay precision=float tol=1e-05 t0=0 t1=10 "
	      "device=\"CPU\" build=", f);
	fputs(picard_build_id(), f);
	fputs(" m=4 K=x\n", f);
	fclose(f);
	run = run_line("picard-run", "decay --tol 1e-5 --backend cpu --traj 16");
	cr_expect_eq(run.status, 0, "exit status %d\n%s%s", run.status, run.out, run.err);
	cr_expect_not_null(strstr(run.err, "picard: warning: ignoring malformed line 1 of "),
			   "%s", run.err);
	cr_expect_not_null(strstr(run.err, "(and 1 more)"), "%s", run.err);
	cr_expect_not_null(strstr(run.out, "from a quick search"), "%s", run.out);
	free_run(&run);
}

/* Nothing meets E*: a clear message with the best E, exit 1, no entry. */
Test(tune_cli, unreachable_tolerance)
{
	struct cli_run run = run_line("picard-tune", "decay --tol 3e-7 --precision float "
				      "--backend cpu --m 4 --kmax 2 --traj 8 --max-windows 1000");

	cr_expect_eq(run.status, 1, "exit status %d\n%s%s", run.status, run.out, run.err);
	cr_expect_not_null(strstr(run.err, "picard-tune: no configuration reaches E* = 3e-07; "
				  "the best E was "), "%s", run.err);
	cr_expect_not_null(strstr(run.err, "float"), "no word on float rounding: %s", run.err);
	cr_expect_not_null(strstr(run.out, "none meets E*"), "%s", run.out);
	cr_expect(!exists(cache_file().s), "a failed search was stored");
	free_run(&run);

	/* below float's floor for every member (2 eps times the smallest
	 * member's |x0|, 0.952 here: 2.3e-7) no search starts: refused, exit 2
	 * (picard-run's quick search meets 3e-7 itself, with dp8: float
	 * reaches its floor) */
	run = run_line("picard-run", "decay --tol 1e-14 --backend cpu --traj 8 --precision float");
	cr_expect_eq(run.status, 2, "exit status %d\n%s%s", run.status, run.out, run.err);
	cr_expect_not_null(strstr(run.err, "picard-run: --tol 1e-14: "), "%s", run.err);
	cr_expect_not_null(strstr(run.err, "2.3e-07 absolute"), "%s", run.err);
	cr_expect_not_null(strstr(run.err, "no member can meet it"), "%s", run.err);
	cr_expect_str_empty(run.out, "%s", run.out);
	free_run(&run);
}

/* The floor is relative: where it rules out the large members but not
 * all, the run goes ahead (issue 34, item 11). decay in float at --tol
 * 1e-9 from (x0, lambda) = (1, -0.5), growing to e^5 = 148 (float's
 * rounding alone is 148 x 6e-8 there), and (1e-3, 0.5), below the floor
 * at neither its start (2.4e-10) nor its end: the small member comes back
 * ok within 1e-9 of x0 exp(-lambda t1), the growing one tol-exceeded,
 * exit 1. On 4c21c46 the whole run was refused. */
Test(tune_cli, floor_rules_out_one_member_not_the_run)
{
	const picard_model *decay = picard_model_find("decay");
	const struct path init = in_workdir("two.csv"), out = in_workdir("x.csv");
	const char *rows = "1 -0.5\n1e-3 0.5\n";
	char line[512], *csv, *row;
	struct cli_run run;
	double x;

	cr_assert_not_null(decay);
	write_file(init.s, rows, strlen(rows));
	snprintf(line, sizeof(line), "decay --tol 1e-9 --precision float --backend cpu --init %s "
		 "--out %s", init.s, out.s);
	run = run_line("picard-run", line);
	cr_expect_eq(run.status, 1, "exit status %d\n%s%s", run.status, run.out, run.err);
	csv = slurp(out.s, NULL);
	cr_assert_not_null(strstr(csv, "\n0,tol-exceeded,"), "%s", csv);
	row = strstr(csv, "\n1,ok,");
	cr_assert_not_null(row, "%s\n%s%s", csv, run.out, run.err);
	x = strtod(row + strlen("\n1,ok,"), NULL);
	cr_expect(fabs(x - 1e-3 * exp(-0.5 * decay->t1)) <= 1e-9, "x(t1) = %.10g, exact %.10g", x,
		  1e-3 * exp(-0.5 * decay->t1));
	free(csv);
	free_run(&run);
}

Test(tune_cli, no_cache)
{
	struct cli_run run = run_line("picard-tune", "decay --tol 1e-4 --backend cpu --m 4 "
				      "--kmax 2 --traj 8 --repeats 1 --no-cache");

	cr_expect_eq(run.status, 0, "exit status %d\n%s%s", run.status, run.out, run.err);
	cr_expect_not_null(strstr(run.out, "not stored (--no-cache)"), "%s", run.out);
	cr_expect(!exists(cache_file().s), "--no-cache stored");
	free_run(&run);
}

/* ---- on the GPU ---------------------------------------------------------------------- */

/* picard-tune lotka --tol 1e-3 on the device (m up to 32, K up to 4 to
 * keep it short); picard-run then meets 1e-3 with --check, both from the
 * cache and with the winner's m, K, h given. The ensemble is 1024 and the
 * sample 128 of it, the same trajectories picard-run --check-traj 128
 * compares: the search promises E* on its sample, not beyond. */
Test(gpu, tune_lotka_cli, .timeout = 600)
{
	struct cli_run run;
	char line[256];
	int m, K;
	double h;

	require_gpu();
	make_tcli_workdir();
	run = run_line("picard-tune", "lotka --tol 1e-3 --backend cuda --m 4,8,16,32 --kmax 4 "
		       "--traj 1024 --sample 128");
	cr_log_info("picard-tune:\n%s%s", run.out, run.err);
	cr_assert_eq(run.status, 0, "picard-tune: exit status %d\n%s%s", run.status, run.out, run.err);
	find_grid(run.out, "best", &m, &K, &h);
	free_run(&run);

	run = run_line("picard-run", "lotka --tol 1e-3 --backend cuda --traj 1024 --check-traj 128");
	cr_log_info("picard-run from the cache:\n%s%s", run.out, run.err);
	cr_expect_eq(run.status, 0, "picard-run: exit status %d\n%s%s", run.status, run.out, run.err);
	cr_expect_not_null(strstr(run.out, "from the tuning cache"), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "PASS"), "%s", run.out);
	free_run(&run);

	snprintf(line, sizeof(line), "lotka --backend cuda --traj 1024 --check-traj 128 "
		 "--m %d --K %d --h %.17g --tol 1e-3", m, K, h);
	run = run_line("picard-run", line);
	cr_expect_eq(run.status, 0, "picard-run %s: exit status %d\n%s%s", line, run.status,
		     run.out, run.err);
	cr_expect_not_null(strstr(run.out, "PASS"), "%s", run.out);
	free_run(&run);
	remove_workdir();
}

/* The quick search on the GPU compiles only the kernels quick to compile
 * (picard_scheme_type.quick_compiles): at fisher_kpp's 32 components
 * lobatto's take NVRTC 5 to 40 s each, so it is left to picard-tune, said
 * so, and the answer still meets the tolerance. */
Test(gpu, quick_search_leaves_slow_kernels_to_picard_tune, .timeout = 600)
{
	struct cli_run run;

	require_gpu();
	make_tcli_workdir();
	run = run_line("picard-run", "fisher_kpp --tol 1e-6 --backend cuda --traj 64 "
		       "--precision double");
	cr_log_info("picard-run:\n%s%s", run.out, run.err);
	cr_assert_eq(run.status, 0, "picard-run: exit status %d\n%s%s", run.status, run.out,
		     run.err);
	cr_expect_not_null(strstr(run.out, "lobatto not searched (its kernels compile slowly at "
				  "n = 32"), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "[PASS]"), "%s", run.out);
	free_run(&run);
	remove_workdir();
}

/* A model file loaded at run time has entries of its own: the copy of
 * decay's file is keyed NAME+HASH (its text), so a registered decay's run
 * does not take them, and an edit of the file would not either. */
Test(tune_cli, model_file_has_entries_of_its_own)
{
	const struct path copy = in_workdir("decay.cu");
	char line[512], *text;
	size_t size = 0;
	struct cli_run run;

	text = slurp("models/decay.cu", &size);
	cr_assert_gt(size, 0);
	write_file(copy.s, text, size);
	free(text);
	snprintf(line, sizeof(line), "%s --tol 1e-5 --backend cpu --m 4,8 --kmax 3 --traj 64 "
		 "--sample 64 --repeats 2", copy.s);
	run = run_line("picard-tune", line);
	cr_assert_eq(run.status, 0, "picard-tune: exit status %d\n%s%s", run.status, run.out, run.err);
	free_run(&run);
	text = slurp(cache_file().s, NULL);
	cr_expect_not_null(strstr(text, "model=decay+"), "cache:\n%s", text);
	cr_expect_null(strstr(text, "model=decay "), "cache:\n%s", text);
	free(text);
	run = run_line("picard-run", "decay --tol 1e-5 --backend cpu --traj 64");
	cr_expect_eq(run.status, 0, "%s%s", run.out, run.err);
	cr_expect_null(strstr(run.out, "from the tuning cache"), "%s", run.out);
	free_run(&run);
	snprintf(line, sizeof(line), "%s --tol 1e-5 --backend cpu --traj 64", copy.s);
	run = run_line("picard-run", line);
	cr_expect_eq(run.status, 0, "%s%s", run.out, run.err);
	cr_expect_not_null(strstr(run.out, "from the tuning cache"), "%s", run.out);
	free_run(&run);
}
