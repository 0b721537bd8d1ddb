/* errors.c - error messages from the one PICARD_ERRORS list. */
#include <stdarg.h>
#include <stdio.h>

#include "errors.h"

/* large enough for a compiler's messages on a model file (src/model/jit.c) */
static _Thread_local char detail[8192];

const char *picard_strerror(int err)
{
	switch (err) {
#define PICARD_ERROR_CASE(name, code, msg) case code: return msg;
		PICARD_ERRORS(PICARD_ERROR_CASE)
#undef PICARD_ERROR_CASE
	}
	return "unknown error";
}

const char *picard_error_detail(void)
{
	return detail;
}

int picard_fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	return err;
}
