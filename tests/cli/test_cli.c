/* test_cli.c - picard-run as a user meets it: the built program is run
 * (found beside this test binary, both in bin/) with its output captured,
 * and its exit status, messages and output files are checked. Every bad
 * input must give exit status 2 and one line on stderr naming the flag;
 * good runs use --backend cpu only (no GPU on CI, and Criterion forks per
 * test: this process itself touches no CUDA). */
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
#include "independent.h"
#include "picard.h"
#include "scheme.h"
#include "support.h"

static void make_cli_workdir(void)
{
	make_workdir("cli", NULL);
}

TestSuite(cli, .init = make_cli_workdir, .fini = remove_workdir, .timeout = 120);

/* ---- helpers ----------------------------------------------------------------- */

/* Run picard-run with a blank-separated argument line ("" for none),
 * stdout and stderr captured. */
static struct cli_run run_line(const char *line)
{
	return run_program_line("picard-run", line);
}

/* A usage error: status 2, one "picard-run: " line first on stderr that
 * mentions needle, and no summary on stdout. */
static void expect_usage_error(const char *line, const char *needle)
{
	struct cli_run run = run_line(line);
	char first[512];

	cr_expect_eq(run.status, 2, "'%s': exit status %d, expected 2 (stderr: %s)",
		     line, run.status, run.err);
	cr_assert(run.err[0], "'%s': nothing on stderr", line);
	nth_line(run.err, 0, first, sizeof(first));
	cr_expect_eq(strncmp(first, "picard-run: ", 12), 0, "'%s': stderr line '%s'", line, first);
	cr_expect_not_null(strstr(first, needle), "'%s': '%s' does not mention '%s'",
			   line, first, needle);
	cr_expect_str_empty(run.out, "'%s': stdout not empty: %s", line, run.out);
	free_run(&run);
}

/* The check line's E and relative E, each at most what the run's scheme
 * promises there (max_E, max_rel): a value, not only the label. */
static void expect_check_within(const char *out, double max_E, double max_rel)
{
	const char *line = strstr(out, "check        E = ");
	double E, rel;

	cr_assert_not_null(line, "no check line in:\n%s", out);
	cr_assert_eq(sscanf(line, "check E = %lf (rel %lf)", &E, &rel), 2, "%s", line);
	cr_expect(E >= 0 && E <= max_E, "check E = %g, more than %g", E, max_E);
	cr_expect(rel >= 0 && rel <= max_rel, "check rel %g, more than %g", rel, max_rel);
}

/* ---- bad command lines ------------------------------------------------------------ */

/* One bad command line and what its error line must mention. */
struct bad_input {
	char args[160]; /* arguments, blank separated */
	char needle[40]; /* the flag or value the message names */
};

ParameterizedTestParameters(cli, bad_input)
{
	static struct bad_input cases[] = {
		{"", "MODEL"},
		{"--backend cpu", "MODEL"},
		{"nosuchmodel", "nosuchmodel"},
		{"nosuchmodel", "lotka"},              /* the known models are listed */
		{"decay --frobnicate", "--frobnicate"},
		{"decay --frobnicate=3", "--frobnicate"},
		{"decay -x", "-x"},
		{"decay --traj", "--traj"},           /* missing value */
		{"decay --traj --check", "--traj"},   /* a flag is not a value */
		{"decay --traj abc", "--traj"},
		{"decay --traj=abc", "--traj"},
		{"decay --traj 12x", "--traj"},       /* trailing garbage */
		{"decay --traj 1.5", "--traj"},
		{"decay --traj 99999999999999999999999", "--traj"}, /* overflow */
		{"decay --traj 0", "--traj"},
		{"decay --traj -4", "--traj"},
		{"decay --traj=", "--traj"},
		{"decay --h 0.1x", "--h"},
		{"decay --h nan", "--h"},
		{"decay --h NaN", "--h"},
		{"decay --h inf", "--h"},
		{"decay --h 1e999", "--h"},           /* overflow */
		{"decay --h 1e-400", "--h"},          /* underflow */
		{"decay --h 0", "--h"},
		{"decay --h -0.1", "--h"},
		{"decay --scheme simpson", "--scheme"},
		{"decay --scheme lobatto --h 0.1", "--h"},
		{"decay --window 1", "--window"},      /* the trapezoid takes --h */
		{"decay --scheme lobatto --window 0", "--window"},
		{"decay --scheme lobatto --window nan", "--window"},
		{"decay --scheme lobatto --m 33", "--m"},
		{"decay --h=-1", "--h"},
		{"decay --t0 inf", "--t0"},
		{"decay --t1 nan", "--t1"},
		{"decay --t0 5 --t1 5", "--t1"},
		{"decay --t0 5 --t1 1", "--t1"},
		{"decay --t1 -1", "--t1"},            /* below the model's t0 */
		{"decay --t0 50", "--t0"},            /* beyond the model's t1 */
		{"decay --K 0", "--K"},
		{"decay --K 3 --K-max 4", "--K-max"},
		{"decay --K-max 4 --K 3", "--K"},
		{"decay --K-max 0", "--K-max"},
		{"decay --iter-rtol -1", "--iter-rtol"},
		{"decay --iter-atol nan", "--iter-atol"},
		{"decay --K -2", "--K"},
		{"decay --K two", "--K"},
		{"decay --m 1", "--m"},
		{"decay --m 0", "--m"},
		{"decay --m 8.5", "--m"},
		{"decay --spread -0.1", "--spread"},
		{"decay --spread nan", "--spread"},
		{"decay --seed -1", "--seed"},
		{"decay --seed 1e3", "--seed"},
		{"decay --check-traj -1", "--check-traj"},
		{"decay --save-every 0 --out x.csv", "--save-every 0"},
		{"decay --save-every -1 --out x.csv", "--save-every -1"},
		{"decay --save-every nan --out x.csv", "--save-every nan"},
		{"decay --save-every 1e-300 --out x.csv", "--save-every 1e-300"}, /* too many */
		{"decay --save-every 2", "--save-every 2: needs --out"},
		{"decay --save-at 1,3,2 --out x.csv", "--save-at 1,3,2: 2 after 3"},
		{"decay --save-at 1,20 --out x.csv", "--save-at 1,20: 20 is outside"},
		{"decay --save-at -0.5 --out x.csv", "--save-at -0.5: -0.5 is outside"},
		{"decay --t1 5 --save-at 6 --out x.csv", "--save-at 6: 6 is outside"},
		{"decay --save-at 1,abc --out x.csv", "--save-at 'abc'"},
		{"decay --save-at nan --out x.csv", "--save-at nan"},
		{"decay --save-at= --out x.csv", "--save-at ''"},
		{"decay --save-at 1,,2 --out x.csv", "--save-at '1,,2'"},
		{"decay --save-at 1, --out x.csv", "--save-at '1,'"},
		{"decay --save-at --out x.csv", "--save-at"},  /* missing value */
		{"decay --save-at 1 --save-every 2 --out x.csv", "--save-every 2 or --save-at"},
		{"decay --save-at 1", "--save-at 1: needs --out"},
		{"decay --precision half", "--precision"},
		{"decay --precision", "--precision"},
		{"decay --backend opencl", "--backend"},
		{"decay --tol 0", "--tol"},
		{"decay --tol abc", "--tol"},
		{"decay --scheme imex-euler", "declares no linear operator"},
		{"decay --linsolve cg", "--linsolve cg: --scheme trapezoid"},
		{"decay --scheme lobatto --precond jacobi", "--precond jacobi: --scheme lobatto"},
		{"decay --linsolve-maxit 5", "--linsolve-maxit 5: --scheme trapezoid"},
		{"decay --linsolve gmres", "--linsolve 'gmres'"},
		{"decay --precond ilu", "--precond 'ilu'"},
		{"decay --linsolve-rtol 2", "--linsolve-rtol 2"},
		{"decay --linsolve-rtol -1", "--linsolve-rtol"},
		{"decay --linsolve-maxit 0", "--linsolve-maxit"},
		{"decay --bound -1", "--bound"},
		{"decay --bound inf", "--bound"},
		{"decay --repeat 0", "--repeat"},
		{"decay --repeat 1001", "--repeat"},
		{"decay --repeat x", "--repeat"},
		{"decay --out result.txt", "--out"},  /* unknown extension */
		{"decay --out result", "--out"},
		{"decay --out=", "--out"},
		{"decay --check=yes", "--check"},
		{"decay lotka", "lotka"},             /* one MODEL only */
		{"decay --spread-param lambda", "--spread-param lambda"}, /* no =S */
		{"decay --spread-param mu=0.1", "mu"},          /* no such parameter */
		{"decay --spread-param mu=0.1", "lambda"},      /* the known ones listed */
		{"decay --spread-param lambda=-1", "lambda=-1"},
		{"decay --spread-param lambda=x", "--spread-param"},
		{"decay --spread-param lambda=0.1 --spread-param lambda=0.2", "given twice"},
		{"decay --spread-param =0.1", "--spread-param =0.1"},
		/* the options are checked together (options/validate.c) before
		 * the parameters are named in the model (options/resolve.c) */
		{"decay --param mu=1 --init x.csv", "--param mu=1: not used with --init"},
		{"decay --spread-param mu=0.1 --t1 -1", "--t1 -1: must be greater than t0"},
	};

	return cr_make_param_array(struct bad_input, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct bad_input *input, cli, bad_input)
{
	expect_usage_error(input->args, input->needle);
}

Test(cli, out_unwritable)
{
	expect_usage_error("decay --backend cpu --traj 2 --out /nonexistent-dir/x.csv",
			   "/nonexistent-dir/x.csv");
}

/* A .npy whose status file cannot be placed (a directory stands at its
 * name) fails the run and leaves no .npy either: neither file is a result
 * alone. */
Test(cli, out_npy_status_unplaceable_leaves_neither)
{
	const struct path npy = in_workdir("both.npy"), status = in_workdir("both.status.csv");
	char line[512];
	struct cli_run run;

	cr_assert_eq(mkdir(status.s, 0755), 0, "mkdir %s", status.s);
	snprintf(line, sizeof(line), "decay --backend cpu --traj 3 --out %s", npy.s);
	run = run_line(line);
	cr_expect_eq(run.status, 1, "exit status %d (stderr: %s)", run.status, run.err);
	cr_expect_neq(strstr(run.err, "status file"), NULL, "stderr: %s", run.err);
	cr_expect_eq(access(npy.s, F_OK), -1, "the .npy was left without its statuses");
	free_run(&run);
	rmdir(status.s);
}

/* --save-at past the span (here the model's t1 = 10) is refused before
 * anything runs; an existing --out file is not touched. */
Test(cli, save_at_beyond_span)
{
	char line[512];
	const struct path out_file = in_workdir("keep.csv");
	const char *out = out_file.s;
	char *kept;

	write_file(out, "old\n", 4);
	snprintf(line, sizeof(line),
		 "decay --backend cpu --traj 2 --m 5 --h 0.25 --save-at 2,11 --out %s", out);
	expect_usage_error(line, "--save-at 2,11: 11 is outside the span [0, 10]");
	kept = slurp(out, NULL);
	cr_expect_str_eq(kept, "old\n", "a failed run changed the existing --out file");
	free(kept);
}

/* A grid the library refuses (here: 1e20 windows) is a bad command line:
 * exit 2 with the library's message (tests/cli/test_usage_exit.c has more). */
Test(cli, library_error)
{
	struct cli_run run = run_line("decay --backend cpu --traj 2 --h 1e-19");

	cr_expect_eq(run.status, 2, "exit status %d (stderr: %s)", run.status, run.err);
	cr_expect_eq(strncmp(run.err, "picard-run: invalid argument: ", 30), 0,
		     "stderr: %s", run.err);
	free_run(&run);
}

/* ---- --list, --help ------------------------------------------------------------------ */

Test(cli, list)
{
	struct cli_run run = run_line("--list");
	const char *shipped[] = {"lotka (n=2)", "decay (n=1)", "oscillator (n=2)"};
	char entry[128];

	cr_expect_eq(run.status, 0, "exit status %d (stderr: %s)", run.status, run.err);
	cr_expect_str_empty(run.err);
	for (size_t i = 0; i < sizeof(shipped) / sizeof(shipped[0]); i++)
		cr_expect_not_null(strstr(run.out, shipped[i]), "--list lacks %s:\n%s",
				   shipped[i], run.out);
	/* every registered model, so a new model file is listed with no edit */
	for (int i = 0; i < picard_model_count(); i++) {
		snprintf(entry, sizeof(entry), "%s (n=%d)", picard_model_at(i)->name,
			 picard_model_at(i)->dim);
		cr_expect_not_null(strstr(run.out, entry), "--list lacks %s", entry);
	}
	cr_expect_not_null(strstr(run.out, "a1=0.25"), "lotka's defaults are not shown");
	cr_expect_not_null(strstr(run.out, "[0, 100]"), "lotka's time span is not shown");
	free_run(&run);
}

Test(cli, help)
{
	const char *flags[] = {"--traj", "--m", "--K", "--h", "--t0", "--t1", "--precision",
			       "--backend", "--spread", "--seed", "--init", "--out", "--save-every",
			       "--save-at",
			       "--check", "--check-traj", "--tol", "--bound", "--repeat", "--list",
			       "--help"};
	const char *lines[] = {"--help", "-h", "decay --traj 4 --help"};
	struct cli_run run;

	for (size_t l = 0; l < sizeof(lines) / sizeof(lines[0]); l++) {
		run = run_line(lines[l]);
		cr_expect_eq(run.status, 0, "'%s': exit status %d", lines[l], run.status);
		cr_expect_str_empty(run.err);
		for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
			cr_expect_not_null(strstr(run.out, flags[i]), "usage lacks %s", flags[i]);
		cr_expect_not_null(strstr(run.out, "8192"), "usage lacks --traj's default");
		cr_expect_not_null(strstr(run.out, "0.06"), "usage lacks --h's default");
		free_run(&run);
	}
	/* a bad value before --help is still reported */
	run = run_line("decay --traj abc --help");
	cr_expect_eq(run.status, 2);
	free_run(&run);
}

/* --version: the version, the build and the CUDA runtime found, exit 0,
 * whatever else is on the line (as GNU programs do); --help lists it. */
Test(cli, version)
{
	const char *lines[] = {"--version", "decay --traj 4 --version", "--version --traj abc"};
	struct cli_run run;
	char want[160];

	snprintf(want, sizeof(want), "picard-run (picard) %s\nbuild %s\nCUDA runtime ",
		 picard_version(), picard_build_id());
	for (size_t l = 0; l < sizeof(lines) / sizeof(lines[0]); l++) {
		run = run_line(lines[l]);
		cr_expect_eq(run.status, 0, "'%s': exit status %d", lines[l], run.status);
		cr_expect_str_empty(run.err, "'%s': %s", lines[l], run.err);
		cr_expect_eq(strncmp(run.out, want, strlen(want)), 0, "'%s':\n%s", lines[l], run.out);
		cr_expect_null(strstr(run.out, "model "), "'%s' solved:\n%s", lines[l], run.out);
		free_run(&run);
	}
	run = run_line("--help");
	cr_expect_not_null(strstr(run.out, "--version"), "usage lacks --version");
	free_run(&run);
}

/* ---- good runs ---------------------------------------------------------------------- */

Test(cli, small_run)
{
	struct cli_run run = run_line("decay --backend cpu --traj 16 --m 5 --h 0.25");

	cr_expect_eq(run.status, 0, "exit status %d (stderr: %s)", run.status, run.err);
	cr_expect_str_empty(run.err);
	cr_expect_not_null(strstr(run.out, "model        decay (n=1)"), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "backend      cpu: "), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "trajectories 16\n"), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "m=5 K=2 h=0.25, 10 windows, t in [0, 10]"),
			   "%s", run.out);
	cr_expect_not_null(strstr(run.out, "precision    float"), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "solve "), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "total "), "%s", run.out);
	free_run(&run);
}

/* --repeat 3: three solves of the same ensemble, the first reported and
 * the median and min of all; the results are the same as one solve's. */
Test(cli, repeat_reports_median_and_min)
{
	struct cli_run one, three;
	char *a, *b;
	const struct path f1 = in_workdir("one.csv"), f3 = in_workdir("three.csv");
	char line[512];

	snprintf(line, sizeof(line), "lotka --backend cpu --traj 8 --scheme dp5 --out %s", f1.s);
	one = run_line(line);
	snprintf(line, sizeof(line), "lotka --backend cpu --traj 8 --scheme dp5 --repeat 3 --out %s",
		 f3.s);
	three = run_line(line);
	cr_assert_eq(one.status, 0, "%s%s", one.out, one.err);
	cr_assert_eq(three.status, 0, "%s%s", three.out, three.err);
	cr_expect_null(strstr(one.out, "the first of"), "%s", one.out);
	cr_expect_not_null(strstr(three.out, ", the first of 3; median "), "%s", three.out);
	cr_expect_not_null(strstr(three.out, ", min "), "%s", three.out);
	a = slurp(f1.s, NULL);
	b = slurp(f3.s, NULL);
	cr_expect_str_eq(a, b, "the results differ");
	free(a);
	free(b);
	free_run(&one);
	free_run(&three);
}

/* --scheme lobatto: its grid line, defaults (adaptive, 200 windows); with
 * --tol, m, the window and the tolerance tuned by a quick search of the
 * lobatto scheme alone, and a check that passes a tolerance the trapezoid
 * could not reach there. */
Test(cli, lobatto_run)
{
	struct cli_run run = run_line("decay --backend cpu --traj 8 --scheme lobatto "
				      "--precision double --check");

	cr_expect_eq(run.status, 0, "exit status %d (stderr: %s)", run.status, run.err);
	cr_expect_not_null(strstr(run.out, "lobatto m=8 K<=40 window=0.05 (mean h=0.00714286), "
				  "200 windows, t in [0, 10]"), "%s", run.out);
	/* order 14 on windows of 0.05, iterated to 1e-12 relative: E measured
	 * 5.6e-14, the iteration's tolerance times the span's few windows */
	expect_check_within(run.out, 1e-12, 1e-10);
	free_run(&run);

	run = run_line("decay --backend cpu --traj 8 --scheme lobatto --precision double --tol 1e-10");
	cr_expect_eq(run.status, 0, "exit status %d (stderr: %s)", run.status, run.err);
	cr_expect_not_null(strstr(run.out, "parameters   lobatto m="), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "quick search on this ensemble (8 trajectories sampled, lobatto:"),
			   "%s", run.out);
	cr_expect_not_null(strstr(run.out, "PASS"), "%s", run.out);
	free_run(&run);

	run = run_line("lotka --backend cpu --traj 4 --scheme lobatto --m 6 --window 3 --K 2");
	cr_expect_eq(run.status, 0, "exit status %d (stderr: %s)", run.status, run.err);
	cr_expect_not_null(strstr(run.out, "lobatto m=6 K=2 window=2.94118 (mean h=0.588235) "
				  "(requested 3), 34 windows"), "%s", run.out);
	free_run(&run);

	/* windows too long to converge: named, and the hint says --window */
	run = run_line("lotka --backend cpu --traj 4 --scheme lobatto --window 20 --K-max 5");
	cr_expect_eq(run.status, 1, "exit status %d", run.status);
	cr_expect_not_null(strstr(run.err, "--window"), "%s", run.err);
	free_run(&run);
}

/* Files in directory dir (0 when it does not exist). */
static int count_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/* --precompile --scheme S: S's kernels alone into the kernel cache, for
 * the architecture PICARD_JIT_ARCH names (no device needed); a second
 * run finds them there and adds none. */
Test(cli, precompile_one_scheme, .timeout = 300)
{
	const struct path cache = in_workdir("jit"), kernels = in_workdir("jit/kernels");
	struct cli_run run;
	int first = 0, again = 0;

	setenv("PICARD_JIT_CACHE_DIR", cache.s, 1);
	setenv("PICARD_JIT_ARCH", "90", 1);
	run = run_line("lotka --scheme dp5 --precompile");
	cr_assert_eq(run.status, 0, "exit status %d (stderr: %s)", run.status, run.err);
	cr_assert_eq(sscanf(run.out, "lotka: %d kernels", &first), 1, "%s", run.out);
	/* dp5: fixed or adaptive steps, dense output or not, two precisions */
	cr_expect_eq(first, 8, "%s", run.out);
	cr_expect_eq(count_files(kernels.s), first, "%d files for %d kernels", count_files(kernels.s),
		     first);
	free_run(&run);

	run = run_line("lotka --scheme dp5 --precompile");
	cr_assert_eq(run.status, 0, "exit status %d (stderr: %s)", run.status, run.err);
	cr_assert_eq(sscanf(run.out, "lotka: %d kernels", &again), 1, "%s", run.out);
	cr_expect_eq(again, first);
	cr_expect_eq(count_files(kernels.s), first);
	free_run(&run);

	expect_usage_error("lotka --scheme dp6 --precompile", "--scheme");
}

/* The imex schemes on the shipped semi-linear models: the grid and the
 * linear solver in the summary, checked; a solve that fails is
 * linsolve-failed with the solver's words on stderr; the linear-solver
 * flags that do not fit the model's operator are refused naming them;
 * --tol without --scheme searches the schemes that solve with the operator;
 * --save-every records. */
Test(cli, imex_run, .timeout = 300) /* 120 s ran out on a loaded 2-core machine */
{
	/* a model with an operator: imex-sdirk2 in double when no --scheme is named */
	struct cli_run run = run_line("heat1d --backend cpu --traj 4 --check");
	const struct path out_file = in_workdir("imex.csv");
	char line[256], *csv;

	cr_expect_eq(run.status, 0, "exit status %d (stderr: %s)", run.status, run.err);
	cr_expect_not_null(strstr(run.out, "grid         imex-sdirk2 m=8 K<=40 h=0.00285714, "
				  "100 windows, t in [0, 2]"), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "linsolve     thomas (direct) (the operator's default)"),
			   "%s", run.out);
	cr_expect_not_null(strstr(run.out, "precision    double"), "%s", run.out);
	/* imex-sdirk2, order 2 at h = 0.00286: E measured 2.4e-7 (rel 1.9e-6) */
	expect_check_within(run.out, 1e-6, 1e-5);
	free_run(&run);

	run = run_line("heat2d --backend cpu --traj 2 --scheme imex-euler --linsolve pcr "
		       "--linsolve-maxit 1 --linsolve-rtol 1e-14");
	cr_expect_eq(run.status, 1, "exit status %d (stderr: %s)", run.status, run.err);
	cr_expect_not_null(strstr(run.err, "linsolve-failed in window 0"), "%s", run.err);
	cr_expect_not_null(strstr(run.err, "adi over pcr: not converged"), "%s", run.err);
	cr_expect_not_null(strstr(run.err, "--linsolve-maxit"), "%s", run.err);
	free_run(&run);

	expect_usage_error("filtration --backend cpu --scheme imex-euler --linsolve thomas",
			   "--linsolve thomas: a tridiagonal solver");
	expect_usage_error("heat1d --backend cpu --scheme imex-euler --precond jacobi",
			   "--precond jacobi: --linsolve thomas takes no preconditioner");

	if (!picard_scheme_of(PICARD_SCHEME_IMEX_EULER)->cuda)
		expect_usage_error("heat1d --backend cuda --scheme imex-euler",
				   "--backend cuda: --scheme imex-euler has no CUDA side yet");

	/* --tol's search across schemes: the ones that solve with the operator */
	run = run_line("heat1d --backend cpu --traj 4 --tol 1e-5");
	cr_expect_eq(run.status, 0, "exit status %d (stderr: %s)", run.status, run.err);
	cr_expect_not_null(strstr(run.out, "parameters   imex-"), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "least predicted time on 4 trajectories: imex-sdirk2 "), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "imex-euler"), "%s", run.out);
	cr_expect_null(strstr(run.out, "radau5"), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "PASS"), "%s", run.out);
	free_run(&run);

	snprintf(line, sizeof(line), "filtration --backend cpu --traj 3 --scheme imex-sdirk2 "
		 "--linsolve bicgstab --precond neumann --out %s --save-every 0.25", out_file.s);
	run = run_line(line);
	cr_expect_eq(run.status, 0, "exit status %d (stderr: %s)", run.status, run.err);
	cr_expect_not_null(strstr(run.out, "linsolve     bicgstab, precond neumann"), "%s", run.out);
	csv = slurp(out_file.s, NULL);
	/* a header, then t = 0, 0.25, ..., 1 for 3 trajectories */
	cr_expect_eq(count_lines(csv), 1 + 5 * 3, "%s", csv);
	cr_expect_null(strstr(csv, "linsolve-failed"));
	free(csv);
	free_run(&run);
}

/* The per-thread Runge-Kutta pairs from the command line: adaptive by
 * default, --steps N fixed (with --tol too), dense output, checked; what they cannot take
 * is refused naming the flag; --tol without --scheme tries every scheme
 * and says which ran and what the others timed at. */
Test(cli, rk_run)
{
	struct cli_run run = run_line("lotka --backend cpu --traj 8 --scheme dp8 --precision double "
				      "--iter-rtol 1e-10 --check");

	cr_expect_eq(run.status, 0, "exit status %d (stderr: %s)", run.status, run.err);
	cr_expect_not_null(strstr(run.out, "dp8 adaptive, rtol=1e-10 atol=1e-10, at most 1000000 steps, "
				  "output every 100, 1 window,"), "%s", run.out);
	/* a local tolerance of 1e-10 on states near 50: E measured 1.3e-10 */
	expect_check_within(run.out, 1e-8, 1e-9);
	free_run(&run);

	run = run_line("lotka --backend cpu --traj 4 --scheme vern9 --steps 200 --precision double --check");
	cr_expect_eq(run.status, 0, "exit status %d (stderr: %s)", run.status, run.err);
	cr_expect_not_null(strstr(run.out, "vern9 200 steps of 0.5 per window"), "%s", run.out);
	/* order 9 at h = 0.5: E measured 6.4e-12 */
	expect_check_within(run.out, 1e-10, 1e-11);
	free_run(&run);

	/* --steps given with --tol: that grid, checked against the bound, no search */
	run = run_line("lotka --backend cpu --traj 4 --scheme dp5 --steps 300 --precision double "
		       "--tol 1e-3");
	cr_expect_eq(run.status, 0, "exit status %d (stderr: %s)", run.status, run.err);
	cr_expect_not_null(strstr(run.out, "dp5 300 steps of 0.333333 per window"), "%s", run.out);
	cr_expect_null(strstr(run.out, "quick search"), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "[PASS]"), "%s", run.out);
	free_run(&run);

	expect_usage_error("lotka --backend cpu --traj 4 --scheme dp5 --window 2", "--window");
	expect_usage_error("lotka --backend cpu --traj 4 --scheme dp5 --m 8", "--m 8");

	run = run_line("decay --backend cpu --traj 8 --precision double --tol 1e-8");
	cr_expect_eq(run.status, 0, "exit status %d (stderr: %s)", run.status, run.err);
	cr_expect_not_null(strstr(run.out, "schemes      "), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "trapezoid "), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "vern9 "), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "PASS"), "%s", run.out);
	free_run(&run);
}

Test(cli, check_pass_and_fail)
{
	/* the grid given and checked: the trapezoid at h = 0.25 on decay
	 * (lambda 0.5), converged by K = 4, is within lambda^3 h^2 t
	 * e^(-lambda t) / 12 ~ 3e-4 of exp(-lambda t) (E measured 1.1e-4);
	 * 1e-3 is met, and E must show it (--tol 1 passed K = 1, E = 0.13,
	 * relative 0.86) */
	struct cli_run run = run_line("decay --backend cpu --traj 8 --m 5 --K 4 --h 0.25 "
				      "--precision double --tol 1e-3");

	cr_expect_eq(run.status, 0, "exit status %d (stderr: %s)", run.status, run.err);
	expect_check_within(run.out, 1e-3, 1e-2);
	cr_expect_not_null(strstr(run.out, "over 8 trajectories x 10 window ends"), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "[PASS]"), "%s", run.out);
	free_run(&run);

	/* the grid given: --tol alone would tune m, K, h (test_tune_cli.c);
	 * h = 0.06 errs by ~1e-4 (above float's floor, 2.6e-7 here) */
	run = run_line("decay --backend cpu --traj 8 --m 8 --K 2 --h 0.06 --tol 1e-6");
	cr_expect_eq(run.status, 1, "exit status %d", run.status);
	cr_expect_not_null(strstr(run.out, "FAIL"), "%s", run.out);
	cr_expect_not_null(strstr(run.err, "picard-run: check failed"), "%s", run.err);
	free_run(&run);
}

/* The check line says which error it reports: E = max |x - x_ref|
 * against GSL's reference at its own tolerance, and with --tol the worst
 * error in units of the tolerance, the number the tolerance line judges
 * (E / tol when the tolerance is absolute). */
Test(cli, check_line_names_its_error)
{
	struct cli_run run = run_line("lotka --backend cpu --traj 4 --scheme dp5 --steps 300 "
				      "--precision double --tol 1e-3");
	const char *line;
	double E, rel, scaled;

	cr_assert_eq(run.status, 0, "exit status %d (stderr: %s)", run.status, run.err);
	line = strstr(run.out, "check        E = ");
	cr_assert_not_null(line, "%s", run.out);
	cr_assert_eq(sscanf(line, "check E = %lf (rel %lf)", &E, &rel), 2, "%s", line);
	cr_expect_not_null(strstr(line, "max |x - x_ref|, x_ref GSL's at rtol = atol = 1e-12"),
			   "%s", line);
	line = strstr(line, ", at most ");
	cr_assert_not_null(line, "%s", run.out);
	cr_assert_eq(sscanf(line, ", at most %lf x the tolerance", &scaled), 1, "%s", line);
	cr_expect(E > 0 && fabs(scaled - E / 1e-3) <= 1e-2 * scaled, "E %g, scaled %g, tol 1e-3",
		  E, scaled);
	free_run(&run);
}

/* The check line reports the first solve: where --tol solved members
 * again after it (the ones over the tolerance by their estimate alone,
 * beyond the 1024 checked), it comes after their line and says how many
 * are judged in the tolerance line instead. */
Test(cli, check_line_says_which_members_it_no_longer_judges)
{
	struct cli_run run = run_line("lotka --backend cpu --traj 2048 --precision double --m 8 "
				      "--K 4 --h 0.06 --tol 1e-3");
	const char *verify = strstr(run.out, "verify       "), *check;
	long verified, again;

	cr_assert_not_null(verify, "%s", run.out);
	cr_assert_eq(sscanf(verify, "verify %ld trajector", &verified), 1, "%s", verify);
	check = strstr(run.out, "check        E = ");
	cr_assert(check && check > verify, "the check line is not after the verify line:\n%s",
		  run.out);
	check = strstr(check, "; the first solve's: ");
	cr_assert_not_null(check, "%s", run.out);
	cr_assert_eq(sscanf(check, "; the first solve's: %ld trajector", &again), 1, "%s", check);
	cr_expect_eq(again, verified, "%s", run.out);
	cr_expect_gt(verified, 0);
	free_run(&run);
}

/* A trajectory that ran out of adaptive steps: the hint names
 * --max-steps, the flag that sets the limit (it said --K-max). */
Test(cli, max_steps_hint_names_max_steps)
{
	struct cli_run run = run_line("lotka --backend cpu --traj 2 --scheme dp5 --max-steps 10");

	cr_expect_eq(run.status, 1, "exit status %d (stderr: %s)", run.status, run.err);
	cr_expect_not_null(strstr(run.err, "0 max-steps in window 0"), "%s", run.err);
	cr_expect_not_null(strstr(run.err, "hint: max-steps: 10 steps were tried before t1; a "
				  "larger --max-steps"), "%s", run.err);
	cr_expect_null(strstr(run.err, "--K-max"), "%s", run.err);
	free_run(&run);
}

/* --check-traj samples the ensemble: at most N trajectories. */
Test(cli, check_sample)
{
	struct cli_run run = run_line("decay --backend cpu --traj 100 --check --check-traj 10");

	cr_expect_eq(run.status, 0, "exit status %d (stderr: %s)", run.status, run.err);
	cr_expect_not_null(strstr(run.out, "over 10 trajectories"), "%s", run.out);
	free_run(&run);
	run = run_line("decay --backend cpu --traj 100 --check-traj 0");
	cr_expect_not_null(strstr(run.out, "over 100 trajectories"), "%s", run.out);
	free_run(&run);
}

/* States past --bound: exit 1, the failed trajectories named on stderr. */
Test(cli, diverged)
{
	char line[512];
	const struct path out_file = in_workdir("div.csv");
	const char *out = out_file.s;
	struct cli_run run;
	char *csv;

	snprintf(line, sizeof(line),
		 "decay --backend cpu --traj 4 --spread 0 --bound 0.5 --out %s", out);
	run = run_line(line);
	cr_expect_eq(run.status, 1, "exit status %d", run.status);
	cr_expect_not_null(strstr(run.err, "4 of 4 trajectories failed"), "%s", run.err);
	cr_expect_not_null(strstr(run.err, "diverged in window 0"), "%s", run.err);
	csv = slurp(out, NULL);
	cr_expect_eq(count_lines(csv), 5, "%s", csv);
	cr_expect_not_null(strstr(csv, "\n3,diverged,nan\n"), "%s", csv);
	free(csv);
	free_run(&run);
}

/* Float overflow to Inf: reported as nonfinite. */
Test(cli, nonfinite)
{
	struct cli_run run = run_line("decay --backend cpu --traj 2 --spread 0 --h 1000 "
				      "--t1 1e6 --bound 1e300");

	cr_expect_eq(run.status, 1, "exit status %d", run.status);
	cr_expect_not_null(strstr(run.err, "2 of 2 trajectories failed"), "%s", run.err);
	cr_expect_not_null(strstr(run.err, "nonfinite"), "%s", run.err);
	free_run(&run);
}

/* ---- --out --------------------------------------------------------------------------- */

/* decay from x0 with lambda on picard-run's default grid (m = 8, K = 2,
 * h = 0.06 shrunk to 10/168, 24 windows over [0, 10]): x(10) as the
 * paper's scheme computes it. */
static double decay_default_grid(double lambda, double x0)
{
	const double A[1] = {-lambda};

	linear_trapezoid_picard(1, A, 8, 10.0 / 168, 2, 24, &x0);
	return x0;
}

Test(cli, out_csv)
{
	char line[512], row[256], status[32];
	const struct path out_file = in_workdir("final.csv");
	const char *out = out_file.s;
	struct cli_run run;
	long traj;
	double x;
	char *csv;

	snprintf(line, sizeof(line), "decay --backend cpu --traj 16 --spread 0 --out %s", out);
	run = run_line(line);
	cr_expect_eq(run.status, 0, "exit status %d (stderr: %s)", run.status, run.err);
	csv = slurp(out, NULL);
	cr_expect_eq(count_lines(csv), 17, "rows:\n%s", csv);
	nth_line(csv, 0, row, sizeof(row));
	cr_expect_str_eq(row, "traj,status,x1");
	for (long i = 1; i <= 16; i++) {
		nth_line(csv, i, row, sizeof(row));
		cr_assert_eq(sscanf(row, "%ld,%31[a-z],%lf", &traj, status, &x), 3, "row '%s'", row);
		cr_expect_eq(traj, i - 1);
		cr_expect_str_eq(status, "ok");
		/* the scheme's own answer at m=8 K=2 h=10/168 (24 windows): its
		 * Picard iteration written out, 7.029e-3 against exp(-5) =
		 * 6.738e-3; float rounding apart */
		cr_expect(fabs(x / decay_default_grid(0.5, 1) - 1) < 1e-6, "row '%s': x = %.9g, "
			  "the scheme's %.9g", row, x, decay_default_grid(0.5, 1));
	}
	free(csv);
	free_run(&run);
}

/* --save-every DT: t0, t0+DT, ... and t1; the states at t0 are the
 * ensemble's start states and those at t1 the final states that a run
 * without it writes (one solve, the same numbers, to rounding). */
Test(cli, out_csv_save_every)
{
	const picard_model *model = picard_model_find("oscillator");
	const double expect_times[] = {0, 3, 6, 9, 10}; /* DT 3 over [0, 10] */
	const struct path saved_file = in_workdir("saved.csv"), final_file = in_workdir("final.csv");
	const char *base = "oscillator --backend cpu --traj 4 --m 5 --h 0.25 --t1 10 "
			   "--precision double";
	double times[5], x[5 * 4 * 2], x0[4 * 2], x_final[4 * 2];
	char line[512];
	struct cli_run run;

	snprintf(line, sizeof(line), "%s --save-every 3 --out %s", base, saved_file.s);
	run = run_line(line);
	cr_assert_eq(run.status, 0, "exit status %d (stderr: %s)", run.status, run.err);
	cr_expect_not_null(strstr(run.out, "(5 times x 4 trajectories)"), "%s", run.out);
	free_run(&run);
	read_saved_csv(saved_file.s, 5, 4, 2, times, x);
	for (int r = 0; r < 5; r++)
		cr_expect_eq(times[r], expect_times[r], "time %d: %.17g", r, times[r]);

	snprintf(line, sizeof(line), "%s --out %s", base, final_file.s);
	run = run_line(line);
	cr_assert_eq(run.status, 0, "exit status %d (stderr: %s)", run.status, run.err);
	free_run(&run);
	read_final_csv(final_file.s, 4, 2, x_final);
	/* picard-run's ensemble as documented (--spread 0.1 around x0, seed
	 * 1), drawn here; every saved time is a window end (windows of 4 x
	 * 0.25), where the scheme's K = 2 iteration, written out here, is
	 * what it computes */
	documented_ensemble(2, model->x0, 4, 0.1, 1, x0);
	for (int i = 0; i < 4; i++) {
		const double A[4] = {0, 1, -1, 0}; /* omega 1 */
		double want[2] = {x0[i * 2], x0[i * 2 + 1]};

		for (int r = 0; r < 5; r++) {
			linear_trapezoid_picard(2, A, 5, 0.25, 2, r ? lround(expect_times[r] -
					       expect_times[r - 1]) : 0, want);
			for (int k = 0; k < 2; k++)
				cr_expect(fabs(x[(r * 4 + i) * 2 + k] - want[k]) <= 1e-12,
					  "t = %g, trajectory %d, x%d: %.17g, the scheme's %.17g",
					  expect_times[r], i, k + 1, x[(r * 4 + i) * 2 + k], want[k]);
		}
		for (int k = 0; k < 2; k++)
			cr_expect_eq(x[(4 * 4 + i) * 2 + k], x_final[i * 2 + k], "t1, trajectory %d: "
				     "%.17g, final %.17g", i, x[(4 * 4 + i) * 2 + k], x_final[i * 2 + k]);
	}
}

/* The times of --save-every DT: t1 is always last, a multiple of DT that
 * rounding puts within 1e-9 of the span of t1 counts as t1 (3 * 3.333333333
 * = 9.999999999), and a DT past the span gives t0 and t1. */
Test(cli, save_every_times)
{
	const struct {
		const char *dt;
		long ntimes;
		double last_but_one;
	} cases[] = {
		{"3", 5, 9}, {"3.333333333", 4, 6.666666666}, {"0.1", 101, 9.9},
		{"10", 2, 0}, {"25", 2, 0},
	};
	const struct path out_file = in_workdir("every.csv");
	double times[101], x[101];
	char line[512];
	struct cli_run run;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		snprintf(line, sizeof(line), "decay --backend cpu --traj 1 --save-every %s --out %s",
			 cases[c].dt, out_file.s);
		run = run_line(line);
		cr_assert_eq(run.status, 0, "exit status %d (stderr: %s)", run.status, run.err);
		free_run(&run);
		read_saved_csv(out_file.s, cases[c].ntimes, 1, 1, times, x);
		cr_expect_eq(times[0], 0, "DT %s: first time %.17g", cases[c].dt, times[0]);
		cr_expect_eq(times[cases[c].ntimes - 1], 10, "DT %s: last time %.17g", cases[c].dt,
			     times[cases[c].ntimes - 1]);
		cr_expect(fabs(times[cases[c].ntimes - 2] - cases[c].last_but_one) < 1e-12,
			  "DT %s: time before t1 %.17g", cases[c].dt, times[cases[c].ntimes - 2]);
	}
}

/* --save-at inside windows, lobatto in double on decay: the collocation
 * polynomial against x(t) = exp(-lambda t), lambda 0.5. Measured (default
 * window 0.05, m = 8): at most 5.3e-14, the error the solve has at the
 * window ends too (the iteration tolerance, 1e-12 relative); the bound is
 * about 4 times that. A repeated time gives the same state twice. */
Test(cli, save_at_lobatto_exact)
{
	/* windows 0, 37, 101, 101, 163, 199, 0.0173 into each (H = 0.05) */
	const double at[] = {0.0173, 1.8673, 5.0673, 5.0673, 8.1673, 9.9673};
	const struct path out_file = in_workdir("at.csv");
	double times[6], x[6 * 2];
	char line[512];
	struct cli_run run;

	snprintf(line, sizeof(line), "decay --backend cpu --traj 2 --spread 0 --scheme lobatto "
		 "--precision double --save-at 0.0173,1.8673,5.0673,5.0673,8.1673,9.9673 --out %s",
		 out_file.s);
	run = run_line(line);
	cr_assert_eq(run.status, 0, "exit status %d (stderr: %s)", run.status, run.err);
	free_run(&run);
	read_saved_csv(out_file.s, 6, 2, 1, times, x);
	for (int r = 0; r < 6; r++) {
		cr_expect_eq(times[r], at[r], "time %d: %.17g", r, times[r]);
		for (int i = 0; i < 2; i++)
			cr_expect(fabs(x[r * 2 + i] - exp(-0.5 * at[r])) < 2e-13,
				  "t = %g, trajectory %d: x = %.17g, exact %.17g (error %.3g)", at[r],
				  i, x[r * 2 + i], exp(-0.5 * at[r]),
				  fabs(x[r * 2 + i] - exp(-0.5 * at[r])));
	}
}

/* A trajectory that fails has NaN, and its status, at every time its
 * failing window holds and later; before, its states. decay with lambda
 * -0.5 grows past --bound 10 in window 4 (t in (4, 5], windows of 1). */
Test(cli, save_at_failed)
{
	const struct path init_file = in_workdir("grow.csv"), out_file = in_workdir("grow-out.csv");
	const char *text = "x,lambda\n1,0.5\n1,-0.5\n";
	const char *expect[] = {"3.5,1,ok,", "4,1,ok,", "4.5,1,diverged,nan", "10,1,diverged,nan"};
	char line[512], row[256];
	struct cli_run run;
	char *csv;

	write_file(init_file.s, text, strlen(text));
	snprintf(line, sizeof(line), "decay --backend cpu --init %s --m 5 --h 0.25 --bound 10 "
		 "--save-at 3.5,4,4.5,10 --out %s", init_file.s, out_file.s);
	run = run_line(line);
	cr_expect_eq(run.status, 1, "exit status %d (stderr: %s)", run.status, run.err);
	cr_expect_not_null(strstr(run.err, "1 diverged in window 4"), "%s", run.err);
	free_run(&run);
	csv = slurp(out_file.s, NULL);
	cr_assert_eq(count_lines(csv), 1 + 4 * 2, "%s", csv);
	for (int r = 0; r < 4; r++) {
		nth_line(csv, 2 + 2 * r, row, sizeof(row));
		cr_expect_eq(strncmp(row, expect[r], strlen(expect[r])), 0, "row '%s', expected "
			     "'%s...'", row, expect[r]);
		cr_expect(r >= 2 || !strstr(row, "nan"), "row '%s'", row);
	}
	free(csv);
}

/* Each run's .npy (--out FILE or --out=FILE): final states, or (times,
 * trajectories, n) with times; its data read back equal, value for value,
 * to the CSV of the same run (which round-trips doubles), and lobatto's
 * oscillator rows equal to the rotation that solves it. */
Test(cli, out_npy)
{
	const struct {
		const char *args;
		const char *shape;
		long ntimes, ntraj;
		int n;
	} cases[] = {
		{"decay --backend cpu --traj 16", "(16, 1)", 0, 16, 1},
		/* DT 3 over [0, 10]: 0, 3, 6, 9, 10 */
		{"oscillator --backend cpu --traj 4 --m 5 --h 0.25 --t1 10 --save-every 3",
		 "(5, 4, 2)", 5, 4, 2},
		{"oscillator --backend cpu --traj 4 --spread 0 --precision double --scheme lobatto "
		 "--save-at 0.5,1.5,2.5", "(3, 4, 2)", 3, 4, 2},
	};
	const picard_model *osc = test_model("oscillator");
	const struct path npy_file = in_workdir("final.npy"), csv_file = in_workdir("final.csv");
	double npy[5 * 16 * 2], csv[5 * 16 * 2], times[5], exact[2];
	char line[512];
	struct cli_run run;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const long rows = cases[c].ntimes ? cases[c].ntimes : 1;
		const size_t values = (size_t)(rows * cases[c].ntraj * cases[c].n);

		snprintf(line, sizeof(line), "%s --out%s%s", cases[c].args, c == 1 ? "=" : " ",
			 npy_file.s);
		run = run_line(line);
		cr_assert_eq(run.status, 0, "'%s': exit status %d (stderr: %s)", line, run.status,
			     run.err);
		free_run(&run);
		read_npy(npy_file.s, cases[c].shape, values, npy);
		snprintf(line, sizeof(line), "%s --out %s", cases[c].args, csv_file.s);
		run = run_line(line);
		cr_assert_eq(run.status, 0, "'%s': exit status %d (stderr: %s)", line, run.status,
			     run.err);
		free_run(&run);
		if (cases[c].ntimes)
			read_saved_csv(csv_file.s, rows, cases[c].ntraj, cases[c].n, times, csv);
		else
			read_final_csv(csv_file.s, cases[c].ntraj, cases[c].n, csv);
		for (size_t v = 0; v < values; v++)
			cr_expect_eq(npy[v], csv[v], "'%s': value %zu: .npy %.17g, .csv %.17g",
				     cases[c].args, v, npy[v], csv[v]);
	}
	/* the last case: every row the exact rotation from the start (1, 0) */
	for (long r = 0; r < 3; r++) {
		osc->exact(times[r], 0, osc->x0, osc->param_defaults, exact);
		for (long i = 0; i < 4; i++)
			for (int k = 0; k < 2; k++)
				cr_expect(fabs(npy[(r * 4 + i) * 2 + k] - exact[k]) < 1e-10,
					  "t = %g, trajectory %ld, x%d: %.17g, exact %.17g", times[r], i,
					  k + 1, npy[(r * 4 + i) * 2 + k], exact[k]);
	}
}

/* An ensemble whose .npy spans many of the writer's blocks (8192 values),
 * rows of 3 split across their edges, and a status file of its 5000
 * trajectories: the data equal the CSV of the same run, value for value,
 * and every status row reads "traj,ok" in order. */
Test(cli, out_npy_across_write_blocks)
{
	const long ntraj = 5000, ntimes = 3;
	const size_t values = (size_t)(ntimes * ntraj * 3);
	const struct path npy_file = in_workdir("big.npy"), csv_file = in_workdir("big.csv");
	const struct path status_file = in_workdir("big.status.csv");
	double *npy = malloc(values * sizeof(double)), *csv = malloc(values * sizeof(double));
	double times[3];
	char line[512], row[64], expect[64];
	struct cli_run run;
	char *statuses;

	cr_assert(npy && csv);
	for (int c = 0; c < 2; c++) {
		snprintf(line, sizeof(line), "lorenz --backend cpu --traj %ld --t1 0.5 --save-at "
			 "0.1,0.3,0.5 --out %s", ntraj, c ? csv_file.s : npy_file.s);
		run = run_line(line);
		cr_assert_eq(run.status, 0, "'%s': exit status %d (stderr: %s)", line, run.status,
			     run.err);
		free_run(&run);
	}
	read_npy(npy_file.s, "(3, 5000, 3)", values, npy);
	read_saved_csv(csv_file.s, ntimes, ntraj, 3, times, csv);
	for (size_t v = 0; v < values; v++)
		cr_assert_eq(npy[v], csv[v], "value %zu: .npy %.17g, .csv %.17g", v, npy[v], csv[v]);
	statuses = slurp(status_file.s, NULL);
	cr_assert_eq(count_lines(statuses), 1 + ntraj, "%s", statuses);
	nth_line(statuses, 0, row, sizeof(row));
	cr_expect_str_eq(row, "traj,status");
	for (long i = 0; i < ntraj; i++) {
		nth_line(statuses, 1 + i, row, sizeof(row));
		snprintf(expect, sizeof(expect), "%ld,ok", i);
		cr_assert_str_eq(row, expect, "status row %ld", i + 1);
	}
	free(statuses);
	free(npy);
	free(csv);
}

/* A CSV of more rows than two formatting chunks (1 MiB of room: about
 * 5,000 lotka rows), each chunk shared among the threads: its values equal
 * the .npy's of the same run, row for row, in order. */
Test(cli, out_csv_across_chunks)
{
	const long ntraj = 12001;
	const size_t values = (size_t)ntraj * 2;
	const struct path npy_file = in_workdir("many.npy"), csv_file = in_workdir("many.csv");
	double *npy = malloc(values * sizeof(double)), *csv = malloc(values * sizeof(double));
	char line[256];
	struct cli_run run;

	cr_assert(npy && csv);
	for (int c = 0; c < 2; c++) {
		snprintf(line, sizeof(line), "lotka --backend cpu --traj %ld --t1 1 --out %s", ntraj,
			 c ? csv_file.s : npy_file.s);
		run = run_line(line);
		cr_assert_eq(run.status, 0, "'%s': exit status %d (stderr: %s)", line, run.status,
			     run.err);
		free_run(&run);
	}
	read_npy(npy_file.s, "(12001, 2)", values, npy);
	read_final_csv(csv_file.s, ntraj, 2, csv);
	for (size_t v = 0; v < values; v++)
		cr_assert_eq(npy[v], csv[v], "value %zu: .npy %.17g, .csv %.17g", v, npy[v], csv[v]);
	free(npy);
	free(csv);
}

/* ---- --init ------------------------------------------------------------------------- */

/* Run MODEL with --init FILE (written with text) and extra arguments. */
static struct cli_run run_init(const char *model, const char *name, const char *text,
			       const char *extra)
{
	const struct path path = in_workdir(name);
	char line[1024];

	write_file(path.s, text, strlen(text));
	snprintf(line, sizeof(line), "%s --backend cpu --init %s %s", model, path.s, extra);
	return run_line(line);
}

/* A malformed --init file: exit 2, the error names file and line. */
static void expect_init_error(const char *model, const char *text, const char *where)
{
	struct cli_run run = run_init(model, "init.csv", text, "");

	cr_expect_eq(run.status, 2, "exit status %d for:\n%s", run.status, text);
	cr_expect_eq(strncmp(run.err, "picard-run: ", 12), 0, "stderr: %s", run.err);
	cr_expect_not_null(strstr(run.err, where), "stderr '%s' lacks '%s'", run.err, where);
	cr_expect_str_empty(run.out);
	free_run(&run);
}

Test(cli, init_malformed)
{
	expect_init_error("decay", "# comment\n1\n0.5\n1 2 3\n", "init.csv:4: 3 columns");
	expect_init_error("decay", "1 0.5\n2\n", "init.csv:2: 1 column");
	expect_init_error("lotka", "50,30,1\n", "init.csv:1: 3 columns");
	expect_init_error("decay", "1\nnan\n", "init.csv:2: column 1: 'nan'");
	expect_init_error("decay", "1 0.5\n\n3 inf\n", "init.csv:3: column 2: 'inf'");
	expect_init_error("decay", "1\n2x\n", "init.csv:2: column 1: '2x'");
	expect_init_error("lotka", "50,,30\n", "init.csv:1: column 2 is empty");
	expect_init_error("decay", "x\n1\nlambda\n", "init.csv:3");  /* one header only */
	expect_init_error("decay", "", "init.csv: no trajectories");
	expect_init_error("decay", "# only a comment\n\n", "init.csv: no trajectories");
}

Test(cli, init_unreadable)
{
	struct cli_run run = run_line("decay --backend cpu --init /nonexistent-dir/x.csv");

	cr_expect_eq(run.status, 2);
	cr_expect_not_null(strstr(run.err, "/nonexistent-dir/x.csv"), "%s", run.err);
	free_run(&run);
}

/* States and parameters from a file: both are used. */
Test(cli, init_with_params)
{
	const char *text = "x,lambda\n1,0.5\n2 0.25  # a comment\n\n";
	const struct path out_file = in_workdir("init-out.csv");
	const char *out = out_file.s;
	const double expected[] = {decay_default_grid(0.5, 1), decay_default_grid(0.25, 2)};
	char extra[512], row[256];
	struct cli_run run;
	double x;
	char *csv;

	snprintf(extra, sizeof(extra), "--out %s", out);
	run = run_init("decay", "init.csv", text, extra);
	cr_expect_eq(run.status, 0, "exit status %d (stderr: %s)", run.status, run.err);
	cr_expect_not_null(strstr(run.out, "trajectories 2"), "%s", run.out);
	csv = slurp(out, NULL);
	cr_assert_eq(count_lines(csv), 3, "%s", csv);
	for (int i = 0; i < 2; i++) {
		nth_line(csv, i + 1, row, sizeof(row));
		cr_assert_eq(sscanf(row, "%*d,ok,%lf", &x), 1, "row '%s'", row);
		cr_expect(fabs(x / expected[i] - 1) < 1e-6, "row '%s': expected %.9g", row,
			  expected[i]);
	}
	free(csv);
	free_run(&run);

	/* --traj that disagrees with the file */
	run = run_init("decay", "init.csv", text, "--traj 5");
	cr_expect_eq(run.status, 2);
	cr_expect_not_null(strstr(run.err, "--traj 5"), "%s", run.err);
	free_run(&run);
	/* --spread has no meaning with --init */
	run = run_init("decay", "init.csv", text, "--spread 0.2");
	cr_expect_eq(run.status, 2);
	cr_expect_not_null(strstr(run.err, "--spread"), "%s", run.err);
	free_run(&run);
}

/* --spread-param: each trajectory's parameter reaches its solve (decay's
 * final states are exp(-lambda_i t1), lambda_i drawn here from cuRAND's
 * Philox as the ensemble is documented); kepler starts at the periapsis of its own e. */
Test(cli, spread_param)
{
	const picard_model *decay = picard_model_find("decay"), *kepler = picard_model_find("kepler");
	const struct path out_file = in_workdir("spread-param.csv");
	const double spreads[] = {0.5};
	double lambda[64], eccentricity[8], x;
	char line[512], row[256];
	struct cli_run run;
	char *csv;

	/* lambda_i = 0.5 (1 + 0.5 (2u - 1)), u from the seed + 1 = 2's
	 * sequence (the parameter's column, src/ensemble/ensemble.c), drawn here */
	documented_ensemble(1, decay->param_defaults, 64, spreads[0], 2, lambda);
	snprintf(line, sizeof(line), "decay --backend cpu --traj 64 --spread 0 "
		 "--spread-param lambda=0.5 --precision double --h 0.01 --K 6 --out %s", out_file.s);
	run = run_line(line);
	cr_assert_eq(run.status, 0, "exit status %d (stderr: %s)", run.status, run.err);
	csv = slurp(out_file.s, NULL);
	cr_assert_eq(count_lines(csv), 65, "%s", csv);
	for (int i = 0; i < 64; i++) {
		nth_line(csv, i + 1, row, sizeof(row));
		cr_assert_eq(sscanf(row, "%*d,ok,%lf", &x), 1, "row '%s'", row);
		cr_expect(fabs(x - exp(-lambda[i] * 10)) < 1e-6, "trajectory %d: x(10) = %.9g, "
			  "lambda %.6f gives %.9g", i, x, lambda[i], exp(-lambda[i] * 10));
	}
	cr_expect(lambda[0] != lambda[1], "lambda was not spread");
	free(csv);
	free_run(&run);

	/* e, kepler's parameter 1: from seed 1 + 1 + 1's sequence */
	documented_ensemble(1, &kepler->param_defaults[1], 8, 0.4, 3, eccentricity);
	snprintf(line, sizeof(line), "kepler --backend cpu --traj 8 --spread 0 --spread-param e=0.4 "
		 "--t1 1e-6 --h 1e-7 --precision double --out %s", out_file.s);
	run = run_line(line);
	cr_assert_eq(run.status, 0, "exit status %d (stderr: %s)", run.status, run.err);
	csv = slurp(out_file.s, NULL);
	for (int i = 0; i < 8; i++) {
		double e = eccentricity[i];

		nth_line(csv, i + 1, row, sizeof(row));
		cr_assert_eq(sscanf(row, "%*d,ok,%lf", &x), 1, "row '%s'", row);
		cr_expect(e >= 0.3 && e <= 0.7, "e = %g outside 0.5 (1 +- 0.4)", e);
		cr_expect(fabs(x - (1 - e)) < 1e-6, "trajectory %d: q1 = %.9g, periapsis of e = %g "
			  "is %.9g", i, x, e, 1 - e);
	}
	free(csv);
	free_run(&run);
}

/* --describe prints the model file's header comment and its list entry. */
Test(cli, describe)
{
	struct cli_run run = run_line("kepler --describe");

	cr_expect_eq(run.status, 0, "exit status %d (stderr: %s)", run.status, run.err);
	cr_expect_str_empty(run.err);
	cr_expect(strncmp(run.out, "kepler.cu - the planar two-body problem", 39) == 0, "%s", run.out);
	cr_expect_not_null(strstr(run.out, "q'' = -mu q / |q|^3"), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "invariants  energy, angular_momentum"), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "parameters  mu=1 e=0.5"), "%s", run.out);
	free_run(&run);
	run = run_line("--describe");
	cr_expect_eq(run.status, 2, "--describe without MODEL: exit status %d", run.status);
	free_run(&run);
}

Test(cli, init_binary)
{
	const struct path path_file = in_workdir("init.bin");
	const char *path = path_file.s;
	const double states[3] = {1, 2, 3};
	char line[512];
	struct cli_run run;

	write_file(path, states, sizeof(states)); /* little-endian host */
	snprintf(line, sizeof(line), "decay --backend cpu --init %s", path);
	run = run_line(line);
	cr_expect_eq(run.status, 0, "exit status %d (stderr: %s)", run.status, run.err);
	cr_expect_not_null(strstr(run.out, "trajectories 3"), "%s", run.out);
	free_run(&run);

	/* 24 bytes are not whole states of lotka (16 bytes each) */
	snprintf(line, sizeof(line), "lotka --backend cpu --init %s", path);
	run = run_line(line);
	cr_expect_eq(run.status, 2);
	cr_expect_not_null(strstr(run.err, "init.bin: 24 bytes"), "%s", run.err);
	free_run(&run);
}

/* ---- a model file given by its path --------------------------------------------- */

/* models/lotka.cu copied under the work directory as lotka.cu, and what
 * picard-run makes of the copy and of the registered model. */
Test(cli, model_file_by_path_runs_and_checks)
{
	struct path copy = in_workdir("lotka.cu");
	char line[512], *text;
	struct cli_run by_path, by_name;
	size_t size = 0;

	text = slurp("models/lotka.cu", &size);
	cr_assert_gt(size, 0);
	write_file(copy.s, text, size);
	free(text);
	snprintf(line, sizeof(line), "%s --backend cpu --traj 16 --check --out %s", copy.s,
		 in_workdir("by-path.csv").s);
	by_path = run_line(line);
	cr_assert_eq(by_path.status, 0, "%s%s", by_path.out, by_path.err);
	/* the default grid comes within about 1% of the reference (picard.h's
	 * default_h); measured rel 3.7e-3 */
	expect_check_within(by_path.out, 0.5, 1e-2);
	snprintf(line, sizeof(line), "lotka --backend cpu --traj 16 --check --out %s",
		 in_workdir("by-name.csv").s);
	by_name = run_line(line);
	cr_assert_eq(by_name.status, 0, "%s", by_name.err);
	text = slurp(in_workdir("by-path.csv").s, &size);
	{
		char *other = slurp(in_workdir("by-name.csv").s, NULL);

		cr_expect_gt(size, 0);
		cr_expect_str_eq(text, other, "the file's results differ from the registered model's");
		free(other);
	}
	free(text);
	free_run(&by_path);
	free_run(&by_name);
	/* --describe: the file's header comment, as for a registered model */
	snprintf(line, sizeof(line), "%s --describe", copy.s);
	by_path = run_line(line);
	cr_expect_eq(by_path.status, 0, "%s", by_path.err);
	cr_expect(strstr(by_path.out, "lotka.cu - the modified Lotka-Volterra model"), "%s",
		  by_path.out);
	free_run(&by_path);
}

Test(cli, model_file_that_does_not_compile_names_file_and_line)
{
	struct path bad = in_workdir("lotka.cu");
	char line[512], where[160];
	const char *text = "#include \"picard_model.cuh\"\nstruct lotka { static constexpr int dim = 2 }\n"
			   "PICARD_REGISTER_MODEL(lotka)\n";
	struct cli_run run;

	write_file(bad.s, text, strlen(text));
	snprintf(line, sizeof(line), "%s --backend cpu --out %s", bad.s, in_workdir("no.csv").s);
	run = run_line(line);
	cr_expect_eq(run.status, 2, "%s", run.err);
	snprintf(where, sizeof(where), "%s:2:", bad.s);
	cr_expect(strstr(run.err, where), "no '%s' in: %s", where, run.err);
	cr_expect(strstr(run.err, "MODEL"), "%s", run.err);
	cr_expect_eq(access(in_workdir("no.csv").s, F_OK), -1, "a partial output file");
	free_run(&run);
}

/* A member the contract does not know (a misspelt optional one) is a
 * warning naming it, and the file still runs. */
Test(cli, model_file_unknown_member_warns)
{
	struct path copy = in_workdir("decay.cu");
	char line[512], *text, *misspelt;
	struct cli_run run;
	size_t size = 0;

	text = slurp("models/decay.cu", &size);
	cr_assert_gt(size, 0);
	misspelt = malloc(size + 64);
	cr_assert_not_null(misspelt);
	/* after the struct's opening line: a member named like default_h */
	{
		const char *brace = strstr(text, "struct decay {");
		size_t head;

		cr_assert_not_null(brace);
		head = (size_t)(strchr(brace, '\n') + 1 - text);
		memcpy(misspelt, text, head);
		size = head + (size_t)sprintf(misspelt + head, "\tstatic constexpr double defualt_h = 0.01;\n%s",
					      text + head);
	}
	write_file(copy.s, misspelt, size);
	free(text);
	free(misspelt);
	snprintf(line, sizeof(line), "%s --backend cpu --traj 4", copy.s);
	run = run_line(line);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect(strstr(run.err, "warning: member 'defualt_h' is not part of the model contract"),
		  "%s", run.err);
	free_run(&run);
}

/* Issue 34 (2): robertson under the newton scheme had come back ok with
 * x1 = -34 (the truth is 0.018) and exit 0, --check agreeing. Now the
 * member is implausible, named with its window, its rows past it NaN, and
 * the exit is 1. */
Test(cli, newton_ghost_of_a_stiff_model_is_not_ok)
{
	const struct path out = in_workdir("rob.csv");
	char line[512], *csv;
	struct cli_run run;

	snprintf(line, sizeof(line), "robertson --scheme newton --backend cpu --traj 1 --spread 0 "
		 "--check --out %s", out.s);
	run = run_line(line);
	cr_expect_eq(run.status, 1, "%s%s", run.out, run.err);
	cr_expect_not_null(strstr(run.err, "0 implausible in window 1, between t=500 and 1000"), "%s",
			   run.err);
	csv = slurp(out.s, NULL);
	cr_expect_not_null(strstr(csv, "\n0,implausible,nan,nan,nan,"), "%s", csv);
	free(csv);
	free_run(&run);
}

/* --verbose says where the run's time went: phases that add up to the
 * total (each under 0.5 ms left out, each rounded to 3 digits); without
 * it, no such line. */
Test(cli, verbose_phases_add_up_to_the_total)
{
	struct cli_run run = run_line("lotka --traj 20000 --backend cpu --t1 5 --verbose");
	const char *line = strstr(run.out, "\nphases "), *total = strstr(run.out, "\ntotal ");
	double sum = 0, whole = 0;
	int count = 0;

	cr_assert_eq(run.status, 0, "%s%s", run.out, run.err);
	cr_assert_not_null(line, "no phases line:\n%s", run.out);
	cr_assert_not_null(total, "no total line:\n%s", run.out);
	cr_expect_not_null(strstr(line, " set-up "), "%s", run.out);
	cr_expect_not_null(strstr(line, " solve+copies "), "%s", run.out);
	for (const char *p = line + 8; *p && *p != '\n';) {
		char name[32], unit[4];
		double value;
		int used = 0;

		if (sscanf(p, " %31[^ ] %lf %3[ms]%n", name, &value, unit, &used) != 3 || !used)
			break;
		sum += strcmp(unit, "ms") ? value : value * 1e-3;
		count++;
		p += used;
		p += *p == ',';
	}
	char unit[4] = "";
	cr_assert_eq(sscanf(total, "\ntotal %lf %3s", &whole, unit), 2, "%s", run.out);
	whole *= strcmp(unit, "ms") ? 1 : 1e-3;
	cr_expect_geq(count, 2, "%s", run.out);
	cr_expect_leq(fabs(sum - whole), 0.02 * whole + 0.005, "phases %g s, total %g s:\n%s", sum,
		      whole, run.out);
	free_run(&run);

	run = run_line("lotka --traj 20000 --backend cpu --t1 5");
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect_null(strstr(run.out, "phases"), "phases without --verbose:\n%s", run.out);
	free_run(&run);
}
