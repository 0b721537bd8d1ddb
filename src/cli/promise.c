/* promise.c - picard-run's per-trajectory promise (see promise.h).
 *
 * Each trajectory is judged on the best evidence there is: its own check
 * against rk8pd when it is among the checked (--check-traj), else its
 * error estimate (the companion solve, src/solve/estimate.c), else, when it has
 * none, its final state checked against rk8pd at t1. The check's word wins
 * over the estimate's: a member over the tolerance by its estimate alone
 * is solved again on the same grid and checked (verify). A configuration
 * picard-run tuned itself is its own
 * doing: members that missed, or failed where their reference did not,
 * are solved again with the window (or h) shrunk by their error and the
 * scheme's order (2 to 16 times), up to RETRY_ROUNDS times, before they
 * are handed back as failed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "gauss_reference.h"
#include "members.h"
#include "progress.h"
#include "promise.h"
#include "reference.h"
#include "reference_events.h"
#include "scheme.h"

#define RETRY_ROUNDS 3           /* tightenings of a tuned configuration */
#define RETRY_RTOL_SHARE 0.1     /* an iteration tolerance, per round */
#define RETRY_AIM 0.5            /* the error a round aims at, of the bound */
#define RETRY_SHRINK_MIN 0.0625  /* a round shrinks the window 2 to 16 times */
#define RETRY_SHRINK_MAX 0.5
#define RETRY_RTOL_FLOOR_DOUBLE 1e-14 /* float: picard_iteration_floor's */
/* --check without --tol: a checked member whose error is this many times
 * over what its run promised (its error estimate, at least the iteration
 * tolerance) is check-failed. The estimates are calibrated to the error
 * (the trapezoid's is 1.5 times it, lobatto's within a few per cent,
 * src/solve/estimate.c), so a consistent run is within 2 of its promise. */
#define CHECK_FAR 10

/* One solve's results as the judge reads and writes them: the run's own,
 * or those of a part solved again. */
struct solved {
	const picard_solver *solver;
	long n;                          /* trajectories */
	const double *x0, *params;       /* as solved (params may be NULL) */
	const double *x_final;           /* n*dim */
	const picard_record *check;      /* window ends kept, or NULL */
	const double *span_t0, *span_t1; /* n each: the members' own spans
					    (--init's t0, t1), or NULL: the
					    grid's */
	picard_traj_status *status;      /* n, updated */
	double *err, *err_est;           /* n, written */
	unsigned char *ref_failed;       /* n, written */
	char *ref_detail;                /* the first failed reference's words,
					    kept there if it is empty, or NULL */
	size_t ref_detail_len;
};

/* The scale of the errors judged on grid g: --tol's, else the grid's
 * iteration tolerance (what the run's settings resolve, picard-run's
 * error estimate's scale too). */
static picard_tolerance run_tolerance(const struct run_options *opts, const picard_grid *g)
{
	if (!opts->tol_given)
		return (picard_tolerance){.atol = g->iter_atol, .rtol = g->iter_rtol};
	return (picard_tolerance){.atol = opts->tol, .rtol = opts->rtol};
}

int promise_allocate(struct run *run)
{
	run->err = malloc((size_t)run->ntraj * sizeof(*run->err));
	run->err_est = malloc((size_t)run->ntraj * sizeof(*run->err_est));
	run->ref_failed = calloc((size_t)run->ntraj, 1);
	if (!run->err || !run->err_est || !run->ref_failed)
		return cli_error(PICARD_ENOMEM, "per-trajectory errors of %ld trajectories",
				 run->ntraj);
#pragma omp parallel for
	for (long i = 0; i < run->ntraj; i++)
		run->err[i] = run->err_est[i] = NAN;
	return 0;
}

void promise_free(struct run *run)
{
	free(run->err);
	free(run->err_est);
	free(run->ref_failed);
}

/* A member that finished: it reached t1, or a terminal event stopped it
 * (its final state is the state there); both are judged. */
static bool finished(picard_traj_status status)
{
	return status == PICARD_TRAJ_OK || status == PICARD_TRAJ_EVENT;
}

/* The check of s's record: each checked trajectory's scaled error, a
 * failed reference marking its own trajectory; a model with events has
 * its events checked too (picard_check_each, with the solve's log). */
static int check_recorded(const struct run *run, struct solved *s, picard_check_result *res)
{
	const long slots = (s->n + s->check->traj_stride - 1) / s->check->traj_stride;
	picard_check_options copts = {
		.tol = run_tolerance(&run->opts, picard_solver_grid(s->solver)), .keep_going = true,
		.first = run->shard.first + run->batch_first,
		.events = picard_solver_event_log(s->solver), .status = s->status,
		.fail_times = picard_solver_fail_times(s->solver),
		.span_t0 = s->span_t0, .span_t1 = s->span_t1,
	};
	int err;

	copts.traj_error = malloc((size_t)slots * sizeof(double));
	if (!copts.traj_error)
		return cli_error(PICARD_ENOMEM, "check of %ld trajectories", slots);
	if (s->x0 == run->x0) { /* the run's own: the checked members' rows */
#pragma omp parallel for
		for (long slot = 0; slot < slots; slot++)
			members_at_hand(run, slot * s->check->traj_stride);
	}
	const int phase = picard_progress_begin("checking %ld trajector%s against the GSL "
						"reference", slots, slots == 1 ? "y" : "ies");
	err = picard_check_each(run->model, picard_solver_grid(s->solver), s->n, s->x0,
				s->params, s->check, &copts, res);
	picard_progress_end(phase);
	/* the first failed reference's words, without the batch's count */
	if (!err && res->ref_failed && s->ref_detail && !s->ref_detail[0]) {
		snprintf(s->ref_detail, s->ref_detail_len, "%s", picard_error_detail());
		if (strstr(s->ref_detail, " references failed") && strrchr(s->ref_detail, ';'))
			*strrchr(s->ref_detail, ';') = '\0';
	}
	for (long slot = 0; !err && slot < slots; slot++) {
		const long i = slot * s->check->traj_stride;

		s->err[i] = copts.traj_error[slot];
		s->ref_failed[i] = isnan(copts.traj_error[slot]);
	}
	free(copts.traj_error);
	return err ? cli_library_error(err) : 0;
}

/* Member i's span in s: its own, else the grid's. */
static void member_span(const struct solved *s, long i, double *t0, double *t1)
{
	const picard_grid *g = picard_solver_grid(s->solver);

	*t0 = s->span_t0 ? s->span_t0[i] : g->t0;
	*t1 = s->span_t1 ? s->span_t1[i] : g->t1;
}

/* check_final() of a model with events: the reference locates them on
 * the member's span [t0, t1]; the member's events against its (a
 * difference in number, index or end is +Inf), and its final state
 * against the reference's at t1, or for a member a terminal event
 * stopped, at the reference's own terminal event (its state after it:
 * the same state). */
static void check_final_events(const struct run *run, struct solved *s, long i, double t0,
			       double t1, const picard_tolerance *tol)
{
	const picard_event_log *log = picard_solver_event_log(s->solver);
	const int n = run->model->dim, np = run->model->nparams;
	double ref[n];
	struct ref_events ev;
	struct event_compare c;

	if (ref_events_alloc(&ev, log->capacity, n) ||
	    picard_reference_events(run->model, s->params ? s->params + i * np : NULL,
				    s->x0 + i * n, t0, t1, &t1, 1,
				    picard_check_ref_tol(tol), i, ref, &ev)) {
		s->ref_failed[i] = 1;
		ref_events_free(&ev);
		return;
	}
	picard_events_compare(run->model, &ev, log, i, s->status[i], tol,
			      run->shard.first + run->batch_first + i, &c);
	s->err[i] = c.mismatch ? INFINITY : fmax(c.time_scaled, c.after_scaled);
	if (!c.mismatch && ev.status == PICARD_TRAJ_OK)
		s->err[i] = fmax(s->err[i], picard_scaled_error(tol, s->x_final + i * n, ref, n));
	else if (!c.mismatch && ev.status == PICARD_TRAJ_EVENT && ev.count <= ev.capacity)
		s->err[i] = fmax(s->err[i], picard_scaled_error(tol, s->x_final + i * n,
								 ev.after + (size_t)(ev.count - 1) * n,
								 n));
	ref_events_free(&ev);
}

/* A trajectory that nothing else vouches for: its final state against
 * rk8pd at its t1 (a model with events: check_final_events()). */
static void check_final(const struct run *run, struct solved *s, long i)
{
	const picard_grid *g = picard_solver_grid(s->solver);
	const picard_tolerance tol = run_tolerance(&run->opts, g);
	const int n = run->model->dim, np = run->model->nparams;
	double ref[n], t0, t1;

	member_span(s, i, &t0, &t1);
	if (s->x0 == run->x0) /* the run's own: the member's row */
		members_at_hand(run, i);
	if (run->model->events) {
		check_final_events(run, s, i, t0, t1, &tol);
		return;
	}
	if (picard_reference_tol(run->model, s->params ? s->params + i * np : NULL,
				 s->x0 + i * n, t0, &t1, 1, picard_check_ref_tol(&tol), i, ref)) {
		s->ref_failed[i] = 1;
		return;
	}
	s->err[i] = picard_scaled_error(&tol, s->x_final + i * n, ref, n);
}

/* Whether a finished trajectory met the tolerance: its check, else its
 * estimate; with neither (its reference failed too) nothing vouches. */
static bool meets(const struct solved *s, long i)
{
	if (!isnan(s->err[i]))
		return s->err[i] <= 1;
	return !isnan(s->err_est[i]) && s->err_est[i] <= 1;
}

/* --check without --tol: whether checked trajectory i is far from what
 * its run promised. Its error and estimate are in units of the iteration
 * tolerance (atol + rtol |x|): over CHECK_FAR (1 + its estimate), or over
 * 1 / rtol, an error past the solution's own size (|x - x_ref| > |x_ref| +
 * atol / rtol), which no estimate excuses. */
static bool check_far(const struct solved *s, long i, const picard_tolerance *tol)
{
	const double e = s->err[i], est = s->err_est[i];

	if (isnan(e))
		return false; /* not checked, or its reference failed */
	return (tol->rtol > 0 && e > 1 / tol->rtol) || (!isnan(est) && e > CHECK_FAR * (1 + est));
}

/* A finished member that neither the check nor an estimate vouches for. */
static bool unvouched(const struct solved *s, long i)
{
	return finished(s->status[i]) && isnan(s->err[i]) && isnan(s->err_est[i]);
}

/* Estimates, checks and statuses of one solve. */
static int judge(const struct run *run, struct solved *s, picard_check_result *res)
{
	const double *est = picard_solver_error_estimates(s->solver);
	int err = 0;

	long alone = 0;

#pragma omp parallel for
	for (long i = 0; i < s->n; i++) {
		s->err[i] = NAN;
		s->err_est[i] = est ? est[i] : NAN;
		s->ref_failed[i] = 0;
	}
	if (s->check)
		err = check_recorded(run, s, res);
	if (!err && !run->opts.tol_given) {
		const picard_tolerance tol = run_tolerance(&run->opts, picard_solver_grid(s->solver));

#pragma omp parallel for
		for (long i = 0; i < s->n; i++)
			if (finished(s->status[i]) && check_far(s, i, &tol))
				s->status[i] = PICARD_TRAJ_CHECK_FAILED;
	}
	if (err || !run->opts.tol_given)
		return err;
#pragma omp parallel for reduction(+ : alone)
	for (long i = 0; i < s->n; i++)
		alone += unvouched(s, i);
	if (alone) {
		const int phase = picard_progress_begin("the GSL reference at t1 of the %ld "
							"members without an estimate", alone);

		/* a reference solve each: one member at a time per thread */
#pragma omp parallel for schedule(dynamic, 1)
		for (long i = 0; i < s->n; i++)
			if (unvouched(s, i))
				check_final(run, s, i);
		picard_progress_end(phase);
	}
#pragma omp parallel for
	for (long i = 0; i < s->n; i++)
		if (finished(s->status[i]) && !meets(s, i))
			s->status[i] = PICARD_TRAJ_TOL_EXCEEDED;
	return 0;
}

/* ---- solving the members that missed again --------------------------------- */

/* A part of the ensemble solved on its own. */
struct part {
	long n;                        /* members */
	long *members;                 /* their indices in the run */
	double *x0, *params;           /* their inputs */
	double *span_t0, *span_t1;     /* their own spans, or NULL (the run's) */
	double *x_final;               /* results */
	picard_traj_status *status;
	long *fail_window;
	double *err, *err_est;
	unsigned char *ref_failed;
	picard_record save, check;     /* as the run keeps them */
	picard_solver *solver;
};

static void part_free(struct part *p)
{
	picard_solver_free(p->solver);
	free(p->members);
	free(p->x0);
	free(p->params);
	free(p->span_t0);
	free(p->span_t1);
	free(p->x_final);
	free(p->status);
	free(p->fail_window);
	free(p->err);
	free(p->err_est);
	free(p->ref_failed);
	free(p->save.states);
	free(p->check.states);
}

/* Whether trajectory i is worth solving again: it missed, or failed
 * where its reference did not. */
static bool retry_wanted(const struct run *run, long i)
{
	return !finished(run->status[i]) && !run->ref_failed[i];
}

/* Whether trajectory i missed by its estimate alone, unchecked: the
 * estimate is a bound (the trapezoid's 1.5 times the error at order 2),
 * and the check has the last word. */
static bool verify_wanted(const struct run *run, long i)
{
	return run->status[i] == PICARD_TRAJ_TOL_EXCEEDED && isnan(run->err[i]) &&
	       !run->ref_failed[i];
}

/* The members to solve again (those wanted) and their inputs. */
static int part_make(const struct run *run, struct part *p,
		     bool (*wanted)(const struct run *, long))
{
	const int n = run->model->dim, np = run->model->nparams;
	const double *t0 = run_batch_span(run, run->init.t0), *t1 = run_batch_span(run, run->init.t1);
	long count = 0;

	memset(p, 0, sizeof(*p));
#pragma omp parallel for reduction(+ : count)
	for (long i = 0; i < run->ntraj; i++)
		count += wanted(run, i);
	p->n = count;
	if (!p->n)
		return 0;
	p->members = malloc(p->n * sizeof(long));
	p->x0 = malloc(p->n * n * sizeof(double));
	p->params = run->params ? malloc(p->n * np * sizeof(double) + 1) : NULL;
	p->span_t0 = t0 ? malloc(p->n * sizeof(double)) : NULL;
	p->span_t1 = t1 ? malloc(p->n * sizeof(double)) : NULL;
	p->x_final = malloc(p->n * n * sizeof(double));
	p->status = malloc(p->n * sizeof(*p->status));
	p->fail_window = malloc(p->n * sizeof(long));
	p->err = malloc(p->n * sizeof(double));
	p->err_est = malloc(p->n * sizeof(double));
	p->ref_failed = malloc(p->n);
	if (!p->members || !p->x0 || (run->params && !p->params) || (t0 && !p->span_t0) ||
	    (t1 && !p->span_t1) || !p->x_final || !p->status ||
	    !p->fail_window || !p->err || !p->err_est || !p->ref_failed)
		return cli_error(PICARD_ENOMEM, "%ld trajectories to solve again", p->n);
	for (long i = 0, j = 0; i < run->ntraj; i++) {
		if (!wanted(run, i))
			continue;
		p->members[j] = i;
		members_at_hand(run, i);
		memcpy(p->x0 + j * n, run->x0 + i * n, n * sizeof(double));
		if (run->params)
			memcpy(p->params + j * np, run->params + i * np, np * sizeof(double));
		if (t0)
			p->span_t0[j] = t0[i];
		if (t1)
			p->span_t1[j] = t1[i];
		j++;
	}
	return 0;
}

/* How much a round shrinks the window: from the worst miss among the
 * members solved again, by the scheme's order p (error ~ H^p), aiming at
 * RETRY_AIM of the bound; half where a member failed outright. */
static double shrink_factor(const struct run *run, const picard_grid *g)
{
	const double order = picard_scheme_of(g->scheme)->order(g);
	double worst = 0;

	for (long i = 0; i < run->ntraj; i++) {
		const double e = !isnan(run->err[i]) ? run->err[i] : run->err_est[i];

		if (!retry_wanted(run, i))
			continue;
		if (run->status[i] != PICARD_TRAJ_TOL_EXCEEDED || !(e < INFINITY))
			return RETRY_SHRINK_MAX;
		worst = fmax(worst, e);
	}
	return fmin(fmax(pow(RETRY_AIM / worst, 1 / order), RETRY_SHRINK_MIN), RETRY_SHRINK_MAX);
}

/* The configuration one round finer than grid: h or the window shrunk by
 * shrink, an iteration that stops at a tolerance tightened. */
static picard_options tightened(const picard_options *o, const picard_grid *g, double shrink)
{
	const double floor = o->precision == PICARD_DOUBLE ? RETRY_RTOL_FLOOR_DOUBLE :
			     picard_iteration_floor(PICARD_FLOAT);
	picard_options t = picard_scheme_of(g->scheme)->refined(o, g, shrink, RETRY_RTOL_SHARE,
								 floor, 0);

	/* the tuned layout's block shape need not suit a few trajectories */
	t.traj_per_block = 0;
	/* a few members on a grid finer than one within the work limit, a
	 * bounded number of rounds */
	t.max_work = HUGE_VAL;
	return t;
}

/* Solve the part under o, keeping the run's records, and judge it. */
static int part_solve(const struct run *run, struct part *p, const picard_options *o)
{
	struct solved s;
	picard_check_result res;
	picard_record records[2];
	int nrec = 0, err;
	size_t size;

	err = picard_solver_create(&p->solver, run->model, o, p->n);
	if (!err) /* the members' own spans, as the run's solver has them */
		err = picard_solver_set_spans(p->solver, p->n, p->span_t0, p->span_t1);
	if (err)
		return cli_library_error(err);
	if (run->save.states) {
		p->save = run->save;
		p->save.states = NULL;
		size = picard_record_size(p->solver, &p->save);
		p->save.states = malloc(size * sizeof(double) + 1);
		records[nrec++] = p->save;
	}
	if (run->check.states) {
		p->check = (picard_record){.every = 1, .traj_stride = 1};
		size = picard_record_size(p->solver, &p->check);
		p->check.states = malloc(size * sizeof(double) + 1);
		records[nrec++] = p->check;
	}
	if ((run->save.states && !p->save.states) || (run->check.states && !p->check.states))
		return cli_error(PICARD_ENOMEM, "records of %ld trajectories solved again", p->n);
	const int phase = picard_progress_begin("solving %ld trajector%s again on a finer grid",
						p->n, p->n == 1 ? "y" : "ies");
	err = picard_solve(p->solver, p->x0, p->params, p->x_final, p->status, p->fail_window,
			   records, nrec, NULL);
	picard_progress_end(phase);
	if (err && err != PICARD_EFAILED)
		return cli_library_error(err);
	s = (struct solved){
		.solver = p->solver, .n = p->n, .x0 = p->x0, .params = p->params,
		.x_final = p->x_final, .check = p->check.states ? &p->check : NULL,
		.span_t0 = p->span_t0, .span_t1 = p->span_t1, .status = p->status, .err = p->err,
		.err_est = p->err_est,
		.ref_failed = p->ref_failed,
	};
	return judge(run, &s, &res);
}

/* Time at the end of window w of g: t1 exactly for the last. */
static double window_end(const picard_grid *g, long w)
{
	return w == g->windows - 1 ? g->t1 : g->t0 + (double)(w + 1) * (g->m - 1) * g->h;
}

/* The part's results replace its members' (a finer solve is at least as
 * good); a failure window becomes the run's window holding its time, and
 * the times where it failed are the part's. */
static long part_merge(struct run *run, const struct part *p)
{
	const int n = run->model->dim;
	const picard_grid *g = picard_solver_grid(p->solver);
	const double *fail_time = picard_solver_fail_times(p->solver);
	long fixed = 0;

	for (long j = 0; j < p->n; j++) {
		const long i = p->members[j];

		memcpy(run->x_final + i * n, p->x_final + j * n, n * sizeof(double));
		run->status[i] = p->status[j];
		run->fail_window[i] = p->fail_window[j] < 0 ? -1 :
			picard_grid_window(run->grid, window_end(g, p->fail_window[j]));
		run->fail_time[2 * i] = fail_time[2 * j];
		run->fail_time[2 * i + 1] = fail_time[2 * j + 1];
		run->err[i] = p->err[j];
		run->err_est[i] = p->err_est[j];
		run->ref_failed[i] = p->ref_failed[j];
		for (long r = 0; run->save.states && r < run->save.ntimes; r++)
			memcpy(run->save.states + (r * run->ntraj + i) * n,
			       p->save.states + (r * p->n + j) * n, n * sizeof(double));
		fixed += finished(p->status[j]);
	}
	return fixed;
}

/* Up to RETRY_ROUNDS rounds, each finer than the last, over the members
 * that still miss. */
static int retry(struct run *run)
{
	picard_options o = options_solver(&run->opts);
	picard_grid grid = *run->grid;
	int err = 0;

	for (int round = 1; !err && round <= RETRY_ROUNDS; round++) {
		struct part p;
		long fixed;

		err = part_make(run, &p, retry_wanted);
		if (!err && p.n) {
			o = tightened(&o, &grid, shrink_factor(run, &grid));
			err = part_solve(run, &p, &o);
		}
		if (err || !p.n) {
			part_free(&p);
			break;
		}
		grid = *picard_solver_grid(p.solver);
		fixed = part_merge(run, &p);
		run->retried += p.n;
		/* after the summary, which adds up every batch */
		fprintf(run->tally.lines_file,
			"%-12s %ld trajector%s again with %s %.6g, iter-rtol %.2g: %ld now ok\n",
			"retry", p.n, p.n == 1 ? "y" : "ies",
			picard_scheme_of(grid.scheme)->length_name,
			picard_scheme_of(grid.scheme)->length(&grid), grid.iter_rtol, fixed);
		part_free(&p);
	}
	return err;
}

/* The members over the tolerance by their estimate alone, solved again on
 * the same grid with every window end checked against rk8pd; *verified
 * counts them. */
static int verify(struct run *run)
{
	const picard_options o = options_solver(&run->opts);
	struct part p;
	long fixed;
	int err;

	err = part_make(run, &p, verify_wanted);
	if (!err && p.n)
		err = part_solve(run, &p, &o);
	if (!err && p.n) {
		fixed = part_merge(run, &p);
		run->tally.verified += p.n;
		run->tally.verified_ok += fixed;
	}
	part_free(&p);
	return err;
}

/* ---- the run ---------------------------------------------------------------- */

/* The check line of the first solve, printed after the lines of the
 * members solved again (again: how many). It says which error it
 * reports: E is the difference from GSL's reference, which has an error
 * of its own near its tolerance (a solve more accurate than that shows the
 * reference's error), with --tol the largest error in units of the
 * tolerance, and that members solved again since are judged in the
 * tolerance line, not here. */
/* The check line's part on events: the event times' error apart from
 * the states', and the members whose events differ. */
static void print_check_events(const struct run *run, const picard_check_result *res)
{
	printf("; events: %ld compared, max |t - t_ref| = %.3g", res->events, res->events ?
	       res->event_error : 0.0);
	if (run->opts.tol_given)
		printf(" (%.3g x the tolerance)", res->event_scaled_error);
	if (res->worst_event_traj >= 0)
		printf(" at trajectory %ld", res->worst_event_traj);
	if (res->event_mismatch)
		printf("; %ld member%s' events differ from the reference's (%s)",
		       res->event_mismatch, res->event_mismatch == 1 ? "" : "s", res->event_detail);
}

static void print_check(const struct run *run, const picard_check_result *res, long again)
{
	const picard_tolerance tol = run_tolerance(&run->opts, run->grid);

	printf("%-12s E = %.3g (rel %.3g) over %ld trajectories x %ld window ends: "
	       "max |x - x_ref|, x_ref GSL's at rtol = atol = %g", "check", res->error,
	       res->rel_error, res->checked_traj,
	       res->checked_traj ? res->points / res->checked_traj : 0, picard_check_ref_tol(&tol));
	if (res->judged_gauss)
		printf("; judged by " GAUSS_JUDGE_NAME " (Gauss-Legendre collocation, order 16) on "
		       "%ld of them, rk8pd's own error measured above what the check needs; the "
		       "judges' own error at most %.2g", res->judged_gauss, res->judge_error);
	else if (res->judge_error > 0)
		printf("; judged by rk8pd, its own error measured at most %.2g", res->judge_error);
	if (run->opts.tol_given)
		printf(", at most %.3g x the tolerance", res->scaled_error);
	if (res->worst_window < 0 && run->model->events)
		printf("; worst trajectory %ld after one of its events", res->worst_traj);
	else if (run->init.t0 || run->init.t1) /* its window of its own span */
		printf("; worst trajectory %ld at the end of its window %ld", res->worst_traj,
		       res->worst_window);
	else
		printf("; worst trajectory %ld at t=%g", res->worst_traj, res->worst_window >= 0 ?
		       window_end(run->grid, res->worst_window) : run->grid->t0);
	if (res->outside_span)
		printf("; %ld states recorded outside their members' spans", res->outside_span);
	if (res->ref_failed)
		printf("; %ld reference%s failed", res->ref_failed, res->ref_failed == 1 ? "" : "s");
	if (run->model->events)
		print_check_events(run, res);
	if (again)
		printf("; the first solve's: %ld trajector%s solved again (above) are judged in the "
		       "tolerance line", again, again == 1 ? "y" : "ies");
	putchar('\n');
	if (res->ref_failed == 1)
		cli_warning("%s", run->tally.ref_failed);
	else if (res->ref_failed)
		cli_warning("%s; %ld of %ld references failed", run->tally.ref_failed, res->ref_failed,
			    res->checked_traj + res->ref_failed);
}

/* A batch's check into the run's, places counted from the share's first
 * member. */
static void check_merge(struct run *run, const picard_check_result *b)
{
	if (!run->checked_done)
		run->checked = PICARD_CHECK_NONE;
	picard_check_merge(&run->checked, b, run->batch_first);
	run->checked_done = true;
}

/* The batch's members with status named after those named before, up
 * to MEMBERS_SHOWN and ", ..." past them: "0 (error 4e+04 x tol,
 * checked), 3 (...)"; unit names the errors' unit. */
static void name_members(const struct run *run, picard_traj_status status, const char *unit,
			 char *buf, size_t len, long *named)
{
	size_t used = strlen(buf);

	for (long i = 0; i < run->ntraj && used < len && *named <= MEMBERS_SHOWN; i++) {
		const double e = !isnan(run->err[i]) ? run->err[i] : run->err_est[i];

		if (run->status[i] != status)
			continue;
		if (*named == MEMBERS_SHOWN) {
			snprintf(buf + used, len - used, ", ...");
			++*named;
			break;
		}
		used += snprintf(buf + used, len - used, "%s%ld (error %.3g x %s, %s)",
				 *named ? ", " : "", run->shard.first + run->batch_first + i, e,
				 unit, !isnan(run->err[i]) ? "checked" : isnan(e) ? "no estimate" :
				 "estimated");
		++*named;
	}
}

/* A batch's members counted and named, for the reports after the last. */
static void tally_members(struct run *run)
{
	struct run_tally *t = &run->tally;
	long counts[5] = {0}; /* ok, exceeded, ok checked, ok estimated, check-failed */

#pragma omp parallel for reduction(+ : counts[:5])
	for (long i = 0; i < run->ntraj; i++) {
		counts[0] += finished(run->status[i]);
		counts[1] += run->status[i] == PICARD_TRAJ_TOL_EXCEEDED;
		counts[2] += finished(run->status[i]) && !isnan(run->err[i]);
		counts[3] += finished(run->status[i]) && isnan(run->err[i]);
		counts[4] += run->status[i] == PICARD_TRAJ_CHECK_FAILED;
	}
	t->ok += counts[0];
	t->exceeded += counts[1];
	t->ok_checked += counts[2];
	t->ok_estimated += counts[3];
	t->check_failed += counts[4];
	if (counts[1])
		name_members(run, PICARD_TRAJ_TOL_EXCEEDED, "tol", t->named_exceeded,
			     sizeof(t->named_exceeded), &t->nnamed_exceeded);
	if (counts[4])
		name_members(run, PICARD_TRAJ_CHECK_FAILED, "iteration tolerance",
			     t->named_check_failed, sizeof(t->named_check_failed),
			     &t->nnamed_check_failed);
}

int promise_keep(struct run *run)
{
	struct solved s = {
		.solver = run->solver, .n = run->ntraj, .x0 = run->x0, .params = run->params,
		.x_final = run->x_final, .check = run->check.states ? &run->check : NULL,
		.span_t0 = run_batch_span(run, run->init.t0),
		.span_t1 = run_batch_span(run, run->init.t1), .status = run->status,
		.err = run->err, .err_est = run->err_est,
		.ref_failed = run->ref_failed, .ref_detail = run->tally.ref_failed,
		.ref_detail_len = sizeof(run->tally.ref_failed),
	};
	picard_check_result res;
	bool missed = false;
	int err;

	if (!run->opts.check && !run->opts.tol_given)
		return 0; /* nothing promised beyond the statuses */
	err = judge(run, &s, &res);
	if (err)
		return err;
	if (s.check)
		check_merge(run, &res);
	if (run->opts.tol_given)
		err = verify(run);
	if (!err) {
#pragma omp parallel for reduction(|| : missed)
		for (long i = 0; i < run->ntraj; i++)
			missed = missed || retry_wanted(run, i);
	}
	if (!err && missed && run->opts.tol_given && run->opts.tuned && !run->opts.tuned_closest)
		err = retry(run);
	if (!err)
		tally_members(run);
	return err;
}

int promise_finish(struct run *run)
{
	struct run_tally *t = &run->tally;
	int err = 0;

	/* under mpirun: the job's check, from every rank's */
	if (run->check.states)
		err = shard_reduce_check(&run->shard, 0, &run->out, &run->checked);
	if (t->verified)
		printf("%-12s %ld trajector%s over the tolerance by estimate alone, checked: "
		       "%ld within it\n", "verify", t->verified, t->verified == 1 ? "y" : "ies",
		       t->verified_ok);
	if (t->lines_file && fflush(t->lines_file) == 0 && t->lines_len)
		fwrite(t->lines, 1, t->lines_len, stdout);
	if (!err && run->checked_done)
		print_check(run, &run->checked, t->verified + run->retried);
	return err;
}

/* --check without --tol: the promise line (the checked members within
 * what their run promised), and an error naming those far from it. */
static int report_check(const struct run *run)
{
	const struct run_tally *t = &run->tally;
	long counts[2] = {t->ok_checked, t->check_failed};

	if (!run->checked_done)
		return CLI_EXIT_OK;
	shard_sum(&run->shard, counts, 2);
	/* none finished: the failures say why */
	if (counts[0] + counts[1])
		printf("%-12s checked error <= %d (1 + its estimate) and < |x_ref| + atol/rtol, in "
		       "units of %.3g + %.3g |x_ref| (the iteration tolerance): met by %ld of %ld  "
		       "[%s]\n", "promise", CHECK_FAR, run->grid->iter_atol, run->grid->iter_rtol,
		       counts[0], counts[0] + counts[1], counts[1] ? "FAIL" : "PASS");
	if (counts[1]) {
		cli_error(PICARD_EFAILED, "check failed: %ld checked trajector%s far from what the "
			  "run promised: %s", counts[1], counts[1] == 1 ? "y is" : "ies are",
			  t->named_check_failed);
		cli_hint("a smaller --%s, or --tol to have the grid chosen and every member judged",
			 picard_scheme_of(run->grid->scheme)->length_name);
	}
	if (run->checked.nonfinite || isnan(run->checked.error))
		return cli_error(CLI_EXIT_FAILED, "check: %ld compared states are not finite",
				 run->checked.nonfinite);
	if (run->checked.outside_span)
		return cli_error(CLI_EXIT_FAILED, "check: %ld states recorded outside their members' "
				 "spans, where a solve writes none", run->checked.outside_span);
	return counts[1] ? CLI_EXIT_FAILED : CLI_EXIT_OK;
}

int promise_report(const struct run *run)
{
	const struct run_tally *t = &run->tally;
	long counts[4] = {t->ok, t->exceeded, t->ok_checked, t->ok_estimated};

	if (!run->opts.tol_given)
		return report_check(run);
	/* the job's counts; the members named are rank 0's under mpirun */
	shard_sum(&run->shard, counts, 4);
	const long ok = counts[0], exceeded = counts[1], checked = counts[2],
		   estimated = counts[3], ntraj = run->shard.total;

	printf("%-12s |x - x_ref| <= %g + %g |x_ref|: met by %ld of %ld trajectories "
	       "(%ld checked against the reference, %ld by their error estimates)  [%s]\n", "tolerance",
	       run->opts.tol, run->opts.rtol, ok, ntraj, checked, estimated,
	       ok == ntraj ? "PASS" : "FAIL");
	if (!exceeded)
		return ok == ntraj ? CLI_EXIT_OK : CLI_EXIT_FAILED;
	cli_error(PICARD_EFAILED, "check failed: %ld of %ld trajectories exceed the tolerance: %s",
		  exceeded, ntraj, t->named_exceeded);
	if (!run->opts.tuned)
		cli_hint("the grid was given: a smaller --%s (or --tol alone, to tune it)",
			 picard_scheme_of(run->grid->scheme)->length_name);
	else if (run->opts.tuned_closest)
		cli_hint("no grid the quick search tried meets the tolerance on these members%s",
			 run->opts.precision == PICARD_FLOAT ? "; --precision double may" : "");
	return CLI_EXIT_FAILED;
}
