/* picard_choose.h - the fastest configuration that meets an error bound E
 * on an ensemble, chosen as picard-run --tol chooses it: the tuning cache's
 * entry for this ensemble (picard-tune's), else a quick search's decision
 * kept for the same request, else a quick search on the ensemble itself
 * (its decision then kept). picard-run and the Python package both call
 * this. The library prints nothing here: progress and warnings go to the
 * callbacks.
 */
#ifndef PICARD_CHOOSE_H
#define PICARD_CHOOSE_H

#include <stdbool.h>
#include <stddef.h>

#include "picard.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a choice came from. */
typedef enum picard_choice_source {
	PICARD_CHOICE_GIVEN = 0, /* the request fixed the whole grid: nothing
				    chosen, chosen is the request's */
	PICARD_CHOICE_CACHE,     /* the tuning cache's entry (report.where) */
	PICARD_CHOICE_DECISION,  /* a quick search's decision kept for the
				    same request (report.where) */
	PICARD_CHOICE_SEARCH,    /* a quick search on the ensemble, now */
} picard_choice_source;

/* What to choose for. */
typedef struct picard_choose_request {
	/* the ensemble as it will be solved: ntraj rows of x0 and params
	 * (params NULL: the model's defaults). The search samples at most
	 * 32 members (the extremes of every column, then evenly spaced) and
	 * times at most 1024 on the CPU. */
	const double *x0;
	const double *params;
	long ntraj;
	/* the ensemble's name in the cache keys: "default" for picard-tune's
	 * own draw (spread 0.1 around the model's start, seed 1, no
	 * parameter spread), NULL: picard_ensemble_id() of x0 and params */
	const char *ensemble_id;
	double spread;               /* how it was drawn (picard-run's
					--spread and --seed), part of the kept
					decision's key */
	unsigned long long seed;
	picard_precision precision;
	picard_backend backend;      /* AUTO: CUDA when a device is there */
	double t0, t1;               /* the span (required, t0 < t1) */
	bool spans;                  /* members on their own spans: only the
					schemes that take them */
	double tol;                  /* E, the absolute part (required, > 0) */
	double rtol;                 /* E's relative part (0: absolute) */
	/* The scheme, when scheme_fixed (else any that suits the model; an h
	 * fixed alone settles the trapezoid, the only scheme with one), and
	 * what the caller fixed of its settings, as picard-run's --m, --K,
	 * --h, --window: a zero field is chosen. Also kept where not zero:
	 * K_max, iter_rtol, block, traj_per_block, max_work; layout where
	 * layout_fixed. */
	bool scheme_fixed;
	bool layout_fixed;
	picard_options fixed;
	/* Progress, may be NULL: picard_tune_options' on_point and
	 * on_candidate; on_skipped for a candidate not searched and why;
	 * on_warning for what the caller may wish to say (a cache not read,
	 * a kept decision ignored or not kept); on_search before the quick
	 * search starts, with the number of (scheme, m) candidates. */
	void (*on_point)(const picard_tune_point *point, void *ctx);
	void (*on_candidate)(const picard_tune_point *fastest, void *ctx);
	void (*on_skipped)(const char *scheme, int m, const char *why, void *ctx);
	void (*on_warning)(const char *text, void *ctx);
	void (*on_search)(int candidates, void *ctx);
	void *ctx;
} picard_choose_request;

/* How the choice was made. */
typedef struct picard_choose_report {
	picard_choice_source source;
	picard_tune_point point;     /* the point applied; closest: the one
					closest to meeting E */
	bool closest;                /* no point met E on every sampled member:
					the closest runs, and each member must
					be judged on its own */
	char where[4200];            /* CACHE: the cache file; DECISION: the
					decision's file; SEARCH: where its
					decision was kept ("" where not) */
	char search[600];            /* DECISION, SEARCH: how the search was
					made, its own words */
	char date[32];               /* DECISION: when it was kept (UTC) */
	/* SEARCH (and PICARD_ENOTFOUND): the search's outcome, the schemes
	 * searched ("dp5, dp8"), each one's least predicted time, the
	 * trajectories its times are predicted on, and whether the scheme
	 * was settled by the request */
	picard_tune_result result;
	char names[256];
	char times[512];
	long costed_traj;
	bool settled;
} picard_choose_report;

/* Choose for model and request the fastest configuration predicted to
 * meet request->tol on every member, into *chosen: the request's fixed
 * options with the chosen scheme, m, K, h or window, sweeps, tolerance,
 * block and layout filled in (max_work unbounded where not fixed: the
 * search bounds its grids), t0, t1, precision and backend the request's.
 * report (may be NULL) says where it came from. Returns 0 (also where
 * report->closest: nothing met E on every sampled member, the closest
 * point is chosen), PICARD_ENOTFOUND (no point came close: report->result
 * says the best E reached and why), PICARD_EINVAL on a bad request, or the
 * library's error. A chosen configuration is a prediction from a sample:
 * check the solve's members against the reference (picard_check_each). */
int picard_choose(const picard_model *model, const picard_choose_request *request,
		  picard_options *chosen, picard_choose_report *report);

/* The options a point of the search (p) sets on top of fixed, as
 * picard_choose applies them; layout_fixed as in the request (fixed's t0,
 * t1 are the span). */
void picard_choose_apply(const picard_tune_point *p, const picard_options *fixed,
			 bool layout_fixed, picard_options *chosen);

#ifdef __cplusplus
}
#endif

#endif
