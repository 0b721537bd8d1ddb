/* choose.c - the configuration that meets an error bound on an ensemble:
 * the tuning cache's entry, else a kept decision, else a quick search on
 * the ensemble (see picard_choose.h). */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "candidates.h"
#include "decision_cache.h"
#include "errors.h"
#include "picard_choose.h"
#include "progress.h"
#include "scheme.h"
#include "tune_key.h"

#define QUICK_SAMPLE 32        /* the quick search: trajectories measured */
#define QUICK_REPEATS 3       /* timed solves per candidate, median */

static void warn(const picard_choose_request *r, const char *text)
{
	if (r->on_warning)
		r->on_warning(text, r->ctx);
}

/* Whether the request fixes the whole grid: lobatto's is m and the
 * window, a per-thread pair's its fixed steps (K, over h or the span). */
static bool grid_fixed(const picard_choose_request *r)
{
	const picard_options *f = &r->fixed;
	const picard_scheme_type *type = picard_scheme_of(f->scheme);

	return (f->m && f->K && f->h > 0) ||
	       (r->scheme_fixed && type->lobatto_grid && f->m && f->window > 0) ||
	       (r->scheme_fixed && type->tableau && f->K);
}

/* The scheme the request settles: the fixed scheme, or the trapezoid
 * where h alone is fixed (only it has one); false when any may run. A
 * search free to pick lobatto would drop the fixed h. */
static bool scheme_settled(const picard_choose_request *r, picard_scheme *scheme)
{
	if (r->scheme_fixed)
		*scheme = r->fixed.scheme;
	else if (r->fixed.h > 0)
		*scheme = PICARD_SCHEME_TRAPEZOID;
	else
		return false;
	return true;
}

static int check_request(const picard_model *model, const picard_choose_request *r)
{
	if (!model)
		return picard_fail(PICARD_EINVAL, "picard_choose: model is NULL");
	if (!(r->tol > 0) || !isfinite(r->tol))
		return picard_fail(PICARD_EINVAL, "picard_choose: tol = %g: must be finite and > 0",
				   r->tol);
	if (!(r->rtol >= 0) || !isfinite(r->rtol))
		return picard_fail(PICARD_EINVAL, "picard_choose: rtol = %g: must be finite and "
				   ">= 0", r->rtol);
	if (!(r->t1 > r->t0) || !isfinite(r->t0) || !isfinite(r->t1))
		return picard_fail(PICARD_EINVAL, "picard_choose: span [%g, %g]: t1 must be after "
				   "t0, both finite", r->t0, r->t1);
	if (r->ntraj < 1 || !r->x0)
		return picard_fail(PICARD_EINVAL, "picard_choose: an ensemble of %ld rows%s: at "
				   "least one, with its states", r->ntraj, r->x0 ? "" : " (x0 NULL)");
	if (r->scheme_fixed && !picard_scheme_of(r->fixed.scheme))
		return picard_fail(PICARD_EINVAL, "picard_choose: scheme %d is none of picard's",
				   (int)r->fixed.scheme);
	return PICARD_OK;
}

/* What the search left out of its sample, as ", ..." (or ""), into buf. */
static const char *sample_left_out(const picard_tune_result *result, char *buf, size_t size)
{
	int used = 0;

	buf[0] = 0;
	if (result->sample_dropped)
		used = snprintf(buf, size, ", %ld whose reference blows up left out",
				result->sample_dropped);
	if (result->sample_unverified && used >= 0 && (size_t)used < size)
		snprintf(buf + used, size - used, ", %ld whose reference's own error is not below "
			 "E* left out (judged by their estimates)", result->sample_unverified);
	return buf;
}

/* Keep decision d for key, so that the same request repeated takes it;
 * report->where says where ("" and a warning where not kept). */
static void keep_decision(const picard_choose_request *r, const char *key,
			  const struct quick_decision *d, picard_choose_report *report)
{
	char said[4400];

	if (decision_store(key, d) == 0 &&
	    decision_path(key, report->where, sizeof(report->where)) == 0)
		return;
	report->where[0] = 0;
	snprintf(said, sizeof(said), "the quick search's decision not kept: %s",
		 picard_error_detail());
	warn(r, said);
}

/* The quick search: small sample, grid and ensemble (the request's own:
 * its extremes are in the sample), down the candidate list picard-tune
 * also goes through (candidates.h). A spread of 0 cannot be passed as 0
 * (picard_tune reads it as its default): DBL_MIN makes every
 * 1 + S (2u - 1) round to 1, the same states. */
static int quick_search(const picard_model *model, const picard_choose_request *r,
			const struct tuning_key *tk, const char *key,
			picard_choose_report *report)
{
	struct candidate list[CANDIDATES_MAX];
	struct candidate_request wanted = {.spans = r->spans};
	struct quick_decision decision = {.closest = false};
	char left_out[160];
	int err, n;
	struct candidate_search *search = calloc(1, sizeof(*search)); /* its rows are large */

	if (!search)
		return picard_fail(PICARD_ENOMEM, "picard_choose: no memory for the search");
	wanted.settled = scheme_settled(r, &wanted.scheme);
	n = candidates_list(model, &wanted, list);
	*search = (struct candidate_search){
		.model = model, .on_skipped = r->on_skipped,
		.tune = {
			.tol = r->tol, .rtol = r->rtol, .precision = r->precision,
			.backend = tk->backend, .t0 = r->t0, .t1 = r->t1,
			.ntraj = candidates_costed_traj(tk->backend, r->ntraj),
			.sample = QUICK_SAMPLE, .spread = r->spread > 0 ? r->spread : DBL_MIN,
			.seed = r->seed, .repeats = QUICK_REPEATS,
			.on_point = r->on_point, .on_candidate = r->on_candidate,
			.ctx = r->ctx, .cost_key = &tk->key,
			.x0 = r->x0, .params = r->params, .nstates = r->ntraj,
		},
	};
	if (r->on_search)
		r->on_search(candidates_count(list, n), r->ctx);
	const int phase = picard_progress_begin("quick search for a grid that meets the "
						"tolerance");
	err = candidates_search(search, list, n);
	picard_progress_end(phase);

	const picard_tune_result *result = &search->result;
	report->source = PICARD_CHOICE_SEARCH;
	report->result = *result;
	report->settled = wanted.settled;
	report->costed_traj = search->tune.ntraj;
	snprintf(report->names, sizeof(report->names), "%s", search->names);
	snprintf(report->times, sizeof(report->times), "%s", search->times);
	if (err == PICARD_ENOTFOUND && isfinite(search->closest.scaled_error) &&
	    result->reference_error < r->tol) {
		/* none met E on every sampled member, yet one came close */
		decision = (struct quick_decision){.point = search->closest, .closest = true};
		snprintf(decision.search, sizeof(decision.search), "%s: %ld points, %.3g s%s",
			 search->names, result->points, search->seconds,
			 sample_left_out(result, left_out, sizeof(left_out)));
		err = 0;
	} else if (!err) {
		decision.point = result->best;
		snprintf(decision.search, sizeof(decision.search), "%ld trajector%s sampled%s, "
			 "%s%s: %ld points, %.3g s", r->ntraj < QUICK_SAMPLE ? r->ntraj : QUICK_SAMPLE,
			 r->ntraj == 1 ? "y" : "ies", sample_left_out(result, left_out,
								      sizeof(left_out)),
			 search->names, !wanted.settled ? ", the least predicted time by 10%" : "",
			 result->points, search->seconds);
	} else {
		report->point = search->closest;
	}
	free(search);
	if (err)
		return err;
	report->point = decision.point;
	report->closest = decision.closest;
	snprintf(report->search, sizeof(report->search), "%s", decision.search);
	keep_decision(r, key, &decision, report);
	return 0;
}

/* The tuning cache's entry for this ensemble, where it suits the request:
 * 0, PICARD_ENOTFOUND, or an error (warned of). */
static int from_cache(const picard_choose_request *r, const struct tuning_key *tk,
		      picard_choose_report *report)
{
	picard_scheme scheme;
	char said[512];
	int err = picard_tune_cache_path(report->where, sizeof(report->where));

	if (!err)
		err = picard_tune_cache_load(&tk->key, &report->point);
	if (!err && ((scheme_settled(r, &scheme) && report->point.scheme != scheme) ||
		     (r->spans && !picard_scheme_of(report->point.scheme)->per_member_spans)))
		err = PICARD_ENOTFOUND; /* the cached entry is another scheme's */
	if (err && err != PICARD_ENOTFOUND) {
		snprintf(said, sizeof(said), "tuning cache not read: %s: %s", picard_strerror(err),
			 picard_error_detail());
		warn(r, said);
	}
	if (!err)
		report->source = PICARD_CHOICE_CACHE;
	return err;
}

/* A decision kept by an earlier quick search for the same request. */
static int from_decision(const picard_choose_request *r, const char *key,
			 picard_choose_report *report)
{
	struct quick_decision decision;
	char said[4400];
	int err = decision_load(key, &decision, said, sizeof(said));

	if (said[0])
		warn(r, said);
	if (!err)
		err = decision_path(key, report->where, sizeof(report->where));
	if (err)
		return err;
	report->source = PICARD_CHOICE_DECISION;
	report->point = decision.point;
	report->closest = decision.closest;
	snprintf(report->search, sizeof(report->search), "%s", decision.search);
	snprintf(report->date, sizeof(report->date), "%s", decision.date);
	return 0;
}

int picard_choose(const picard_model *model, const picard_choose_request *request,
		  picard_options *chosen, picard_choose_report *report)
{
	picard_choose_report own;
	struct tuning_key tk;
	char key[DECISION_KEY_MAX];
	int err = check_request(model, request);

	if (!report)
		report = &own;
	memset(report, 0, sizeof(*report));
	report->result.best_error = report->result.refused_error = INFINITY;
	report->point.error = report->point.scaled_error = INFINITY;
	if (err)
		return err;
	*chosen = request->fixed;
	chosen->t0 = request->t0;
	chosen->t1 = request->t1;
	chosen->precision = request->precision;
	chosen->backend = request->backend;
	if (grid_fixed(request))
		return 0; /* PICARD_CHOICE_GIVEN */
	/* the ensemble's name in the keys */
	char id[32];
	if (!request->ensemble_id)
		picard_ensemble_id(request->x0, request->params, request->ntraj, model->dim,
				   model->nparams, id, sizeof(id));
	err = tuning_key_init(&tk, model, request->precision, request->backend, request->tol,
			      request->rtol, request->t0, request->t1,
			      request->ensemble_id ? request->ensemble_id : id, request->ntraj);
	if (err)
		return err;
	decision_key(key, model, request, &tk);
	err = from_cache(request, &tk, report);
	if (err)
		err = from_decision(request, key, report);
	if (err)
		err = quick_search(model, request, &tk, key, report);
	if (err)
		return err;
	picard_choose_apply(&report->point, chosen, request->layout_fixed, chosen);
	return 0;
}
