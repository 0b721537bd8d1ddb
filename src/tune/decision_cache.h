/* decision_cache.h - picard-run --tol's quick search decision, kept so that
 * the same command repeated takes it at once (issue 35, item 2). One file
 * per decision, $PICARD_CACHE_DIR/decisions/HASH.txt, HASH a hash of the
 * key: the build, the model's text, every option that changes the choice,
 * the ensemble's fingerprint and the device (decision_key()). A reused
 * decision only chooses the grid: the run still estimates and judges every
 * member, so a wrong decision costs time, never a wrong "ok".
 */
#ifndef PICARD_TUNE_DECISION_CACHE_H
#define PICARD_TUNE_DECISION_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "picard.h"
#include "picard_choose.h"
#include "tune_key.h"

#define DECISION_KEY_MAX 1024 /* bytes of a key's text */

/* What a quick search decided, as kept. */
struct quick_decision {
	picard_tune_point point; /* the point applied */
	bool closest;            /* none met the tolerance on every sampled
				    member: point is the closest, each member
				    judged */
	char search[600];        /* how the search was made, its own words
				    ("4 trajectories sampled, dp5: 16 points,
				    1.7 s") */
	char date[32];           /* when it was stored (UTC), as read */
};

/* The key's text of a request's quick search into key (DECISION_KEY_MAX
 * bytes): tk (model with its text's hash, precision, device, tolerance,
 * span, ensemble), the exact ensemble size, the model's text hashed
 * (shipped models too), the build, spread and seed, and the scheme, m, K,
 * h and window fixed. */
void decision_key(char *key, const picard_model *model, const picard_choose_request *request,
		  const struct tuning_key *tk);

/* The file of key into path. Returns 0 or the library error. */
int decision_path(const char *key, char *path, size_t len);

/* The decision kept for key into *decision: 0, or PICARD_ENOTFOUND when
 * none is (a file that is corrupt, truncated or of another key is none:
 * the first two say why into warning, else it is ""). */
int decision_load(const char *key, struct quick_decision *decision, char *warning,
		  size_t len);

/* Keep decision for key (written atomically: a run reading at the same
 * time sees the old file or the new, never a part). Returns 0 or the
 * library error. */
int decision_store(const char *key, const struct quick_decision *decision);

/* The directory the decisions are kept in. */
int decision_dir(char *buf, size_t len);

#endif
