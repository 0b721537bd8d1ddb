/* linsolve.c - what every linear solver shares (linsolve.h): the
 * messages of their codes, and the residual they stop on. */
#include <math.h>

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

double picard_relative_residual(int n, const double *r, const double *m_y)
{
	double res = 0, norm = 0;

	for (int i = 0; i < n; i++) {
		res += (r[i] - m_y[i]) * (r[i] - m_y[i]);
		norm += r[i] * r[i];
	}
	return norm > 0 ? sqrt(res / norm) : sqrt(res);
}
