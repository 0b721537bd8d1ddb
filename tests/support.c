/* support.c - see support.h. */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <fcntl.h>
#include <ftw.h>
#include <gsl/gsl_linalg.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cache_dir.h"
#include "model_impl.h"
#include "scheme.h"
#include "support.h"

#define MAX_ARGS 32

extern char **environ;

char workdir[64];

void make_workdir(const char *prefix, const char *cache_subdir)
{
	char cache[128], compiled[4096];

	/* the tuning cache is the test's own; compiled kernels and models,
	 * named by content, are shared with every other run */
	if (!getenv("PICARD_JIT_CACHE_DIR") && picard_jit_cache_dir(compiled, sizeof(compiled)) == 0)
		setenv("PICARD_JIT_CACHE_DIR", compiled, 1);
	snprintf(workdir, sizeof(workdir), "/tmp/picard-%s-XXXXXX", prefix);
	cr_assert_not_null(mkdtemp(workdir), "mkdtemp failed");
	if (cache_subdir)
		snprintf(cache, sizeof(cache), "%s/%s", workdir, cache_subdir);
	else
		snprintf(cache, sizeof(cache), "%s", workdir);
	setenv("PICARD_CACHE_DIR", cache, 1);
}

static int remove_entry(const char *path, const struct stat *st, int flag,
			struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void remove_tree(const char *path)
{
	nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void remove_workdir(void)
{
	if (workdir[0])
		remove_tree(workdir);
}

struct path in_workdir(const char *name)
{
	struct path path;

	snprintf(path.s, sizeof(path.s), "%s/%s", workdir, name);
	return path;
}

char *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	char *text;
	long len;

	if (size)
		*size = 0;
	if (!f)
		return strdup("");
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	text = calloc(1, len + 1);
	cr_assert_not_null(text);
	len = (long)fread(text, 1, len, f);
	fclose(f);
	if (size)
		*size = (size_t)len;
	return text;
}

void expect_same_file(const char *a, const char *b)
{
	size_t na = 0, nb = 0;
	char *x = slurp(a, &na), *y = slurp(b, &nb);

	cr_assert_gt(na, 0, "%s is empty or missing", a);
	cr_expect(na == nb && memcmp(x, y, na) == 0, "%s (%zu bytes) and %s (%zu bytes) differ",
		  a, na, b, nb);
	free(x);
	free(y);
}

void write_file(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");

	cr_assert_not_null(f, "cannot create %s", path);
	cr_assert_eq(fwrite(data, 1, size, f), size);
	fclose(f);
}

const char *program(const char *name)
{
	static char path[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", path, sizeof(path) - 32);

	cr_assert(len > 0, "cannot read /proc/self/exe");
	path[len] = '\0';
	strcpy(strrchr(path, '/') + 1, name);
	if (access(path, X_OK) != 0)
		cr_assert_fail("%s not found beside the test binary: %s", name, path);
	return path;
}

/* argv of program name and args (NULL-terminated) into argv. */
static void program_argv(const char *name, const char *const *args, char **argv)
{
	int argc = 0;

	argv[argc++] = (char *)program(name);
	while (*args && argc <= MAX_ARGS)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
}

/* The blank-separated words of line (cut in copy) into args, NULL-ended. */
static void split_line(const char *line, char *copy, size_t len, char **args)
{
	char *save = NULL;
	int argc = 0;

	snprintf(copy, len, "%s", line);
	for (char *tok = strtok_r(copy, " ", &save); tok && argc < MAX_ARGS;
	     tok = strtok_r(NULL, " ", &save))
		args[argc++] = tok;
	args[argc] = NULL;
}

struct cli_run run_program(const char *name, const char *const *args)
{
	char *argv[MAX_ARGS + 2];

	program_argv(name, args, argv);
	return run_argv(argv);
}

struct cli_started start_argv(char *const *argv, const char *tag)
{
	posix_spawn_file_actions_t actions;
	struct cli_started started;
	char name[64];

	snprintf(name, sizeof(name), ".stdout%s", tag);
	started.out = in_workdir(name);
	snprintf(name, sizeof(name), ".stderr%s", tag);
	started.err = in_workdir(name);
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&actions, 1, started.out.s, O_WRONLY | O_CREAT | O_TRUNC,
					 0644);
	posix_spawn_file_actions_addopen(&actions, 2, started.err.s, O_WRONLY | O_CREAT | O_TRUNC,
					 0644);
	cr_assert_eq(posix_spawnp(&started.pid, argv[0], &actions, NULL, argv, environ), 0,
		     "cannot start %s", argv[0]);
	posix_spawn_file_actions_destroy(&actions);
	return started;
}

struct cli_run finish_run(const struct cli_started *started)
{
	struct cli_run run;
	int wstatus;

	cr_assert_eq(waitpid(started->pid, &wstatus, 0), started->pid);
	run.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
	run.out = slurp(started->out.s, NULL);
	run.err = slurp(started->err.s, NULL);
	unlink(started->out.s);
	unlink(started->err.s);
	return run;
}

struct cli_run run_argv(char *const *argv)
{
	const struct cli_started started = start_argv(argv, "");

	return finish_run(&started);
}

struct cli_started start_program_line(const char *name, const char *line, const char *tag)
{
	char copy[1024], *args[MAX_ARGS + 1], *argv[MAX_ARGS + 2];

	split_line(line, copy, sizeof(copy), args);
	program_argv(name, (const char *const *)args, argv);
	return start_argv(argv, tag);
}

struct cli_run run_program_line(const char *name, const char *line)
{
	char copy[1024], *args[MAX_ARGS + 1];

	split_line(line, copy, sizeof(copy), args);
	return run_program(name, (const char *const *)args);
}

void free_run(struct cli_run *run)
{
	free(run->out);
	free(run->err);
}

/* ---- models ---------------------------------------------------------- */

const picard_model *test_model(const char *name)
{
	const picard_model *model = picard_model_find(name);

	cr_assert_not_null(model, "model %s is not registered", name);
	return model;
}

picard_solver *test_solver(const picard_model *model, const picard_options *opt, long ntraj)
{
	picard_solver *solver = NULL;
	int err = picard_solver_create(&solver, model, opt, ntraj);

	cr_assert_eq(err, 0, "%s: solver refused: %s (%s)", model->name, picard_strerror(err),
		     picard_error_detail());
	return solver;
}

double *default_states(const picard_model *model, long ntraj)
{
	double *x0 = malloc(ntraj * model->dim * sizeof(double));

	cr_assert_not_null(x0);
	for (long i = 0; i < ntraj * model->dim; i++)
		x0[i] = model->x0[i % model->dim];
	return x0;
}

int per_thread_schemes(enum per_thread_kind kind, picard_scheme *ids)
{
	int count = 0;

	for (int i = 0; picard_scheme_list[i]; i++) {
		const picard_scheme_type *type = picard_scheme_list[i];

		if (!type->tableau || (kind == PER_THREAD_EXPLICIT && type->solves_stiff) ||
		    (kind == PER_THREAD_STIFF && !type->solves_stiff))
			continue;
		cr_assert_lt(count, PER_THREAD_MAX, "more per-thread schemes than PER_THREAD_MAX");
		ids[count++] = type->id;
	}
	cr_assert_gt(count, 0, "no per-thread scheme of kind %d", (int)kind);
	return count;
}

bool per_thread_rosenbrock(picard_scheme id)
{
	const picard_scheme_type *type = picard_scheme_of(id);

	return type && type->tableau && !strncmp(type->tableau, "rosenbrock_", 11);
}

double per_thread_error_scale(picard_scheme id, double tol)
{
	return id == PICARD_SCHEME_ROS23 ? pow(tol, 2.0 / 3) : tol;
}

void require_gpu(void)
{
	const char *required = getenv("PICARD_REQUIRE_GPU");

	if (picard_cuda_available())
		return;
	if (required && strcmp(required, "1") == 0)
		cr_assert_fail("PICARD_REQUIRE_GPU=1 but no usable CUDA device "
			       "(no GPU, no driver, or a driver/runtime mismatch)");
	cr_skip_test("no CUDA device");
}

void jacobian_against_ad(const picard_model *model, const double *params, const double *x,
			 double *row, double *entry)
{
	const int n = model->dim;
	double *ja = malloc(2 * (size_t)n * n * sizeof(double)), *jd = ja + (size_t)n * n;

	cr_assert_not_null(ja);
	model->impl->jacobian[0](0, x, params, ja);
	model->impl->jacobian[1](0, x, params, jd);
	for (int r = 0; r < n; r++) {
		double scale = 0;

		for (int k = 0; k < n; k++)
			scale = fmax(scale, fabs(jd[r * n + k]));
		for (int k = 0; k < n; k++) {
			const double d = fabs(ja[r * n + k] - jd[r * n + k]);

			cr_assert(isfinite(ja[r * n + k]), "%s: J[%d][%d] = %g at x[0] = %g",
				  model->name, r, k, ja[r * n + k], x[0]);
			if (scale > 0)
				*row = fmax(*row, d / scale);
			if (scale > 0 && fabs(jd[r * n + k]) >= 1e-4 * scale)
				*entry = fmax(*entry, d / fabs(jd[r * n + k]));
		}
	}
	free(ja);
}

double max_relative_error(int n, const double *x, const double *ref)
{
	double worst = 0;

	for (int k = 0; k < n; k++)
		worst = fmax(worst, fabs(x[k] - ref[k]) / fabs(ref[k]));
	return worst;
}

void test_lu_solve(int n, double *dense, const double *b, double *x)
{
	gsl_matrix_view a = gsl_matrix_view_array(dense, n, n);
	gsl_vector_const_view rhs = gsl_vector_const_view_array(b, n);
	gsl_vector_view sol = gsl_vector_view_array(x, n);
	gsl_permutation *perm = gsl_permutation_alloc(n);
	int sign;

	cr_assert_eq(gsl_linalg_LU_decomp(&a.matrix, perm, &sign), 0);
	cr_assert_eq(gsl_linalg_LU_solve(&a.matrix, perm, &rhs.vector, &sol.vector), 0);
	gsl_permutation_free(perm);
}

/* After the run, the tests that skipped themselves (cr_skip_test, which
 * leaves its reason; a --filter's skips have none), per suite on one
 * line: a green run without a GPU or MPI says what it did not run. */
ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
	size_t total = 0;

	for (struct criterion_suite_stats *s = stats->suites; s; s = s->next) {
		size_t skipped = 0;

		for (struct criterion_test_stats *t = s->tests; t; t = t->next)
			skipped += t->test_status == CR_STATUS_SKIPPED && t->message;
		if (skipped && !total++)
			fprintf(stderr, "[SKIP] skipped (no CUDA device, no MPI, or PICARD_TEST_MODELS):");
		if (skipped)
			fprintf(stderr, " %s %zu", s->suite->name, skipped);
	}
	if (total)
		fprintf(stderr, "\n");
}
