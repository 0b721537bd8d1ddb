/* scaled_error.h - one component's error under (atol, rtol), the same bits
 * on the host (src/solve/tolerance.c) and on the device (src/backend/cuda/device_io.cu,
 * the error estimate's comparison): the scale's multiply and add rounded
 * each as the host does (PICARD_ADD_RN, portable.h). */
#ifndef PICARD_SCALED_ERROR_H
#define PICARD_SCALED_ERROR_H

#include <math.h>
#include <stdbool.h>

#include "portable.h"

/* |x - ref| over atol + rtol |ref| (over 1 where absolute); +Inf where x
 * is not finite, or where the scale is zero (atol 0, ref 0) and x differs:
 * only an exact match meets a zero scale. */
static inline __host__ __device__ double picard_component_error(double atol, double rtol,
								 bool absolute, double x,
								 double ref)
{
	const double diff = fabs(x - ref);
	const double scale = absolute ? 1 : PICARD_ADD_RN(atol, PICARD_MUL_RN(rtol, fabs(ref)));

	if (!isfinite(x))
		return INFINITY;
	return scale > 0 ? diff / scale : diff == 0 ? 0 : INFINITY;
}

#endif
