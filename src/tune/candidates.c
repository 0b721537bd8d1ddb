/* candidates.c - the list of configurations a tolerance search goes
 * through, and the search down it (see candidates.h). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "candidates.h"
#include "scheme.h"
#include "tune_prepare.h"

/* At most this many trajectories costed: on the GPU the run's own size up
 * to a million, on the CPU a sample. */
#define COSTED_TRAJ_MAX_CUDA (1L << 20)
#define COSTED_TRAJ_MAX_CPU 1024L

bool candidates_scheme_suits(const picard_model *model, bool spans,
			     const picard_scheme_type *type)
{
	/* members on their own spans: the schemes that take them */
	if (spans && !type->per_member_spans)
		return false;
	if (type->takes_linsolve != (model->op != NULL))
		return false;
	/* a model with events: the schemes that locate them on every backend
	   (lobatto and the trapezoid, on the CPU alone, when named) */
	if (model->events && (!type->locates_events || type->events_cpu_only))
		return false;
	return !model->stiff || type->solves_stiff;
}

long candidates_costed_traj(picard_backend backend, long ntraj)
{
	const long most = backend == PICARD_BACKEND_CUDA ? COSTED_TRAJ_MAX_CUDA :
			  COSTED_TRAJ_MAX_CPU;

	return ntraj < most ? ntraj : most;
}

/* The quick search's entry of a scheme: its m candidates up to
 * CANDIDATES_QUICK_M_MAX, K up to CANDIDATES_QUICK_KMAX. */
static struct candidate quick_entry(const picard_scheme_type *type)
{
	struct candidate entry = {.type = type, .kmax = CANDIDATES_QUICK_KMAX};

	for (int j = 0; j < type->tune_nms; j++)
		if (type->tune_ms[j] <= CANDIDATES_QUICK_M_MAX && entry.nms < PICARD_TUNE_MAX_M)
			entry.ms[entry.nms++] = type->tune_ms[j];
	return entry;
}

/* picard-tune's wider entry of its scheme: the m and K asked for, else
 * every m of the scheme and picard_tune's K. */
static struct candidate wide_entry(const picard_scheme_type *type,
				   const struct candidate_request *request)
{
	struct candidate entry = {.type = type, .kmax = request->wide_kmax, .wide = true};

	entry.nms = request->wide_nms ? request->wide_nms : type->tune_nms;
	memcpy(entry.ms, request->wide_nms ? request->wide_ms : type->tune_ms,
	       entry.nms * sizeof(entry.ms[0]));
	return entry;
}

/* Whether two entries search the same candidates: the same m list and as
 * many K (K_max for lobatto and the pairs, which ignore kmax). */
static bool same_candidates(const struct candidate *a, const struct candidate *b)
{
	const int kmax_a = a->kmax ? a->kmax : 9, kmax_b = b->kmax ? b->kmax : 9;

	return a->type == b->type && a->nms == b->nms &&
	       !memcmp(a->ms, b->ms, a->nms * sizeof(a->ms[0])) &&
	       a->type->tune_candidates(kmax_a) == b->type->tune_candidates(kmax_b);
}

int candidates_list(const picard_model *model, const struct candidate_request *request,
		    struct candidate *list)
{
	int n = 0;

	/* --m, --kmax: those candidates of the scheme, nothing else */
	if (request->wide_only) {
		list[0] = wide_entry(picard_scheme_of(request->scheme), request);
		return 1;
	}
	/* the scheme the command settles; else each that suits the model,
	 * in the list's order: the per-thread pairs first, whose cheap
	 * searches bound how far the Picard schemes are refined */
	for (int i = 0; picard_scheme_list[i] && n < CANDIDATES_MAX - 1; i++) {
		const picard_scheme_type *type = picard_scheme_list[i];

		if ((request->settled && type->id != request->scheme) ||
		    (!request->settled && (!type->tune_point || type->tuned_when_named ||
					   !candidates_scheme_suits(model, request->spans, type))))
			continue;
		list[n] = quick_entry(type);
		/* a scheme the command names runs whatever it compiles */
		list[n].quick = !request->settled;
		list[n++].if_stiff = !request->settled && type->solves_stiff && type->tableau &&
				     !model->stiff;
	}
	if (request->wide) {
		struct candidate wide = wide_entry(picard_scheme_of(request->scheme), request);
		bool listed = false;

		for (int i = 0; i < n; i++)
			if (same_candidates(&list[i], &wide)) {
				list[i].quick = false; /* picard-tune's own: all of it */
				listed = true;
			}
		if (!listed)
			list[n++] = wide;
	}
	return n;
}

int candidates_count(const struct candidate *list, int n)
{
	int count = 0;

	for (int i = 0; i < n; i++)
		count += list[i].nms;
	return count;
}

/* Seconds since start. */
static double seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) + 1e-9 * (double)(now.tv_nsec - start->tv_nsec);
}

/* Keep p as its (scheme, m)'s row: a candidate searched twice (by the
 * quick entry and the wider one) keeps its faster point, or where neither
 * met the tolerance the smaller E. */
static void add_row(struct candidate_search *search, const picard_tune_point *p)
{
	for (int i = 0; i < search->nrows; i++) {
		picard_tune_point *row = &search->rows[i];

		if (row->scheme != p->scheme || row->m != p->m)
			continue;
		if (p->meets ? !row->meets || p->seconds < row->seconds :
			       !row->meets && p->error < row->error)
			*row = *p;
		return;
	}
	if (search->nrows < CANDIDATES_ROWS)
		search->rows[search->nrows++] = *p;
}

/* Add one entry's least predicted time (or why none) to search->times,
 * and its scheme to search->names once. */
static void add_summary(struct candidate_search *search, const struct candidate *entry,
			const picard_tune_result *found, int err, bool had_time_to_beat)
{
	const size_t used = strlen(search->times), named = strlen(search->names);
	const char *wide = entry->wide ? " (wider)" : "";

	if (!entry->wide || !strstr(search->names, entry->type->name))
		snprintf(search->names + named, sizeof(search->names) - named, "%s%s",
			 named ? ", " : "", entry->type->name);
	/* with a time to beat, a search that finds nothing may only have
	 * stopped where it could no longer win */
	if (err)
		snprintf(search->times + used, sizeof(search->times) - used, "%s%s%s %s",
			 used ? ", " : "", entry->type->name, wide,
			 found->stopped ? "stopped by the budget" :
			 had_time_to_beat ? "slower or none meets" : "none meets");
	else
		snprintf(search->times + used, sizeof(search->times) - used, "%s%s%s %.3g ms%s",
			 used ? ", " : "", entry->type->name, wide, found->best.seconds * 1e3,
			 found->stopped ? " (stopped by the budget)" : "");
}

/* Fold one entry's search (other, err_other) into the result so far: it
 * takes over only when its point is faster by picard_tune_faster's margin;
 * the counts add up either way. */
static void merge(struct candidate_search *search, int *err, const picard_tune_result *other,
		  int err_other)
{
	picard_tune_result *result = &search->result;

	if (!search->searched) {
		*result = *other;
		*err = err_other;
		return;
	}
	const long points = result->points + other->points;
	const long timed = result->costs_timed + other->costs_timed;
	const long not_kept = result->costs_not_kept + other->costs_not_kept;

	if (err_other == 0 && (*err || picard_tune_faster(&other->best, &result->best))) {
		*result = *other;
		*err = 0;
	} else {
		if (*err && other->best_error < result->best_error)
			result->best_error = other->best_error;
		if (*err && other->refused_error < result->refused_error) {
			result->refused_error = other->refused_error;
			result->refused_by = other->refused_by;
		}
	}
	result->points = points;
	result->costs_timed = timed;
	result->costs_not_kept = not_kept;
}

/* Whether the entry is searched: an implicit per-thread pair the command
 * did not name only on a stiff sample (found is the first entry's search,
 * whose reference screened the sample; NULL before it). On a non-stiff
 * model an explicit pair of higher order takes fewer, cheaper steps (no
 * Newton iteration, no LU), so radau5 is neither compiled nor searched. */
static bool entry_searched(const struct candidate *entry, const picard_tune_result *found)
{
	return !entry->if_stiff || (found && found->sample_stiff > 0);
}

/* The search of entry into *tune (its scheme, m and K); returns its m
 * count. The quick search's entries on the CUDA backend keep only the m
 * whose sample kernel is quick to compile (picard_scheme_type.
 * quick_compiles; 0 where none is), picard-tune's own scheme every m. */
static int entry_options(const struct candidate_search *search, const struct candidate *entry,
			 picard_tune_options *tune)
{
	const picard_scheme_type *type = entry->type;

	*tune = search->tune;
	tune->scheme = type->id;
	tune->kmax = entry->kmax;
	tune->quick = entry->quick;
	tune->nms = 0;
	for (int j = 0; j < entry->nms; j++)
		if (picard_tune_compiles(tune, tune->backend, PICARD_LAYOUT_AUTO, entry->ms[j],
					 search->model->dim))
			tune->ms[tune->nms++] = entry->ms[j];
	return tune->nms;
}

/* Start compiling, in parallel and in the background, what the entries'
 * searches will compile (picard_tune_prepare_start): the kernels of every
 * candidate on the GPU, which a search waits for where it reaches one
 * still compiling; a model file's per-thread host sides on the CPU, before
 * this returns. A failure costs only time: each search compiles what it
 * still needs on first use. */
static struct picard_tune_prepared *prepare(const struct candidate_search *search,
					    const struct candidate *list, int n)
{
	picard_tune_options searches[CANDIDATES_MAX];
	struct picard_tune_prepared *prepared;
	int count = 0;

	for (int i = 0; i < n; i++)
		if (entry_searched(&list[i], NULL) && entry_options(search, &list[i], &searches[count]))
			count++;
	picard_tune_prepare_start(search->model, searches, count, NULL, &prepared);
	return prepared;
}

int candidates_search(struct candidate_search *search, const struct candidate *list, int n)
{
	picard_tune_options tune = search->tune;
	struct timespec start;
	int err = PICARD_ENOTFOUND; /* until an entry is searched */

	memset(&search->result, 0, sizeof(search->result));
	search->result.best_error = search->result.refused_error = INFINITY;
	search->closest = (picard_tune_point){.error = INFINITY, .scaled_error = INFINITY};
	search->nrows = search->searched = search->finished = 0;
	search->names[0] = search->times[0] = 0;
	search->stopped = false;
	clock_gettime(CLOCK_MONOTONIC, &start);
	struct picard_tune_prepared *prepared = prepare(search, list, n);
	for (int i = 0; i < n && !search->stopped; i++) {
		picard_tune_result other;
		int err_other;
		char why[96] = "";

		if (!entry_searched(&list[i], search->searched ? &search->result : NULL))
			snprintf(why, sizeof(why), "no sampled member is stiff");
		else if (!entry_options(search, &list[i], &tune))
			snprintf(why, sizeof(why), "its kernels compile slowly at n = %d: picard-tune "
				 "searches it", search->model->dim);
		if (why[0]) {
			const size_t used = strlen(search->times);

			snprintf(search->times + used, sizeof(search->times) - used,
				 "%s%s not searched (%s)", used ? ", " : "", list[i].type->name, why);
			for (int j = 0; search->on_skipped && j < list[i].nms; j++)
				search->on_skipped(list[i].type->name, list[i].ms[j], why,
						   search->tune.ctx);
			continue;
		}
		/* an entry's search stops where it cannot beat the fastest
		 * so far (predicted) */
		tune.seconds_to_beat = search->searched && !err ? search->result.best.seconds : 0;
		if (search->budget > 0) {
			tune.seconds_limit = search->budget - seconds_since(&start);
			if (tune.seconds_limit <= 0) {
				search->stopped = true;
				break;
			}
		}
		err_other = picard_tune(search->model, &tune, &other);
		if (err_other && err_other != PICARD_ENOTFOUND) {
			err = err_other;
			break;
		}
		for (int j = 0; j < other.nm; j++)
			add_row(search, &other.per_m[j]);
		if (picard_tune_closer(&other.closest, &search->closest))
			search->closest = other.closest;
		add_summary(search, &list[i], &other, err_other, tune.seconds_to_beat > 0);
		merge(search, &err, &other, err_other);
		search->searched++;
		search->finished += !other.stopped;
		search->stopped = other.stopped;
	}
	picard_tune_prepare_finish(prepared); /* no more: the search is done */
	search->result.stopped = search->stopped;
	search->seconds = seconds_since(&start);
	return err;
}
