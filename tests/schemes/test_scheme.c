/* test_scheme.c - the Picard trapezoid scheme of the paper (equations (4)-
 * (5)) on the CPU backend, against the exact solutions of decay and
 * oscillator (suite scheme).
 *
 * What Picard theory predicts, and what is checked:
 * - With K large the sweeps reach the fixed point of the discrete window
 *   equations, which is the trapezoid rule (Crank-Nicolson) node by node;
 *   for a linear f that is known in closed form, so converged windows must
 *   agree with it to rounding, and the error against the exact solution is
 *   second order in h.
 * - Sweep i reproduces the Taylor expansion of the window to order i, as
 *   far as the trapezoid quadrature allows: K sweeps give order min(K, 2).
 *   For a linear autonomous f, K = 1 is exactly one Euler step of length
 *   H = (m-1)h per window and K = 2 the second-order Taylor step.
 * Observed orders are measured over h halved three times at fixed m; the
 * bounds were set after measuring (see ORDER_* below) and sit where a
 * scheme of the wrong order falls outside them.
 *
 * Criterion forks per test; these use the CPU backend only (no CUDA).
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "picard.h"

#define M_NODES 8          /* nodes per window in the order studies */
#define K_CONVERGED 32     /* 4m sweeps: the window iteration has converged */
#define N_HALVINGS 3       /* each study: h, h/2, h/4, h/8 */
/* Observed orders, measured in double with m = 8 over the studies below
 * (windows: coarsest grid of each): K = 32: decay (20) 2.000 2.000 2.000,
 * oscillator (40) 1.999 2.000 1.994; K = 2: decay (160) 2.034 2.017 2.008,
 * oscillator (160) 2.022 2.004 2.002; K = 1: decay (160) 1.019 1.010
 * 1.005, oscillator (2560) 1.055 1.027 1.013. Coarser grids are still
 * pre-asymptotic (K = 1 on the oscillator grows as |1 + iH| per window).
 * A scheme one order off, or a lost factor 1/2 in (4), falls outside. */
#define ORDER2_LO 1.9
#define ORDER2_HI 2.1
#define ORDER1_LO 0.9
#define ORDER1_HI 1.1

/* What one CPU solve returned: end states and every window end of every
 * trajectory (record every = 1, traj_stride = 1). */
struct run {
	const picard_model *model; /* what was integrated */
	picard_grid grid;          /* the solver's fitted grid */
	long ntraj;                /* trajectories */
	double *x_final;           /* ntraj*dim end states */
	double *ends;              /* [window][trajectory][component] */
};

static const picard_model *model_named(const char *name)
{
	const picard_model *model = picard_model_find(name);

	cr_assert_not_null(model, "model %s is not registered", name);
	return model;
}

/* Solve ntraj trajectories of model over its default span on the CPU
 * backend with m nodes, K sweeps and `windows` windows exactly. */
static void run_cpu(struct run *run, const picard_model *model, int m, int K,
		    long windows, picard_precision precision, long ntraj,
		    const double *x0, const double *params)
{
	picard_options opt = {
		.m = m, .K = K, .precision = precision,
		.h = (model->t1 - model->t0) / ((double)windows * (m - 1)),
		.backend = PICARD_BACKEND_CPU,
	};
	picard_record rec = { .every = 1, .traj_stride = 1 };
	picard_solver *solver;
	picard_stats stats;
	size_t len;
	int err;

	err = picard_solver_create(&solver, model, &opt, ntraj);
	cr_assert_eq(err, 0, "solver_create: %s (%s)", picard_strerror(err),
		     picard_error_detail());
	run->model = model;
	run->grid = *picard_solver_grid(solver);
	run->ntraj = ntraj;
	cr_assert_eq(run->grid.windows, windows, "grid has %ld windows, asked %ld",
		     run->grid.windows, windows);
	len = picard_record_size(solver, &rec);
	cr_assert_eq(len, (size_t)windows * ntraj * model->dim);
	run->ends = rec.states = malloc(len * sizeof(double));
	run->x_final = malloc(ntraj * model->dim * sizeof(double));
	cr_assert(run->ends && run->x_final);
	err = picard_solve(solver, x0, params, run->x_final, NULL, NULL, &rec, 1,
			   &stats);
	cr_assert_eq(err, 0, "solve: %s (%s)", picard_strerror(err),
		     picard_error_detail());
	cr_assert_eq(stats.backend, PICARD_BACKEND_CPU);
	picard_solver_free(solver);
}

static void run_free(struct run *run)
{
	free(run->ends);
	free(run->x_final);
}

/* Time at the end of window w of grid (picard.h, picard_grid). */
static double window_end(const picard_grid *grid, long w)
{
	return grid->t0 + (double)(w + 1) * (grid->m - 1) * grid->h;
}

/* Max over window ends and components of |x - exact| for trajectory i. */
static double traj_error(const struct run *run, long i, const double *x0,
			 const double *params)
{
	const picard_model *model = run->model;
	const int n = model->dim, np = model->nparams;
	const double *p = params ? params + i * np : model->param_defaults;
	double exact[8], error = 0;

	cr_assert_not_null(model->exact, "%s has no exact solution", model->name);
	cr_assert_leq(n, 8);
	for (long w = 0; w < run->grid.windows; w++) {
		const double *x = run->ends + (w * run->ntraj + i) * n;

		model->exact(window_end(&run->grid, w), run->grid.t0, x0 + i * n, p,
			     exact);
		for (int k = 0; k < n; k++) {
			cr_assert(isfinite(x[k]), "window %ld: x[%d] = %g", w, k, x[k]);
			error = fmax(error, fabs(x[k] - exact[k]));
		}
	}
	return error;
}

/* Error of the model's default trajectory with K sweeps, `windows` windows. */
static double default_error(const picard_model *model, int m, int K,
			    long windows, picard_precision precision, double *h)
{
	struct run run;
	double error;

	run_cpu(&run, model, m, K, windows, precision, 1, model->x0, NULL);
	error = traj_error(&run, 0, model->x0, NULL);
	*h = run.grid.h;
	run_free(&run);
	return error;
}

/* Observed orders log(E(h)/E(h/2)) / log 2 over N_HALVINGS halvings from
 * `coarse` windows, each checked against [lo, hi]. Returns the error at the
 * finest h, and that h. */
static double check_orders(const char *name, int K, picard_precision precision,
			   long coarse, double lo, double hi, double *finest_h)
{
	const picard_model *model = model_named(name);
	double error[N_HALVINGS + 1], h[N_HALVINGS + 1];

	for (int i = 0; i <= N_HALVINGS; i++)
		error[i] = default_error(model, M_NODES, K, coarse << i, precision,
					 &h[i]);
	for (int i = 0; i < N_HALVINGS; i++) {
		double order = log(error[i] / error[i + 1]) / log(h[i] / h[i + 1]);

		cr_log_info("%s K=%d h=%.4g: E=%.3e -> h=%.4g: E=%.3e, order %.3f",
			    name, K, h[i], error[i], h[i + 1], error[i + 1], order);
		cr_assert(order >= lo && order <= hi,
			  "%s, m=%d K=%d: observed order %.3f between h=%g (E=%.3e) "
			  "and h=%g (E=%.3e), expected in [%.2f, %.2f]", name,
			  M_NODES, K, order, h[i], error[i], h[i + 1], error[i + 1],
			  lo, hi);
	}
	*finest_h = h[N_HALVINGS];
	return error[N_HALVINGS];
}

/* ---- the converged scheme is the trapezoid rule ------------------------ */

/* For x' = A x the trapezoid rule steps x_{j+1} = (I - hA/2)^{-1}
 * (I + hA/2) x_j. Converged windows must match it to rounding. */
Test(scheme, converged_decay_is_trapezoid_rule)
{
	const picard_model *model = model_named("decay");
	const double lambda = model->param_defaults[0];
	const long windows = 20;
	struct run run;
	double z, step, error = 0;

	run_cpu(&run, model, M_NODES, K_CONVERGED, windows, PICARD_DOUBLE, 1,
		model->x0, NULL);
	z = lambda * run.grid.h;
	step = (1 - z / 2) / (1 + z / 2);
	for (long w = 0; w < windows; w++) {
		double expect = model->x0[0] * pow(step, (double)(w + 1) * (M_NODES - 1));

		error = fmax(error, fabs(run.ends[w] - expect));
	}
	cr_log_info("decay: converged Picard vs trapezoid rule: %.3e", error);
	cr_assert_lt(error, 1e-13, "converged windows differ from the trapezoid "
		     "rule by %.3e", error);
	run_free(&run);
}

Test(scheme, converged_oscillator_is_trapezoid_rule)
{
	const picard_model *model = model_named("oscillator");
	const double omega = model->param_defaults[0];
	const long windows = 20;
	double x[2] = { model->x0[0], model->x0[1] }, error = 0;
	struct run run;

	run_cpu(&run, model, M_NODES, K_CONVERGED, windows, PICARD_DOUBLE, 1,
		model->x0, NULL);
	/* Cayley transform of A = [0 1; -w^2 0]: (I - hA/2)^{-1} (I + hA/2). */
	const double a = run.grid.h / 2, w2 = omega * omega;
	const double det = 1 + a * a * w2;
	for (long w = 0; w < windows; w++) {
		for (int j = 0; j < M_NODES - 1; j++) {
			double y0 = x[0] + a * x[1], y1 = x[1] - a * w2 * x[0];

			x[0] = (y0 + a * y1) / det;
			x[1] = (y1 - a * w2 * y0) / det;
		}
		for (int k = 0; k < 2; k++)
			error = fmax(error, fabs(run.ends[w * 2 + k] - x[k]));
	}
	cr_log_info("oscillator: converged Picard vs trapezoid rule: %.3e", error);
	cr_assert_lt(error, 1e-12, "converged windows differ from the trapezoid "
		     "rule by %.3e", error);
	run_free(&run);
}

/* ---- K sweeps: Taylor steps of the window ------------------------------ */

/* Decay, one window of length H, z = lambda H: K = 1 gives 1 - z (Euler),
 * K = 2 gives 1 - z + z^2/2 (the trapezoid sums of constant and linear
 * slopes are exact). K = 3 integrates the quadratic x^2(t) and meets the
 * quadrature error: the trapezoid sum of t^2 over the window is
 * H^3/3 + H h^2/6, so 1 - z + z^2/2 - z^3/6 - z (lambda h)^2 / 12: the
 * h^2 term that caps the order at 2 whatever K. */
static void check_sweep_polynomial(int K, picard_precision precision, double tol)
{
	const picard_model *model = model_named("decay");
	const double lambda = model->param_defaults[0];
	const long windows = 25;
	struct run run;
	double z, step, error = 0;

	run_cpu(&run, model, M_NODES, K, windows, precision, 1, model->x0, NULL);
	z = lambda * run.grid.h * (M_NODES - 1);
	step = 1 - z;
	if (K >= 2)
		step += z * z / 2;
	if (K >= 3)
		step -= z * z * z / 6 + z * pow(lambda * run.grid.h, 2) / 12;
	for (long w = 0; w < windows; w++) {
		double expect = model->x0[0] * pow(step, (double)(w + 1));

		error = fmax(error, fabs(run.ends[w] - expect) / fabs(expect));
	}
	cr_log_info("decay K=%d (%s): vs %s per window: %.3e", K,
		    precision == PICARD_DOUBLE ? "double" : "float",
		    K == 1 ? "Euler" : K == 2 ? "Taylor-2" : "Taylor-3 + quadrature", error);
	cr_assert_lt(error, tol, "K=%d: windows differ from the predicted step "
		     "polynomial by %.3e (relative)", K, error);
	run_free(&run);
}

Test(scheme, one_sweep_is_euler_step_per_window)
{
	check_sweep_polynomial(1, PICARD_DOUBLE, 1e-13);
	check_sweep_polynomial(1, PICARD_FLOAT, 1e-5);
}

Test(scheme, two_sweeps_are_taylor2_step_per_window)
{
	check_sweep_polynomial(2, PICARD_DOUBLE, 1e-13);
	check_sweep_polynomial(2, PICARD_FLOAT, 1e-5);
}

Test(scheme, three_sweeps_meet_the_quadrature_error)
{
	check_sweep_polynomial(3, PICARD_DOUBLE, 1e-13);
	check_sweep_polynomial(3, PICARD_FLOAT, 1e-5);
}

/* ---- errors and observed orders against the exact solutions ----------- */

/* Second-order accuracy of the converged trapezoid scheme, and its error
 * constant. For decay the trapezoid rule's global error is
 * x0 lambda t e^{-lambda t} (lambda h)^2 / 12 to leading order, largest
 * at t = 1/lambda: x0 (lambda h)^2 / (12 e). */
Test(scheme, order_two_converged_decay)
{
	const picard_model *model = model_named("decay");
	const double lambda = model->param_defaults[0];
	double h, finest, leading;

	finest = check_orders("decay", K_CONVERGED, PICARD_DOUBLE, 20, ORDER2_LO,
			      ORDER2_HI, &h);
	leading = model->x0[0] * pow(lambda * h, 2) / (12 * exp(1));
	cr_log_info("decay: E = %.4e, leading-order prediction %.4e", finest, leading);
	cr_assert(finest > 0.95 * leading && finest < 1.05 * leading,
		  "decay at h = %g: E = %.4e, trapezoid theory %.4e", h, finest,
		  leading);
}

/* The oscillator's trapezoid error is a phase lag of omega^3 h^2 t / 12:
 * about A omega^3 h^2 (t1 - t0) / 12 in a component near the end, for the
 * amplitude A (the component's phase decides where under that it lands). */
Test(scheme, order_two_converged_oscillator)
{
	const picard_model *model = model_named("oscillator");
	const double omega = model->param_defaults[0];
	const double amplitude = hypot(model->x0[0], model->x0[1] / omega);
	double h, finest, leading;

	finest = check_orders("oscillator", K_CONVERGED, PICARD_DOUBLE, 40,
			      ORDER2_LO, ORDER2_HI, &h);
	leading = amplitude * pow(omega, 3) * h * h * (model->t1 - model->t0) / 12;
	cr_log_info("oscillator: E = %.4e, leading-order bound %.4e", finest, leading);
	cr_assert(finest > 0.8 * leading && finest < 1.05 * leading,
		  "oscillator at h = %g: E = %.4e, trapezoid phase lag %.4e", h,
		  finest, leading);
}

/* In float, while the error is well above float rounding (E >= 1e-4 here;
 * measured 1.999 2.000 1.995). */
Test(scheme, order_two_converged_float)
{
	double h;

	check_orders("oscillator", K_CONVERGED, PICARD_FLOAT, 40, ORDER2_LO,
		     ORDER2_HI, &h);
}

/* K = 1: order 1, in both precisions (its errors are far above float's
 * rounding). */
Test(scheme, order_one_single_sweep)
{
	double h;

	check_orders("decay", 1, PICARD_DOUBLE, 160, ORDER1_LO, ORDER1_HI, &h);
	check_orders("oscillator", 1, PICARD_DOUBLE, 2560, ORDER1_LO, ORDER1_HI, &h);
	check_orders("decay", 1, PICARD_FLOAT, 160, ORDER1_LO, ORDER1_HI, &h);
}

/* K = 2 already reaches the trapezoid's order 2 (the paper's optimum). */
Test(scheme, order_two_two_sweeps)
{
	double h;

	check_orders("decay", 2, PICARD_DOUBLE, 160, ORDER2_LO, ORDER2_HI, &h);
	check_orders("oscillator", 2, PICARD_DOUBLE, 160, ORDER2_LO, ORDER2_HI, &h);
}

/* At a fixed h inside the convergence region the K = 1 error is well above
 * the converged one, and K = 2 lies in between (measured at 160 windows:
 * decay 5.8e-3 > 6.1e-5 > 6.1e-7, oscillator 2.3 > 4.9e-2 > 5.0e-4). */
Test(scheme, more_sweeps_smaller_error)
{
	const char *names[] = { "decay", "oscillator" };

	for (int i = 0; i < 2; i++) {
		const picard_model *model = model_named(names[i]);
		double h, e1, e2, econv;

		e1 = default_error(model, M_NODES, 1, 160, PICARD_DOUBLE, &h);
		e2 = default_error(model, M_NODES, 2, 160, PICARD_DOUBLE, &h);
		econv = default_error(model, M_NODES, K_CONVERGED, 160, PICARD_DOUBLE, &h);
		cr_log_info("%s h=%.4g: E(K=1) %.3e, E(K=2) %.3e, E(K=%d) %.3e",
			    names[i], h, e1, e2, K_CONVERGED, econv);
		cr_assert_gt(e1, 10 * econv, "%s: E(K=1) = %.3e not well above the "
			     "converged %.3e", names[i], e1, econv);
		cr_assert_gt(e1, 10 * e2, "%s: E(K=1) = %.3e vs E(K=2) = %.3e",
			     names[i], e1, e2);
		cr_assert_gt(e2, econv, "%s: E(K=2) = %.3e vs E(K=%d) = %.3e",
			     names[i], e2, K_CONVERGED, econv);
	}
}

/* Float reaches the double result to float rounding on a converged run
 * (measured 1.1e-6 over 40 windows of 7 steps). */
Test(scheme, float_matches_double)
{
	const picard_model *model = model_named("oscillator");
	struct run single, twice;
	double diff = 0;

	run_cpu(&single, model, M_NODES, K_CONVERGED, 40, PICARD_FLOAT, 1,
		model->x0, NULL);
	run_cpu(&twice, model, M_NODES, K_CONVERGED, 40, PICARD_DOUBLE, 1,
		model->x0, NULL);
	for (long i = 0; i < 40 * model->dim; i++)
		diff = fmax(diff, fabs(single.ends[i] - twice.ends[i]));
	cr_log_info("oscillator float vs double: %.3e", diff);
	cr_assert_lt(diff, 1e-5, "float and double differ by %.3e", diff);
	cr_assert_gt(diff, 0, "float run identical to double: was float used?");
	run_free(&single);
	run_free(&twice);
}

/* ---- ensembles, parameters and records -------------------------------- */

/* Each trajectory uses its own row of x0 and params: each meets its own
 * trapezoid error x0 (lambda h)^2 / (12 e) (see order_two_converged_decay;
 * the window ends fall near t = 1/lambda, so the bound is within 5%). */
Test(scheme, per_trajectory_states_and_params)
{
	const picard_model *model = model_named("decay");
	enum { NTRAJ = 7 };
	double x0[NTRAJ], params[NTRAJ];
	struct run run;

	cr_assert_eq(model->dim, 1);
	cr_assert_eq(model->nparams, 1);
	for (int i = 0; i < NTRAJ; i++) {
		x0[i] = 1 + i;
		params[i] = 0.1 + 0.2 * i;
	}
	run_cpu(&run, model, M_NODES, K_CONVERGED, 80, PICARD_DOUBLE, NTRAJ, x0,
		params);
	for (int i = 0; i < NTRAJ; i++) {
		double error = traj_error(&run, i, x0, params);
		double leading = x0[i] * pow(params[i] * run.grid.h, 2) / (12 * exp(1));

		cr_log_info("decay x0 %g lambda %g: E = %.4e, theory %.4e", x0[i],
			    params[i], error, leading);
		cr_assert(error > 0.9 * leading && error < 1.05 * leading,
			  "trajectory %d (x0 %g, lambda %g): E = %.4e, trapezoid "
			  "theory %.4e", i, x0[i], params[i], error, leading);
	}
	run_free(&run);
}

/* The final state is the state at the end of the last window. */
static void check_final_is_last_window(picard_precision precision)
{
	const picard_model *model = model_named("oscillator");
	enum { NTRAJ = 5 };
	const int n = model->dim;
	const long windows = 33;
	double x0[NTRAJ * 2];
	struct run run;

	cr_assert_eq(n, 2);
	for (int i = 0; i < NTRAJ * n; i++)
		x0[i] = 0.5 + 0.25 * i;
	run_cpu(&run, model, 5, 3, windows, precision, NTRAJ, x0, NULL);
	for (long i = 0; i < NTRAJ * n; i++)
		cr_assert_eq(run.x_final[i], run.ends[(windows - 1) * NTRAJ * n + i],
			     "final state %ld: %.17g, last window end %.17g", i,
			     run.x_final[i], run.ends[(windows - 1) * NTRAJ * n + i]);
	run_free(&run);
}

Test(scheme, final_state_is_last_window_end)
{
	check_final_is_last_window(PICARD_DOUBLE);
	check_final_is_last_window(PICARD_FLOAT);
}

/* Two records at once: dense (every window, every trajectory) and sparse
 * (every 3rd window, every 3rd trajectory, ntraj not a multiple of 3).
 * Every slot of both is written and the sparse one holds exactly the dense
 * one's entries at its windows and trajectories. */
Test(scheme, records_write_every_slot)
{
	const picard_model *model = model_named("oscillator");
	enum { NTRAJ = 10, EVERY = 3, STRIDE = 3 };
	const int n = model->dim;
	picard_options opt = { .m = 6, .K = 4, .h = 0.1, .precision = PICARD_DOUBLE,
			       .backend = PICARD_BACKEND_CPU };
	picard_record rec[2] = { { .every = 1, .traj_stride = 1 },
				 { .every = EVERY, .traj_stride = STRIDE } };
	double x0[NTRAJ * 2], x_final[NTRAJ * 2];
	const picard_grid *grid;
	picard_solver *solver;
	size_t len[2];
	long nrec, slots = (NTRAJ + STRIDE - 1) / STRIDE;
	int err;

	for (int i = 0; i < NTRAJ * n; i++)
		x0[i] = 1 + 0.1 * i;
	err = picard_solver_create(&solver, model, &opt, NTRAJ);
	cr_assert_eq(err, 0, "%s", picard_error_detail());
	grid = picard_solver_grid(solver);
	nrec = grid->windows / EVERY;
	cr_assert_gt(grid->windows % EVERY, 0, "want a partial last period");
	for (int r = 0; r < 2; r++) {
		len[r] = picard_record_size(solver, &rec[r]);
		rec[r].states = malloc(len[r] * sizeof(double));
		cr_assert_not_null(rec[r].states);
		/* Poison: anything left unwritten shows. */
		for (size_t i = 0; i < len[r]; i++)
			rec[r].states[i] = -12345.678;
	}
	cr_assert_eq(len[0], (size_t)grid->windows * NTRAJ * n);
	cr_assert_eq(len[1], (size_t)nrec * slots * n);
	err = picard_solve(solver, x0, NULL, x_final, NULL, NULL, rec, 2, NULL);
	cr_assert_eq(err, 0, "%s", picard_error_detail());
	for (int r = 0; r < 2; r++)
		for (size_t i = 0; i < len[r]; i++)
			cr_assert(isfinite(rec[r].states[i]) && rec[r].states[i] != -12345.678,
				  "record %d entry %zu not written: %g", r, i, rec[r].states[i]);
	for (long r = 0; r < nrec; r++) {
		long w = (r + 1) * EVERY - 1;

		for (long s = 0; s < slots; s++)
			for (int k = 0; k < n; k++)
				cr_assert_eq(rec[1].states[(r * slots + s) * n + k],
					     rec[0].states[(w * NTRAJ + s * STRIDE) * n + k],
					     "sparse record %ld slot %ld component %d", r, s, k);
	}
	free(rec[0].states);
	free(rec[1].states);
	picard_solver_free(solver);
}
