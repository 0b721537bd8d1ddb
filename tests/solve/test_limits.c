/* test_limits.c - no run without bound (issue 34, item 6): a grid whose
 * work is over the limit, and a tolerance below what the precision
 * reaches, are refused before any work with a message naming the flag; an
 * adaptive trajectory that takes too many steps ends max-steps naming
 * --max-steps; a run killed by SIGTERM or SIGINT leaves no temporary
 * output file. Every program run here is bounded by `timeout -s KILL`, so
 * a run that does not stop (the old behaviour) fails the test in seconds
 * instead of hanging the suite. CPU backend only. */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <dirent.h>
#include <float.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "picard.h"
#include "support.h"

extern char **environ;

/* A refusal must come well within this (it does no work); the old
 * behaviour ran for minutes to hours. */
#define QUICK_SECONDS "20"
#define MAX_ARGS 32

static void make_limits_workdir(void)
{
	make_workdir("limits", NULL);
}

TestSuite(limits, .init = make_limits_workdir, .fini = remove_workdir, .timeout = 120);

/* ---- helpers ------------------------------------------------------------- */

/* Run program name with the blank-separated line under `timeout -s KILL
 * QUICK_SECONDS`: a run killed by it has status 137 (or -1). */
static struct cli_run run_quick(const char *name, const char *line)
{
	char copy[1024], *args[MAX_ARGS + 5], *save = NULL;
	int argc = 0;

	snprintf(copy, sizeof(copy), "%s", line);
	args[argc++] = "timeout";
	args[argc++] = "-s";
	args[argc++] = "KILL";
	args[argc++] = QUICK_SECONDS;
	args[argc++] = (char *)program(name);
	for (char *tok = strtok_r(copy, " ", &save); tok && argc < MAX_ARGS;
	     tok = strtok_r(NULL, " ", &save))
		args[argc++] = tok;
	args[argc] = NULL;
	return run_argv(args);
}

/* A refusal before any work: exit 2 in time, stderr naming each needle
 * (NULL-terminated), and picard-run's stdout empty (picard-tune's says
 * what it was asked to search first). */
static struct cli_run expect_refused(const char *name, const char *line,
				     const char *const *needles)
{
	struct cli_run run = run_quick(name, line);

	/* timeout's KILL: status 137, or -1 when it ended timeout too */
	cr_expect(run.status != 137 && run.status != -1, "'%s %s' ran past %s s: not refused",
		  name, line, QUICK_SECONDS);
	cr_expect_eq(run.status, 2, "'%s %s': exit status %d (stderr: %s)", name, line, run.status,
		     run.err);
	if (strcmp(name, "picard-run") == 0)
		cr_expect_str_empty(run.out, "'%s %s': stdout %s", name, line, run.out);
	for (int i = 0; needles[i]; i++)
		cr_expect_not_null(strstr(run.err, needles[i]), "'%s %s': '%s' not in: %s", name,
				   line, needles[i], run.err);
	return run;
}

/* The number after label in text (NAN if absent). */
static double number_after(const char *text, const char *label)
{
	const char *at = strstr(text, label);

	return at ? strtod(at + strlen(label), NULL) : NAN;
}

/* ---- work limits ------------------------------------------------------------ */

/* A grid's work is windows x K x right-hand sides per sweep x n per
 * trajectory; over 1e8 it is refused, naming the limit and --max-work.
 * The work stated is checked against the grid computed here: lotka over
 * [0, 100] at m = 8, h = 0.06 has ceil(100 / 0.42) = 239 windows. */
Test(limits, fixed_grid_work_refused)
{
	const char *const needles[] = {"too much work", "--max-work 1e+08", NULL};
	struct cli_run run;

	run = expect_refused("picard-run", "lotka --backend cpu --K 100000", needles);
	cr_expect_float_eq(number_after(run.err, "right-hand sides x dim 2 = "),
			   239.0 * 100000 * 8 * 2, 1e-2 * 239.0 * 100000 * 8 * 2, "%s", run.err);
	cr_expect_not_null(strstr(run.err, "239 windows x K 100000 x 8 right-hand sides"), "%s",
			   run.err);
	free_run(&run);
	/* 1.4e8 windows */
	run = expect_refused("picard-run", "lotka --backend cpu --h 1e-7", needles);
	cr_expect_not_null(strstr(run.err, "hint: a larger --h"), "%s", run.err);
	free_run(&run);
	/* lobatto: 1e11 windows of 40 sweeps at most */
	run = expect_refused("picard-run", "lotka --backend cpu --scheme lobatto --window 1e-9",
			     needles);
	cr_expect_not_null(strstr(run.err, "x K_max 40 x 8"), "%s", run.err);
	cr_expect_not_null(strstr(run.err, "hint: a larger --window"), "%s", run.err);
	free_run(&run);
	/* fixed steps of a per-thread pair: 1e5 output intervals of 1e6
	 * dp5 steps (6 stages) */
	run = expect_refused("picard-run", "lotka --backend cpu --scheme dp5 --h 1e-3 "
			     "--steps 1000000", needles);
	cr_expect_float_eq(number_after(run.err, "right-hand sides x dim 2 = "),
			   1e5 * 1e6 * 6 * 2, 1e-2 * 1e5 * 1e6 * 12, "%s", run.err);
	free_run(&run);
	/* newton: iterations per window */
	run = expect_refused("picard-run", "decay --backend cpu --scheme newton --window 1e-8",
			     needles);
	free_run(&run);
}

/* The limit is the flag's: decay at K = 600000 is 24 windows x 600000 x 8
 * = 1.15e8 evaluations, refused at the default and solved under
 * --max-work 2e8, with the exact answer exp(-lambda t) (a converged
 * trapezoid's error at h = 0.06, below 1e-3). */
Test(limits, max_work_flag_raises_the_limit)
{
	const char *const needles[] = {"--max-work 1e+08", "1.15e+08", NULL};
	struct cli_run run;

	run = expect_refused("picard-run", "decay --backend cpu --traj 1 --spread 0 --K 600000 "
			     "--precision double", needles);
	free_run(&run);
	run = run_quick("picard-run", "decay --backend cpu --traj 1 --spread 0 --K 600000 "
			"--precision double --max-work 2e8 --check");
	cr_assert_eq(run.status, 0, "exit status %d (stderr: %s)", run.status, run.err);
	cr_expect_lt(number_after(run.out, "check        E = "), 1e-3, "%s", run.out);
	free_run(&run);
	expect_refused("picard-run", "decay --max-work 0", (const char *const[]){"--max-work", NULL});
}

/* The library: PICARD_EWORK from picard_solver_create, the detail naming
 * max_work; HUGE_VAL lifts the limit; the default is PICARD_MAX_WORK_DEFAULT. */
Test(limits, solver_refuses_too_much_work)
{
	const picard_model *lotka = test_model("lotka");
	picard_options opt = {.K = 100000, .backend = PICARD_BACKEND_CPU};
	picard_solver *solver = NULL;
	int err;

	err = picard_solver_create(&solver, lotka, &opt, 1);
	cr_expect_eq(err, PICARD_EWORK, "err %d (%s)", err, picard_error_detail());
	cr_expect_null(solver);
	cr_expect_not_null(strstr(picard_error_detail(), "max_work = 1e+08"), "%s",
			   picard_error_detail());
	opt.max_work = 4e8; /* 239 x 1e5 x 8 x 2 = 3.82e8 */
	err = picard_solver_create(&solver, lotka, &opt, 1);
	cr_expect_eq(err, 0, "%s", picard_error_detail());
	picard_solver_free(solver);
	solver = NULL;
	opt.max_work = 3.8e8;
	cr_expect_eq(picard_solver_create(&solver, lotka, &opt, 1), PICARD_EWORK);
	opt.max_work = -1;
	cr_expect_eq(picard_solver_create(&solver, lotka, &opt, 1), PICARD_EINVAL);
	/* an adaptive pair is limited per trajectory by its steps instead */
	opt = (picard_options){.scheme = PICARD_SCHEME_DP5, .K_max = 1000000, .max_work = 1,
			       .backend = PICARD_BACKEND_CPU};
	err = picard_solver_create(&solver, lotka, &opt, 1);
	cr_expect_eq(err, 0, "%s", picard_error_detail());
	picard_solver_free(solver);
}

/* Adaptive steps past --max-steps: each member ends max-steps, and the
 * hint names --max-steps and its value (not --K-max). dp5 on lotka at
 * rtol 1e-10 takes thousands of steps; 50 are allowed. */
Test(limits, adaptive_steps_end_max_steps)
{
	const struct path out = in_workdir("x.csv");
	char line[256], *csv;
	struct cli_run run;

	snprintf(line, sizeof(line), "lotka --backend cpu --traj 3 --scheme dp5 --precision double "
		 "--iter-rtol 1e-10 --max-steps 50 --out %s", out.s);
	run = run_quick("picard-run", line);
	cr_expect_eq(run.status, 1, "exit status %d (stderr: %s)", run.status, run.err);
	cr_expect_not_null(strstr(run.err, "3 of 3 trajectories failed"), "%s", run.err);
	cr_expect_not_null(strstr(run.err, "max-steps"), "%s", run.err);
	cr_expect_not_null(strstr(run.err, "--max-steps 50"), "%s", run.err);
	cr_expect_null(strstr(run.err, "--K-max"), "%s", run.err);
	free_run(&run);
	csv = slurp(out.s, NULL);
	for (int i = 0; i < 3; i++) {
		char row[32];

		snprintf(row, sizeof(row), "\n%d,max-steps,", i);
		cr_expect_not_null(strstr(csv, row), "member %d: %s", i, csv);
	}
	free(csv);
}

/* ---- tolerance floors ---------------------------------------------------------- */

/* The floors from the unit roundoff: 2 eps for iterations, and at least
 * 100 u of double for errors against the reference. */
Test(limits, floors_from_the_unit_roundoff)
{
	const double u_float = ldexp(1, -24), u_double = ldexp(1, -53);
	const double lotka_x0[2] = {50, 30};
	picard_tolerance tol = {.atol = 1e-13};

	cr_expect_float_eq(picard_iteration_floor(PICARD_FLOAT), 4 * u_float, 1e-22);
	cr_expect_float_eq(picard_iteration_floor(PICARD_DOUBLE), 4 * u_double, 1e-30);
	cr_expect_float_eq(picard_tolerance_floor(PICARD_FLOAT), 4 * u_float, 1e-22);
	cr_expect_float_eq(picard_tolerance_floor(PICARD_DOUBLE), 100 * u_double, 1e-28);
	/* 1e-13 absolute at |x| = 50 is 2e-15 relative, below 1.1e-14 */
	cr_expect_eq(picard_tolerance_check(&tol, PICARD_DOUBLE, lotka_x0, 2), PICARD_EACCURACY);
	cr_expect_not_null(strstr(picard_error_detail(), "1.1e-14"), "%s", picard_error_detail());
	tol.atol = 6e-13; /* above 50 x 1.11e-14 = 5.55e-13 */
	cr_expect_eq(picard_tolerance_check(&tol, PICARD_DOUBLE, lotka_x0, 2), 0);
	cr_expect_eq(picard_tolerance_check(&tol, PICARD_FLOAT, lotka_x0, 2), PICARD_EACCURACY);
	tol = (picard_tolerance){.rtol = 1e-14};
	cr_expect_eq(picard_tolerance_check(&tol, PICARD_DOUBLE, lotka_x0, 2), PICARD_EACCURACY);
	tol.rtol = 2e-14;
	cr_expect_eq(picard_tolerance_check(&tol, PICARD_DOUBLE, NULL, 0), 0);
}

/* Below the floor, refused before any work with the flag and the floor
 * named; at the tightest tolerance that converges, accepted. */
Test(limits, tolerance_below_floor_refused)
{
	struct cli_run run;

	/* every member not-converged, cause unnamed, before */
	run = expect_refused("picard-run", "lotka --backend cpu --iter-rtol 1e-30",
			     (const char *const[]){"--iter-rtol 1e-30", "2.4e-07", NULL});
	free_run(&run);
	run = expect_refused("picard-run", "lotka --backend cpu --scheme lobatto --iter-rtol 1e-7",
			     (const char *const[]){"--iter-rtol 1e-07", "2.4e-07", NULL});
	free_run(&run);
	/* 82,100 dp5 steps, silently, before */
	run = expect_refused("picard-run", "lotka --backend cpu --scheme dp5 --precision double "
			     "--iter-rtol 1e-20", (const char *const[]){"--iter-rtol 1e-20",
			     "4.4e-16", NULL});
	free_run(&run);
	run = expect_refused("picard-run", "decay --backend cpu --precision double --traj 4 "
			     "--tol 1e-20", (const char *const[]){"--tol 1e-20", "1.1e-14", NULL});
	free_run(&run);
	run = expect_refused("picard-run", "decay --backend cpu --traj 4 --rtol 1e-9 "
			     "--precision float",
			     (const char *const[]){"picard-run: --rtol 1e-09: ", "2.4e-07", NULL});
	free_run(&run);
	/* still searching after 60 s, before */
	run = expect_refused("picard-tune", "decay --backend cpu --precision double --tol 1e-20",
			     (const char *const[]){"picard-tune: --tol 1e-20", "1.1e-14", NULL});
	free_run(&run);
	/* the floor is not above what converges: lobatto in double at 1e-15 */
	run = run_quick("picard-run", "decay --backend cpu --traj 2 --scheme lobatto "
			"--precision double --iter-rtol 1e-15 --check");
	cr_expect_eq(run.status, 0, "exit status %d (stderr: %s)", run.status, run.err);
	cr_expect_lt(number_after(run.out, "check        E = "), 1e-12, "%s", run.out);
	free_run(&run);
}

/* The library refuses alike: picard_solver_create with iter_rtol below
 * 2 eps, picard_tune below the tolerance floor, before any point. */
Test(limits, library_refuses_unreachable_tolerances)
{
	const picard_model *decay = test_model("decay");
	picard_options opt = {.scheme = PICARD_SCHEME_DP5, .iter_rtol = 1e-20,
			      .precision = PICARD_DOUBLE, .backend = PICARD_BACKEND_CPU};
	picard_tune_options tune = {.tol = 1e-20, .precision = PICARD_DOUBLE,
				    .backend = PICARD_BACKEND_CPU, .ntraj = 8, .sample = 8};
	picard_tune_result result;
	picard_solver *solver = NULL;

	cr_expect_eq(picard_solver_create(&solver, decay, &opt, 1), PICARD_EACCURACY);
	cr_expect_not_null(strstr(picard_error_detail(), "iter_rtol 1e-20"), "%s",
			   picard_error_detail());
	opt.iter_rtol = 1e-15;
	cr_expect_eq(picard_solver_create(&solver, decay, &opt, 1), 0, "%s", picard_error_detail());
	picard_solver_free(solver);
	cr_expect_eq(picard_tune(decay, &tune, &result), PICARD_EACCURACY, "%s",
		     picard_error_detail());
	cr_expect_eq(result.points, 0);
}

/* ---- signals ------------------------------------------------------------------ */

/* Whether the work directory holds a file whose name starts with prefix. */
static bool has_file_starting(const char *prefix)
{
	DIR *dir = opendir(workdir);
	struct dirent *entry;
	bool found = false;

	cr_assert_not_null(dir, "%s", workdir);
	while (!found && (entry = readdir(dir)))
		found = strncmp(entry->d_name, prefix, strlen(prefix)) == 0;
	closedir(dir);
	return found;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* Start a long run writing x.csv, wait for its temporary file x.csv.XXXXXX,
 * send signo mid-solve: the process ends by that signal, and neither x.csv
 * nor its temporary is left. The run would take minutes (8192 members of
 * 239 windows x 2000 sweeps); it is killed after 30 s whatever happens. */
static void expect_signal_cleans_up(int signo)
{
	const struct path out = in_workdir("x.csv");
	char *argv[] = {(char *)program("picard-run"), "lotka", "--backend", "cpu", "--K", "2000",
			"--out", (char *)out.s, NULL};
	int wstatus = 0, waited = 0;
	bool appeared = false;
	posix_spawnattr_t attr;
	sigset_t defaults;
	pid_t pid;

	/* the signal's default action in the child, even where this process
	 * was started ignoring it (a background job ignores SIGINT) */
	sigemptyset(&defaults);
	sigaddset(&defaults, signo);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigdefault(&attr, &defaults);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
	cr_assert_eq(posix_spawn(&pid, argv[0], NULL, &attr, argv, environ), 0);
	posix_spawnattr_destroy(&attr);
	for (int i = 0; i < 300 && !appeared; i++) {
		sleep_ms(100);
		appeared = has_file_starting("x.csv.");
	}
	if (appeared) {
		sleep_ms(300); /* into the solve */
		kill(pid, signo);
		for (int i = 0; i < 300 && !waited; i++) {
			waited = waitpid(pid, &wstatus, WNOHANG) == pid;
			if (!waited)
				sleep_ms(100);
		}
	}
	if (!waited) {
		kill(pid, SIGKILL);
		waitpid(pid, &wstatus, 0);
	}
	cr_assert(appeared, "no temporary x.csv.XXXXXX appeared within 30 s");
	cr_assert(waited, "picard-run did not end within 30 s of signal %d", signo);
	cr_expect(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == signo,
		  "not ended by signal %d (status %#x)", signo, wstatus);
	cr_expect(!has_file_starting("x.csv"), "a file x.csv* was left behind in %s", workdir);
}

Test(limits, sigterm_leaves_no_partial_output)
{
	expect_signal_cleans_up(SIGTERM);
}

Test(limits, sigint_leaves_no_partial_output)
{
	expect_signal_cleans_up(SIGINT);
}
