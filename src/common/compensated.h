/* compensated.h - the window-start state of float solves as an unevaluated
 * sum hi + lo, shared by the kernels and the CPU backend so both round
 * alike.
 *
 * Each window adds its increment to the window start, and in float each
 * addition rounds. Kahan's remedy: keep what each addition lost (lo) and
 * carry it into the next window's increment. A window's sums start at lo
 * instead of 0 (the same number of operations), and its end is hi + d, d
 * the increment including lo, split exactly by Knuth's TwoSum into the new
 * hi = fl(hi + d), which is the state the kernels already computed, and
 * the new lo, the rounding error. TwoSum is additions only; the one fused
 * multiply-add (the step's rounding, below) is fmaf on both sides.
 *
 * The larger float error of the trapezoid scheme was its rounded step,
 * which shifts time itself (see picard_rounding_ratio_float): on the
 * oscillator over 318 periods, float against double, 8.9e-5 uncompensated,
 * 8.6e-5 with TwoSum alone, 4.6e-6 with the step's rounding carried too
 * (tests/test_compensated.c).
 *
 * Double solves keep lo = 0 (their kernels take the window end without a
 * kept sum: no registers spent on a rounding of 1e-13 over 10^4 windows).
 * Their trapezoid nodes are x_w + (the window's sum) like float's, no
 * longer a running sum: the same on the CPU and the GPU. */
#ifndef PICARD_COMPENSATED_H
#define PICARD_COMPENSATED_H

#include <math.h>

#include "convergence.h" /* PICARD_HOST_DEVICE */

/* The relative error of a step length once rounded to float,
 * (exact - fl(exact)) / fl(exact). Every window multiplies by the same
 * rounded length, so its rounding is no noise that averages out: over W
 * windows it shifts time itself by up to W eps/2 of a window (a phase
 * error of 1e-4 on an orbit of 318 periods). A window's increment d,
 * computed with the rounded length, times this ratio is what the exact
 * length would have added; it goes into lo. Double solves take 0. */
static inline PICARD_HOST_DEVICE float picard_rounding_ratio_float(double exact)
{
	const float rounded = (float)exact;

	return rounded == 0 ? 0 : (float)((exact - (double)rounded) / (double)rounded);
}

static inline PICARD_HOST_DEVICE double picard_rounding_ratio_double(double exact)
{
	(void)exact;
	return 0;
}

/* hi + d (1 + ratio) = new hi + new lo: hi + d split exactly (TwoSum, any
 * magnitudes), plus d ratio, correctly rounded by fmaf on both sides. */
static inline PICARD_HOST_DEVICE void picard_window_advance_float(float *hi, float *lo, float d,
								  float ratio)
{
	const float s = *hi + d;
	const float d_part = s - *hi;

	*lo = fmaf(d, ratio, (*hi - (s - d_part)) + (d - d_part));
	*hi = s;
}

/* Double: uncompensated, lo stays 0. */
static inline PICARD_HOST_DEVICE void picard_window_advance_double(double *hi, double *lo,
								   double d, double ratio)
{
	(void)ratio;
	*hi += d;
	*lo = 0;
}

#ifdef __cplusplus
static inline PICARD_HOST_DEVICE void picard_window_advance(float *hi, float *lo, float d,
							    float ratio)
{
	picard_window_advance_float(hi, lo, d, ratio);
}

static inline PICARD_HOST_DEVICE void picard_window_advance(double *hi, double *lo, double d,
							    double ratio)
{
	picard_window_advance_double(hi, lo, d, ratio);
}

/* Whether solves in real carry lo: a kernel may take the double window end
 * the shorter way (no sum kept across its sweeps, no registers spent). */
template <typename real> constexpr bool picard_compensated = sizeof(real) == sizeof(float);

template <typename real> PICARD_HOST_DEVICE real picard_rounding_ratio(double exact);
template <> inline PICARD_HOST_DEVICE float picard_rounding_ratio<float>(double exact)
{
	return picard_rounding_ratio_float(exact);
}
template <> inline PICARD_HOST_DEVICE double picard_rounding_ratio<double>(double exact)
{
	return picard_rounding_ratio_double(exact);
}
#endif

#endif
