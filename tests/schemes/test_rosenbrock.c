/* test_rosenbrock.c - the Rosenbrock schemes (rodas5p, rodas4, ros23:
 * src/schemes/rosenbrock/) where they differ from the other per-thread
 * schemes, on the CPU backend (suite rosenbrock); tests/schemes/test_rk.c
 * holds their order, dense output, tolerance and statuses with the
 * others, the conformance suite every model against the reference.
 * - a forced model (duffing: df/dt != 0): fixed steps keep the order,
 *   which the d_i h f_t terms carry (without them it drops to 2);
 * - closed forms: decay and the logistic curve, adaptive, against their
 *   exact solutions;
 * - robertson, rate constants spread +-10%, against GSL's msbdf at 1e-12
 *   (the reference of a stiff model) at every output time;
 * - robertson to t = 1e11, hires and van der Pol at mu = 1000 against
 *   the Test Set for IVP Solvers' published values;
 * - float agrees with double on robertson (W's LU in float);
 * - bad input: a model whose Jacobian is not finite at its start (x' =
 *   sqrt x from 0) is nonfinite at its first step, clearly, beside a
 *   member that solves; a singular Jacobian (robertson's, whose rows sum
 *   to zero) is no failure;
 * - the layouts they take (thread, warp) and refuse. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "picard.h"
#include "scheme.h"
#include "support.h"

/* The Rosenbrock schemes of the list (their tableaus' structs,
 * rosenbrock_tableaus.cuh) into ids; returns how many. */
static int rosenbrock_schemes(picard_scheme *ids)
{
	picard_scheme stiff[PER_THREAD_MAX];
	const int nstiff = per_thread_schemes(PER_THREAD_STIFF, stiff);
	int count = 0;

	for (int s = 0; s < nstiff; s++)
		if (per_thread_rosenbrock(stiff[s]))
			ids[count++] = stiff[s];
	cr_assert_geq(count, 3, "rodas5p, rodas4, ros23: %d Rosenbrock schemes", count);
	return count;
}

/* One trajectory of model from x0 (params NULL: the defaults) over [t0,
 * t1] by scheme id: adaptive at rtol, atol, or steps fixed steps (steps
 * > 0); the state at t1 into x, the status returned, the steps into
 * *steps. */
static picard_traj_status one(picard_scheme id, const picard_model *model, const double *x0,
			      const double *params, double t0, double t1, double rtol, double atol,
			      int steps, double *x, double *steps_taken)
{
	picard_options opt = {.scheme = id, .iter_rtol = rtol, .iter_atol = atol, .K = steps,
			      .precision = PICARD_DOUBLE, .t0 = t0, .t1 = t1,
			      .backend = PICARD_BACKEND_CPU};
	picard_solver *s = test_solver(model, &opt, 1);
	picard_traj_status status;
	picard_stats stats;
	int err = picard_solve(s, x0, params, x, &status, NULL, NULL, 0, &stats);

	cr_assert(err == 0 || err == PICARD_EFAILED, "%s: %s", model->name, picard_error_detail());
	if (steps_taken)
		*steps_taken = stats.sweeps_mean;
	picard_solver_free(s);
	return status;
}

/* duffing (forced: cos(omega t)) over [0, 10] in n fixed steps from 16
 * on, doubled while the error against GSL's rk8pd at 1e-12 stays above
 * 1e-10: the last doubling's order at least p - 0.2. Without the d_i h
 * f_t terms of the stages a Rosenbrock method falls to order 2 on a
 * forced model (bench's Rodas5P did, tests/reference/test_rodas.c).
 * Above, p + 2 catches nonsense: rodas5p still shows 6.0, 6.2, 6.5 where
 * its error reaches 1e-10 (bench's: 6.0 .. 6.7), rodas4 4.0, ros23
 * 2.0. */
Test(rosenbrock, forced_model_keeps_the_order, .timeout = 120)
{
	const picard_model *model = test_model("duffing");
	const double t1 = 10;
	picard_scheme ids[PER_THREAD_MAX];
	const int count = rosenbrock_schemes(ids);
	double ref[8];

	cr_assert_eq(picard_reference(model, NULL, model->x0, model->t0, &t1, 1, ref), 0, "%s",
		     picard_error_detail());
	for (int s = 0; s < count; s++) {
		const picard_scheme_type *type = picard_scheme_of(ids[s]);
		const double p = type->order(NULL);
		double prev = NAN, order = NAN;
		int ratios = 0;

		for (int n = 16; n <= 1 << 16; n *= 2) {
			double x[8], e = 0;

			cr_assert_eq(one(ids[s], model, model->x0, NULL, model->t0, t1, 0, 0, n, x,
					 NULL), PICARD_TRAJ_OK, "%s, %d steps", type->name, n);
			for (int k = 0; k < model->dim; k++)
				e = fmax(e, fabs(x[k] - ref[k]));
			if (e < 1e-10)
				break;
			if (prev == prev) {
				order = log2(prev / e);
				ratios++;
			}
			cr_log_info("%s duffing: %d steps, error %.3e, order %.2f", type->name, n, e,
				    order);
			prev = e;
		}
		cr_expect_geq(ratios, 2, "%s: too few doublings above the floor", type->name);
		cr_expect(order >= p - 0.2 && order <= p + 2, "%s: duffing order %.2f, nominal %g",
			  type->name, order, p);
	}
}

/* decay (x' = -a x) and the logistic curve over their spans, adaptive at
 * rtol = atol = tol: the relative error at t1 against the exact solution
 * (the number of steps into *steps). */
static double closed_form_error(picard_scheme id, const char *name, double tol,
				double *steps)
{
	const picard_model *model = test_model(name);
	double x[8], exact[8];

	cr_assert(model->exact && model->dim <= 8);
	cr_assert_eq(one(id, model, model->x0, NULL, model->t0, model->t1, tol, tol, 0, x, steps),
		     PICARD_TRAJ_OK, "%s %s", picard_scheme_of(id)->name, name);
	model->exact(model->t1, model->t0, model->x0, model->param_defaults, exact);
	return max_relative_error(model->dim, x, exact);
}

/* The closed forms at tol = 1e-4, 1e-7, 1e-10 within 100 times the
 * scheme's error scale (tests/support.h): 100 tol (rodas5p, rodas4:
 * measured at most 0.83 and 15 tol, rodas4 on decay), ros23 100
 * tol^(2/3) (measured at most 12 tol^(2/3), on decay: 2.5e-6 at
 * 1e-10). */
Test(rosenbrock, closed_forms, .timeout = 120)
{
	static const char *const names[] = {"decay", "logistic"};
	picard_scheme ids[PER_THREAD_MAX];
	const int count = rosenbrock_schemes(ids);

	for (int s = 0; s < count; s++)
		for (int m = 0; m < 2; m++)
			for (double tol = 1e-4; tol >= 1e-10; tol *= 1e-3) {
				const double bar = 100 * per_thread_error_scale(ids[s], tol);
				double steps, e = closed_form_error(ids[s], names[m], tol, &steps);

				cr_log_info("%s %s tol %.0e: relative error %.3e (%.3g tol, %.2g of the "
					    "bar), %.0f steps", picard_scheme_of(ids[s])->name,
					    names[m], tol, e, e / tol, e / bar, steps);
				cr_expect_lt(e, bar, "%s %s tol %g: relative error %.3e",
					     picard_scheme_of(ids[s])->name, names[m], tol, e);
			}
}

/* robertson, 16 members with k1, k2, k3 spread +-10%, over [0, 1e5] (10
 * output intervals), adaptive at rtol = 1e-4, 1e-6, 1e-8 and atol 1e-4
 * rtol, against GSL's msbdf at 1e-12 at every output time (picard_check:
 * the reference of a stiff model, src/reference/reference.c): every
 * member ok, the relative error within rtol (rodas5p, rodas4: measured
 * at most 0.27 rtol) or rtol^(2/3) (ros23, whose global error goes so:
 * measured 0.04, 0.03, 0.02 rtol^(2/3)). */
#define ROBERTSON_N 16
Test(rosenbrock, robertson_matches_msbdf, .timeout = 120)
{
	const picard_model *model = test_model("robertson");
	const double spreads[3] = {0.1, 0.1, 0.1};
	double x0[3 * ROBERTSON_N], params[3 * ROBERTSON_N];
	picard_scheme ids[PER_THREAD_MAX];
	const int count = rosenbrock_schemes(ids);
	int err = picard_ensemble_model(model, ROBERTSON_N, 0, spreads, 11, PICARD_BACKEND_CPU, x0,
					params);

	cr_assert_eq(err, 0, "%s", picard_error_detail());
	for (int s = 0; s < count; s++)
		for (double rtol = 1e-4; rtol >= 1e-8; rtol *= 1e-2) {
			picard_options opt = {.scheme = ids[s], .iter_rtol = rtol, .iter_atol = 1e-4 * rtol,
					      .precision = PICARD_DOUBLE, .t0 = 0, .t1 = 1e5, .h = 1e4,
					      .backend = PICARD_BACKEND_CPU};
			picard_solver *solver = test_solver(model, &opt, ROBERTSON_N);
			picard_record rec = {.every = 1, .traj_stride = 1};
			picard_traj_status status[ROBERTSON_N];
			picard_check_result check;
			picard_stats stats;

			rec.states = malloc(picard_record_size(solver, &rec) * sizeof(double));
			err = picard_solve(solver, x0, params, NULL, status, NULL, &rec, 1, &stats);
			cr_assert_eq(err, 0, "%s: %s", picard_scheme_of(ids[s])->name,
				     picard_error_detail());
			for (int i = 0; i < ROBERTSON_N; i++)
				cr_expect_eq(status[i], PICARD_TRAJ_OK, "%s member %d: %s",
					     picard_scheme_of(ids[s])->name, i,
					     picard_traj_status_name(status[i]));
			err = picard_check(model, picard_solver_grid(solver), ROBERTSON_N, x0, params,
					   &rec, &check);
			cr_assert_eq(err, 0, "check: %s", picard_error_detail());
			const double bar = per_thread_error_scale(ids[s], rtol);

			cr_log_info("%s robertson rtol %.0e: E = %.3e (rel %.3e, %.2g of the bar), "
				    "%.0f steps an output interval", picard_scheme_of(ids[s])->name,
				    rtol, check.error, check.rel_error, check.rel_error / bar,
				    stats.sweeps_mean);
			cr_expect_lt(check.rel_error, bar, "%s robertson rtol %g: rel %.3e",
				     picard_scheme_of(ids[s])->name, rtol, check.rel_error);
			free(rec.states);
			picard_solver_free(solver);
		}
}

/* A Test Set problem (test_radau5.c's, at its tolerances): the state at
 * t1 against the published values, every component within bar relative
 * (ros23: bar_ros23, its global error going as tol^(2/3)). */
struct test_set {
	const char *model;
	double t1, rtol, atol;
	const double *x0, *params; /* NULL: the model's */
	double published[8];
	double bar, bar_ros23;
};

static const double vdp_x0[2] = {2, 0}, vdp_mu = 1000;
/* Measured, the worst component: robertson to 1e11 6.3e-8, 2.3e-8, 1.9e-5
 * (rodas5p, rodas4, ros23; y1 and y2, y3 within 4e-13), hires 3.3e-9,
 * 7.2e-9, 9.2e-7, van der Pol 1.7e-9, 5.1e-9, 5.9e-7: radau5's bars
 * (robertson's y1 1e-4, hires 1e-6, van der Pol 1e-5), ros23's hires
 * 1e-5. */
static const struct test_set test_sets[] = {
	{"robertson", 1e11, 1e-8, 1e-14, NULL, NULL,
	 {0.2083340149701255e-7, 0.8333360770334713e-13, 0.9999999791665050}, 1e-4, 1e-4},
	{"hires", 321.8122, 1e-10, 1e-10, NULL, NULL,
	 {0.7371312573325668e-3, 0.1442485726316185e-3, 0.5888729740967575e-4,
	  0.1175651343283149e-2, 0.2386356198831331e-2, 0.6238968252742796e-2,
	  0.2849998395185769e-2, 0.2850001604814231e-2}, 1e-6, 1e-5},
	{"vanderpol", 2000, 1e-9, 1e-9, vdp_x0, &vdp_mu, {1.706167732170469, -0.8928097010248125e-3},
	 1e-5, 1e-5},
};

Test(rosenbrock, test_set_problems, .timeout = 300)
{
	picard_scheme ids[PER_THREAD_MAX];
	const int count = rosenbrock_schemes(ids);

	for (size_t p = 0; p < sizeof(test_sets) / sizeof(test_sets[0]); p++) {
		const struct test_set *ts = &test_sets[p];
		const picard_model *model = test_model(ts->model);

		for (int s = 0; s < count; s++) {
			double x[8], steps;
			picard_traj_status st = one(ids[s], model, ts->x0 ? ts->x0 : model->x0,
						    ts->params, model->t0, ts->t1, ts->rtol, ts->atol,
						    0, x, &steps);

			const double worst = max_relative_error(model->dim, x, ts->published);
			const double bar = ids[s] == PICARD_SCHEME_ROS23 ? ts->bar_ros23 : ts->bar;

			cr_log_info("%s %s to %g: %s, %.2e relative off the test set (worst "
				    "component), %.0f steps", picard_scheme_of(ids[s])->name,
				    ts->model, ts->t1, picard_traj_status_name(st), worst, steps);
			cr_expect_eq(st, PICARD_TRAJ_OK, "%s %s: %s", picard_scheme_of(ids[s])->name,
				     ts->model, picard_traj_status_name(st));
			cr_expect_lt(worst, bar, "%s %s: %.2e off the test set",
				     picard_scheme_of(ids[s])->name, ts->model, worst);
			if (!strcmp(ts->model, "robertson")) /* y3, and the mass, kept */
				cr_expect(fabs(x[2] - ts->published[2]) < 1e-10 &&
					  fabs(x[0] + x[1] + x[2] - 1) < 1e-12,
					  "%s robertson: y3 off by %.2e, mass - 1 = %.2e",
					  picard_scheme_of(ids[s])->name, x[2] - ts->published[2],
					  x[0] + x[1] + x[2] - 1);
		}
	}
}

/* x' = a sqrt(x): from x0 = 0 its right-hand side is finite (0) but its
 * Jacobian a / (2 sqrt x) is not (automatic differentiation gives +Inf),
 * and no shorter step mends that: the member is nonfinite in window 0,
 * its failing step starting at t0, and its record NaN; from x0 = 1 the
 * member beside it solves (x = (a t/2 + 1)^2). Fixed steps and adaptive. */
static const char sqrt_model[] =
	"#include \"picard_model.cuh\"\n"
	"struct sqrt_start {\n"
	"\tstatic constexpr int dim = 1, nparams = 1;\n"
	"\tstatic constexpr const char *param_names[] = {\"a\"};\n"
	"\tstatic constexpr double param_defaults[] = {1};\n"
	"\tstatic constexpr double x0[] = {0};\n"
	"\tstatic constexpr double t0 = 0, t1 = 1;\n"
	"\tstatic constexpr const char *summary = \"x' = a sqrt(x)\";\n"
	"\tstatic constexpr const char *reference = \"a test\";\n"
	"\ttemplate <typename real>\n"
	"\t__host__ __device__ static void rhs(real, const real *x, const real *p, real *dxdt)\n"
	"\t{\n"
	"\t\tdxdt[0] = p[0] * sqrt(x[0]);\n"
	"\t}\n"
	"};\n"
	"\n"
	"PICARD_REGISTER_MODEL(sqrt_start)\n";

Test(rosenbrock, jacobian_not_finite_at_the_start_is_reported, .timeout = 300)
{
	const picard_model *model = NULL;
	const double x0[2] = {0, 1}, times[2] = {0.5, 1};
	picard_scheme ids[PER_THREAD_MAX];
	const int count = rosenbrock_schemes(ids);

	make_workdir("rosenbrock", NULL);
	write_file(in_workdir("sqrt_start.cu").s, sqrt_model, strlen(sqrt_model));
	cr_assert_eq(picard_model_load(in_workdir("sqrt_start.cu").s, &model), 0, "%s",
		     picard_error_detail());
	for (int s = 0; s < count; s++)
		for (int fixed = 0; fixed < 2; fixed++) {
			picard_options opt = {.scheme = ids[s], .iter_rtol = 1e-8, .K = fixed ? 100 : 0,
					      .precision = PICARD_DOUBLE, .backend = PICARD_BACKEND_CPU};
			picard_solver *solver = test_solver(model, &opt, 2);
			double x[2], saved[4];
			picard_record rec = {.traj_stride = 1, .times = times, .ntimes = 2,
					     .states = saved};
			picard_traj_status status[2];
			long window[2];
			const char *name = picard_scheme_of(ids[s])->name;
			int err = picard_solve(solver, x0, NULL, x, status, window, &rec, 1, NULL);
			const double *fail = picard_solver_fail_times(solver);

			cr_expect_eq(err, PICARD_EFAILED, "%s: %s", name, picard_strerror(err));
			cr_log_info("%s %s: x0 = 0 %s in window %ld at [%g, %g]; x0 = 1: %s, x(1) = "
				    "%.12g", name, fixed ? "fixed" : "adaptive",
				    picard_traj_status_name(status[0]), window[0], fail[0], fail[1],
				    picard_traj_status_name(status[1]), x[1]);
			cr_expect_eq(status[0], PICARD_TRAJ_NONFINITE, "%s: %s", name,
				     picard_traj_status_name(status[0]));
			cr_expect_eq(window[0], 0);
			cr_expect(fail[0] == 0 && fail[1] > 0, "%s: failing step [%g, %g]", name,
				  fail[0], fail[1]);
			cr_expect(isnan(saved[0]) && isnan(saved[2]), "%s: records %g %g", name,
				  saved[0], saved[2]);
			cr_expect_eq(status[1], PICARD_TRAJ_OK, "%s: %s", name,
				     picard_traj_status_name(status[1]));
			cr_expect(fabs(x[1] - 2.25) < 1e-4, "%s: x(1) = %.12g, exact 2.25", name, x[1]);
			picard_solver_free(solver);
		}
	remove_workdir();
}

/* Float on robertson over [0, 1e5] at rtol 1e-4, atol 1e-8, its W's LU
 * in float: within 1e-3 relative of double (y1, y3; y2 ~ 1e-5 within
 * 1e-2), as radau5's (test_radau5.c); measured at most 5.1e-6. */
Test(rosenbrock, float_agrees_with_double_on_robertson)
{
	const picard_model *model = test_model("robertson");
	picard_scheme ids[PER_THREAD_MAX];
	const int count = rosenbrock_schemes(ids);

	for (int s = 0; s < count; s++) {
		picard_options opt = {.scheme = ids[s], .iter_rtol = 1e-4, .iter_atol = 1e-8,
				      .t0 = 0, .t1 = 1e5, .backend = PICARD_BACKEND_CPU};
		double xf[3], xd[3];
		picard_traj_status st[2];

		for (int p = 0; p < 2; p++) {
			picard_solver *solver;

			opt.precision = p ? PICARD_DOUBLE : PICARD_FLOAT;
			solver = test_solver(model, &opt, 1);
			cr_assert_eq(picard_solve(solver, model->x0, NULL, p ? xd : xf, &st[p], NULL,
						  NULL, 0, NULL), 0, "%s: %s",
				     picard_scheme_of(ids[s])->name, picard_error_detail());
			picard_solver_free(solver);
		}
		cr_log_info("%s robertson float vs double: %.2e %.2e %.2e relative",
			    picard_scheme_of(ids[s])->name, fabs(xf[0] / xd[0] - 1),
			    fabs(xf[1] / xd[1] - 1), fabs(xf[2] / xd[2] - 1));
		cr_expect_lt(fabs(xf[0] / xd[0] - 1), 1e-3, "%s", picard_scheme_of(ids[s])->name);
		cr_expect_lt(fabs(xf[1] / xd[1] - 1), 1e-2, "%s", picard_scheme_of(ids[s])->name);
		cr_expect_lt(fabs(xf[2] / xd[2] - 1), 1e-3, "%s", picard_scheme_of(ids[s])->name);
	}
}

/* Their layouts, and radau5's: thread and warp (a warp per trajectory on
 * the GPU; the CPU backend takes either; gpu/stiff_warp_matches_cpu
 * compares the warp layout's answers with the CPU's), never the paper's
 * or a scan, nor more warps a block than a block's 1024 threads, with
 * the reason. */
Test(rosenbrock, layouts_taken_and_refused)
{
	const picard_model *model = test_model("robertson");
	picard_scheme ids[PER_THREAD_MAX];
	const int count = per_thread_schemes(PER_THREAD_STIFF, ids);
	picard_solver *s = NULL;

	for (int i = 0; i < count; i++) {
		const char *name = picard_scheme_of(ids[i])->name;
		picard_options opt = {.scheme = ids[i], .t0 = 0, .t1 = 1,
				      .backend = PICARD_BACKEND_CPU};
		double x[3];

		for (int l = 0; l < 2; l++) {
			opt.layout = l ? PICARD_LAYOUT_WARP : PICARD_LAYOUT_THREAD;
			s = test_solver(model, &opt, 1);
			cr_assert_eq(picard_solve(s, model->x0, NULL, x, NULL, NULL, NULL, 0, NULL), 0,
				     "%s layout %s: %s", name, picard_layout_name(opt.layout),
				     picard_error_detail());
			picard_solver_free(s);
		}
		opt.layout = PICARD_LAYOUT_PAPER;
		cr_expect_eq(picard_solver_create(&s, model, &opt, 1), PICARD_EINVAL, "%s", name);
		cr_expect(strstr(picard_error_detail(), "layout paper"), "%s: %s", name,
			  picard_error_detail());
		opt.layout = PICARD_LAYOUT_WARP;
		opt.scan = PICARD_SCAN_SERIAL;
		cr_expect_eq(picard_solver_create(&s, model, &opt, 1), PICARD_EINVAL, "%s", name);
		cr_expect(strstr(picard_error_detail(), "scan"), "%s: %s", name,
			  picard_error_detail());
		opt.scan = PICARD_SCAN_AUTO;
		opt.traj_per_block = 33; /* 33 warps: 1056 threads */
		cr_expect_eq(picard_solver_create(&s, model, &opt, 1), PICARD_EBLOCK, "%s", name);
		cr_expect(strstr(picard_error_detail(), "traj_per_block = 33"), "%s: %s", name,
			  picard_error_detail());
		opt.traj_per_block = 32;
		s = test_solver(model, &opt, 1);
		picard_solver_free(s);
		opt.traj_per_block = 0;
	}
	bool radau5 = false;

	for (int i = 0; i < count; i++)
		radau5 |= ids[i] == PICARD_SCHEME_RADAU5;
	cr_expect(radau5, "radau5 is a stiff per-thread scheme, with its warp layout");
}
