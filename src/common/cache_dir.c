/* cache_dir.c - picard's cache directory and the file operations on it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache_dir.h"
#include "errors.h"

int picard_cache_dir(char *buf, size_t len)
{
	const char *dir = getenv("PICARD_CACHE_DIR");
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	int n;

	if (!buf || !len)
		return picard_fail(PICARD_EINVAL, "cache directory: no buffer");
	if (dir && *dir)
		n = snprintf(buf, len, "%s", dir);
	else if (xdg && xdg[0] == '/')
		n = snprintf(buf, len, "%s/picard", xdg);
	else if (home && *home)
		n = snprintf(buf, len, "%s/.cache/picard", home);
	else
		return picard_fail(PICARD_EINVAL, "cache: neither PICARD_CACHE_DIR, "
				   "XDG_CACHE_HOME nor HOME is set");
	if (n < 0 || (size_t)n >= len)
		return picard_fail(PICARD_EINVAL, "cache directory longer than %zu bytes", len);
	return PICARD_OK;
}

int picard_jit_cache_dir(char *buf, size_t len)
{
	const char *dir = getenv("PICARD_JIT_CACHE_DIR");

	if (!dir || !*dir)
		return picard_cache_dir(buf, len);
	if (!buf || snprintf(buf, len, "%s", dir) >= (int)len)
		return picard_fail(PICARD_EINVAL, "PICARD_JIT_CACHE_DIR longer than %zu bytes", len);
	return PICARD_OK;
}

int picard_make_dirs(const char *path)
{
	char dir[4096];
	size_t n = strlen(path);

	if (n >= sizeof(dir))
		return picard_fail(PICARD_EIO, "cache: path longer than %zu bytes", sizeof(dir));
	memcpy(dir, path, n + 1);
	for (char *c = dir + 1; ; c++) {
		char saved = *c;

		if (saved && saved != '/')
			continue;
		*c = '\0';
		if (mkdir(dir, 0777) != 0 && errno != EEXIST)
			return picard_fail(PICARD_EIO, "cache: cannot create %s: %s", dir,
					   strerror(errno));
		*c = saved;
		if (!saved)
			return PICARD_OK;
	}
}

int picard_write_atomic(const char *path, const void *data, size_t len)
{
	char tmp[4200];
	FILE *f;
	int ok;

	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
	f = fopen(tmp, "wb");
	if (!f)
		return picard_fail(PICARD_EIO, "cache: cannot write %s: %s", tmp, strerror(errno));
	ok = fwrite(data, 1, len, f) == len;
	ok = (fclose(f) == 0) && ok;
	if (!ok || rename(tmp, path) != 0) {
		int e = errno;

		remove(tmp);
		return picard_fail(PICARD_EIO, "cache: cannot write %s: %s", path, strerror(e));
	}
	return PICARD_OK;
}

int picard_read_file(const char *path, char **data, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t size = 0, cap = 0, got;

	if (!f)
		return picard_fail(PICARD_EIO, "cannot open %s: %s", path, strerror(errno));
	do {
		if (size + 65536 + 1 > cap) {
			char *grown = realloc(buf, cap = 2 * cap + 65536 + 1);

			if (!grown) {
				free(buf);
				fclose(f);
				return picard_fail(PICARD_ENOMEM, "reading %s", path);
			}
			buf = grown;
		}
		got = fread(buf + size, 1, cap - size - 1, f);
		size += got;
	} while (got > 0);
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return picard_fail(PICARD_EIO, "cannot read %s", path);
	}
	fclose(f);
	buf[size] = '\0';
	*data = buf;
	if (len)
		*len = size;
	return PICARD_OK;
}
