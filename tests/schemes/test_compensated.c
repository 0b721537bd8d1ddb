/* test_compensated.c - float solves hold float's precision over long spans
 * (src/common/compensated.h): the harmonic oscillator over 318 periods in 28,571
 * (trapezoid) or 40,000 (lobatto) windows, in float and in double on the
 * same grid, with K = 12 sweeps (converged: the iteration's own error,
 * which adaptive sweeps leave at their stopping tolerance, stays out). The
 * scheme's error is the same in both, so their difference is float's
 * rounding alone.
 *
 * Suite compensated runs on the CPU backend; gpu::compensated_every_kernel
 * runs every layout of both schemes on the CUDA one.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdlib.h>

#include "picard.h"
#include "support.h"

#define LONG_SPAN 2000.0 /* oscillator, omega = 1: 318 periods */
/* |float - double| at t = 2000 (amplitude 1), largest over the components,
 * measured on the CPU backend (2026-11-24), without the compensation,
 * with the window start's TwoSum alone, and with the step's rounding
 * carried too: trapezoid 8.9e-5, 8.6e-5, 4.6e-6 (the rounded step shifts
 * time itself); lobatto 1.4e-6, 2.0e-6, 2.0e-6 (its float error stays
 * near float's epsilon either way: that case checks that the compensation
 * costs it nothing). The bound sits between: the trapezoid fails it
 * without the compensation. */
#define FLOAT_LONG_SPAN_BOUND 1e-5

/* Where and how a solve runs. */
struct kernel {
	picard_scheme scheme;
	picard_backend backend;
	picard_layout layout;
	picard_scan scan;
};

/* One solve of the oscillator over LONG_SPAN, end state into x. */
static void solve_long(const struct kernel *kern, picard_precision precision, double *x)
{
	const picard_model *model = test_model("oscillator");
	picard_options opt = {
		.scheme = kern->scheme, .m = 8, .K = 12, .t0 = 0, .t1 = LONG_SPAN,
		.precision = precision, .backend = kern->backend, .layout = kern->layout,
		.scan = kern->scan,
	};
	picard_traj_status status;
	picard_solver *solver;
	int err;

	if (kern->scheme == PICARD_SCHEME_TRAPEZOID)
		opt.h = 0.01;      /* 28,571 windows */
	else
		opt.window = 0.05; /* 40,000 windows, lobatto's error ~1e-15 */
	solver = test_solver(model, &opt, 1);
	cr_assert_gt(picard_solver_grid(solver)->windows, 20000, "too few windows: %ld",
		     picard_solver_grid(solver)->windows);
	err = picard_solve(solver, model->x0, NULL, x, &status, NULL, NULL, 0, NULL);
	cr_assert_eq(err, 0, "solve: %s (%s)", picard_strerror(err), picard_error_detail());
	cr_assert_eq(status, PICARD_TRAJ_OK, "status %s", picard_traj_status_name(status));
	picard_solver_free(solver);
}

/* Float against double on one grid and kernel. */
static void expect_float_holds(const struct kernel *kern)
{
	const char *scheme = kern->scheme == PICARD_SCHEME_LOBATTO ? "lobatto" : "trapezoid";
	double single[2], twice[2], diff = 0;

	solve_long(kern, PICARD_FLOAT, single);
	solve_long(kern, PICARD_DOUBLE, twice);
	for (int k = 0; k < 2; k++)
		diff = fmax(diff, fabs(single[k] - twice[k]));
	cr_log_info("%s, %s layout, %s scan: |float - double| = %.3g after t = %.0f", scheme,
		    picard_layout_name(kern->layout), picard_scan_name(kern->scan), diff,
		    LONG_SPAN);
	cr_expect_leq(diff, FLOAT_LONG_SPAN_BOUND,
		      "%s (%s layout, %s scan): float is %.3g off double after t = %g (bound %g)",
		      scheme, picard_layout_name(kern->layout), picard_scan_name(kern->scan),
		      diff, LONG_SPAN, FLOAT_LONG_SPAN_BOUND);
	cr_expect_gt(diff, 0, "float identical to double: was float used?");
}

#define TRAPEZOID PICARD_SCHEME_TRAPEZOID
#define LOBATTO PICARD_SCHEME_LOBATTO
#define CUDA PICARD_BACKEND_CUDA

Test(compensated, trapezoid_float_holds_over_long_spans)
{
	expect_float_holds(&(struct kernel){ .scheme = TRAPEZOID, .backend = PICARD_BACKEND_CPU });
}

Test(compensated, lobatto_float_holds_over_long_spans)
{
	expect_float_holds(&(struct kernel){ .scheme = LOBATTO, .backend = PICARD_BACKEND_CPU });
}

/* Every kernel: the trapezoid's paper, warp (both prefix sums) and thread
 * layouts, lobatto's warp and thread layouts. */
Test(gpu, compensated_every_kernel)
{
	const struct kernel kernels[] = {
		{ .scheme = TRAPEZOID, .backend = CUDA, .layout = PICARD_LAYOUT_PAPER },
		{ .scheme = TRAPEZOID, .backend = CUDA, .layout = PICARD_LAYOUT_WARP,
		  .scan = PICARD_SCAN_SERIAL },
		{ .scheme = TRAPEZOID, .backend = CUDA, .layout = PICARD_LAYOUT_WARP,
		  .scan = PICARD_SCAN_PARALLEL },
		{ .scheme = TRAPEZOID, .backend = CUDA, .layout = PICARD_LAYOUT_THREAD },
		{ .scheme = LOBATTO, .backend = CUDA, .layout = PICARD_LAYOUT_WARP },
		{ .scheme = LOBATTO, .backend = CUDA, .layout = PICARD_LAYOUT_THREAD },
	};

	require_gpu();
	for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
		expect_float_holds(&kernels[i]);
}
