/* test_spans.c - per-member time spans (picard_solver_set_spans; suite
 * spans) on the CPU backend: each member from its own t0 to its own t1,
 * checked against closed forms at its own end (oscillator; and a model
 * that reads t, x' = x cos t, whose solution x0 exp(sin t - sin t0) is
 * wrong for any t0 but the member's), under every per-thread scheme,
 * fixed and adaptive; against the same members solved one by one on the
 * shared span (bitwise); bouncing_ball's bounces on each member's span;
 * a record's times outside a member's span unwritten (NaN); and the
 * refusals. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event_cases.h"
#include "picard.h"
#include "scheme.h"
#include "support.h"

static void setup(void)
{
	make_workdir("spans", "cache");
}

TestSuite(spans, .init = setup, .fini = remove_workdir);

/* A model that reads t: x' = x cos t, x(t) = x(t0) exp(sin t - sin t0). */
static const char forced_text[] =
	"#include <math.h>\n"
	"#include \"picard_model.cuh\"\n"
	"struct forced {\n"
	"\tstatic constexpr int dim = 1, nparams = 0;\n"
	"\tstatic constexpr double x0[] = {1};\n"
	"\tstatic constexpr double t0 = 0, t1 = 10;\n"
	"\tstatic constexpr const char *summary = \"x' = x cos t\";\n"
	"\tstatic constexpr const char *reference = \"exact: x0 exp(sin t - sin t0)\";\n"
	"\ttemplate <typename real>\n"
	"\t__host__ __device__ static void rhs(real t, const real *x, const real *, real *dxdt)\n"
	"\t{\n"
	"\t\tdxdt[0] = x[0] * cos(t);\n"
	"\t}\n"
	"\tstatic void exact(double t, double t0, const double *x0, const double *, double *x)\n"
	"\t{\n"
	"\t\tx[0] = x0[0] * exp(sin(t) - sin(t0));\n"
	"\t}\n"
	"};\n"
	"PICARD_REGISTER_MODEL(forced)\n";

static const picard_model *forced_model(void)
{
	const struct path path = in_workdir("forced.cu");
	const picard_model *model = NULL;

	write_file(path.s, forced_text, strlen(forced_text));
	cr_assert_eq(picard_model_load(path.s, &model), 0, "%s", picard_error_detail());
	return model;
}

/* The members' spans: t0 = 0 and not, a negative t0, a span of 1e-3 and
 * one of 50, one past the grid's t1. */
#define NSPANS 6
static const double span_t0[NSPANS] = {0, 2.5, -3, 1, -20, 100};
static const double span_t1[NSPANS] = {10, 7, 4, 1.001, 30, 103};

/* NSPANS start states of model: its default, scaled a little per member. */
static void starts(const picard_model *model, double *x0)
{
	for (int i = 0; i < NSPANS; i++)
		for (int k = 0; k < model->dim; k++)
			x0[i * model->dim + k] = model->x0[k] * (1 + 0.1 * i);
}

/* Solve NSPANS members of model on their spans with o (CPU, double) into
 * x_final; records optional. The solver is returned. */
static picard_solver *solve_spans(const picard_model *model, picard_options o, const double *x0,
				  double *x_final, picard_traj_status *status,
				  const picard_record *recs, int nrecs)
{
	picard_solver *s = NULL;
	int err;

	o.backend = PICARD_BACKEND_CPU;
	o.precision = PICARD_DOUBLE;
	err = picard_solver_create(&s, model, &o, NSPANS);
	cr_assert_eq(err, 0, "%s: %s", picard_strerror(err), picard_error_detail());
	err = picard_solver_set_spans(s, NSPANS, span_t0, span_t1);
	cr_assert_eq(err, 0, "set_spans: %s", picard_error_detail());
	err = picard_solve(s, x0, NULL, x_final, status, NULL, recs, nrecs, NULL);
	cr_assert_eq(err, 0, "%s: %s", picard_strerror(err), picard_error_detail());
	return s;
}

/* Options of per-thread scheme id: adaptive at a local tolerance tol, or
 * fixed steps (steps per window over windows windows). */
static picard_options scheme_options(picard_scheme id, bool fixed, double tol, int steps)
{
	picard_options o = {.scheme = id};

	if (fixed) {
		o.K = steps;
	} else {
		o.iter_rtol = tol;
		o.iter_atol = tol;
	}
	return o;
}

/* Each member's final state against model's exact at its own t1: the
 * largest error relative to max(1, |x|). */
static double worst_at_ends(const picard_model *model, const double *x0, const double *x_final,
			    const picard_traj_status *status, const char *what)
{
	double worst = 0, ref[4];

	for (int i = 0; i < NSPANS; i++) {
		cr_expect_eq(status[i], PICARD_TRAJ_OK, "%s member %d: %s", what, i,
			     picard_traj_status_name(status[i]));
		model->exact(span_t1[i], span_t0[i], x0 + i * model->dim, model->param_defaults, ref);
		for (int k = 0; k < model->dim; k++)
			worst = fmax(worst, fabs(x_final[i * model->dim + k] - ref[k]) /
					    fmax(1, fabs(ref[k])));
	}
	return worst;
}

Test(spans, each_member_ends_at_its_own_t1_as_the_closed_form_says)
{
	const picard_model *models[] = {test_model("oscillator"), forced_model()};
	picard_scheme ids[PER_THREAD_MAX];
	const int nids = per_thread_schemes(PER_THREAD_ALL, ids);

	for (int mi = 0; mi < 2; mi++) {
		const picard_model *model = models[mi];
		double x0[2 * NSPANS], x_final[2 * NSPANS];
		picard_traj_status status[NSPANS];

		starts(model, x0);
		for (int c = 0; c < nids; c++)
			for (int fixed = 0; fixed < 2; fixed++) {
				const picard_scheme_type *type = picard_scheme_of(ids[c]);
				/* fixed: 4000 steps over each span (h 0.0125 over 50),
				 * the explicit pairs alone (an implicit scheme's
				 * fixed steps are not its use) */
				if (fixed && type->solves_stiff)
					continue;
				const double tol = 1e-10;
				picard_options o = scheme_options(ids[c], fixed, tol, 4000);
				char what[96];

				snprintf(what, sizeof(what), "%s %s %s", model->name, type->name,
					 fixed ? "fixed" : "adaptive");
				picard_solver_free(solve_spans(model, o, x0, x_final, status, NULL, 0));
				const double worst = worst_at_ends(model, x0, x_final, status, what);
				/* adaptive: the global error a few hundred times the
				 * local tolerance over 50 time units at most; fixed:
				 * 4000 steps of at most 0.0125, rounding's (2e-11
				 * measured) and dp5's h^5 below it */
				const double bound = fixed ? 1e-9 :
					1e3 * per_thread_error_scale(ids[c], tol);

				cr_log_info("%s: largest error at the members' own t1 %.3g", what,
					    worst);
				cr_expect_leq(worst, bound, "%s: error %.3g at the members' t1", what,
					      worst);
			}
	}
}

Test(spans, each_member_as_if_solved_alone_on_its_span)
{
	const picard_model *model = forced_model();
	const int windows = 4;
	double x0[NSPANS], x_final[NSPANS], ends[NSPANS * 4];
	picard_traj_status status[NSPANS];

	starts(model, x0);
	for (int fixed = 0; fixed < 2; fixed++) {
		/* 4 windows over each span: the shared span's h a quarter of it */
		picard_options o = scheme_options(fixed ? PICARD_SCHEME_VERN9 : PICARD_SCHEME_DP5,
						  fixed, 1e-9, 37);
		picard_record rec = {.every = 1, .traj_stride = 1, .states = ends};

		o.t0 = 0;
		o.t1 = 10;
		o.h = 10.0 / windows;
		picard_solver_free(solve_spans(model, o, x0, x_final, status, &rec, 1));
		for (int i = 0; i < NSPANS; i++) {
			picard_options one = o;
			double alone, alone_ends[4];
			picard_record rec1 = {.every = 1, .traj_stride = 1, .states = alone_ends};
			picard_solver *s;

			one.t0 = span_t0[i];
			one.t1 = span_t1[i];
			one.h = (span_t1[i] - span_t0[i]) / windows;
			one.backend = PICARD_BACKEND_CPU;
			one.precision = PICARD_DOUBLE;
			s = test_solver(model, &one, 1);
			cr_assert_eq(picard_solver_grid(s)->windows, windows);
			cr_assert_eq(picard_solve(s, &x0[i], NULL, &alone, NULL, NULL, &rec1, 1, NULL),
				     0, "%s", picard_error_detail());
			cr_expect(alone == x_final[i], "%s member %d: %.17g with spans, %.17g alone",
				  fixed ? "vern9 fixed" : "dp5 adaptive", i, x_final[i], alone);
			for (int w = 0; w < windows; w++)
				cr_expect(alone_ends[w] == ends[w * NSPANS + i],
					  "member %d, window %d's end: %.17g with spans, %.17g alone",
					  i, w, ends[w * NSPANS + i], alone_ends[w]);
			picard_solver_free(s);
		}
	}
}

Test(spans, bounces_on_each_members_own_span)
{
	const picard_model *model = test_model("bouncing_ball");
	/* member 0 ends before its first bounce (at sqrt(2/g) = 0.4515 after
	 * its t0), the others run 4 or 3 time units from t0s of their own */
	const double t0[BALLS] = {5, -2, 0.25, 10}, t1[BALLS] = {5.4, 2, 3.25, 14};
	double x_final[2 * BALLS], t[64];
	picard_traj_status status[BALLS];
	picard_scheme ids[PER_THREAD_MAX];
	const int nids = per_thread_schemes(PER_THREAD_EXPLICIT, ids);

	for (int c = 0; c < nids; c++) {
		picard_options o = {.scheme = ids[c], .iter_rtol = 1e-12, .iter_atol = 1e-12,
				    .event_log = 64, .backend = PICARD_BACKEND_CPU,
				    .precision = PICARD_DOUBLE};
		picard_solver *s = test_solver(model, &o, BALLS);
		double worst = 0;

		cr_assert_eq(picard_solver_set_spans(s, BALLS, t0, t1), 0, "%s",
			     picard_error_detail());
		cr_assert_eq(picard_solve(s, &ball_x0[0][0], &ball_p[0][0], x_final, status, NULL,
					  NULL, 0, NULL), 0, "%s", picard_error_detail());
		const picard_event_log *elog = picard_solver_event_log(s);

		for (int i = 0; i < BALLS; i++) {
			const int n = bounce_times(ball_x0[i][0], ball_x0[i][1], ball_p[i][0],
						   ball_p[i][1], t1[i] - t0[i], t, 64);

			cr_expect_eq(status[i], PICARD_TRAJ_OK);
			cr_expect_eq(elog->count[i], n, "%s member %d: %d bounces on [%g, %g], the "
				     "closed form %d", picard_scheme_of(ids[c])->name, i,
				     elog->count[i], t0[i], t1[i], n);
			for (int j = 0; j < n && j < elog->count[i]; j++)
				worst = fmax(worst, fabs(elog->time[i * elog->capacity + j] -
							 (t0[i] + t[j])));
		}
		cr_expect_eq(elog->count[0], 0, "member 0 ends before its first bounce");
		cr_expect_geq(elog->count[1], 3, "member 1 bounces several times");
		cr_expect_leq(worst, 1e-9, "%s: bounce times off by %.3g",
			      picard_scheme_of(ids[c])->name, worst);
		picard_solver_free(s);
	}
}

Test(spans, record_times_outside_a_members_span_are_not_written)
{
	const picard_model *model = forced_model();
	/* before every span, inside some, past all but the last */
	const double times[] = {-30, -2, 0.5, 1.0005, 3, 6.5, 29, 50, 101};
	enum { NT = sizeof(times) / sizeof(times[0]) };
	double x0[NSPANS], x_final[NSPANS], saved[NT * NSPANS], ends[2 * NSPANS];
	picard_traj_status status[NSPANS];
	picard_record recs[2] = {
		{.every = 0, .traj_stride = 1, .states = saved, .times = times, .ntimes = NT},
		{.every = 1, .traj_stride = 1, .states = ends},
	};
	long written = 0;

	starts(model, x0);
	for (int fixed = 0; fixed < 2; fixed++) {
		picard_options o = scheme_options(PICARD_SCHEME_DP8, fixed, 1e-11, 3000);

		o.t0 = 0;
		o.t1 = 10;
		o.h = 5; /* two windows: each member's ends at the middle and the end
			    of its own span */
		picard_solver_free(solve_spans(model, o, x0, x_final, status, recs, 2));
		for (int i = 0; i < NSPANS; i++) {
			for (int r = 0; r < NT; r++) {
				const double x = saved[r * NSPANS + i];
				double ref;

				if (times[r] < span_t0[i] || times[r] > span_t1[i]) {
					cr_expect(isnan(x), "member %d on [%g, %g] at %g: %g, not NaN",
						  i, span_t0[i], span_t1[i], times[r], x);
					continue;
				}
				model->exact(times[r], span_t0[i], &x0[i], NULL, &ref);
				cr_expect_leq(fabs(x - ref), 1e-7 * fmax(1, fabs(ref)),
					      "member %d at %g: %.12g, exact %.12g", i, times[r], x, ref);
				written++;
			}
			for (int w = 0; w < 2; w++) {
				const double tw = span_t0[i] + (w + 1) * (span_t1[i] - span_t0[i]) / 2;
				double ref;

				model->exact(tw, span_t0[i], &x0[i], NULL, &ref);
				cr_expect_leq(fabs(ends[w * NSPANS + i] - ref), 1e-7 * fmax(1, fabs(ref)),
					      "member %d, window %d's end at %g: %.12g, exact %.12g", i,
					      w, tw, ends[w * NSPANS + i], ref);
			}
		}
	}
	cr_expect_gt(written, 10, "rows inside the spans were compared");
}

/* picard_check_each given the spans: each member's reference from its
 * own t0, its window ends on its own span, a record's rows within its
 * span compared and those outside required NaN; a check can fail: the
 * same record checked on the grid's span, one state moved inside a span,
 * one written outside it. */
Test(spans, check_compares_each_member_on_its_own_span)
{
	const picard_model *model = forced_model();
	const double times[] = {-30, -2, 0.5, 1.0005, 3, 6.5, 29, 50, 101};
	enum { NT = sizeof(times) / sizeof(times[0]) };
	double x0[NSPANS], x_final[NSPANS], saved[NT * NSPANS], ends[2 * NSPANS];
	double traj_error[NSPANS];
	picard_traj_status status[NSPANS];
	picard_record recs[2] = {
		{.every = 0, .traj_stride = 1, .states = saved, .times = times, .ntimes = NT},
		{.every = 1, .traj_stride = 1, .states = ends},
	};
	picard_check_options copts = {
		.tol = {.atol = 1e-7, .rtol = 1e-7}, .traj_error = traj_error,
		.span_t0 = span_t0, .span_t1 = span_t1,
	};
	picard_options o = scheme_options(PICARD_SCHEME_DP8, false, 1e-11, 0);
	picard_check_result res;
	long inside = 0;

	o.t0 = 0;
	o.t1 = 10;
	o.h = 5; /* two windows of each member's own span */
	starts(model, x0);
	picard_solver *s = solve_spans(model, o, x0, x_final, status, recs, 2);
	const picard_grid *g = picard_solver_grid(s);

	for (int i = 0; i < NSPANS; i++)
		for (int r = 0; r < NT; r++)
			inside += times[r] >= span_t0[i] && times[r] <= span_t1[i];
	for (int r = 0; r < 2; r++) {
		cr_assert_eq(picard_check_each(model, g, NSPANS, x0, NULL, &recs[r], &copts, &res), 0,
			     "record %d: %s", r, picard_error_detail());
		cr_expect_leq(res.scaled_error, 1, "record %d: %.3g x the tolerance", r,
			      res.scaled_error);
		cr_expect_eq(res.outside_span, 0);
		cr_expect_eq(res.nonfinite, 0);
		cr_expect_eq(res.points, r ? 2 * NSPANS : inside, "record %d: %ld points", r,
			     res.points);
	}
	/* on the grid's span: the members that start elsewhere are far off,
	 * and the rows written past [0, 10] are states outside it */
	copts.span_t0 = copts.span_t1 = NULL;
	cr_assert_eq(picard_check_each(model, g, NSPANS, x0, NULL, &recs[1], &copts, &res), 0);
	cr_expect_gt(res.scaled_error, 1e3, "the grid's span: %.3g", res.scaled_error);
	cr_assert_eq(picard_check_each(model, g, NSPANS, x0, NULL, &recs[0], &copts, &res), 0);
	cr_expect_gt(res.outside_span, 0);
	cr_expect(isinf(res.scaled_error));
	copts.span_t0 = span_t0;
	copts.span_t1 = span_t1;

	/* member 1 (on [2.5, 7]) off by 1e-5 at t = 3; member 3 (on [1,
	 * 1.001]) given a state at t = 3 */
	saved[4 * NSPANS + 1] += 1e-5;
	saved[4 * NSPANS + 3] = 0.5;
	cr_assert_eq(picard_check_each(model, g, NSPANS, x0, NULL, &recs[0], &copts, &res), 0);
	cr_expect_eq(res.outside_span, 1);
	cr_expect(isinf(traj_error[3]), "member 3: %g", traj_error[3]);
	cr_expect_gt(traj_error[1], 10, "member 1: %g", traj_error[1]);
	cr_expect_leq(traj_error[0], 1, "member 0: %g", traj_error[0]);
	/* a member's window end moved */
	ends[NSPANS + 2] *= 1 + 1e-5;
	cr_assert_eq(picard_check_each(model, g, NSPANS, x0, NULL, &recs[1], &copts, &res), 0);
	cr_expect_gt(traj_error[2], 10, "member 2's window end: %g", traj_error[2]);
	cr_expect_eq(res.worst_traj, 2);
	picard_solver_free(s);
}

Test(spans, refusals_name_the_member_and_the_schemes)
{
	const picard_model *model = test_model("oscillator");
	const double t0[3] = {0, 1, 2}, bad_t1[3] = {1, 1, 3}, nan_t1[3] = {1, NAN, 3};
	const double t1[3] = {1, 2, 3};
	picard_options o = {.scheme = PICARD_SCHEME_DP5, .backend = PICARD_BACKEND_CPU};
	picard_solver *s = test_solver(model, &o, 3);
	double x0[6] = {1, 0, 1, 0, 1, 0}, x_final[6];

	cr_expect_eq(picard_solver_set_spans(s, 3, t0, bad_t1), PICARD_EINVAL);
	cr_expect(strstr(picard_error_detail(), "t1[1] = 1 is not after t0[1] = 1"), "%s",
		  picard_error_detail());
	cr_expect_eq(picard_solver_set_spans(s, 3, t0, nan_t1), PICARD_EINVAL);
	cr_expect(strstr(picard_error_detail(), "member 1"), "%s", picard_error_detail());
	cr_expect_eq(picard_solver_set_spans(s, 4, t0, t1), PICARD_EINVAL);
	/* a refused call leaves no spans: the solve runs on the shared span */
	cr_expect_eq(picard_solve(s, x0, NULL, x_final, NULL, NULL, NULL, 0, NULL), 0);
	cr_assert_eq(picard_solver_set_spans(s, 3, t0, t1), 0, "%s", picard_error_detail());
	cr_expect_eq(picard_solve_batch(s, 2, x0, NULL, x_final, NULL, NULL, NULL, 0, NULL),
		     PICARD_EINVAL, "a solve of 2 members with the spans of 3");
	cr_expect(strstr(picard_error_detail(), "spans of 3"), "%s", picard_error_detail());
	cr_expect_eq(picard_solver_set_spans(s, 3, NULL, NULL), 0, "clearing");
	cr_expect_eq(picard_solve_batch(s, 2, x0, NULL, x_final, NULL, NULL, NULL, 0, NULL), 0);
	picard_solver_free(s);

	/* a scheme on one span for all names the schemes that take spans */
	o = (picard_options){.scheme = PICARD_SCHEME_TRAPEZOID, .backend = PICARD_BACKEND_CPU};
	s = test_solver(model, &o, 3);
	cr_expect_eq(picard_solver_set_spans(s, 3, t0, t1), PICARD_EINVAL);
	cr_expect(strstr(picard_error_detail(), "trapezoid") &&
		  strstr(picard_error_detail(), "dp5, dp8, vern9"), "%s", picard_error_detail());
	picard_solver_free(s);

	/* the error estimate's companion solves on the grid's span */
	o = (picard_options){.scheme = PICARD_SCHEME_DP5, .backend = PICARD_BACKEND_CPU,
			     .estimate_error = true};
	s = test_solver(model, &o, 3);
	cr_expect_eq(picard_solver_set_spans(s, 3, t0, t1), PICARD_EINVAL);
	cr_expect(strstr(picard_error_detail(), "error estimate"), "%s", picard_error_detail());
	picard_solver_free(s);
}

Test(spans, t0_alone_or_t1_alone_keeps_the_grids_other_end)
{
	const picard_model *model = test_model("oscillator");
	const double t0[2] = {3, -1}, t1[2] = {4, 12};
	double x0[4] = {1, 0, 0.5, 1}, x_final[4], ref[2];
	picard_options o = {.scheme = PICARD_SCHEME_DP8, .iter_rtol = 1e-11, .iter_atol = 1e-11,
			    .t0 = 0, .t1 = 10, .backend = PICARD_BACKEND_CPU,
			    .precision = PICARD_DOUBLE};
	picard_solver *s = test_solver(model, &o, 2);

	for (int which = 0; which < 2; which++) {
		cr_assert_eq(picard_solver_set_spans(s, 2, which ? NULL : t0, which ? t1 : NULL), 0,
			     "%s", picard_error_detail());
		cr_assert_eq(picard_solve(s, x0, NULL, x_final, NULL, NULL, NULL, 0, NULL), 0);
		for (int i = 0; i < 2; i++) {
			const double a = which ? 0 : t0[i], b = which ? t1[i] : 10;

			model->exact(b, a, x0 + 2 * i, model->param_defaults, ref);
			cr_expect_leq(fabs(x_final[2 * i] - ref[0]) + fabs(x_final[2 * i + 1] - ref[1]),
				      1e-8, "member %d on [%g, %g]", i, a, b);
		}
	}
	picard_solver_free(s);
}

/* picard-run with --init's t0 and t1 columns: the final states at each
 * member's own t1 (oscillator's closed form), --save-at rows outside a
 * member's span marked outside-span with nan states. */
Test(spans, init_columns_set_each_members_span)
{
	const picard_model *model = test_model("oscillator");
	const struct path init = in_workdir("spans.csv"), out = in_workdir("out.csv"),
			  saved = in_workdir("saved.csv");
	/* t1 first, t0 last: the header says which column is which */
	const char text[] = "t1, x1, x2, t0\n"
			    "10, 1, 0, 0\n"
			    "4, 0.5, 1, -3\n"
			    "2.501, 1, 2, 2.5\n";
	const double x0[3][2] = {{1, 0}, {0.5, 1}, {1, 2}};
	const double t0[3] = {0, -3, 2.5}, t1[3] = {10, 4, 2.501};
	char line[512];

	write_file(init.s, text, strlen(text));
	snprintf(line, sizeof(line), "oscillator --backend cpu --precision double --scheme dp8 "
		 "--iter-rtol 1e-11 --init %s --out %s", init.s, out.s);
	struct cli_run r = run_program_line("picard-run", line);
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	char *csv = slurp(out.s, NULL);
	char *row = strchr(csv, '\n') + 1; /* after the header */

	for (int i = 0; i < 3; i++) {
		long traj;
		char status[32];
		double x[2], ref[2];

		cr_assert_eq(sscanf(row, "%ld,%31[^,],%lf,%lf", &traj, status, &x[0], &x[1]), 4,
			     "row: %s", row);
		model->exact(t1[i], t0[i], x0[i], model->param_defaults, ref);
		cr_expect_eq(traj, i);
		cr_expect_str_eq(status, "ok");
		cr_expect_leq(fabs(x[0] - ref[0]) + fabs(x[1] - ref[1]), 1e-8,
			      "member %d: (%.12g, %.12g), exact at its t1 (%.12g, %.12g)", i, x[0],
			      x[1], ref[0], ref[1]);
		row = strchr(row, '\n') + 1;
	}
	free(csv);
	free_run(&r);

	/* --save-at 3: inside member 0's span and member 1's, past member 2's */
	snprintf(line, sizeof(line), "oscillator --backend cpu --precision double --scheme dp8 "
		 "--iter-rtol 1e-11 --init %s --out %s --save-at 3", init.s, saved.s);
	r = run_program_line("picard-run", line);
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	csv = slurp(saved.s, NULL);
	cr_expect(strstr(csv, "3,2,outside-span,nan,nan"), "%s", csv);
	cr_expect(strstr(csv, "3,0,ok,"), "%s", csv);
	cr_expect(strstr(csv, "3,1,ok,"), "%s", csv);
	free(csv);
	free_run(&r);
}

Test(spans, init_columns_refused_with_a_reason)
{
	const struct path bad = in_workdir("bad.csv"), good = in_workdir("good.csv");
	const char bad_text[] = "x1 x2 t0 t1\n1 0 0 1\n# a comment\n1 0 2 2\n";
	const char good_text[] = "x1 x2 t1\n1 0 3\n1 0 5\n";
	const char *const cases[][2] = {
		/* arguments, what stderr must say */
		{"oscillator --backend cpu --scheme dp5 --init %s", "bad.csv:4: t1 = 2 is not after t0 = 2"},
		{"oscillator --backend cpu --scheme dp5 --t0 4 --init %s", "good.csv:2: t1 = 3 is not after t0 = 4"},
		{"oscillator --backend cpu --init %s", "dp5, dp8, vern9"},
		{"oscillator --backend cpu --scheme lobatto --tol 1e-6 --init %s",
		 "--scheme lobatto: --init"},
	};
	char line[512];

	write_file(bad.s, bad_text, strlen(bad_text));
	write_file(good.s, good_text, strlen(good_text));
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		snprintf(line, sizeof(line), cases[c][0], c == 0 ? bad.s : good.s);
		struct cli_run r = run_program_line("picard-run", line);

		cr_expect_eq(r.status, 2, "'%s': exit %d (%s)", line, r.status, r.err);
		cr_expect(strstr(r.err, cases[c][1]), "'%s': %s", line, r.err);
		free_run(&r);
	}
}

/* oscillator's members on their own spans, one twice the grid's [0, 20]
 * long; header t0 t1 after the state. */
static const char oscillator_spans[] = "x1 x2 t0 t1\n"
				       "1 0 0 10\n"
				       "0.5 1 -3 4\n"
				       "1 2 2.5 2.501\n"
				       "-1 0.5 -10 30\n";
static const double osc_x0[4][2] = {{1, 0}, {0.5, 1}, {1, 2}, {-1, 0.5}};
static const double osc_t0[4] = {0, -3, 2.5, -10}, osc_t1[4] = {10, 4, 2.501, 30};

/* --out's final states (traj,status,x1,x2,...) against oscillator's closed
 * form at each member's own t1: the largest |x - exact|. */
static double worst_final_oscillator(const char *path)
{
	const picard_model *model = test_model("oscillator");
	char *csv = slurp(path, NULL), *row = strchr(csv, '\n') + 1;
	double worst = 0;

	for (int i = 0; i < 4; i++) {
		long traj;
		char status[32];
		double x[2], ref[2];

		cr_assert_eq(sscanf(row, "%ld,%31[^,],%lf,%lf", &traj, status, &x[0], &x[1]), 4,
			     "row: %s", row);
		cr_expect_str_eq(status, "ok", "member %d", i);
		model->exact(osc_t1[i], osc_t0[i], osc_x0[i], model->param_defaults, ref);
		worst = fmax(worst, fmax(fabs(x[0] - ref[0]), fabs(x[1] - ref[1])));
		row = strchr(row, '\n') + 1;
	}
	free(csv);
	return worst;
}

/* --check and --tol with --init's spans: the check passes on each
 * member's span, and --tol searches the schemes that take spans alone and
 * meets the tolerance against the closed form at each member's t1. */
Test(spans, check_and_tol_on_init_spans)
{
	const struct path init = in_workdir("osc.csv"), out = in_workdir("osc_out.csv");
	char line[512], ran[32] = "";
	const char *at;

	write_file(init.s, oscillator_spans, strlen(oscillator_spans));
	snprintf(line, sizeof(line), "oscillator --backend cpu --precision double --scheme vern9 "
		 "--iter-rtol 1e-10 --init %s --check --out %s", init.s, out.s);
	struct cli_run r = run_program_line("picard-run", line);
	cr_assert_eq(r.status, 0, "exit %d: %s\n%s", r.status, r.err, r.out);
	cr_expect(strstr(r.out, "over 4 trajectories"), "%s", r.out);
	cr_expect(strstr(r.out, "[PASS]"), "%s", r.out);
	cr_expect_leq(worst_final_oscillator(out.s), 1e-8);
	free_run(&r);

	snprintf(line, sizeof(line), "oscillator --backend cpu --precision double --tol 1e-8 "
		 "--init %s --out %s", init.s, out.s);
	r = run_program_line("picard-run", line);
	cr_assert_eq(r.status, 0, "exit %d: %s\n%s", r.status, r.err, r.out);
	cr_expect(strstr(r.out, "met by 4 of 4 trajectories"), "%s", r.out);
	at = strstr(r.out, "schemes      ");
	cr_assert(at && sscanf(at + 13, "%31s ran", ran) == 1, "%s", r.out);
	cr_expect(picard_scheme_named(ran) && picard_scheme_named(ran)->per_member_spans,
		  "%s ran: not a scheme that takes spans", ran);
	/* the search's list: the schemes that take spans, nothing else */
	cr_expect(!strstr(at, "lobatto") && !strstr(at, "trapezoid"), "%.300s", at);
	/* |x - x_ref| <= 1e-8, x_ref rk8pd's at 1e-13 */
	cr_expect_leq(worst_final_oscillator(out.s), 1.01e-8);
	free_run(&r);
}

/* bouncing_ball under --check with --init's spans: the check passes,
 * comparing every bounce, and the event log's bounce times are the
 * closed form's on each member's span (t_1 = t0 + (v0 + V) / g, t_{n+1} =
 * t_n + 2 e^n V / g). */
Test(spans, check_of_events_on_init_spans)
{
	const picard_model *model = test_model("bouncing_ball");
	const struct path init = in_workdir("balls.csv"), log = in_workdir("balls_log.csv");
	const char text[] = "y v t0 t1\n1 0 0 4\n2 1 1 3\n0.5 0 -2 1\n1.5 0 0.5 2\n";
	const double y0[4] = {1, 2, 0.5, 1.5}, v0[4] = {0, 1, 0, 0};
	const double t0[4] = {0, 1, -2, 0.5}, t1[4] = {4, 3, 1, 2};
	const double g = model->param_defaults[0], e = model->param_defaults[1];
	char line[512], expect[64];
	int bounces = 0, seen[4] = {0};
	double worst = 0;

	write_file(init.s, text, strlen(text));
	snprintf(line, sizeof(line), "bouncing_ball --backend cpu --iter-rtol 1e-10 --init %s "
		 "--check --events %s", init.s, log.s);
	struct cli_run r = run_program_line("picard-run", line);
	cr_assert_eq(r.status, 0, "exit %d: %s\n%s", r.status, r.err, r.out);
	cr_expect(strstr(r.out, "[PASS]"), "%s", r.out);
	char *csv = slurp(log.s, NULL), *row = strchr(csv, '\n') + 1;

	for (int i = 0; i < 4; i++) {
		const double V = sqrt(v0[i] * v0[i] + 2 * g * y0[i]);
		double t = t0[i] + (v0[i] + V) / g;

		for (int n = 0; t <= t1[i]; n++) {
			bounces++;
			t += 2 * pow(e, n + 1) * V / g;
		}
	}
	for (; *row; row = strchr(row, '\n') + 1) {
		long member;
		int index;
		double t;

		cr_assert_eq(sscanf(row, "%ld,%d,bounce,%lf", &member, &index, &t), 3, "%s", row);
		cr_assert(member >= 0 && member < 4);
		const double V = sqrt(v0[member] * v0[member] + 2 * g * y0[member]);
		double ref = t0[member] + (v0[member] + V) / g;

		for (int n = 0; n < seen[member]; n++)
			ref += 2 * pow(e, n + 1) * V / g;
		seen[member]++;
		worst = fmax(worst, fabs(t - ref));
	}
	cr_expect_eq(seen[0] + seen[1] + seen[2] + seen[3], bounces, "the log: %d bounces, the "
		     "closed form %d", seen[0] + seen[1] + seen[2] + seen[3], bounces);
	cr_expect_leq(worst, 1e-8, "bounce times off by %.3g", worst);
	snprintf(expect, sizeof(expect), "events: %d compared", bounces);
	cr_expect(strstr(r.out, expect), "no '%s': %s", expect, r.out);
	free(csv);
	free_run(&r);
}
