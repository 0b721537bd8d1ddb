/* cli_files.c - see cli_files.h. */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_files.h"
#include "support.h"

long count_lines(const char *text)
{
	long lines = 0;

	for (; *text; text++)
		lines += *text == '\n';
	return lines;
}

void nth_line(const char *text, long lineno, char *buf, size_t len)
{
	const char *end;

	for (long i = 0; i < lineno && text; i++) {
		text = strchr(text, '\n');
		text = text ? text + 1 : NULL;
	}
	cr_assert(text && *text, "no line %ld", lineno);
	end = strchr(text, '\n');
	snprintf(buf, len, "%.*s", (int)(end ? end - text : (long)strlen(text)), text);
}

void read_saved_csv(const char *path, long ntimes, long ntraj, int n, double *times, double *x)
{
	char *csv = slurp(path, NULL), row[512], header[128] = "t,traj,status";
	long traj;
	int used;

	for (int k = 0; k < n; k++)
		snprintf(header + strlen(header), sizeof(header) - strlen(header), ",x%d", k + 1);
	cr_assert_eq(count_lines(csv), 1 + ntimes * ntraj, "rows:\n%s", csv);
	nth_line(csv, 0, row, sizeof(row));
	cr_expect_str_eq(row, header);
	for (long r = 0; r < ntimes; r++)
		for (long i = 0; i < ntraj; i++) {
			const char *at = row;

			nth_line(csv, 1 + r * ntraj + i, row, sizeof(row));
			cr_assert_eq(sscanf(at, "%lf,%ld,ok%n", &times[r], &traj, &used), 2,
				     "row '%s'", row);
			cr_expect_eq(traj, i, "row '%s'", row);
			at += used;
			for (int k = 0; k < n; k++) {
				cr_assert_eq(sscanf(at, ",%lf%n", &x[(r * ntraj + i) * n + k], &used),
					     1, "row '%s'", row);
				at += used;
			}
		}
	free(csv);
}

void read_final_csv(const char *path, long ntraj, int n, double *x)
{
	char *csv = slurp(path, NULL), row[512];
	int used;

	cr_assert_eq(count_lines(csv), 1 + ntraj, "rows:\n%s", csv);
	for (long i = 0; i < ntraj; i++) {
		const char *at = row;

		nth_line(csv, 1 + i, row, sizeof(row));
		cr_assert_eq(sscanf(at, "%*d,ok%n", &used), 0, "row '%s'", row);
		at += used;
		for (int k = 0; k < n; k++) {
			cr_assert_eq(sscanf(at, ",%lf%n", &x[i * n + k], &used), 1, "row '%s'", row);
			at += used;
		}
	}
	free(csv);
}

void read_npy(const char *path, const char *shape, size_t values, double *data)
{
	size_t size, header_len;
	char *npy = slurp(path, &size);
	char *dict, want[64];

	cr_assert(size > 10, "%s: %zu bytes", path, size);
	cr_expect_eq(memcmp(npy, "\x93NUMPY\x01\x00", 8), 0, "bad magic or version");
	header_len = (unsigned char)npy[8] | (size_t)(unsigned char)npy[9] << 8;
	cr_expect_eq((10 + header_len) % 64, 0, "header of %zu bytes", header_len);
	cr_expect_eq(npy[10 + header_len - 1], '\n', "header does not end in a newline");
	dict = strndup(npy + 10, header_len);
	snprintf(want, sizeof(want), "'shape': %s", shape);
	cr_expect_not_null(strstr(dict, "'descr': '<f8'"), "%s", dict);
	cr_expect_not_null(strstr(dict, "'fortran_order': False"), "%s", dict);
	cr_expect_not_null(strstr(dict, want), "%s lacks %s", dict, want);
	cr_assert_eq(size, 10 + header_len + 8 * values, "file of %zu bytes", size);
	memcpy(data, npy + 10 + header_len, 8 * values); /* little-endian host */
	free(dict);
	free(npy);
}
