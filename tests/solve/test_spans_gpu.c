/* test_spans_gpu.c - per-member time spans on the CUDA backend (suite
 * spans_gpu): the kernels run rk_integrate.cuh as the CPU backend does,
 * each member on its own span (rk_run_of_launch), so each case runs on
 * both and compares member by member: final states, statuses, a record
 * of window ends and a record of times (NaN outside a member's span on
 * both), bouncing_ball's event counts and times; oscillator's final
 * states against the closed form at each member's own t1; and an
 * ensemble the device takes in several chunks (each chunk's spans at its
 * members). Skipped without a GPU, failed with PICARD_REQUIRE_GPU=1. */
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
	make_workdir("spans_gpu", "cache");
}

TestSuite(spans_gpu, .init = setup, .fini = remove_workdir);

#define N 301 /* members no one tuned for */
#define NT 7  /* record times */
static const double times[NT] = {-40, -5, 0, 1.7, 9.5, 30, 60};

/* Member i's span: t0 in [-20, 10], length 1e-3 to 50, from a fixed
 * sequence (no tuning). */
static void spans(double *t0, double *t1)
{
	unsigned long long u = 88172645463325252ULL;

	for (int i = 0; i < N; i++) {
		u ^= u << 13;
		u ^= u >> 7;
		u ^= u << 17;
		const double a = (double)(u % 1000003) / 1000003, b = (double)(u % 999983) / 999983;

		t0[i] = -20 + 30 * a;
		t1[i] = t0[i] + pow(10, -3 + log10(5e4) * b);
	}
}

/* One backend's solve with spans. */
struct side {
	picard_solver *s;
	picard_traj_status status[N];
	double x_final[2 * N], ends[4 * 2 * N], saved[NT * 2 * N];
	picard_stats stats;
};

static struct side *solve_on(const picard_model *model, picard_options o, picard_backend backend,
			     const double *x0, const double *params, const double *t0,
			     const double *t1, bool with_records)
{
	struct side *r = calloc(1, sizeof(*r));
	picard_record recs[2] = {
		{.every = 1, .traj_stride = 1, .states = r->ends},
		{.traj_stride = 1, .states = r->saved, .times = times, .ntimes = NT},
	};
	int err;

	o.backend = backend;
	err = picard_solver_create(&r->s, model, &o, N);
	cr_assert_eq(err, 0, "%s: %s", picard_strerror(err), picard_error_detail());
	cr_assert_eq(picard_solver_set_spans(r->s, N, t0, t1), 0, "%s", picard_error_detail());
	err = picard_solve(r->s, x0, params, r->x_final, r->status, NULL, recs,
			   with_records ? 2 : 0, &r->stats);
	cr_assert(err == 0 || err == PICARD_EFAILED, "%s: %s", picard_strerror(err),
		  picard_error_detail());
	return r;
}

static void side_free(struct side *r)
{
	picard_solver_free(r->s);
	free(r);
}

/* |a - b| within tol of max(1, |b|), or both NaN. */
static bool near(double a, double b, double tol)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	return fabs(a - b) <= tol * fmax(1, fabs(b));
}

static void expect_near_all(const double *a, const double *b, long count, double tol,
			    const char *what)
{
	for (long j = 0; j < count; j++)
		cr_expect(near(a[j], b[j], tol), "%s [%ld]: GPU %.17g, CPU %.17g", what, j, a[j],
			  b[j]);
}

Test(spans_gpu, each_member_on_its_span_as_the_cpu_and_the_closed_form, .timeout = 600)
{
	const picard_model *model = test_model("oscillator");
	double t0[N], t1[N], x0[2 * N], ref[2];
	picard_scheme ids[PER_THREAD_MAX];
	const int nids = per_thread_schemes(PER_THREAD_EXPLICIT, ids);

	require_gpu();
	spans(t0, t1);
	for (int i = 0; i < N; i++) {
		x0[2 * i] = 1 + 0.001 * i;
		x0[2 * i + 1] = -0.5 + 0.003 * i;
	}
	for (int c = 0; c < nids; c++)
		for (int fixed = 0; fixed < 2; fixed++) {
			picard_options o = {.scheme = ids[c], .precision = PICARD_DOUBLE, .t0 = -20,
					    .t1 = 10, .h = 7.5};
			const char *name = picard_scheme_of(ids[c])->name;

			if (fixed)
				o.K = 2000;
			else
				o.iter_rtol = o.iter_atol = 1e-11;
			struct side *gpu = solve_on(model, o, PICARD_BACKEND_CUDA, x0, NULL, t0, t1, true);
			struct side *cpu = solve_on(model, o, PICARD_BACKEND_CPU, x0, NULL, t0, t1, true);
			double worst = 0;

			for (int i = 0; i < N; i++) {
				cr_expect_eq(gpu->status[i], PICARD_TRAJ_OK, "%s member %d", name, i);
				model->exact(t1[i], t0[i], x0 + 2 * i, model->param_defaults, ref);
				for (int k = 0; k < 2; k++)
					worst = fmax(worst, fabs(gpu->x_final[2 * i + k] - ref[k]));
			}
			cr_expect_leq(worst, 1e-6, "%s %s: %.3g from the closed form", name,
				      fixed ? "fixed" : "adaptive", worst);
			cr_log_info("%s %s on the GPU: %.3g from the closed form at the members' t1",
				    name, fixed ? "fixed" : "adaptive", worst);
			expect_near_all(gpu->x_final, cpu->x_final, 2 * N, 1e-9, "final states");
			expect_near_all(gpu->ends, cpu->ends, 4 * 2 * N, 1e-9, "window ends");
			expect_near_all(gpu->saved, cpu->saved, NT * 2 * N, 1e-9, "record of times");
			for (int r = 0; r < NT; r++)
				for (int i = 0; i < N; i++)
					if (times[r] < t0[i] || times[r] > t1[i])
						cr_expect(isnan(gpu->saved[(r * N + i) * 2]),
							  "member %d at %g outside [%g, %g]", i,
							  times[r], t0[i], t1[i]);
			side_free(gpu);
			side_free(cpu);
		}
}

Test(spans_gpu, bounces_on_each_members_span_and_in_chunks, .timeout = 600)
{
	const picard_model *model = test_model("bouncing_ball");
	double t0[N], t1[N], x0[2 * N], p[2 * N];
	picard_options o = {.scheme = PICARD_SCHEME_DP8, .event_log = 64, .iter_rtol = 1e-11,
			    .iter_atol = 1e-11, .precision = PICARD_DOUBLE, .t0 = -20, .t1 = 10};

	require_gpu();
	spans(t0, t1);
	for (int i = 0; i < N; i++) { /* at most 6 time units: fewer bounces than the limit */
		t1[i] = fmin(t1[i], t0[i] + 6);
		x0[2 * i] = ball_x0[i % BALLS][0];
		x0[2 * i + 1] = ball_x0[i % BALLS][1];
		p[2 * i] = ball_p[i % BALLS][0];
		p[2 * i + 1] = ball_p[i % BALLS][1];
	}
	struct side *gpu = solve_on(model, o, PICARD_BACKEND_CUDA, x0, p, t0, t1, false);
	struct side *cpu = solve_on(model, o, PICARD_BACKEND_CPU, x0, p, t0, t1, false);
	/* a few dozen members a chunk: states, outcome and a log of 64 */
	o.device_memory = 40 * ((2 * 2 + 2) * sizeof(double) + 40 + 64 * (4 + 5 * 8));
	struct side *parts = solve_on(model, o, PICARD_BACKEND_CUDA, x0, p, t0, t1, false);
	const picard_event_log *a = picard_solver_event_log(gpu->s);
	const picard_event_log *b = picard_solver_event_log(cpu->s);
	const picard_event_log *c = picard_solver_event_log(parts->s);
	double t[64];

	cr_expect_geq(parts->stats.chunks, 3, "%ld chunks", parts->stats.chunks);
	for (int i = 0; i < N; i++) {
		const int n = bounce_times(x0[2 * i], x0[2 * i + 1], p[2 * i], p[2 * i + 1],
					   t1[i] - t0[i], t, 64);

		cr_expect_eq(a->count[i], n, "member %d on [%g, %g]: %d bounces, the closed form %d",
			     i, t0[i], t1[i], a->count[i], n);
		cr_expect_eq(a->count[i], b->count[i], "member %d: GPU %d, CPU %d", i, a->count[i],
			     b->count[i]);
		cr_expect_eq(a->count[i], c->count[i], "member %d: one launch %d, chunks %d", i,
			     a->count[i], c->count[i]);
		for (int j = 0; j < n && j < a->count[i] && j < a->capacity; j++) {
			const size_t at = (size_t)i * a->capacity + j;

			cr_expect(near(a->time[at], t0[i] + t[j], 1e-9), "member %d bounce %d: %.15g, "
				  "closed form %.15g", i, j, a->time[at], t0[i] + t[j]);
			cr_expect(near(a->time[at], b->time[at], 1e-10));
		}
	}
	cr_expect_eq(memcmp(gpu->x_final, parts->x_final, sizeof(gpu->x_final)), 0,
		     "chunks: the states of one launch");
	expect_near_all(gpu->x_final, cpu->x_final, 2 * N, 1e-8, "final states");
	side_free(gpu);
	side_free(cpu);
	side_free(parts);
}

/* The stiff per-thread schemes take spans too: each under the thread
 * layout and a warp per trajectory (rk_warp_kernel.cuh), adaptive,
 * against the CPU and the closed form. */
Test(spans_gpu, stiff_schemes_on_each_members_span_in_both_layouts, .timeout = 600)
{
	const picard_model *model = test_model("oscillator");
	double t0[N], t1[N], x0[2 * N], ref[2];
	picard_scheme ids[PER_THREAD_MAX];
	const int nids = per_thread_schemes(PER_THREAD_STIFF, ids);
	const double tol = 1e-10;

	require_gpu();
	spans(t0, t1);
	for (int i = 0; i < N; i++) {
		x0[2 * i] = 1 - 0.001 * i;
		x0[2 * i + 1] = 0.25 + 0.002 * i;
	}
	for (int c = 0; c < nids; c++)
		for (int warp = 0; warp < 2; warp++) {
			picard_options o = {.scheme = ids[c], .precision = PICARD_DOUBLE, .t0 = -20,
					    .t1 = 10, .h = 7.5, .iter_rtol = tol, .iter_atol = tol,
					    .layout = warp ? PICARD_LAYOUT_WARP : PICARD_LAYOUT_THREAD};
			const char *name = picard_scheme_of(ids[c])->name;
			struct side *gpu = solve_on(model, o, PICARD_BACKEND_CUDA, x0, NULL, t0, t1, true);

			o.layout = PICARD_LAYOUT_AUTO;
			struct side *cpu = solve_on(model, o, PICARD_BACKEND_CPU, x0, NULL, t0, t1, true);
			double worst = 0;

			for (int i = 0; i < N; i++) {
				cr_expect_eq(gpu->status[i], PICARD_TRAJ_OK, "%s member %d", name, i);
				model->exact(t1[i], t0[i], x0 + 2 * i, model->param_defaults, ref);
				for (int k = 0; k < 2; k++)
					worst = fmax(worst, fabs(gpu->x_final[2 * i + k] - ref[k]));
			}
			cr_log_info("%s %s on the GPU: %.3g from the closed form at the members' t1",
				    name, warp ? "warp" : "thread", worst);
			cr_expect_leq(worst, 1e3 * per_thread_error_scale(ids[c], tol), "%s %s: %.3g",
				      name, warp ? "warp" : "thread", worst);
			/* their steps may part by rounding: alike to the error's size */
			const double alike = 1e3 * per_thread_error_scale(ids[c], tol);

			expect_near_all(gpu->x_final, cpu->x_final, 2 * N, alike, "final states");
			expect_near_all(gpu->saved, cpu->saved, NT * 2 * N, alike, "record of times");
			side_free(gpu);
			side_free(cpu);
		}
}

/* picard-run on the GPU with --init's spans under --check and --tol:
 * bouncing_ball's members checked, events and states, against the GSL
 * reference on each member's own span (the check runs on the host; the
 * members' spans reach the kernels through the same --init columns). */
Test(spans_gpu, check_and_tol_on_init_spans, .timeout = 600)
{
	const struct path init = in_workdir("balls.csv");
	const char text[] = "y v t0 t1\n1 0 0 4\n2 1 1 3\n0.5 0 -2 1\n1.5 0 0.5 2\n";
	const char *const runs[] = {"--iter-rtol 1e-10 --check", "--tol 1e-8"};
	char line[512];

	require_gpu();
	write_file(init.s, text, strlen(text));
	for (int c = 0; c < 2; c++) {
		snprintf(line, sizeof(line), "bouncing_ball --backend cuda --precision double "
			 "--init %s %s", init.s, runs[c]);
		struct cli_run r = run_program_line("picard-run", line);

		cr_expect_eq(r.status, 0, "'%s': exit %d: %s\n%s", line, r.status, r.err, r.out);
		cr_expect(strstr(r.out, "[PASS]"), "'%s': %s", line, r.out);
		cr_expect(strstr(r.out, "events: 15 compared"), "'%s': %s", line, r.out);
		free_run(&r);
	}
}
