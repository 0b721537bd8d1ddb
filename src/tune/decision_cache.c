/* decision_cache.c - picard-run --tol's quick search decisions on disk (see
 * decision_cache.h). A file is a few lines a person can read:
 *
 *   picard-run quick search decision 1
 *   key=build=... model=decay+... text=... precision=double device="CPU" ...
 *   point scheme=dp5 m=2 K=10 h=0x1p+0 windows=1 E=... closest=0 ...
 *   search=4 trajectories sampled, dp5: 16 points, 1.74 s
 *   date=2026-11-27T08:30:00Z
 *   end
 *
 * Reals are C99 hexadecimal (%a), so they read back to the same double. A
 * file without its "end" line was cut short; one whose point does not read
 * or is out of range is corrupt: both are warned about and never used. */
#define _DEFAULT_SOURCE /* gmtime_r */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache_dir.h"
#include "content_hash.h"
#include "decision_cache.h"
#include "errors.h"
#include "model_impl.h"
#include "scheme.h"

#define DECISION_MAGIC "picard-run quick search decision 1\n"
#define DECISION_FILE_MAX 8192 /* bytes of a file; more is not one of ours */

/* The point line's format: written and read with the same text. */
#define POINT_FORMAT "point scheme=%s m=%d K=%d h=%a windows=%ld E=%a scaled_error=%a " \
		     "seconds=%a sample_meeting=%ld layout=%s traj_per_block=%d " \
		     "iter_rtol=%a block=%d closest=%d"

void decision_key(char *key, const picard_model *model, const picard_choose_request *request,
		  const struct tuning_key *tk)
{
	const picard_choose_request *r = request;
	const picard_options *fixed = &request->fixed;
	const char *source = model->impl ? model->impl->source : NULL;
	const unsigned long long text = source ?
		(unsigned long long)picard_hash(PICARD_HASH_SEED, source, strlen(source)) : 0;

	snprintf(key, DECISION_KEY_MAX, "build=%s model=%s text=%016llx precision=%s "
		 "backend=%s device=\"%s\" tol=%a rtol=%a t0=%a t1=%a ensemble=%s traj=%ld "
		 "spread=%a seed=%llu scheme=%s m=%d K=%d h=%a window=%a spans=%d",
		 picard_build_id(), tk->model, text, tuning_precision_name(tk->key.precision),
		 tuning_backend_name(tk->backend), tk->device, r->tol, r->rtol, r->t0, r->t1,
		 tk->ensemble, r->ntraj, r->spread, r->seed,
		 r->scheme_fixed ? picard_scheme_of(fixed->scheme)->name : "any", fixed->m,
		 fixed->K, fixed->h, fixed->window, r->spans);
}

int decision_dir(char *buf, size_t len)
{
	char dir[4096];
	int err = picard_cache_dir(dir, sizeof(dir));

	if (err)
		return err;
	if ((size_t)snprintf(buf, len, "%s/decisions", dir) >= len)
		return picard_fail(PICARD_EINVAL, "decision cache: path longer than %zu bytes", len);
	return PICARD_OK;
}

int decision_path(const char *key, char *path, size_t len)
{
	char dir[4096];
	int err = decision_dir(dir, sizeof(dir));

	if (err)
		return err;
	if ((size_t)snprintf(path, len, "%s/%016llx.txt", dir,
			     (unsigned long long)picard_hash(PICARD_HASH_SEED, key, strlen(key))) >= len)
		return picard_fail(PICARD_EINVAL, "decision cache: path longer than %zu bytes", len);
	return PICARD_OK;
}

/* The rest of the line (not the first) that starts with prefix, into buf;
 * false when there is none or it does not fit. */
static bool line_after(const char *text, const char *prefix, char *buf, size_t len)
{
	const char *at = text;
	size_t n;

	do
		at = strstr(at + 1, prefix);
	while (at && at[-1] != '\n');
	if (!at)
		return false;
	at += strlen(prefix);
	n = strcspn(at, "\n");
	if (n >= len || at[n] != '\n')
		return false;
	memcpy(buf, at, n);
	buf[n] = '\0';
	return true;
}

/* The point line into d; false when it does not read or could not be one
 * picard-run's search chose. */
static bool read_point(const char *text, struct quick_decision *d)
{
	char line[1024], scheme[32], layout[32];
	picard_tune_point *p = &d->point;
	int closest = -1, layout_id, end = 0;

	if (!line_after(text, "point ", line, sizeof(line)))
		return false;
	memset(p, 0, sizeof(*p));
	if (sscanf(line, "scheme=%31s m=%d K=%d h=%la windows=%ld E=%la scaled_error=%la "
		   "seconds=%la sample_meeting=%ld layout=%31s traj_per_block=%d iter_rtol=%la "
		   "block=%d closest=%d%n", scheme, &p->m, &p->K, &p->h, &p->windows, &p->error,
		   &p->scaled_error, &p->seconds, &p->sample_meeting, layout, &p->traj_per_block,
		   &p->iter_rtol, &p->block, &closest, &end) != 14 || line[end] != '\0')
		return false;
	layout_id = picard_layout_parse(layout);
	if (!picard_scheme_named(scheme) || layout_id < 0 || p->m < 2 || p->K < 1 ||
	    !(p->h > 0) || !isfinite(p->h) || p->windows < 1 || !(p->scaled_error >= 0) ||
	    p->sample_meeting < 0 || p->traj_per_block < 0 || p->traj_per_block > 1024 ||
	    !(p->iter_rtol >= 0) || p->block < 0 || (closest != 0 && closest != 1))
		return false;
	p->scheme = picard_scheme_named(scheme)->id;
	p->layout = (picard_layout)layout_id;
	p->meets = !closest;
	d->closest = closest;
	return true;
}

int decision_load(const char *key, struct quick_decision *decision, char *warning,
		  size_t warning_len)
{
	char path[4200], stored_key[DECISION_KEY_MAX + 8];
	char *text = NULL;
	const char *why = NULL;
	size_t len = 0;
	int err = decision_path(key, path, sizeof(path));

	warning[0] = '\0';
	if (err)
		return err;
	if (picard_read_file(path, &text, &len) != PICARD_OK)
		return PICARD_ENOTFOUND; /* none kept (or unreadable: searched again) */
	memset(decision, 0, sizeof(*decision));
	if (len > DECISION_FILE_MAX || strncmp(text, DECISION_MAGIC, strlen(DECISION_MAGIC)) != 0)
		why = "not a decision file";
	else if (len < 5 || strcmp(text + len - 5, "\nend\n") != 0)
		why = "cut short (no end line)";
	else if (!line_after(text, "key=", stored_key, sizeof(stored_key)))
		why = "no key";
	else if (strcmp(stored_key, key) != 0)
		err = PICARD_ENOTFOUND; /* another key of the same hash: replaced */
	else if (!read_point(text, decision) ||
		 !line_after(text, "search=", decision->search, sizeof(decision->search)) ||
		 !line_after(text, "date=", decision->date, sizeof(decision->date)))
		why = "its point does not read";
	free(text);
	if (why) {
		snprintf(warning, warning_len, "ignoring the quick search decision in %s: %s; "
			 "searching again", path, why);
		return PICARD_ENOTFOUND;
	}
	return err;
}

int decision_store(const char *key, const struct quick_decision *decision)
{
	const picard_tune_point *p = &decision->point;
	char path[4200], dir[4096], date[32] = "unknown", text[DECISION_FILE_MAX];
	time_t now = time(NULL);
	struct tm utc;
	int n, err = decision_dir(dir, sizeof(dir));

	if (!err)
		err = decision_path(key, path, sizeof(path));
	if (!err)
		err = picard_make_dirs(dir);
	if (err)
		return err;
	if (gmtime_r(&now, &utc))
		strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &utc);
	n = snprintf(text, sizeof(text), DECISION_MAGIC "key=%s\n" POINT_FORMAT "\nsearch=%s\n"
		     "date=%s\nend\n", key, picard_scheme_of(p->scheme)->name, p->m, p->K, p->h,
		     p->windows, p->error, p->scaled_error, p->seconds, p->sample_meeting,
		     picard_layout_name(p->layout), p->traj_per_block, p->iter_rtol, p->block,
		     decision->closest ? 1 : 0, decision->search, date);
	if (n < 0 || (size_t)n >= sizeof(text))
		return picard_fail(PICARD_EINVAL, "decision cache: an entry over %zu bytes",
				   sizeof(text));
	return picard_write_atomic(path, text, (size_t)n);
}
