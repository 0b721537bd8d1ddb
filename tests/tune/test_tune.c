/* test_tune.c - the tolerance search (picard_tune) and its cache (suite
 * tune), on the CPU backend only.
 *
 * The cache: entries round-trip exactly (reals are written so that they
 * read back to the same doubles), a store replaces the entry of its key and
 * keeps the others, and a file that is garbage, cut short or holds wrong
 * numbers is skipped line by line with one warning on stderr, never a
 * crash; entries of another build are ignored silently. Each test points
 * PICARD_CACHE_DIR at its own temporary directory (Criterion forks per
 * test, so setenv in the fixture stays inside the test's process).
 *
 * The search: on decay (exact solution, E falls as h^2 once K sweeps have
 * converged) the chosen h must meet E*, checked independently with
 * picard_solve + picard_check on the same trajectories, and 2h must not;
 * a float tolerance of 1e-14, far below float rounding, must give
 * PICARD_ENOTFOUND with the best E reached above it.
 */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "picard.h"
#include "scheme.h"
#include "support.h"
#include "tune_cost.h"

#define SEARCH_TOL 1e-6      /* decay in double: reached with K <= 3 */
#define SEARCH_TRAJ 16L      /* ensemble = sample: the check sees the same states */
#define SEARCH_SPREAD 0.1    /* picard_tune's default spread */
#define SEARCH_SEED 1ULL     /* and seed */

/* ---- fixtures ------------------------------------------------------------------ */

static void make_tune_workdir(void)
{
	make_workdir("tune", "cache");
}

TestSuite(tune, .init = make_tune_workdir, .fini = remove_workdir, .timeout = 120);

/* ---- helpers ---------------------------------------------------------------------- */

/* The cache file this test uses. */
static const char *cache_file(void)
{
	static char path[4096];
	int err = picard_tune_cache_path(path, sizeof(path));

	cr_assert_eq(err, 0, "cache path: %s (%s)", picard_strerror(err), picard_error_detail());
	return path;
}

/* stderr of the calls between capture_begin() and capture_end(). */
struct capture {
	int saved_fd;   /* the real stderr */
	char path[128]; /* where it went meanwhile */
};

static void capture_begin(struct capture *c)
{
	int fd;

	snprintf(c->path, sizeof(c->path), "%s/stderr.txt", workdir);
	fflush(stderr);
	c->saved_fd = dup(STDERR_FILENO);
	fd = open(c->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert(fd >= 0 && c->saved_fd >= 0, "cannot redirect stderr");
	dup2(fd, STDERR_FILENO);
	close(fd);
}

static char *capture_end(struct capture *c)
{
	fflush(stderr);
	dup2(c->saved_fd, STDERR_FILENO);
	close(c->saved_fd);
	return slurp(c->path, NULL);
}

static long count_lines(const char *text)
{
	long lines = 0;

	for (; *text; text++)
		lines += *text == '\n';
	return lines;
}

/* Lines of text that are entries (not comments, not blank). */
static long count_entries(const char *text)
{
	long entries = 0;

	while (*text) {
		const char *end = strchr(text, '\n');

		entries += *text != '#' && *text != '\n';
		if (!end)
			break;
		text = end + 1;
	}
	return entries;
}

/* A key of lotka with a device name that needs quoting. */
static picard_tune_key lotka_key(void)
{
	picard_tune_key key = {
		.model = "lotka", .precision = PICARD_FLOAT, .tol = 1e-3,
		.t0 = 0, .t1 = 100, .device = "NVIDIA \"H100\" \\ 80GB HBM3",
	};
	return key;
}

/* A point that covers [key.t0, key.t1] with windows windows of m nodes. */
static picard_tune_point point_for(const picard_tune_key *key, int m, int K,
				   long windows, double error)
{
	picard_tune_point p = {
		.m = m, .K = K, .windows = windows, .error = error,
		.h = (key->t1 - key->t0) / ((double)windows * (m - 1)),
		.seconds = 1.234e-3, .meets = true,
	};
	return p;
}

static void store_ok(const picard_tune_key *key, const picard_tune_point *p)
{
	int err = picard_tune_cache_store(key, p);

	cr_assert_eq(err, 0, "store: %s (%s)", picard_strerror(err), picard_error_detail());
}

static void expect_same_point(const picard_tune_point *got, const picard_tune_point *want)
{
	cr_expect_eq(got->m, want->m);
	cr_expect_eq(got->K, want->K);
	cr_expect_eq(got->h, want->h, "h %.17g, stored %.17g", got->h, want->h);
	cr_expect_eq(got->windows, want->windows);
	cr_expect_eq(got->error, want->error, "E %.17g, stored %.17g", got->error, want->error);
	cr_expect_eq(got->seconds, want->seconds);
	cr_expect_eq(got->block, want->block);
	cr_expect(got->meets);
}

/* ---- the cache ---------------------------------------------------------------------- */

Test(tune, cache_path_from_environment)
{
	char path[256];

	setenv("PICARD_CACHE_DIR", "/some/dir", 1);
	cr_assert_eq(picard_tune_cache_path(path, sizeof(path)), 0);
	cr_expect_str_eq(path, "/some/dir/tune.txt");
	unsetenv("PICARD_CACHE_DIR");
	setenv("XDG_CACHE_HOME", "/xdg", 1);
	cr_assert_eq(picard_tune_cache_path(path, sizeof(path)), 0);
	cr_expect_str_eq(path, "/xdg/picard/tune.txt");
	setenv("XDG_CACHE_HOME", "relative", 1); /* ignored, as the XDG spec says */
	setenv("HOME", "/home/someone", 1);
	cr_assert_eq(picard_tune_cache_path(path, sizeof(path)), 0);
	cr_expect_str_eq(path, "/home/someone/.cache/picard/tune.txt");
	cr_expect_eq(picard_tune_cache_path(path, 8), PICARD_EINVAL, "a short buffer is refused");
	unsetenv("XDG_CACHE_HOME");
	unsetenv("HOME");
	cr_expect_eq(picard_tune_cache_path(path, sizeof(path)), PICARD_EINVAL);
}

Test(tune, build_id_is_one_word)
{
	const char *id = picard_build_id();

	cr_assert(id && *id, "empty build id");
	cr_expect_null(strpbrk(id, " \t\n\"\\"), "build id '%s' has blanks or quotes", id);
}

/* Store, load: the same numbers; the directory is made as needed. */
Test(tune, cache_round_trip)
{
	picard_tune_key key = lotka_key();
	picard_tune_point stored = point_for(&key, 8, 2, 238, 8.1e-4), loaded;
	char dir[128], *text;

	snprintf(dir, sizeof(dir), "%s/deep/er/cache", workdir);
	setenv("PICARD_CACHE_DIR", dir, 1);
	cr_assert_eq(picard_tune_cache_load(&key, &loaded), PICARD_ENOTFOUND, "empty cache");
	store_ok(&key, &stored);
	memset(&loaded, 0, sizeof(loaded));
	cr_assert_eq(picard_tune_cache_load(&key, &loaded), 0, "load: %s", picard_error_detail());
	expect_same_point(&loaded, &stored);

	text = slurp(cache_file(), NULL);
	cr_expect_eq(text[0], '#', "no header comment:\n%s", text);
	cr_expect_not_null(strstr(text, "model=lotka precision=float tol=0.001 t0=0 t1=100 "
				  "device=\"NVIDIA \\\"H100\\\" \\\\ 80GB HBM3\" build="), "%s", text);
	cr_expect_not_null(strstr(text, " m=8 K=2 h="), "%s", text);
	cr_expect_not_null(strstr(text, " windows=238 E=0.00081 "), "%s", text);
	cr_expect_not_null(strstr(text, " date=20"), "%s", text);
	cr_expect_eq(count_entries(text), 1, "%s", text);
	free(text);
}

/* The ensemble size's class is part of the key (issue 15): 8192 serves
 * 8192 .. 16383 and a key without a size, not 4096 or 65536; a per-thread
 * scheme's point round-trips with its scheme and tolerance. */
Test(tune, cache_size_class)
{
	picard_tune_key key = lotka_key(), other = lotka_key();
	picard_tune_point stored = point_for(&key, 2, 1000000, 1, 5e-4), loaded;
	char *text;

	stored.scheme = PICARD_SCHEME_DP8;
	stored.iter_rtol = 1e-5;
	key.ntraj = 8192;
	store_ok(&key, &stored);
	text = slurp(cache_file(), NULL);
	cr_expect_not_null(strstr(text, " traj=8192 "), "%s", text);
	cr_expect_not_null(strstr(text, " scheme=dp8 "), "%s", text);
	free(text);
	for (long n = 8192; n <= 16383; n += 8191 / 4) {
		other.ntraj = n;
		cr_expect_eq(picard_tune_cache_load(&other, &loaded), 0, "size %ld", n);
	}
	expect_same_point(&loaded, &stored);
	cr_expect_eq(loaded.scheme, PICARD_SCHEME_DP8);
	cr_expect_eq(loaded.iter_rtol, 1e-5);
	other.ntraj = 0;
	cr_expect_eq(picard_tune_cache_load(&other, &loaded), 0, "a key without a size");
	other.ntraj = 4096;
	cr_expect_eq(picard_tune_cache_load(&other, &loaded), PICARD_ENOTFOUND, "size 4096");
	other.ntraj = 65536;
	cr_expect_eq(picard_tune_cache_load(&other, &loaded), PICARD_ENOTFOUND, "size 65536");
	cr_expect_eq(picard_tune_class(1), 0);
	cr_expect_eq(picard_tune_class(8192), 13);
	cr_expect_eq(picard_tune_class(16383), 13);
}

/* Every part of the key must match. */
Test(tune, cache_key_must_match)
{
	picard_tune_key key = lotka_key(), other;
	picard_tune_point p = point_for(&key, 8, 2, 238, 8.1e-4), loaded;

	store_ok(&key, &p);
	other = key;
	other.tol = nextafter(key.tol, 1);
	cr_expect_eq(picard_tune_cache_load(&other, &loaded), PICARD_ENOTFOUND, "tol");
	other = key;
	other.precision = PICARD_DOUBLE;
	cr_expect_eq(picard_tune_cache_load(&other, &loaded), PICARD_ENOTFOUND, "precision");
	other = key;
	other.t1 = 50;
	cr_expect_eq(picard_tune_cache_load(&other, &loaded), PICARD_ENOTFOUND, "t1");
	other = key;
	other.t0 = -1;
	cr_expect_eq(picard_tune_cache_load(&other, &loaded), PICARD_ENOTFOUND, "t0");
	other = key;
	other.device = "CPU";
	cr_expect_eq(picard_tune_cache_load(&other, &loaded), PICARD_ENOTFOUND, "device");
	other = key;
	other.model = "decay";
	cr_expect_eq(picard_tune_cache_load(&other, &loaded), PICARD_ENOTFOUND, "model");
	cr_expect_eq(picard_tune_cache_load(&key, &loaded), 0);
}

/* A second store of a key replaces its entry; other keys stay. */
Test(tune, cache_replace_on_store)
{
	picard_tune_key a = lotka_key(), b = lotka_key();
	picard_tune_point first = point_for(&a, 8, 2, 238, 8.1e-4);
	picard_tune_point second = point_for(&a, 16, 3, 100, 5e-4);
	picard_tune_point pb, loaded;
	char *text;

	b.precision = PICARD_DOUBLE;
	b.tol = 1e-6;
	pb = point_for(&b, 4, 5, 3000, 9e-7);
	store_ok(&a, &first);
	store_ok(&b, &pb);
	store_ok(&a, &second);
	cr_assert_eq(picard_tune_cache_load(&a, &loaded), 0);
	expect_same_point(&loaded, &second);
	cr_assert_eq(picard_tune_cache_load(&b, &loaded), 0);
	expect_same_point(&loaded, &pb);
	text = slurp(cache_file(), NULL);
	cr_expect_eq(count_entries(text), 2, "one entry per key:\n%s", text);
	free(text);
}

/* What one bad cache file does: load finds (or not) the good entry, prints
 * exactly one warning line naming line bad_line, and does not crash. */
static void expect_warned_load(const char *content, size_t size, bool found, long bad_line)
{
	picard_tune_key key = lotka_key();
	picard_tune_point loaded;
	struct capture cap;
	char want[4200], *err_text;
	int err;

	mkdir(getenv("PICARD_CACHE_DIR"), 0755);
	write_file(cache_file(), content, size);
	capture_begin(&cap);
	err = picard_tune_cache_load(&key, &loaded);
	err_text = capture_end(&cap);
	cr_expect_eq(err, found ? 0 : PICARD_ENOTFOUND, "load returned %d (%s)", err,
		     picard_error_detail());
	snprintf(want, sizeof(want), "picard: warning: ignoring malformed line %ld of %s",
		 bad_line, cache_file());
	cr_expect_eq(strncmp(err_text, want, strlen(want)), 0, "stderr '%s', expected '%s'",
		     err_text, want);
	cr_expect_eq(count_lines(err_text), 1, "one warning line, got:\n%s", err_text);
	free(err_text);
}

/* The text of a good entry for lotka_key(), from a store. */
static char *good_entry(void)
{
	picard_tune_key key = lotka_key();
	picard_tune_point p = point_for(&key, 8, 2, 238, 8.1e-4);
	char *text, *entry;

	store_ok(&key, &p);
	text = slurp(cache_file(), NULL);
	entry = strstr(text, "model=");
	cr_assert_not_null(entry);
	entry = strdup(entry);
	free(text);
	return entry;
}

Test(tune, cache_garbage_is_ignored)
{
	unsigned char garbage[3000];

	srand(7);
	for (size_t i = 0; i < sizeof(garbage); i++)
		garbage[i] = (unsigned char)rand();
	garbage[10] = '\0';
	garbage[20] = '\n';
	expect_warned_load((const char *)garbage, sizeof(garbage), false, 1);
}

/* An entry cut short (no final newline, as a crash mid-write would leave
 * it without the rename) is not trusted, even where its fields parse. */
Test(tune, cache_truncated_line_is_ignored)
{
	char *entry = good_entry();
	size_t len = strlen(entry);

	expect_warned_load(entry, len - 1, false, 1);      /* only the newline lost */
	expect_warned_load(entry, len / 2, false, 1);      /* cut in the middle */
	free(entry);
}

/* Lines whose numbers are wrong, each before a good entry: the good one is
 * still found, one warning names the first bad line. */
Test(tune, cache_wrong_numbers_are_ignored)
{
	static const struct {
		const char *from, *to; /* replace in the good entry */
	} edits[] = {
		{" m=8 ", " m=abc "},
		{" m=8 ", " m=1 "},
		{" K=2 ", " K=0 "},
		{" K=2 ", " K=2.5 "},
		{" h=", " h=-"},
		{" windows=238 ", " windows=239 "},  /* does not cover the span */
		{" E=0.00081 ", " E=nan "},
		{" E=0.00081 ", " E=0.5 "},          /* over tol */
		{" tol=0.001 ", " tol=0.001x "},
		{" t1=100 ", " t1=-5 "},
		{" precision=float ", " precision=half "},
		{" seconds=", " seconds=-"},
		{" date=", " nodate="},              /* a field missing */
		{"device=\"NVIDIA", "device=NVIDIA"}, /* quotes do not match */
		{" m=8 ", " m=8 m=8 "},              /* a field twice */
		{" K=2 ", " K=1e999 "},
	};
	char *entry = good_entry();

	for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		char bad[4096], content[8192];
		const char *at = strstr(entry, edits[i].from);

		cr_assert_not_null(at, "'%s' not in %s", edits[i].from, entry);
		snprintf(bad, sizeof(bad), "%.*s%s%s", (int)(at - entry), entry, edits[i].to,
			 at + strlen(edits[i].from));
		snprintf(content, sizeof(content), "# comment\n\n%s%s", bad, entry);
		cr_log_info("bad line: %s", bad);
		expect_warned_load(content, strlen(content), true, 3);
	}
	free(entry);
}

/* A store over a corrupt file keeps the good entries and drops the rest,
 * so the next load is quiet. */
Test(tune, cache_store_cleans_corrupt_file)
{
	picard_tune_key key = lotka_key(), other = lotka_key();
	picard_tune_point p, loaded;
	char *entry = good_entry(), content[8192], *err_text;
	struct capture cap;

	other.tol = 1e-2;
	snprintf(content, sizeof(content), "garbage line\n%s\x01\x02 truncated", entry);
	write_file(cache_file(), content, strlen(content));
	p = point_for(&other, 4, 1, 10000, 5e-3);
	capture_begin(&cap);
	store_ok(&other, &p);
	free(capture_end(&cap));
	capture_begin(&cap);
	cr_expect_eq(picard_tune_cache_load(&key, &loaded), 0, "the good entry was lost");
	cr_expect_eq(picard_tune_cache_load(&other, &loaded), 0);
	err_text = capture_end(&cap);
	cr_expect_str_empty(err_text, "a warning after the rewrite: %s", err_text);
	free(err_text);
	free(entry);
}

/* An entry of another build is stale: not returned, no warning, and kept
 * by a store (it may belong to another installed build). */
Test(tune, cache_other_build_is_ignored)
{
	picard_tune_key key = lotka_key();
	picard_tune_point p = point_for(&key, 8, 2, 238, 8.1e-4), loaded;
	char *entry = good_entry(), *build, *rest, content[8192], *err_text, *text;
	struct capture cap;

	build = strstr(entry, " build=");
	cr_assert_not_null(build);
	rest = strchr(build + 1, ' ');
	snprintf(content, sizeof(content), "%.*s build=0000000-other%s",
		 (int)(build - entry), entry, rest);
	write_file(cache_file(), content, strlen(content));
	capture_begin(&cap);
	cr_expect_eq(picard_tune_cache_load(&key, &loaded), PICARD_ENOTFOUND);
	err_text = capture_end(&cap);
	cr_expect_str_empty(err_text, "stale entries are ignored silently: %s", err_text);
	free(err_text);

	store_ok(&key, &p);
	cr_expect_eq(picard_tune_cache_load(&key, &loaded), 0);
	text = slurp(cache_file(), NULL);
	cr_expect_not_null(strstr(text, "build=0000000-other"), "stale entry dropped:\n%s", text);
	cr_expect_eq(count_entries(text), 2, "%s", text);
	free(text);
	free(entry);
}

/* Only an entry that picard could run and that meets its tol is stored. */
Test(tune, cache_store_refuses_bad_entries)
{
	picard_tune_key key = lotka_key(), bad_key;
	picard_tune_point good = point_for(&key, 8, 2, 238, 8.1e-4), bad;
	picard_tune_point loaded;

	bad = good;
	bad.error = 2e-3;
	cr_expect_eq(picard_tune_cache_store(&key, &bad), PICARD_EINVAL, "E over tol");
	bad = good;
	bad.h = -bad.h;
	cr_expect_eq(picard_tune_cache_store(&key, &bad), PICARD_EINVAL, "h < 0");
	bad = good;
	bad.windows = 100;
	cr_expect_eq(picard_tune_cache_store(&key, &bad), PICARD_EINVAL, "windows");
	bad = good;
	bad.m = 1;
	cr_expect_eq(picard_tune_cache_store(&key, &bad), PICARD_EINVAL, "m = 1");
	bad_key = key;
	bad_key.model = "two words";
	cr_expect_eq(picard_tune_cache_store(&bad_key, &good), PICARD_EINVAL, "model");
	bad_key = key;
	bad_key.device = "line\nbreak";
	cr_expect_eq(picard_tune_cache_store(&bad_key, &good), PICARD_EINVAL, "device");
	bad_key = key;
	bad_key.device = NULL;
	cr_expect_eq(picard_tune_cache_store(&bad_key, &good), PICARD_EINVAL, "no device");
	bad_key = key;
	bad_key.tol = 0;
	cr_expect_eq(picard_tune_cache_store(&bad_key, &good), PICARD_EINVAL, "tol 0");
	cr_expect_eq(picard_tune_cache_store(NULL, &good), PICARD_EINVAL);
	cr_expect_eq(picard_tune_cache_store(&key, NULL), PICARD_EINVAL);
	cr_expect_eq(picard_tune_cache_load(&key, NULL), PICARD_EINVAL);
	cr_expect_eq(picard_tune_cache_load(&key, &loaded), PICARD_ENOTFOUND, "nothing stored");
}

/* ---- the search -------------------------------------------------------------------- */

/* Callback counts: measured points (seconds 0) and timings. */
struct point_count {
	long measured; /* on_point calls for an E measurement */
	long timed;    /* on_point calls for a timing */
};

static void count_point(const picard_tune_point *p, void *ctx)
{
	struct point_count *count = ctx;

	if (p->seconds == 0)
		count->measured++;
	else
		count->timed++;
}

/* E of decay at (m, K, h) on the search's ensemble, by picard_solve and
 * picard_check on every trajectory, every window end; the grid used goes
 * to *grid. */
static double check_error(int m, int K, double h, picard_grid *grid)
{
	const picard_model *model = picard_model_find("decay");
	picard_options opt = {
		.m = m, .K = K, .h = h, .precision = PICARD_DOUBLE,
		.backend = PICARD_BACKEND_CPU,
	};
	picard_record rec = {.every = 1, .traj_stride = 1};
	picard_check_result check;
	picard_solver *solver;
	double x0[SEARCH_TRAJ];
	int err;

	cr_assert(model && model->dim == 1, "decay: one component expected");
	err = picard_ensemble_spread(model->dim, model->x0, SEARCH_TRAJ, SEARCH_SPREAD,
				     SEARCH_SEED, PICARD_BACKEND_CPU, x0);
	cr_assert_eq(err, 0, "ensemble: %s", picard_error_detail());
	err = picard_solver_create(&solver, model, &opt, SEARCH_TRAJ);
	cr_assert_eq(err, 0, "solver: %s (%s)", picard_strerror(err), picard_error_detail());
	*grid = *picard_solver_grid(solver);
	rec.states = malloc(picard_record_size(solver, &rec) * sizeof(double));
	cr_assert_not_null(rec.states);
	err = picard_solve(solver, x0, NULL, NULL, NULL, NULL, &rec, 1, NULL);
	cr_assert_eq(err, 0, "solve: %s (%s)", picard_strerror(err), picard_error_detail());
	err = picard_check(model, grid, SEARCH_TRAJ, x0, NULL, &rec, &check);
	cr_assert_eq(err, 0, "check: %s (%s)", picard_strerror(err), picard_error_detail());
	cr_assert_eq(check.checked_traj, SEARCH_TRAJ);
	free(rec.states);
	picard_solver_free(solver);
	return check.error;
}

/* decay in double, E* = 1e-6, m in {4, 8}, K <= 3, the ensemble its own
 * sample: the winner meets E* by picard_check (within the dense
 * reference's own error), 2h does not. */
Test(tune, search_decay_meets_tol_and_2h_does_not)
{
	const picard_model *model = picard_model_find("decay");
	struct point_count count = {0};
	picard_tune_options opt = {
		.tol = SEARCH_TOL, .precision = PICARD_DOUBLE, .backend = PICARD_BACKEND_CPU,
		.ntraj = SEARCH_TRAJ, .sample = SEARCH_TRAJ, .spread = SEARCH_SPREAD,
		.seed = SEARCH_SEED, .kmax = 3, .nms = 2, .ms = {4, 8}, .repeats = 1,
		.on_point = count_point, .ctx = &count,
	};
	picard_tune_result res;
	picard_tune_point *best = &res.best;
	picard_grid grid;
	double e, e2;
	int err;

	cr_assert_not_null(model);
	err = picard_tune(model, &opt, &res);
	cr_assert_eq(err, 0, "picard_tune: %s (%s)", picard_strerror(err), picard_error_detail());
	cr_log_info("best m=%d K=%d h=%.6g windows=%ld E=%.3g (%ld points, reference %.2g)",
		    best->m, best->K, best->h, best->windows, best->error, res.points,
		    res.reference_error);
	cr_expect(best->meets);
	cr_expect_leq(best->error, SEARCH_TOL);
	cr_expect(best->m == 4 || best->m == 8, "m = %d not a candidate", best->m);
	cr_expect(best->K >= 1 && best->K <= 3, "K = %d", best->K);
	cr_expect_gt(best->seconds, 0, "the winner was not timed");
	cr_expect_eq(res.nm, 2);
	cr_expect_leq(res.best_error, best->error);
	cr_expect_lt(res.reference_error, SEARCH_TOL);
	cr_expect_eq(count.measured, res.points, "on_point: %ld measurements, %ld points",
		     count.measured, res.points);
	for (int i = 0; i < res.nm; i++)
		if (res.per_m[i].meets)
			cr_expect(!picard_tune_faster(&res.per_m[i], best),
				  "m = %d (%.3g s) beats the winner (%.3g s) by the switch margin",
				  res.per_m[i].m, res.per_m[i].seconds, best->seconds);

	e = check_error(best->m, best->K, best->h, &grid);
	cr_expect_eq(grid.windows, best->windows, "h %.17g fits %ld windows, not %ld",
		     best->h, grid.windows, best->windows);
	cr_expect_leq(e, SEARCH_TOL + res.reference_error,
		      "picard_check E = %.3g at the chosen h (search said %.3g)", e, best->error);
	if (best->windows == 1) {
		cr_log_info("one window per span meets E*: no larger h exists");
		return;
	}
	e2 = check_error(best->m, best->K, 2 * best->h, &grid);
	cr_expect_gt(e2, SEARCH_TOL, "2h = %.6g (%ld windows) meets E* too: E = %.3g",
		     2 * best->h, grid.windows, e2);
}

/* E of a two-component model under o on the search's ensemble, by
 * picard_solve and picard_check on every trajectory and window end; the
 * grid must have `windows` windows. */
static double ensemble_check_error(const picard_model *model, const picard_options *o,
				   long windows)
{
	picard_record rec = {.every = 1, .traj_stride = 1};
	picard_check_result check;
	picard_solver *solver;
	double x0[2 * SEARCH_TRAJ];

	cr_assert_eq(model->dim, 2);
	cr_assert_eq(picard_ensemble_spread(2, model->x0, SEARCH_TRAJ, SEARCH_SPREAD, SEARCH_SEED,
					    PICARD_BACKEND_CPU, x0), 0);
	cr_assert_eq(picard_solver_create(&solver, model, o, SEARCH_TRAJ), 0, "%s",
		     picard_error_detail());
	cr_expect_eq(picard_solver_grid(solver)->windows, windows);
	rec.states = malloc(picard_record_size(solver, &rec) * sizeof(double));
	cr_assert_not_null(rec.states);
	cr_assert_eq(picard_solve(solver, x0, NULL, NULL, NULL, NULL, &rec, 1, NULL), 0);
	cr_assert_eq(picard_check(model, picard_solver_grid(solver), SEARCH_TRAJ, x0, NULL, &rec,
				  &check), 0);
	free(rec.states);
	picard_solver_free(solver);
	return check.error;
}

/* A search of a scheme on the lobatto grid (m, window, tolerance), on the
 * two-component model named, in double to 1e-8 with m in {m1, m2}: the
 * winner is a point of that scheme whose own solve, rebuilt from what the
 * point says (m, window (m-1) h, K_max, its tolerance; lobatto's warm
 * start, newton's block), meets E* by picard_check at every window end of
 * the whole ensemble. The winner into *best. */
static void search_lobatto_grid(const char *name, picard_scheme scheme, int m1, int m2,
				picard_tune_point *best)
{
	const picard_model *model = picard_model_find(name);
	picard_tune_options opt = {
		.tol = 1e-8, .scheme = scheme, .precision = PICARD_DOUBLE,
		.backend = PICARD_BACKEND_CPU, .ntraj = SEARCH_TRAJ, .sample = SEARCH_TRAJ,
		.spread = SEARCH_SPREAD, .seed = SEARCH_SEED, .nms = 2, .ms = {m1, m2},
		.repeats = 1,
	};
	picard_tune_result res;
	double e;
	int err;

	cr_assert_not_null(model);
	err = picard_tune(model, &opt, &res);
	cr_assert_eq(err, 0, "picard_tune: %s (%s)", picard_strerror(err), picard_error_detail());
	*best = res.best;
	cr_log_info("%s best m=%d window=%.6g rtol=%.2g block=%d windows=%ld E=%.3g",
		    picard_scheme_of(scheme)->name, best->m, (best->m - 1) * best->h,
		    best->iter_rtol, best->block, best->windows, best->error);
	cr_expect_eq(best->scheme, scheme);
	cr_expect(best->meets);
	cr_expect(best->m == m1 || best->m == m2, "m = %d not a candidate", best->m);
	cr_expect(best->iter_rtol > 0 && best->iter_rtol < opt.tol, "iter_rtol %g", best->iter_rtol);
	cr_expect_gt(best->seconds, 0, "the winner was not timed");

	picard_options o = {
		.scheme = scheme, .m = best->m, .K_max = best->K,
		.window = (best->m - 1) * best->h, .iter_rtol = best->iter_rtol,
		.warm_start = scheme == PICARD_SCHEME_LOBATTO, .block = best->block,
		.precision = PICARD_DOUBLE, .backend = PICARD_BACKEND_CPU,
	};
	e = ensemble_check_error(model, &o, best->windows);
	cr_expect_leq(e, opt.tol + res.reference_error,
		      "picard_check E = %.3g at the chosen point (search said %.3g)", e, best->error);
}

/* The lobatto scheme (issue 7): oscillator, m in {4, 8}. On the CPU
 * backend its windows in flight are not searched (issue 40): there they
 * are the same sweeps and more. */
Test(tune, search_lobatto)
{
	picard_tune_point best;

	search_lobatto_grid("oscillator", PICARD_SCHEME_LOBATTO, 4, 8, &best);
	cr_expect_leq(best.block, 1);
}

/* Issue 40: lobatto's last tuner candidate sweeps windows in flight at a
 * tolerance finer than the others' (a front converges a sweep or two after
 * its start settles), no finer than double's floor allows; the others
 * go one window after the other. */
Test(tune, lobatto_last_candidate_is_windows_in_flight)
{
	const picard_scheme_type *lobatto = picard_scheme_of(PICARD_SCHEME_LOBATTO);
	const int n = lobatto->tune_candidates(0);

	cr_assert_geq(n, 2);
	for (int K = 1; K <= n; K++) {
		const double rtol = lobatto->tune_rtol(K, 1e-8, PICARD_DOUBLE);
		const picard_options o = lobatto->tune_point(16, K, 0.05, rtol, 100);

		cr_expect_eq(o.block > 1, K == n, "candidate %d: block %d", K, o.block);
		cr_expect_eq(o.iter_rtol, rtol);
		if (K < n)
			cr_expect_lt(lobatto->tune_rtol(n, 1e-8, PICARD_DOUBLE), rtol,
				     "in flight %g, candidate %d %g",
				     lobatto->tune_rtol(n, 1e-8, PICARD_DOUBLE), K, rtol);
	}
	cr_expect_geq(lobatto->tune_rtol(n, 1e-12, PICARD_DOUBLE), 1e-15);
}

/* A cost per evaluation with windows in flight is a line of its own: its
 * evaluations count every window of a step, whose time they share. One
 * after the other (block 1, or absent as before issue 40) reads back as
 * the same line. */
Test(tune, cost_in_flight_round_trip)
{
	struct tune_cost one = {
		.model = "kepler", .precision = PICARD_DOUBLE, .device = "NVIDIA TEST", .ntraj = 64,
		.scheme = PICARD_SCHEME_LOBATTO, .m = 16, .layout = PICARD_LAYOUT_WARP,
		.seconds_per_eval = 2e-9,
	}, eight = one, loaded = one;
	char *text;

	eight.block = 8;
	eight.seconds_per_eval = 5e-10;
	cr_assert_eq(tune_cost_store(&one), 0, "%s", picard_error_detail());
	cr_assert_eq(tune_cost_store(&eight), 0, "%s", picard_error_detail());
	loaded.seconds_per_eval = 0;
	cr_assert_eq(tune_cost_load(&loaded), 0, "%s", picard_error_detail());
	cr_expect_eq(loaded.seconds_per_eval, 2e-9);
	loaded.block = 1;
	cr_assert_eq(tune_cost_load(&loaded), 0);
	cr_expect_eq(loaded.seconds_per_eval, 2e-9);
	loaded.block = 8;
	cr_assert_eq(tune_cost_load(&loaded), 0);
	cr_expect_eq(loaded.seconds_per_eval, 5e-10);
	loaded.block = 4;
	cr_expect_eq(tune_cost_load(&loaded), PICARD_ENOTFOUND);
	text = slurp(cache_file(), NULL);
	cr_expect_not_null(strstr(text, " layout=warp block=8 seconds_per_eval="), "%s", text);
	free(text);
}

/* The newton scheme (issue 17), named: lotka, m in {8, 12}; the point
 * holds its block, one of the candidates' (64, 512) or all the windows. */
Test(tune, search_newton)
{
	picard_tune_point best;

	search_lobatto_grid("lotka", PICARD_SCHEME_NEWTON, 8, 12, &best);
	cr_expect(best.block == 64 || best.block == 512 || best.block == best.windows,
		  "block %d of %ld windows", best.block, best.windows);
}

/* A newton entry keeps its block through the cache; the other schemes'
 * entries carry none. */
Test(tune, cache_newton_round_trip)
{
	picard_tune_key key = lotka_key();
	picard_tune_point stored = point_for(&key, 8, 50, 15, 3e-5), loaded;
	char *text;

	stored.scheme = PICARD_SCHEME_NEWTON;
	stored.iter_rtol = 1e-11;
	stored.block = 64;
	store_ok(&key, &stored);
	memset(&loaded, 0, sizeof(loaded));
	cr_assert_eq(picard_tune_cache_load(&key, &loaded), 0, "load: %s", picard_error_detail());
	expect_same_point(&loaded, &stored);
	cr_expect_eq(loaded.scheme, PICARD_SCHEME_NEWTON);
	cr_expect_eq(loaded.block, 64);
	text = slurp(cache_file(), NULL);
	cr_expect_not_null(strstr(text, " scheme=newton iter_rtol=1e-11 block=64 "), "%s", text);
	free(text);

	stored.scheme = PICARD_SCHEME_LOBATTO;
	stored.block = 0;
	store_ok(&key, &stored);
	cr_assert_eq(picard_tune_cache_load(&key, &loaded), 0);
	cr_expect_eq(loaded.block, 0);
	text = slurp(cache_file(), NULL);
	cr_expect_null(strstr(text, "block="), "%s", text);
	free(text);
}

/* A lobatto entry keeps its scheme and tolerance through the cache; an
 * entry without them (older picard) is the trapezoid's. */
Test(tune, cache_lobatto_round_trip)
{
	picard_tune_key key = lotka_key();
	picard_tune_point stored = point_for(&key, 8, 60, 15, 3e-5), loaded;
	char *text;

	stored.scheme = PICARD_SCHEME_LOBATTO;
	stored.iter_rtol = 1e-6;
	store_ok(&key, &stored);
	memset(&loaded, 0, sizeof(loaded));
	cr_assert_eq(picard_tune_cache_load(&key, &loaded), 0, "load: %s", picard_error_detail());
	expect_same_point(&loaded, &stored);
	cr_expect_eq(loaded.scheme, PICARD_SCHEME_LOBATTO);
	cr_expect_eq(loaded.iter_rtol, 1e-6);
	text = slurp(cache_file(), NULL);
	cr_expect_not_null(strstr(text, " scheme=lobatto iter_rtol=1e-06 "), "%s", text);
	free(text);

	stored.scheme = PICARD_SCHEME_TRAPEZOID;
	stored.iter_rtol = 0;
	store_ok(&key, &stored);
	cr_assert_eq(picard_tune_cache_load(&key, &loaded), 0);
	cr_expect_eq(loaded.scheme, PICARD_SCHEME_TRAPEZOID);
	text = slurp(cache_file(), NULL);
	cr_expect_null(strstr(text, "scheme="), "%s", text);
	free(text);
}

/* The fixed-step points of a per-thread pair, as the search measured them. */
struct fixed_points {
	int n, met;
	picard_tune_point widest; /* the largest h that met E* */
	bool shaped;              /* every one a single window of K steps */
};

static void collect_fixed(const picard_tune_point *p, void *ctx)
{
	struct fixed_points *f = ctx;

	if (p->seconds != 0 || p->iter_rtol != 0)
		return;
	f->n++;
	f->shaped &= p->windows == 1 && p->K == picard_rk_steps(100, p->h) &&
		     fabs(p->K * p->h - 100) <= 1e-9 * 100;
	if (p->meets && (!f->met++ || p->h > f->widest.h))
		f->widest = *p;
}

/* dp8's fixed steps are tuned as picard-run runs them without --h: one
 * window over the span (checked at t1) of K steps of h, not a window per
 * step checked at each (lotka's early transient would then set the
 * step). The widest that met E*, solved so, meets it by picard_check;
 * stored in the cache, it reads back as it was. */
Test(tune, search_rk_fixed_steps_in_one_window)
{
	const picard_model *model = picard_model_find("lotka");
	struct fixed_points fixed = {.shaped = true};
	picard_tune_options opt = {
		.tol = 1e-8, .scheme = PICARD_SCHEME_DP8, .precision = PICARD_DOUBLE,
		.backend = PICARD_BACKEND_CPU, .ntraj = SEARCH_TRAJ, .sample = SEARCH_TRAJ,
		.spread = SEARCH_SPREAD, .seed = SEARCH_SEED, .repeats = 1,
		.on_point = collect_fixed, .ctx = &fixed,
	};
	picard_tune_key key = lotka_key();
	picard_tune_result res;
	picard_tune_point loaded;
	double e;
	int err;

	cr_assert(model && model->t0 == 0 && model->t1 == 100, "lotka over [0, 100] expected");
	err = picard_tune(model, &opt, &res);
	cr_assert_eq(err, 0, "picard_tune: %s (%s)", picard_strerror(err), picard_error_detail());
	cr_assert_gt(fixed.met, 0, "no fixed-step point met 1e-8 (%d measured)", fixed.n);
	cr_expect(fixed.shaped, "a fixed-step point is not one window of K steps over the span");
	cr_log_info("dp8 fixed: %d steps of %.6g, E %.3g", fixed.widest.K, fixed.widest.h,
		    fixed.widest.error);

	picard_options o = {
		.scheme = PICARD_SCHEME_DP8, .K = fixed.widest.K, .precision = PICARD_DOUBLE,
		.backend = PICARD_BACKEND_CPU,
	};
	e = ensemble_check_error(model, &o, 1);
	cr_expect_leq(e, opt.tol + res.reference_error, "picard_check E = %.3g at t1 (search said %.3g)",
		      e, fixed.widest.error);

	key.precision = PICARD_DOUBLE;
	key.tol = opt.tol;
	fixed.widest.seconds = 1e-3;
	store_ok(&key, &fixed.widest);
	cr_assert_eq(picard_tune_cache_load(&key, &loaded), 0, "load: %s", picard_error_detail());
	expect_same_point(&loaded, &fixed.widest);
	cr_expect_eq(loaded.scheme, PICARD_SCHEME_DP8);
}

/* 3e-7 in float is just above its floor (2 eps times the largest |x0|,
 * 2.6e-7; below it picard_tune refuses, test_limits.c) but below what the
 * rounding of float sweeps leaves over the windows: nothing meets it, and
 * the search says how close it came. */
Test(tune, search_unreachable_tolerance)
{
	const picard_model *model = picard_model_find("decay");
	picard_tune_options opt = {
		.tol = 3e-7, .precision = PICARD_FLOAT, .backend = PICARD_BACKEND_CPU,
		.ntraj = 8, .sample = 8, .kmax = 2, .nms = 1, .ms = {4},
		.repeats = 1, .max_windows = 2000,
	};
	picard_tune_result res;
	int err;

	cr_assert_not_null(model);
	err = picard_tune(model, &opt, &res);
	cr_assert_eq(err, PICARD_ENOTFOUND, "picard_tune returned %d (%s)", err,
		     picard_error_detail());
	cr_expect(!res.best.meets);
	cr_expect_gt(res.best_error, opt.tol);
	cr_expect(isfinite(res.best_error), "best E %g", res.best_error);
	cr_expect_gt(res.points, 0);
	cr_expect_eq(res.nm, 1);
	cr_expect(!res.per_m[0].meets);
}

/* seconds_to_beat: a time no solve can reach (1 ns) ends the search with
 * nothing, though the same search without it meets E*; a time any solve
 * beats (an hour) leaves the winner as it was. */
Test(tune, search_stops_where_it_cannot_beat_the_time)
{
	const picard_model *model = picard_model_find("decay");
	picard_tune_options opt = {
		.tol = SEARCH_TOL, .precision = PICARD_DOUBLE, .backend = PICARD_BACKEND_CPU,
		.ntraj = SEARCH_TRAJ, .sample = SEARCH_TRAJ, .spread = SEARCH_SPREAD,
		.seed = SEARCH_SEED, .kmax = 2, .nms = 1, .ms = {4}, .repeats = 1,
	};
	picard_tune_result free_run, slow, easy;
	int err;

	cr_assert_not_null(model);
	err = picard_tune(model, &opt, &free_run);
	cr_assert_eq(err, 0, "picard_tune: %s (%s)", picard_strerror(err), picard_error_detail());
	opt.seconds_to_beat = 3600;
	err = picard_tune(model, &opt, &easy);
	cr_assert_eq(err, 0, "an hour to beat: %s (%s)", picard_strerror(err),
		     picard_error_detail());
	cr_expect_eq(easy.best.K, free_run.best.K);
	cr_expect_eq(easy.best.windows, free_run.best.windows, "an hour to beat: %ld windows, not %ld",
		     easy.best.windows, free_run.best.windows);
	opt.seconds_to_beat = 1e-9;
	err = picard_tune(model, &opt, &slow);
	cr_expect_eq(err, PICARD_ENOTFOUND, "1 ns to beat: picard_tune returned %d, best %ld windows",
		     err, slow.best.windows);
	cr_expect(!slow.best.meets);
	cr_expect_lt(slow.points, free_run.points, "1 ns to beat: %ld points, not fewer than %ld",
		     slow.points, free_run.points);
}

/* Issue 34: the same search on the same machine picks the same point. The
 * first search times each cost per evaluation and caches it, the second
 * reads it back: both predict the same seconds, bit for bit (timing every
 * candidate never did: two timings are never equal), and a point's
 * predicted time is its evaluations on the ensemble times the cached
 * cost. Two schemes of the pair kind, one after the other, are costed
 * apart (their own line each). */
Test(tune, same_search_same_choice)
{
	const picard_model *model = picard_model_find("lotka");
	const picard_tune_key key = {
		.model = "lotka", .precision = PICARD_DOUBLE, .tol = 1e-7, .t0 = 0, .t1 = 100,
		.device = "CPU", .ntraj = SEARCH_TRAJ,
	};
	picard_tune_options opt = {
		.tol = 1e-7, .scheme = PICARD_SCHEME_DP5, .precision = PICARD_DOUBLE,
		.backend = PICARD_BACKEND_CPU, .ntraj = SEARCH_TRAJ, .sample = 8, .kmax = 3,
		.repeats = 1, .cost_key = &key,
	};
	picard_tune_result first, second;
	struct tune_cost cost = {
		.model = "lotka", .precision = PICARD_DOUBLE, .device = "CPU", .ntraj = SEARCH_TRAJ,
		.scheme = PICARD_SCHEME_DP5, .m = 2, .layout = PICARD_LAYOUT_AUTO,
	};
	int err;

	cr_assert_not_null(model);
	err = picard_tune(model, &opt, &first);
	cr_assert_eq(err, 0, "picard_tune: %s (%s)", picard_strerror(err), picard_error_detail());
	err = picard_tune(model, &opt, &second);
	cr_assert_eq(err, 0, "picard_tune: %s (%s)", picard_strerror(err), picard_error_detail());
	cr_expect_gt(first.costs_timed, 0, "the first search timed no cost");
	cr_expect_eq(first.costs_not_kept, 0);
	cr_expect_eq(second.costs_timed, 0, "the second search timed %ld costs again",
		     second.costs_timed);
	cr_expect_eq(second.best.K, first.best.K);
	cr_expect_eq(second.best.h, first.best.h, "h %.17g, then %.17g", first.best.h,
		     second.best.h);
	cr_expect_eq(second.best.iter_rtol, first.best.iter_rtol);
	cr_expect_eq(second.best.seconds, first.best.seconds, "predicted %.17g s, then %.17g s",
		     first.best.seconds, second.best.seconds);
	err = tune_cost_load(&cost);
	cr_assert_eq(err, 0, "no cached cost of dp5: %s", picard_error_detail());
	cr_expect_gt(cost.seconds_per_eval, 0);
	cr_expect_lt(fabs(first.best.seconds - cost.seconds_per_eval * first.best.rhs_evals *
			  SEARCH_TRAJ), 1e-12 * first.best.seconds,
		     "predicted %.17g s is not %.17g s per evaluation x %.17g evaluations x %ld",
		     first.best.seconds, cost.seconds_per_eval, first.best.rhs_evals, SEARCH_TRAJ);
	/* dp5 makes 6 evaluations a step (FSAL): fixed steps over the span */
	if (first.best.iter_rtol == 0)
		cr_expect_eq(first.best.rhs_evals, 6.0 * first.best.K, "%.17g evaluations, %d steps",
			     first.best.rhs_evals, first.best.K);
	/* another scheme's cost is its own line */
	opt.scheme = PICARD_SCHEME_DP8;
	err = picard_tune(model, &opt, &second);
	cr_assert_eq(err, 0, "picard_tune: %s (%s)", picard_strerror(err), picard_error_detail());
	cr_expect_gt(second.costs_timed, 0, "dp8 took dp5's cost");
}

/* Issue 34, item 10: a search that ends with nothing names the rule that
 * refused its best E where that E was below E*. A first search at a
 * tolerance nothing reaches (1e-6, above double's floor) finds the best
 * E its grid allows (max_windows 4: E0); a second at E* = E0 / 0.9 visits the same points (none meets
 * either way) and must refuse its E0, below E*, by the margin (the
 * sample must meet 0.8 E*), and say so. */
Test(tune, refusal_names_the_rule)
{
	const picard_model *model = picard_model_find("decay");
	picard_tune_options opt = {
		.tol = 1e-6, .precision = PICARD_DOUBLE, .backend = PICARD_BACKEND_CPU,
		.ntraj = SEARCH_TRAJ, .sample = SEARCH_TRAJ, .spread = SEARCH_SPREAD,
		.seed = SEARCH_SEED, .kmax = 1, .nms = 1, .ms = {4}, .repeats = 1,
		.max_windows = 4,
	};
	picard_tune_result unreachable, near;
	int err;

	cr_assert_not_null(model);
	err = picard_tune(model, &opt, &unreachable);
	cr_assert_eq(err, PICARD_ENOTFOUND, "picard_tune returned %d", err);
	cr_assert(isfinite(unreachable.best_error) && unreachable.best_error > 0);
	cr_expect_null(unreachable.refused_by, "E > E*, yet refused by: %s",
		       unreachable.refused_by);
	opt.tol = unreachable.best_error / 0.9;
	err = picard_tune(model, &opt, &near);
	cr_assert_eq(err, PICARD_ENOTFOUND, "E* = %.17g: picard_tune returned %d", opt.tol, err);
	/* the same points; the reference, drawn to 5% of E*, differs a little */
	cr_expect_lt(fabs(near.best_error - unreachable.best_error), 1e-6 * near.best_error,
		     "%.17g, then %.17g", unreachable.best_error, near.best_error);
	cr_expect_eq(near.refused_error, near.best_error);
	cr_assert_not_null(near.refused_by, "E = 0.9 E* refused by no rule");
	cr_expect_not_null(strstr(near.refused_by, "0.8 of E*"), "%s", near.refused_by);
}

Test(tune, search_rejects_bad_options)
{
	const picard_model *model = picard_model_find("decay");
	picard_tune_options opt = {.backend = PICARD_BACKEND_CPU};
	picard_tune_result res;

	cr_assert_not_null(model);
	cr_expect_eq(picard_tune(model, &opt, &res), PICARD_EINVAL, "tol 0");
	opt.tol = 1e-3;
	cr_expect_eq(picard_tune(NULL, &opt, &res), PICARD_EINVAL);
	cr_expect_eq(picard_tune(model, NULL, &res), PICARD_EINVAL);
	cr_expect_eq(picard_tune(model, &opt, NULL), PICARD_EINVAL);
	opt.nms = 1;
	opt.ms[0] = 1;
	cr_expect_eq(picard_tune(model, &opt, &res), PICARD_EINVAL, "m = 1");
}

/* What on_point and on_candidate saw of a search: the smallest E measured
 * at each m, and each m's report. */
struct candidate_log {
	int ms[PICARD_TUNE_MAX_M];     /* the m reported, in order */
	picard_tune_point reported[PICARD_TUNE_MAX_M];
	int nreported;
	double smallest[PICARD_TUNE_MAX_M]; /* by m's slot, from on_point */
	int slot_of_m[64];             /* m -> slot (m < 64) */
};

static void log_point(const picard_tune_point *p, void *ctx)
{
	struct candidate_log *log = ctx;
	double *smallest = &log->smallest[log->slot_of_m[p->m]];

	if (p->seconds == 0) /* measured, not yet costed */
		*smallest = fmin(*smallest, p->error);
}

static void log_candidate(const picard_tune_point *p, void *ctx)
{
	struct candidate_log *log = ctx;

	cr_assert_lt(log->nreported, PICARD_TUNE_MAX_M);
	log->ms[log->nreported] = p->m;
	log->reported[log->nreported++] = *p;
}

/* Issue 35 (picard-tune's progress): on_candidate reports each m once when
 * it is done, in order, with its fastest point (the result's per_m) or,
 * where none met E*, the smallest E measured there (what on_point saw).
 * decay in double, K <= 2, at most 20 windows: 1e-4 is out of reach (the
 * smallest E is 8.3e-3); 1e-1 is met at m = 4 (m = 8 may stop short of
 * it where it cannot be faster: reported as none, with its smallest E). */
Test(tune, candidates_reported_with_their_smallest_error)
{
	const picard_model *model = picard_model_find("decay");
	const double tols[] = {1e-4, 1e-1};

	cr_assert_not_null(model);
	for (int t = 0; t < 2; t++) {
		struct candidate_log log = {.nreported = 0};
		int meeting = 0;
		picard_tune_options opt = {
			.tol = tols[t], .precision = PICARD_DOUBLE, .backend = PICARD_BACKEND_CPU,
			.ntraj = 8, .sample = 8, .kmax = 2, .nms = 2, .ms = {4, 8},
			.repeats = 1, .max_windows = 20,
			.on_point = log_point, .on_candidate = log_candidate, .ctx = &log,
		};
		picard_tune_result res;
		int err;

		log.slot_of_m[4] = 0;
		log.slot_of_m[8] = 1;
		log.smallest[0] = log.smallest[1] = INFINITY;
		err = picard_tune(model, &opt, &res);
		cr_assert_eq(err, t == 0 ? PICARD_ENOTFOUND : 0, "tol %g: %s", tols[t],
			     picard_error_detail());
		cr_assert_eq(log.nreported, 2, "%d reported", log.nreported);
		cr_expect_eq(res.nm, 2);
		for (int i = 0; i < 2; i++) {
			const picard_tune_point *p = &log.reported[i];

			cr_expect_eq(log.ms[i], opt.ms[i]);
			meeting += p->meets;
			cr_expect_eq(p->meets, res.per_m[i].meets, "m = %d", p->m);
			if (p->meets) {
				cr_expect_eq(p->seconds, res.per_m[i].seconds, "m = %d", p->m);
				cr_expect_leq(p->error, 0.8 * tols[t], "m = %d", p->m);
			} else {
				cr_expect(isfinite(p->error), "m = %d", p->m);
				cr_expect_eq(p->error, log.smallest[i], "m = %d: reported E %g, "
					     "smallest measured %g", p->m, p->error, log.smallest[i]);
			}
		}
		cr_expect(t == 0 ? meeting == 0 : log.reported[0].meets, "tol %g: %d meet", tols[t],
			  meeting);
		cr_expect(!res.stopped);
	}
}

/* seconds_limit: so small a limit (1 ns) that the search measures no
 * point: nothing found, stopped said, no candidate reported; the same
 * search without it meets E*. A negative limit is refused. */
Test(tune, seconds_limit_stops_the_search)
{
	const picard_model *model = picard_model_find("decay");
	struct candidate_log log = {.nreported = 0};
	picard_tune_options opt = {
		.tol = 1e-4, .precision = PICARD_DOUBLE, .backend = PICARD_BACKEND_CPU,
		.ntraj = 8, .sample = 8, .kmax = 2, .nms = 1, .ms = {4}, .repeats = 1,
		.on_candidate = log_candidate, .ctx = &log, .seconds_limit = 1e-9,
	};
	picard_tune_result res;
	int err;

	cr_assert_not_null(model);
	err = picard_tune(model, &opt, &res);
	cr_expect_eq(err, PICARD_ENOTFOUND, "%d: %s", err, picard_error_detail());
	cr_expect(res.stopped);
	cr_expect_eq(res.points, 0);
	cr_expect_eq(res.nm, 0);
	cr_expect_eq(log.nreported, 0);
	opt.seconds_limit = 0;
	err = picard_tune(model, &opt, &res);
	cr_expect_eq(err, 0, "%s", picard_error_detail());
	cr_expect(!res.stopped);
	cr_expect(res.best.meets);
	cr_expect_eq(log.nreported, 1);
	opt.seconds_limit = -1;
	cr_expect_eq(picard_tune(model, &opt, &res), PICARD_EINVAL);
}

/* A stiff model's implicit per-thread schemes: none of the cost
 * calibration's fixed-step grids (256 to 4096 steps over robertson's
 * 1e5) passes its initial layer (radau5 not-converged, rodas5p nonfinite,
 * rodas4 diverged), so their cost per evaluation is timed on adaptive
 * steps: the search finds a point that meets 1e-6, where before every
 * point was refused as uncosted and picard-run --tol said no configuration
 * met the tolerance, then ran the closest, which every member met. */
Test(tune, stiff_model_costed_on_adaptive_steps, .timeout = 120)
{
	const picard_model *model = picard_model_find("robertson");
	picard_scheme ids[PER_THREAD_MAX];
	const int nids = per_thread_schemes(PER_THREAD_STIFF, ids);

	cr_assert_not_null(model);
	for (int s = 0; s < nids; s++) {
		picard_tune_options opt = {
			.tol = 1e-6, .scheme = ids[s], .precision = PICARD_DOUBLE,
			.backend = PICARD_BACKEND_CPU, .ntraj = SEARCH_TRAJ, .sample = SEARCH_TRAJ,
			.spread = SEARCH_SPREAD, .seed = SEARCH_SEED, .repeats = 1, .quick = true,
		};
		picard_tune_result res;
		int err = picard_tune(model, &opt, &res);

		cr_log_info("%s: %s, best E %.3g at rtol %g, %ld costs timed", picard_scheme_of(ids[s])->name,
			    picard_strerror(err), res.best.error, res.best.iter_rtol, res.costs_timed);
		cr_expect_eq(err, 0, "%s: %s (%s)", picard_scheme_of(ids[s])->name, picard_strerror(err),
			     picard_error_detail());
		cr_expect(res.best.meets, "%s: no point meets 1e-6", picard_scheme_of(ids[s])->name);
	}
}
