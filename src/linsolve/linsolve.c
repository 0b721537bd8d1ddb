/* linsolve.c - the messages of the linear solvers' codes (linsolve.h). */
#include "linsolve/linsolve.h"

const char *picard_linsolve_strerror(picard_linsolve_code code)
{
	switch (code) {
#define PICARD_LINSOLVE_MESSAGE(code, message) \
	case code:                             \
		return message;
		PICARD_LINSOLVE_CODES(PICARD_LINSOLVE_MESSAGE)
#undef PICARD_LINSOLVE_MESSAGE
	}
	return "unknown linear solver code";
}
