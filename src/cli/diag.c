/* diag.c - error lines of the picard programs (see diag.h). */
#include <stdarg.h>
#include <stdio.h>

#include "picard.h"
#include "diag.h"

static const char *program = "picard-run"; /* prefix of error lines */

void cli_set_program(const char *name)
{
	program = name;
}

int cli_error(int err, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", program);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return err;
}

void cli_warning(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: warning: ", program);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
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
