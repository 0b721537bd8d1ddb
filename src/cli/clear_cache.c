/* clear_cache.c - picard-run --clear-cache (see clear_cache.h). Only the
 * files and folders picard itself writes are removed, each by its name,
 * so a cache directory shared with other files (PICARD_CACHE_DIR set to
 * one) keeps them. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <errno.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cache_dir.h"
#include "clear_cache.h"
#include "diag.h"
#include "picard.h"

/* One part of the caches: a file or a folder in one of the directories. */
struct cache_part {
	const char *name; /* its file or folder name there */
	bool jit;         /* under picard_jit_cache_dir(), else picard_cache_dir() */
	const char *what; /* what it holds, as said */
};

static const struct cache_part parts[] = {
	{"kernels", true, "the kernel cache: kernels NVRTC compiled"},
	{"models", true, "model files compiled by the host compiler"},
	{"include", true, "picard's headers for the host compiler"},
	{"tune.txt", false, "the tuning cache: picard-tune's entries, the costs per evaluation"},
	{"tune.txt.lock", false, "the tuning cache's lock"},
	{"decisions", false, "the quick search decisions"},
};

static long removed;      /* files removed by remove_entry */
static int remove_errno;  /* the first error of a removal, or 0 */
static char failed[4200]; /* the path it failed on */

/* nftw's callback: remove path (a folder after what it holds). */
static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	if (remove(path) != 0) {
		remove_errno = errno;
		snprintf(failed, sizeof(failed), "%s", path);
		return 1;
	}
	if (flag != FTW_DP && !S_ISDIR(st->st_mode))
		removed++;
	return 0;
}

int clear_caches(FILE *out)
{
	char dirs[2][4096], path[4200];
	struct stat st;
	int err = picard_cache_dir(dirs[0], sizeof(dirs[0]));

	if (!err)
		err = picard_jit_cache_dir(dirs[1], sizeof(dirs[1]));
	if (err)
		return cli_library_error(err);
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dirs[parts[i].jit], parts[i].name);
		if (lstat(path, &st) != 0) {
			fprintf(out, "%-9s %s (%s)\n", "absent", path, parts[i].what);
			continue;
		}
		removed = 0;
		remove_errno = 0;
		if (nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
			return cli_error(CLI_EXIT_FAILED, "--clear-cache: cannot remove %s: %s",
					 failed[0] ? failed : path, strerror(remove_errno ? remove_errno : errno));
		fprintf(out, "%-9s %s (%s; %ld file%s)\n", "removed", path, parts[i].what, removed,
			removed == 1 ? "" : "s");
	}
	return 0;
}
