/* candidates.h - the configurations a tolerance search goes through, one
 * list for picard-run's quick search and for picard-tune. The quick
 * search's: every scheme that suits the model, in picard_scheme_list's
 * order, each with its nodes per window up to CANDIDATES_QUICK_M_MAX and K
 * up to CANDIDATES_QUICK_KMAX (or only the scheme the command settles).
 * picard-tune goes through the same, the same way, then searches its own
 * scheme wider (every m of the scheme, K up to 9). Each entry is one
 * picard_tune call under one cost model (counted evaluations times a
 * cached cost per evaluation, src/tune/tune_cost.h); a later entry takes over
 * only when picard_tune_faster says its point is faster. So the entry
 * picard-tune stores is never predicted slower than the quick search's
 * pick on the same ensemble and costs.
 */
#ifndef PICARD_TUNE_CANDIDATES_H
#define PICARD_TUNE_CANDIDATES_H

#include <stdbool.h>

#include "picard.h"

struct picard_scheme_type;

#define CANDIDATES_QUICK_M_MAX 32  /* the quick search's m, up to this */
#define CANDIDATES_QUICK_KMAX 4    /* and its K = 1 .. 4 */
#define CANDIDATES_MAX 16          /* entries of a list at most */
/* rows of a search's table: each (scheme, m) once */
#define CANDIDATES_ROWS (CANDIDATES_MAX * PICARD_TUNE_MAX_M)

/* One entry of the list: a scheme and the candidates picard_tune tries. */
struct candidate {
	const struct picard_scheme_type *type; /* the scheme */
	int nms;                     /* its m candidates */
	int ms[PICARD_TUNE_MAX_M];
	int kmax;                    /* K = 1 .. kmax (0: picard_tune's 9) */
	bool wide;                   /* picard-tune's wider search, not the
					quick search's */
	bool quick;                  /* only kernels quick to compile
					(picard_tune_options.quick): the quick
					search's, unless the command named the
					scheme or it is picard-tune's own */
	bool if_stiff;               /* an implicit per-thread pair (radau5)
					the command did not name: searched
					only on a stiff model or sample */
};

/* What a command asks to be searched. */
struct candidate_request {
	bool settled;                /* one scheme alone (--scheme, or --h,
					which only the trapezoid has) */
	picard_scheme scheme;        /* that one; picard-tune: the scheme it
					searches wider */
	bool wide;                   /* picard-tune: add the wider search */
	bool wide_only;              /* --m or --kmax: the wider search alone,
					of those candidates */
	int wide_nms;                /* its m candidates (0: the scheme's) */
	int wide_ms[PICARD_TUNE_MAX_M];
	int wide_kmax;               /* its K up to this (0: picard_tune's) */
	bool spans;                  /* members on their own spans (--init's
					t0, t1): only the schemes that take
					them (candidates_scheme_suits) */
};

/* Whether a search across schemes (and picard-run's default) picks type
 * for model on its own: for a model with an operator (a discretised PDE)
 * a scheme that solves with it, as a dense per-thread step at its
 * dimension is slow or refused there; for a stiff model one that solves
 * stiff models; for members on their own spans (spans) one that takes
 * them. */
bool candidates_scheme_suits(const picard_model *model, bool spans,
			     const struct picard_scheme_type *type);

/* The list for model and request into list[CANDIDATES_MAX]; returns its
 * length (0: no scheme suits the model). */
int candidates_list(const picard_model *model, const struct candidate_request *request,
		    struct candidate *list);

/* The (scheme, m) candidates of the n entries of list, for progress. */
int candidates_count(const struct candidate *list, int n);

/* The trajectories a search solves to predict times on an ensemble of
 * ntraj: on the GPU the ensemble's own size up to a million (which scheme
 * wins changes with it: issue 15), on the CPU at most 1024 (the cost of a
 * trajectory does not change with more of them). */
long candidates_costed_traj(picard_backend backend, long ntraj);

/* One search down a list. */
struct candidate_search {
	/* set by the caller */
	const picard_model *model;   /* what is tuned */
	picard_tune_options tune;    /* shared by every entry: the tolerance,
					precision, backend, span, ensemble,
					trajectories costed, sample, cost key,
					progress callbacks; the scheme, m, K,
					time to beat and time left are set per
					entry */
	double budget;               /* seconds for the whole list (0: none) */
	/* Called for each (scheme, m) candidate not searched, and why (may
	 * be NULL); ctx is tune.ctx, as on_candidate's. */
	void (*on_skipped)(const char *scheme, int m, const char *why, void *ctx);

	/* filled by candidates_search */
	picard_tune_result result;   /* the winner's search, its counts the
					sum over every entry */
	picard_tune_point closest;   /* the point closest to the tolerance
					over every entry */
	picard_tune_point rows[CANDIDATES_ROWS]; /* per (scheme, m): its
					fastest point, or meets false and
					its smallest E */
	int nrows;
	char names[256];             /* the schemes searched, "dp5, dp8" */
	char times[512];             /* each entry's least predicted time */
	int searched;                /* entries searched (whole or stopped) */
	int finished;                /* of those, searched whole */
	bool stopped;                /* the budget ran out first */
	double seconds;              /* the search's wall time */
};

/* Search the n entries of list in order under search->budget. Returns 0
 * (result.best is the winner), PICARD_ENOTFOUND (nothing met the
 * tolerance; closest and result say how close), or a library error (not
 * reported). */
int candidates_search(struct candidate_search *search, const struct candidate *list, int n);

#endif
