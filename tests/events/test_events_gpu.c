/* test_events_gpu.c - events on the CUDA backend (suite events_gpu): the
 * kernels locate them as the CPU backend does (events_step.cuh, written
 * once), so each case runs on both and compares, member by member:
 * statuses, event counts, every logged entry (index, time, the states
 * before and after), final states and stop times; and against the
 * closed forms where there are some: bouncing_ball's bounce times
 * (257 members no one tuned for, dp5, dp8 and vern9, adaptive and fixed,
 * double and float), threshold's terminal times with dense output after
 * them NaN, thermostat's jumps of its parameters, the faulty members of
 * event_faults in one ensemble, an ensemble solved in chunks, and the
 * members of impact_oscillator, izhikevich, kepler_periapsis and
 * lotka_harvest (event_cases.c; their closed forms and references are
 * test_event_models.c's); the stiff schemes (rodas5p, rodas4, ros23,
 * radau5, one thread a member) on bouncing_ball, robertson_events and
 * event_faults. Skipped without a GPU, failed with
 * PICARD_REQUIRE_GPU=1. */
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
	make_workdir("events_gpu", "cache");
}

TestSuite(events_gpu, .init = setup, .fini = remove_workdir);

/* One backend's solve: statuses, final states and stop times, the
 * solver kept for its log. */
struct side {
	picard_solver *s;
	picard_traj_status *status;
	double *x_final;
	picard_stats stats;
	int err;
};

static struct side solve_on(const picard_model *model, picard_options o, picard_backend backend,
			    long ntraj, const double *x0, const double *params, picard_record *rec)
{
	struct side r = {0};
	int err;

	o.backend = backend;
	r.status = calloc(ntraj, sizeof(*r.status));
	r.x_final = calloc(ntraj * model->dim, sizeof(double));
	err = picard_solver_create(&r.s, model, &o, ntraj);
	cr_assert_eq(err, 0, "%s on %s: %s (%s)", model->name,
		     backend == PICARD_BACKEND_CUDA ? "cuda" : "cpu", picard_strerror(err),
		     picard_error_detail());
	r.err = picard_solve(r.s, x0, params, r.x_final, r.status, NULL, rec, rec ? 1 : 0,
			     &r.stats);
	cr_assert(r.err == 0 || r.err == PICARD_EFAILED, "%s: %s (%s)", model->name,
		  picard_strerror(r.err), picard_error_detail());
	return r;
}

static void side_free(struct side *r)
{
	picard_solver_free(r->s);
	free(r->status);
	free(r->x_final);
}

/* |a - b| within tol of max(1, |b|), or both NaN alike. */
static bool near(double a, double b, double tol)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	return fabs(a - b) <= tol * fmax(1, fabs(b));
}

/* The GPU's solve against the CPU's, member by member, to tol; the
 * largest difference of an event time. */
static double compare(const struct side *gpu, const struct side *cpu, const picard_model *model,
		      long ntraj, double tol, const char *what)
{
	const picard_event_log *g = picard_solver_event_log(gpu->s);
	const picard_event_log *c = picard_solver_event_log(cpu->s);
	const double *gstop = picard_solver_fail_times(gpu->s);
	const double *cstop = picard_solver_fail_times(cpu->s);
	const int n = model->dim;
	double worst = 0;

	cr_assert_not_null(g);
	cr_assert_eq(g->ntraj, ntraj);
	cr_assert_eq(g->capacity, c->capacity);
	cr_expect_eq(gpu->err, cpu->err, "%s: the GPU's solve gave %d, the CPU's %d", what,
		     gpu->err, cpu->err);
	for (long i = 0; i < ntraj; i++) {
		cr_expect_eq(gpu->status[i], cpu->status[i], "%s member %ld: %s on the GPU, %s on "
			     "the CPU", what, i, picard_traj_status_name(gpu->status[i]),
			     picard_traj_status_name(cpu->status[i]));
		cr_expect_eq(g->count[i], c->count[i], "%s member %ld: %d events on the GPU, %d "
			     "on the CPU", what, i, g->count[i], c->count[i]);
		for (int k = 0; k < n; k++)
			cr_expect(near(gpu->x_final[i * n + k], cpu->x_final[i * n + k], tol),
				  "%s member %ld x%d: %.17g on the GPU, %.17g on the CPU", what, i,
				  k + 1, gpu->x_final[i * n + k], cpu->x_final[i * n + k]);
		if (cpu->status[i] != PICARD_TRAJ_OK)
			cr_expect(near(gstop[2 * i], cstop[2 * i], tol),
				  "%s member %ld stopped at %.17g on the GPU, %.17g on the CPU",
				  what, i, gstop[2 * i], cstop[2 * i]);
		for (int j = 0; j < c->count[i] && j < g->count[i] && j < c->capacity; j++) {
			const size_t at = (size_t)i * c->capacity + j;

			worst = fmax(worst, fabs(g->time[at] - c->time[at]));
			cr_expect_eq(g->index[at], c->index[at], "%s member %ld entry %d", what, i, j);
			cr_expect(near(g->time[at], c->time[at], tol), "%s member %ld entry %d: t = "
				  "%.17g on the GPU, %.17g on the CPU", what, i, j, g->time[at],
				  c->time[at]);
			for (int k = 0; k < n; k++) {
				cr_expect(near(g->before[at * n + k], c->before[at * n + k], tol),
					  "%s member %ld entry %d before x%d", what, i, j, k + 1);
				cr_expect(near(g->after[at * n + k], c->after[at * n + k], tol),
					  "%s member %ld entry %d after x%d", what, i, j, k + 1);
			}
		}
	}
	return worst;
}

/* NBALL members of bouncing_ball, each of fewer bounces than the log's
 * 200 before t1 = 4 (e >= 0.9 at g <= 10 puts the bounces' accumulation
 * point past it): start (y0, v0) and (g, e) from an irrational walk. */
#define NBALL 257
static void balls(double *x0, double *p)
{
	for (int i = 0; i < NBALL; i++) {
		const double u = fmod(i * 0.6180339887498949, 1), w = fmod(i * 0.4142135623730951, 1);

		x0[2 * i] = 0.5 + 1.5 * u;
		x0[2 * i + 1] = -1 + 4 * w;
		p[2 * i] = 3 + 7 * fmod(i * 0.7320508075688772, 1);
		p[2 * i + 1] = 0.9 + 0.05 * fmod(i * 0.2360679774997897, 1);
	}
}

/* Each member's logged bounces against the closed form; the largest
 * time error. */
static double against_closed_form(const struct side *r, const double *x0, const double *p,
				  double tol, const char *what)
{
	const picard_event_log *log = picard_solver_event_log(r->s);
	double worst = 0, t[200];

	for (int i = 0; i < NBALL; i++) {
		const int n = bounce_times(x0[2 * i], x0[2 * i + 1], p[2 * i], p[2 * i + 1], 4, t,
					   200);

		cr_expect_eq(r->status[i], PICARD_TRAJ_OK, "%s member %d: %s", what, i,
			     picard_traj_status_name(r->status[i]));
		cr_expect_eq(log->count[i], n, "%s member %d: %d bounces, the closed form %d", what,
			     i, log->count[i], n);
		for (int j = 0; j < n && j < log->count[i]; j++) {
			const double err = fabs(log->time[(size_t)i * log->capacity + j] - t[j]);

			worst = fmax(worst, err);
			cr_expect_leq(err, tol, "%s member %d bounce %d: error %.3g", what, i, j, err);
		}
	}
	return worst;
}

Test(events_gpu, bounces_match_the_closed_form_and_the_cpu, .timeout = 600)
{
	static const picard_scheme schemes[] = {PICARD_SCHEME_DP5, PICARD_SCHEME_DP8,
						PICARD_SCHEME_VERN9};
	const picard_model *model = test_model("bouncing_ball");
	double x0[2 * NBALL], p[2 * NBALL];

	require_gpu();
	balls(x0, p);
	for (int c = 0; c < 3; c++)
		for (int v = 0; v < 3; v++) { /* adaptive double, fixed double, adaptive float */
			const bool fixed = v == 1, single = v == 2;
			picard_options o = {.scheme = schemes[c], .event_log = 200,
					    .precision = single ? PICARD_FLOAT : PICARD_DOUBLE};
			char what[64];

			if (fixed) {
				o.K = 50;
				o.h = 0.5;
			} else {
				o.iter_rtol = o.iter_atol = single ? 1e-6 : 1e-12;
			}
			snprintf(what, sizeof(what), "%s %s %s", picard_scheme_of(schemes[c])->name,
				 fixed ? "fixed" : "adaptive", single ? "float" : "double");
			struct side gpu = solve_on(model, o, PICARD_BACKEND_CUDA, NBALL, x0, p, NULL);
			struct side cpu = solve_on(model, o, PICARD_BACKEND_CPU, NBALL, x0, p, NULL);
			/* in float a bounce's time differs by rounding's 1e-5 and
			 * the speed after it by g times that */
			const double apart = compare(&gpu, &cpu, model, NBALL, single ? 1e-3 : 1e-9,
						     what);
			const double closed = against_closed_form(&gpu, x0, p,
								  single ? 1e-4 : 1e-9, what);

			cr_log_info("bouncing_ball %s, %d members: bounce times within %.3g of the "
				    "closed form, %.3g of the CPU's", what, NBALL, closed, apart);
			side_free(&gpu);
			side_free(&cpu);
		}
}

/* thermostat's jumps of the parameters: each member's own heater
 * switched in the kernel's copy, at the CPU's times and the closed form's. */
Test(events_gpu, parameter_jumps_like_the_cpu_and_the_closed_form, .timeout = 300)
{
	const picard_model *model = test_model("thermostat");
	picard_options o = {.scheme = PICARD_SCHEME_DP8, .event_log = 256, .t0 = 0, .t1 = 10,
			    .iter_rtol = 1e-12, .iter_atol = 1e-12, .precision = PICARD_DOUBLE};

	require_gpu();
	struct side gpu = solve_on(model, o, PICARD_BACKEND_CUDA, THERMOSTATS, thermostat_x0,
				   &thermostat_p[0][0], NULL);
	struct side cpu = solve_on(model, o, PICARD_BACKEND_CPU, THERMOSTATS, thermostat_x0,
				   &thermostat_p[0][0], NULL);
	const picard_event_log *log = picard_solver_event_log(gpu.s);

	compare(&gpu, &cpu, model, THERMOSTATS, 1e-9, "thermostat dp8");
	for (int i = 0; i < THERMOSTATS; i++) {
		double t[256], T1;
		int event[256];
		const int n = thermostat_switches(thermostat_p[i], thermostat_x0[i], 10, t, event,
						  256, &T1);

		cr_expect_eq(log->count[i], n, "member %d: %d switches, the closed form %d", i,
			     log->count[i], n);
		for (int j = 0; j < n && j < log->count[i]; j++)
			cr_expect(fabs(log->time[(size_t)i * log->capacity + j] - t[j]) < 1e-9,
				  "member %d switch %d", i, j);
		cr_expect(fabs(gpu.x_final[i] - T1) < 1e-9, "member %d: T(10) = %.17g, the closed "
			  "form %.17g", i, gpu.x_final[i], T1);
	}
	side_free(&gpu);
	side_free(&cpu);
}

/* threshold's terminal events with dense output: the rows after a
 * member's event are NaN on the GPU as on the CPU, the others exp(-k t). */
Test(events_gpu, terminal_events_end_dense_output_like_the_cpu, .timeout = 300)
{
	const picard_model *model = test_model("threshold");
	const double p[4][3] = {{0.5, 0.5, 0.1}, {2, 0.7, 0.3}, {0.5, 0.5, 0.25}, {1, 0.9, 0.2}};
	const double x0[4] = {1, 3, 0.25, 0.5}, times[3] = {0.5, 1.5, 4};
	double gstates[12], cstates[12];
	picard_record grec = {.traj_stride = 1, .states = gstates, .times = times, .ntimes = 3};
	picard_record crec = grec;
	picard_options o = {.scheme = PICARD_SCHEME_DP8, .iter_rtol = 1e-12, .iter_atol = 1e-12,
			    .precision = PICARD_DOUBLE};

	require_gpu();
	crec.states = cstates;
	struct side gpu = solve_on(model, o, PICARD_BACKEND_CUDA, 4, x0, &p[0][0], &grec);
	struct side cpu = solve_on(model, o, PICARD_BACKEND_CPU, 4, x0, &p[0][0], &crec);

	compare(&gpu, &cpu, model, 4, 1e-9, "threshold dp8");
	for (int i = 0; i < 4; i++) {
		const double stop = log(x0[i] / p[i][2]) / p[i][0]; /* the level's time */

		cr_expect_eq(gpu.status[i], PICARD_TRAJ_EVENT, "member %d: %s", i,
			     picard_traj_status_name(gpu.status[i]));
		for (int r = 0; r < 3; r++) {
			const double got = gstates[r * 4 + i];

			if (times[r] > stop)
				cr_expect(isnan(got), "member %d at t = %g, after its event at %g: %g",
					  i, times[r], stop, got);
			else
				cr_expect_leq(fabs(got - x0[i] * exp(-p[i][0] * times[r])), 1e-10,
					      "member %d at t = %g: %.17g", i, times[r], got);
			cr_expect(near(got, cstates[r * 4 + i], 1e-9), "member %d row %d", i, r);
		}
	}
	side_free(&gpu);
	side_free(&cpu);
}

/* event_faults' members, each failing its own way beside good ones:
 * the same statuses, counts, entries and stop times on the GPU. */
Test(events_gpu, faulty_members_like_the_cpu, .timeout = 300)
{
	const struct path path = in_workdir("event_faults.cu");
	const picard_model *model = NULL;
	enum { N = EVENT_FAULTS_N };
	const double (*x0)[2] = event_faults_x0, (*p)[3] = event_faults_p;
	picard_options o = {.scheme = PICARD_SCHEME_DP8, .iter_rtol = 1e-12, .iter_atol = 1e-12,
			    .event_log = 30, .precision = PICARD_DOUBLE};
	const picard_traj_status expect[N] = {
		PICARD_TRAJ_OK, PICARD_TRAJ_EVENT_FAILED, PICARD_TRAJ_NONFINITE,
		PICARD_TRAJ_EVENT_LIMIT, PICARD_TRAJ_OK, PICARD_TRAJ_EVENT_LIMIT, PICARD_TRAJ_OK};

	require_gpu();
	write_file(path.s, event_faults_text, strlen(event_faults_text));
	cr_assert_eq(picard_model_load(path.s, &model), 0, "%s", picard_error_detail());
	struct side gpu = solve_on(model, o, PICARD_BACKEND_CUDA, N, &x0[0][0], &p[0][0], NULL);
	struct side cpu = solve_on(model, o, PICARD_BACKEND_CPU, N, &x0[0][0], &p[0][0], NULL);

	compare(&gpu, &cpu, model, N, 1e-9, "event_faults dp8");
	for (int i = 0; i < N; i++)
		cr_expect_eq(gpu.status[i], expect[i], "member %d: %s", i,
			     picard_traj_status_name(gpu.status[i]));
	side_free(&gpu);
	side_free(&cpu);
}

/* An ensemble the device takes in several chunks: each chunk's log lands
 * at its members, as one launch's. */
Test(events_gpu, chunks_keep_each_members_log, .timeout = 300)
{
	const picard_model *model = test_model("bouncing_ball");
	double x0[2 * NBALL], p[2 * NBALL];
	picard_options o = {.scheme = PICARD_SCHEME_DP8, .event_log = 200, .iter_rtol = 1e-10,
			    .iter_atol = 1e-10, .precision = PICARD_DOUBLE};

	require_gpu();
	balls(x0, p);
	struct side whole = solve_on(model, o, PICARD_BACKEND_CUDA, NBALL, x0, p, NULL);
	/* about 50 members a chunk: a member's states, outcome and its log's
	 * 200 entries (cuda_backend.cu counts them) */
	o.device_memory = 60 * ((2 * 2 + 2) * sizeof(double) + 24 + 4 + 200 * (4 + 5 * 8));
	struct side parts = solve_on(model, o, PICARD_BACKEND_CUDA, NBALL, x0, p, NULL);
	const picard_event_log *a = picard_solver_event_log(whole.s);
	const picard_event_log *b = picard_solver_event_log(parts.s);

	cr_expect_eq(whole.stats.chunks, 1);
	cr_expect_geq(parts.stats.chunks, 3, "%ld chunks", parts.stats.chunks);
	cr_log_info("bouncing_ball: %d members in %ld chunks", NBALL, parts.stats.chunks);
	for (int i = 0; i < NBALL; i++) {
		const size_t at = (size_t)i * a->capacity;

		cr_assert_eq(a->count[i], b->count[i], "member %d: %d events in one launch, %d in "
			     "chunks", i, a->count[i], b->count[i]);
		cr_expect_eq(memcmp(a->time + at, b->time + at, a->count[i] * sizeof(double)), 0,
			     "member %d: event times differ between one launch and chunks", i);
		cr_expect_eq(memcmp(a->after + 2 * at, b->after + 2 * at,
				    2 * a->count[i] * sizeof(double)), 0, "member %d: states", i);
	}
	cr_expect_eq(memcmp(whole.x_final, parts.x_final, 2 * NBALL * sizeof(double)), 0);
	side_free(&whole);
	side_free(&parts);
}

/* A model's members (event_cases.c) on the GPU and the CPU, dp8 at
 * 1e-12 in double to t1: each ok, the same logs and final states. The
 * members are not chaotic (dp8 and vern9 at 1e-12 put their events
 * within 1e-7 of each other), so rounding stays rounding. */
static void event_model_like_the_cpu(const char *name, const double *x0, const double *p,
				     double t1)
{
	const picard_model *model = test_model(name);
	picard_options o = {.scheme = PICARD_SCHEME_DP8, .iter_rtol = 1e-12, .iter_atol = 1e-12,
			    .event_log = 64, .t1 = t1, .precision = PICARD_DOUBLE};
	struct side gpu = solve_on(model, o, PICARD_BACKEND_CUDA, EVENT_MEMBERS, x0, p, NULL);
	struct side cpu = solve_on(model, o, PICARD_BACKEND_CPU, EVENT_MEMBERS, x0, p, NULL);
	const double apart = compare(&gpu, &cpu, model, EVENT_MEMBERS, 1e-9, name);
	const picard_event_log *log = picard_solver_event_log(gpu.s);

	for (int i = 0; i < EVENT_MEMBERS; i++) {
		cr_expect_eq(gpu.status[i], PICARD_TRAJ_OK, "%s member %d: %s", name, i,
			     picard_traj_status_name(gpu.status[i]));
		cr_expect_gt(log->count[i], 0, "%s member %d: no events", name, i);
	}
	cr_log_info("%s dp8: %d, %d, %d, %d events, times within %.3g of the CPU's", name,
		    log->count[0], log->count[1], log->count[2], log->count[3], apart);
	side_free(&gpu);
	side_free(&cpu);
}

Test(events_gpu, impact_oscillator_like_the_cpu, .timeout = 300)
{
	require_gpu();
	event_model_like_the_cpu("impact_oscillator", &impact_x0[0][0], &impact_p[0][0],
				 IMPACT_T1);
}

Test(events_gpu, izhikevich_like_the_cpu, .timeout = 300)
{
	require_gpu();
	event_model_like_the_cpu("izhikevich", &izhikevich_x0[0][0], &izhikevich_p[0][0],
				 IZHIKEVICH_T1);
}

Test(events_gpu, kepler_periapsis_like_the_cpu, .timeout = 300)
{
	double x0[EVENT_MEMBERS][4], p[EVENT_MEMBERS][2];

	require_gpu();
	periapsis_members(x0, p);
	event_model_like_the_cpu("kepler_periapsis", &x0[0][0], &p[0][0], PERIAPSIS_T1);
}

Test(events_gpu, lotka_harvest_like_the_cpu, .timeout = 300)
{
	require_gpu();
	event_model_like_the_cpu("lotka_harvest", &harvest_x0[0][0], &harvest_p[0][0], HARVEST_T1);
}

/* The stiff schemes' kernels (the thread layout) against the CPU's:
 * bouncing_ball's members adaptive and fixed (and the closed form),
 * Robertson's kinetics with a record and a terminal event, and
 * event_faults' members with their statuses. */
Test(events_gpu, stiff_schemes_like_the_cpu, .timeout = 600)
{
	static const picard_scheme schemes[] = {PICARD_SCHEME_RODAS5P, PICARD_SCHEME_RODAS4,
						PICARD_SCHEME_ROS23, PICARD_SCHEME_RADAU5};
	const picard_model *ball = test_model("bouncing_ball");
	const struct path rob_path = in_workdir("robertson_events.cu");
	const struct path faults_path = in_workdir("event_faults.cu");
	const picard_model *rob = NULL, *faults = NULL;
	const double rob_p[4][5] = {{0.04, 1e4, 3e7, 0.98, 0.01}, {0.04, 1e4, 3e7, 0.9, 0.05},
				    {0.04, 1e4, 3e7, 0.8, 0.1}, {0.04, 1e4, 3e7, 0.6, 0.5}};
	const double rob_x0[4][3] = {{1, 0, 0}, {1, 0, 0}, {1, 0, 0}, {1, 0, 0}};
	const picard_traj_status expect[EVENT_FAULTS_N] = {
		PICARD_TRAJ_OK, PICARD_TRAJ_EVENT_FAILED, PICARD_TRAJ_NONFINITE,
		PICARD_TRAJ_EVENT_LIMIT, PICARD_TRAJ_OK, PICARD_TRAJ_EVENT_LIMIT, PICARD_TRAJ_OK};
	double x0[2 * NBALL], p[2 * NBALL];

	require_gpu();
	balls(x0, p);
	write_file(rob_path.s, robertson_events_text, strlen(robertson_events_text));
	write_file(faults_path.s, event_faults_text, strlen(event_faults_text));
	cr_assert_eq(picard_model_load(rob_path.s, &rob), 0, "%s", picard_error_detail());
	cr_assert_eq(picard_model_load(faults_path.s, &faults), 0, "%s", picard_error_detail());
	for (int c = 0; c < 4; c++) {
		const char *name = picard_scheme_of(schemes[c])->name;
		char what[64];

		for (int fixed = 0; fixed < 2; fixed++) {
			picard_options o = {.scheme = schemes[c], .event_log = 200,
					    .precision = PICARD_DOUBLE};

			if (fixed) {
				o.K = 50;
				o.h = 0.5;
			} else {
				o.iter_rtol = o.iter_atol = 1e-10;
			}
			snprintf(what, sizeof(what), "bouncing_ball %s %s", name,
				 fixed ? "fixed" : "adaptive");
			struct side gpu = solve_on(ball, o, PICARD_BACKEND_CUDA, NBALL, x0, p, NULL);
			struct side cpu = solve_on(ball, o, PICARD_BACKEND_CPU, NBALL, x0, p, NULL);
			const double apart = compare(&gpu, &cpu, ball, NBALL, 1e-9, what);
			const double closed = against_closed_form(&gpu, x0, p, 1e-9, what);

			cr_log_info("%s, %d members: within %.3g of the closed form, %.3g of the CPU's",
				    what, NBALL, closed, apart);
			side_free(&gpu);
			side_free(&cpu);
		}
		picard_options o = {.scheme = schemes[c], .iter_rtol = 1e-10, .iter_atol = 1e-14,
				    .precision = PICARD_DOUBLE};
		snprintf(what, sizeof(what), "robertson_events %s", name);
		struct side gpu = solve_on(rob, o, PICARD_BACKEND_CUDA, 4, &rob_x0[0][0],
					   &rob_p[0][0], NULL);
		struct side cpu = solve_on(rob, o, PICARD_BACKEND_CPU, 4, &rob_x0[0][0], &rob_p[0][0],
					   NULL);

		compare(&gpu, &cpu, rob, 4, 1e-7, what);
		for (int i = 0; i < 4; i++)
			cr_expect_eq(gpu.status[i], PICARD_TRAJ_EVENT, "%s member %d: %s", what, i,
				     picard_traj_status_name(gpu.status[i]));
		side_free(&gpu);
		side_free(&cpu);

		o = (picard_options){.scheme = schemes[c], .iter_rtol = 1e-10, .iter_atol = 1e-10,
				     .event_log = 30, .precision = PICARD_DOUBLE};
		snprintf(what, sizeof(what), "event_faults %s", name);
		gpu = solve_on(faults, o, PICARD_BACKEND_CUDA, EVENT_FAULTS_N, &event_faults_x0[0][0],
			       &event_faults_p[0][0], NULL);
		cpu = solve_on(faults, o, PICARD_BACKEND_CPU, EVENT_FAULTS_N, &event_faults_x0[0][0],
			       &event_faults_p[0][0], NULL);
		compare(&gpu, &cpu, faults, EVENT_FAULTS_N, 1e-9, what);
		for (int i = 0; i < EVENT_FAULTS_N; i++)
			cr_expect_eq(gpu.status[i], expect[i], "%s member %d: %s", what, i,
				     picard_traj_status_name(gpu.status[i]));
		side_free(&gpu);
		side_free(&cpu);
	}
}
