/* test_layout.c - the layout options without a device (suite layout): names,
 * what picard_solver_create refuses with which message, what the grid
 * records on the CPU backend, and the tuning cache's layout fields (an
 * entry without them, written by an older picard, still loads). The GPU
 * side (every layout against the CPU backend) is in test_gpu.c. */
#define _DEFAULT_SOURCE /* mkdtemp, setenv */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "picard.h"

/* A solver of lotka on the CPU backend with opt's layout fields; its error
 * code, and the detail into detail. */
static int create_cpu(picard_options opt, char *detail, size_t len,
		      picard_grid *grid)
{
	const picard_model *lotka = picard_model_find("lotka");
	picard_solver *solver = NULL;
	int err;

	cr_assert_not_null(lotka, "model lotka is not registered");
	opt.backend = PICARD_BACKEND_CPU;
	err = picard_solver_create(&solver, lotka, &opt, 8);
	snprintf(detail, len, "%s", picard_error_detail());
	if (!err) {
		if (grid)
			*grid = *picard_solver_grid(solver);
		picard_solver_free(solver);
	} else {
		cr_expect_null(solver, "a refused solver must be NULL");
	}
	return err;
}

/* opt is refused with err, and the detail mentions each of the needles. */
static void expect_refused(picard_options opt, int want, const char *needle,
			   const char *needle2)
{
	char detail[512];
	int err = create_cpu(opt, detail, sizeof(detail), NULL);

	cr_expect_eq(err, want, "layout %d m %d tpb %d scan %d: got %s (%s)", (int)opt.layout,
		     opt.m, opt.traj_per_block, (int)opt.scan, picard_strerror(err), detail);
	cr_expect_not_null(strstr(detail, needle), "detail '%s' does not mention '%s'",
			   detail, needle);
	if (needle2)
		cr_expect_not_null(strstr(detail, needle2), "detail '%s' does not mention '%s'",
				   detail, needle2);
}

Test(layout, names)
{
	const char *names[] = { "auto", "paper", "warp", "thread" };

	for (int i = 0; i < 4; i++) {
		cr_expect_str_eq(picard_layout_name((picard_layout)i), names[i]);
		cr_expect_eq(picard_layout_parse(names[i]), i);
	}
	cr_expect_null(picard_layout_name((picard_layout)4));
	cr_expect_null(picard_layout_name((picard_layout)-1));
	cr_expect_eq(picard_layout_parse("Warp"), -1);
	cr_expect_eq(picard_layout_parse(""), -1);
	cr_expect_eq(picard_layout_parse(NULL), -1);
	cr_expect_str_eq(picard_scan_name(PICARD_SCAN_PARALLEL), "parallel");
	cr_expect_str_eq(picard_scan_name(PICARD_SCAN_SERIAL), "serial");
	cr_expect_null(picard_scan_name((picard_scan)3));
}

/* The warp and thread layouts hold a window in a warp's lanes or one
 * thread's registers: m <= 32, refused past it with a message that says
 * why and what to use instead, on any backend. */
Test(layout, m_over_32_refused)
{
	picard_options opt = { .m = 33, .layout = PICARD_LAYOUT_WARP };

	expect_refused(opt, PICARD_EINVAL, "warp layout with m = 33", "at most m = 32");
	opt.layout = PICARD_LAYOUT_THREAD;
	opt.m = 64;
	expect_refused(opt, PICARD_EINVAL, "thread layout with m = 64", "auto picks a layout");
	opt.layout = PICARD_LAYOUT_PAPER; /* the paper's layout takes any m */
	cr_expect_eq(create_cpu(opt, (char[512]){0}, 512, NULL), PICARD_OK);
	opt.layout = PICARD_LAYOUT_AUTO;
	cr_expect_eq(create_cpu(opt, (char[512]){0}, 512, NULL), PICARD_OK);
	opt.layout = PICARD_LAYOUT_WARP;
	opt.m = 32;
	cr_expect_eq(create_cpu(opt, (char[512]){0}, 512, NULL), PICARD_OK);
	opt.m = 2;
	cr_expect_eq(create_cpu(opt, (char[512]){0}, 512, NULL), PICARD_OK);
}

Test(layout, bad_values_refused)
{
	picard_options opt = { .layout = (picard_layout)4 };

	expect_refused(opt, PICARD_EINVAL, "layout 4 unknown", NULL);
	opt = (picard_options){ .scan = (picard_scan)7 };
	expect_refused(opt, PICARD_EINVAL, "scan 7 unknown", NULL);
	opt = (picard_options){ .traj_per_block = -1, .layout = PICARD_LAYOUT_WARP };
	expect_refused(opt, PICARD_EINVAL, "traj_per_block = -1", NULL);
	opt = (picard_options){ .traj_per_block = 4, .layout = PICARD_LAYOUT_PAPER };
	expect_refused(opt, PICARD_EINVAL, "one trajectory per block", NULL);
	opt = (picard_options){ .scan = PICARD_SCAN_SERIAL, .layout = PICARD_LAYOUT_THREAD };
	expect_refused(opt, PICARD_EINVAL, "only the warp layout", NULL);
	opt = (picard_options){ .scan = PICARD_SCAN_PARALLEL, .layout = PICARD_LAYOUT_PAPER };
	expect_refused(opt, PICARD_EINVAL, "only the warp layout", NULL);
}

/* A block holds at most 1024 threads: the warp layout's G lanes per
 * trajectory count. */
Test(layout, block_over_1024_refused)
{
	picard_options opt = { .m = 32, .layout = PICARD_LAYOUT_WARP, .traj_per_block = 33 };

	expect_refused(opt, PICARD_EBLOCK, "traj_per_block = 33 with 32 threads", "1024");
	opt.traj_per_block = 32;
	cr_expect_eq(create_cpu(opt, (char[512]){0}, 512, NULL), PICARD_OK);
	opt.m = 5; /* G = 8 */
	opt.traj_per_block = 129;
	expect_refused(opt, PICARD_EBLOCK, "129 with 8 threads", NULL);
	opt = (picard_options){ .layout = PICARD_LAYOUT_THREAD, .traj_per_block = 1025 };
	expect_refused(opt, PICARD_EBLOCK, "1025 with 1 thread", NULL);
	opt.traj_per_block = 1024;
	cr_expect_eq(create_cpu(opt, (char[512]){0}, 512, NULL), PICARD_OK);
}

/* The CPU backend has one algorithm: it accepts any valid layout, and its
 * grid keeps what was asked. */
/* The lobatto scheme: the warp layout (shaped by the ensemble) or the
 * thread layout, m <= 16; the paper layout only with windows in flight
 * (block > 1); no scan or trajectories per block of its warp layout. */
Test(layout, lobatto_layouts)
{
	picard_options opt = { .scheme = PICARD_SCHEME_LOBATTO, .m = 8 };
	char detail[512];
	picard_grid grid;

	opt.layout = PICARD_LAYOUT_PAPER;
	expect_refused(opt, PICARD_EINVAL, "layout paper with block 1", "windows in flight");
	opt.layout = PICARD_LAYOUT_WARP;
	opt.traj_per_block = 4;
	expect_refused(opt, PICARD_EINVAL, "trajectories per block of the warp", NULL);
	opt = (picard_options){ .scheme = PICARD_SCHEME_LOBATTO, .m = 8,
				.scan = PICARD_SCAN_SERIAL };
	expect_refused(opt, PICARD_EINVAL, "scan", NULL);
	opt = (picard_options){ .scheme = PICARD_SCHEME_LOBATTO, .layout = PICARD_LAYOUT_THREAD,
				.m = PICARD_LOBATTO_THREAD_MAX_M + 1 };
	expect_refused(opt, PICARD_EINVAL, "lobatto thread layout with m = 17", "at most m = 16");
	opt.m = PICARD_LOBATTO_THREAD_MAX_M;
	opt.traj_per_block = 64;
	cr_assert_eq(create_cpu(opt, detail, sizeof(detail), &grid), PICARD_OK, "%s", detail);
	cr_expect_eq(grid.layout, PICARD_LAYOUT_THREAD);
	cr_expect_eq(grid.traj_per_block, 64);
	opt = (picard_options){ .scheme = PICARD_SCHEME_LOBATTO, .layout = PICARD_LAYOUT_WARP,
				.m = 32 };
	cr_expect_eq(create_cpu(opt, detail, sizeof(detail), NULL), PICARD_OK, "%s", detail);
}

Test(layout, cpu_grid_keeps_request)
{
	picard_options opt = { .m = 8, .layout = PICARD_LAYOUT_WARP, .traj_per_block = 3,
			       .scan = PICARD_SCAN_SERIAL };
	picard_grid grid;
	char detail[512];

	cr_assert_eq(create_cpu(opt, detail, sizeof(detail), &grid), PICARD_OK, "%s", detail);
	cr_expect_eq(grid.layout, PICARD_LAYOUT_WARP);
	cr_expect_eq(grid.traj_per_block, 3);
	cr_expect_eq(grid.scan, PICARD_SCAN_SERIAL);
	opt = (picard_options){ 0 };
	cr_assert_eq(create_cpu(opt, detail, sizeof(detail), &grid), PICARD_OK, "%s", detail);
	cr_expect_eq(grid.layout, PICARD_LAYOUT_AUTO);
	cr_expect_eq(grid.traj_per_block, 0);
}

/* ---- the tuning cache's layout fields ------------------------------------------------------ */

static char cache_dir[64];

static void make_cache_dir(void)
{
	snprintf(cache_dir, sizeof(cache_dir), "/tmp/picard-layout-XXXXXX");
	cr_assert_not_null(mkdtemp(cache_dir), "mkdtemp");
	setenv("PICARD_CACHE_DIR", cache_dir, 1);
}

static void remove_cache_dir(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/tune.txt", cache_dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/tune.txt.lock", cache_dir);
	unlink(path);
	rmdir(cache_dir);
}

static const picard_tune_key cache_key = {
	.model = "lotka", .precision = PICARD_FLOAT, .tol = 1e-3, .t0 = 0, .t1 = 100,
	.device = "NVIDIA H100 80GB HBM3",
};

Test(layout, cache_round_trip, .init = make_cache_dir, .fini = remove_cache_dir)
{
	picard_tune_point p = { .m = 8, .K = 2, .windows = 238, .error = 8e-4,
				.h = 100.0 / (238 * 7), .seconds = 1e-3, .meets = true,
				.layout = PICARD_LAYOUT_WARP, .traj_per_block = 8 }, got;
	char path[128], line[1024];
	FILE *f;
	bool found = false;

	cr_assert_eq(picard_tune_cache_store(&cache_key, &p), 0, "%s", picard_error_detail());
	cr_assert_eq(picard_tune_cache_load(&cache_key, &got), 0, "%s", picard_error_detail());
	cr_expect_eq(got.layout, PICARD_LAYOUT_WARP);
	cr_expect_eq(got.traj_per_block, 8);
	snprintf(path, sizeof(path), "%s/tune.txt", cache_dir);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f))
		found |= strstr(line, " layout=warp traj_per_block=8 ") != NULL;
	fclose(f);
	cr_expect(found, "no layout=warp traj_per_block=8 in the cache line");
}

/* An entry written before layouts existed loads as auto, 0 per block; an
 * unknown layout name makes the line malformed (skipped, warned). */
Test(layout, cache_entry_without_layout, .init = make_cache_dir, .fini = remove_cache_dir)
{
	char path[128];
	picard_tune_point got;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tune.txt", cache_dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "model=lotka precision=float tol=0.001 t0=0 t1=100 "
		   "device=\"NVIDIA H100 80GB HBM3\" build=%s m=8 K=2 h=%.17g windows=238 "
		   "E=0.0008 seconds=0.001 date=2026-11-23T00:00:00Z\n",
		picard_build_id(), 100.0 / (238 * 7));
	fclose(f);
	memset(&got, 0xff, sizeof(got));
	cr_assert_eq(picard_tune_cache_load(&cache_key, &got), 0, "%s", picard_error_detail());
	cr_expect_eq(got.m, 8);
	cr_expect_eq(got.layout, PICARD_LAYOUT_AUTO);
	cr_expect_eq(got.traj_per_block, 0);

	f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "model=lotka precision=float tol=0.001 t0=0 t1=100 "
		   "device=\"NVIDIA H100 80GB HBM3\" build=%s m=8 K=2 h=%.17g windows=238 "
		   "E=0.0008 seconds=0.001 layout=sideways traj_per_block=8 "
		   "date=2026-11-23T00:00:00Z\n",
		picard_build_id(), 100.0 / (238 * 7));
	fclose(f);
	cr_expect_eq(picard_tune_cache_load(&cache_key, &got), PICARD_ENOTFOUND,
		     "an unknown layout must not load");
}
