/* diag.c - error lines of picard-run (see diag.h). */
#include <stdarg.h>
#include <stdio.h>

#include "picard.h"
#include "diag.h"

int cli_error(int err, const char *fmt, ...)
{
	va_list ap;

	fputs("picard-run: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return err;
}

void cli_hint(const char *fmt, ...)
{
	va_list ap;

	fputs("hint: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_library_error(int err)
{
	const char *detail = picard_error_detail();

	if (detail && *detail)
		return cli_error(err, "%s: %s", picard_strerror(err), detail);
	return cli_error(err, "%s", picard_strerror(err));
}
