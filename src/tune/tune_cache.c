/* tune_cache.c - the tuning cache: the configuration picard-tune found for
 * a model, precision, tolerance, time span, device and build of picard, in
 * a plain text file a person can read (and edit, or delete to forget).
 *
 * The file ($PICARD_CACHE_DIR/tune.txt, else $XDG_CACHE_HOME/picard/tune.txt,
 * else ~/.cache/picard/tune.txt) is a comment header and one entry per line
 * of blank-separated key=value fields, for example
 *
 *   model=lotka precision=float tol=0.001 t0=0 t1=100
 *   device="NVIDIA H100 80GB HBM3" build=3d7f3fb m=8 K=2 h=0.059988002399520096
 *   windows=238 E=0.00081 seconds=0.00123 layout=warp traj_per_block=8
 *   date=2026-11-23T10:00:00Z
 *
 * traj came with issue 15: the ensemble size class timed, as its smallest
 * size (2^k serves k = floor(log2 ntraj)); a line without it serves any.
 * rtol and ensemble came with issue 14: a line without them holds for an
 * absolute tolerance and picard-tune's own ensemble ("default"); an entry
 * never serves another ensemble.
 * layout and traj_per_block came with issue 8; a line without them (an
 * older picard's) reads as layout auto, 0 trajectories per block.
 * scheme=lobatto and iter_rtol came with issue 7 (a lobatto point: K is
 * its K_max, h its mean spacing); without them an entry is the trapezoid's.
 * block came with issue 17: a newton point's windows iterated together;
 * on a lobatto point (issue 40) its windows in flight.
 * (one line in the file).
 *
 * A line with seconds_per_eval (issue 34) is not a configuration but what
 * one right-hand side evaluation cost a scheme at m nodes under a layout
 * (and block=P: lobatto's P windows in flight; src/tune/tune_cost.h), for a model, precision, ensemble size class and
 * device, for example
 *
 *   model=lotka precision=double traj=1024 device="CPU" build=3d7f3fb
 *   scheme=dp8 m=2 layout=auto seconds_per_eval=1.2e-08 date=...
 *
 * the tuner's unit of cost, timed once and read back by later searches. Reals carry the fewest digits that read back to
 * the same double (at most 17), so tol, t0, t1 compare exactly and h is the
 * spacing that was measured. A value with blanks, quotes or backslashes is
 * quoted, with \" and \\ escaped; the device always is. Entries written by
 * another build are stale: a search's result holds for the code that
 * measured it. They are kept in the file but never returned.
 *
 * Reading never fails on content: a line that does not parse, lacks a field,
 * holds a value out of range or is cut short (no final newline) is skipped,
 * and one warning line on stderr names the first such line. Storing rewrites
 * the file under a temporary name and renames it into place, so readers see
 * the old file or the new one, never a half-written one; a lock file keeps
 * two concurrent stores from losing one another's entry.
 */
#define _DEFAULT_SOURCE /* getline, mkstemp, fsync, flock, gmtime_r */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache_dir.h"
#include "errors.h"
#include "scheme.h"
#include "tune_cost.h"

#ifndef PICARD_BUILD_ID
#define PICARD_BUILD_ID "unknown" /* the Makefile passes the git commit */
#endif

#define CACHE_FILE "tune.txt"
#define CACHE_PATH_MAX 4096     /* bytes of the cache file's path */
#define CACHE_FIELDS 24         /* fields a line may hold (22 at most are used) */
#define CACHE_LINE_MAX 4096     /* longer lines are malformed */
#define CACHE_M_MAX (1 << 20)   /* the range picard-run accepts for --m */
#define CACHE_K_MAX 1000000     /* and for --K */
#define WINDOWS_SLACK 1e-9      /* |windows (m-1) h - span| / span allowed */

static const char cache_header[] =
	"# picard tuning cache: the fastest configuration picard-tune found for a\n"
	"# model, precision, tolerance, time span, device and build of picard.\n"
	"# One entry per line, blank-separated key=value fields:\n"
	"#   model precision tol t0 t1 device build   what the entry holds for\n"
	"#   rtol ensemble                            relative part (absent: 0) and the\n"
	"#                                            ensemble tuned on (absent: default)\n"
	"#   m K h windows                            nodes and sweeps per window, node\n"
	"#                                            spacing, windows = (t1-t0)/((m-1) h)\n"
	"#   E seconds                                error measured on the sample and\n"
	"#                                            median solve time of the ensemble\n"
	"#   layout traj_per_block                    CUDA layout and trajectories per block\n"
	"#                                            of the timed solve (absent: auto)\n"
	"#   scheme iter_rtol block                   the scheme (absent: trapezoid), its\n"
	"#                                            window tolerance, newton's block\n"
	"#                                            or lobatto's windows in flight\n"
	"#   date                                     when it was stored (UTC)\n"
	"# A line with seconds_per_eval holds what one right-hand side evaluation\n"
	"# cost scheme at m nodes under layout, with block windows in flight\n"
	"# (model precision traj device build):\n"
	"# the search predicts a configuration's time as its evaluations times it.\n"
	"# Values with blanks are quoted (\\\" and \\\\ escaped). Entries of another build\n"
	"# are ignored. picard-tune rewrites this file (comments are not kept);\n"
	"# delete a line, or the file, to forget a result.\n";

/* One key=value field of a line; both point into the line, cut in place. */
struct cache_field {
	const char *key;   /* field name */
	const char *value; /* its value, unquoted and unescaped */
};

/* What a line of the file is. */
enum cache_line_kind {
	CACHE_LINE_EOF,       /* no more lines */
	CACHE_LINE_SKIP,      /* blank or comment */
	CACHE_LINE_ENTRY,     /* an entry of this build */
	CACHE_LINE_COST,      /* a per-evaluation cost of this build */
	CACHE_LINE_STALE,     /* an entry of another build */
	CACHE_LINE_MALFORMED, /* anything else */
};

/* An entry as read: strings point into the reader's parsed copy. */
struct cache_entry {
	bool is_cost;            /* a cost line: cost holds it, not key, point */
	picard_tune_key key;     /* what it holds for */
	picard_tune_point point; /* the configuration */
	struct tune_cost cost;   /* a cost line's fields */
};

/* A pass over the cache file, line by line. */
struct cache_reader {
	FILE *file;            /* the cache file */
	const char *path;      /* its name, for the warning */
	char *line;            /* the current line as read (getline's buffer) */
	size_t line_cap;       /* allocated size of line */
	ssize_t line_len;      /* bytes in line, newline included */
	char *parsed;          /* a copy of line, cut into fields
				  (CACHE_LINE_MAX + 1 bytes) */
	long lineno;           /* 1-based number of the current line */
	long malformed;        /* malformed lines seen */
	long first_malformed;  /* number of the first of them */
};

const char *picard_build_id(void)
{
	return PICARD_BUILD_ID;
}

int picard_tune_cache_path(char *buf, size_t len)
{
	char dir[CACHE_PATH_MAX];
	int n, err = picard_cache_dir(dir, sizeof(dir));

	if (err)
		return err;
	if (!buf || !len)
		return picard_fail(PICARD_EINVAL, "tuning cache path: no buffer");
	n = snprintf(buf, len, "%s/%s", dir, CACHE_FILE);
	if (n < 0 || (size_t)n >= len)
		return picard_fail(PICARD_EINVAL, "tuning cache path longer than %zu bytes", len);
	return PICARD_OK;
}

/* ---- checking an entry ------------------------------------------------------ */

/* A model name is a bare word (it is a file name in models/). */
static bool valid_name(const char *name)
{
	if (!name || !*name)
		return false;
	for (const char *c = name; *c; c++)
		if (!(*c >= 'a' && *c <= 'z') && !(*c >= 'A' && *c <= 'Z') &&
		    !(*c >= '0' && *c <= '9') && !strchr("_-.+", *c))
			return false;
	return true;
}

/* Any printable text fits a quoted value; control characters do not. */
static bool valid_text(const char *text)
{
	if (!text || !*text)
		return false;
	for (const unsigned char *c = (const unsigned char *)text; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return false;
	return true;
}

/* A key that can be written on one line and read back. */
static int check_key(const picard_tune_key *key)
{
	if (!key)
		return picard_fail(PICARD_EINVAL, "tuning cache: no key");
	if (!valid_name(key->model))
		return picard_fail(PICARD_EINVAL, "tuning cache: model name '%s'",
				   key->model ? key->model : "(null)");
	if (key->precision != PICARD_FLOAT && key->precision != PICARD_DOUBLE)
		return picard_fail(PICARD_EINVAL, "tuning cache: precision %d", (int)key->precision);
	if (!(key->tol >= 0) || !isfinite(key->tol) || !(key->rtol >= 0) || !isfinite(key->rtol) ||
	    (key->tol == 0 && key->rtol == 0))
		return picard_fail(PICARD_EINVAL, "tuning cache: tol %g, rtol %g", key->tol, key->rtol);
	if (key->ensemble && !valid_text(key->ensemble))
		return picard_fail(PICARD_EINVAL, "tuning cache: ensemble '%s'", key->ensemble);
	if (!isfinite(key->t0) || !isfinite(key->t1) || !(key->t1 > key->t0))
		return picard_fail(PICARD_EINVAL, "tuning cache: span [%g, %g]", key->t0, key->t1);
	if (!valid_text(key->device))
		return picard_fail(PICARD_EINVAL, "tuning cache: device name '%s'",
				   key->device ? key->device : "(null)");
	return PICARD_OK;
}

/* The span p's grid covers, as its scheme counts it. */
static double covered(const picard_tune_point *p)
{
	const picard_scheme_type *scheme = picard_scheme_of(p->scheme);

	if (scheme && scheme->tune_span)
		return scheme->tune_span(p);
	return (double)p->windows * (p->m - 1) * p->h;
}

/* A point is stored only if it is a grid picard could run that meets tol. */
static int check_point(const picard_tune_key *key, const picard_tune_point *p)
{
	double span = key->t1 - key->t0;

	if (!p)
		return picard_fail(PICARD_EINVAL, "tuning cache: no point");
	if (p->m < 2 || p->m > CACHE_M_MAX || p->K < 1 || p->K > CACHE_K_MAX)
		return picard_fail(PICARD_EINVAL, "tuning cache: m = %d, K = %d", p->m, p->K);
	if (!(p->h > 0) || !isfinite(p->h) || p->windows < 1)
		return picard_fail(PICARD_EINVAL, "tuning cache: h = %g, %ld windows", p->h, p->windows);
	if (fabs(covered(p) - span) > WINDOWS_SLACK * span)
		return picard_fail(PICARD_EINVAL, "tuning cache: %ld windows of %d nodes at h = %.17g "
				   "do not cover [%g, %g]", p->windows, p->m, p->h, key->t0, key->t1);
	/* with a relative part, E (absolute) may exceed tol and still meet */
	if (!(p->error >= 0) || (key->rtol == 0 && !(p->error <= key->tol)))
		return picard_fail(PICARD_EINVAL, "tuning cache: E = %g does not meet tol %g",
				   p->error, key->tol);
	if (!(p->seconds >= 0) || !isfinite(p->seconds))
		return picard_fail(PICARD_EINVAL, "tuning cache: %g seconds", p->seconds);
	return PICARD_OK;
}

/* The ensemble a key names: NULL is picard-tune's own, "default". */
static const char *key_ensemble(const picard_tune_key *key)
{
	return key->ensemble ? key->ensemble : "default";
}

int picard_tune_class(long ntraj)
{
	int c = 0;

	while (ntraj > 1) {
		ntraj >>= 1;
		c++;
	}
	return c;
}

/* Keys match exactly: reals bit for bit (they are stored exactly), an
 * entry tuned on one ensemble never serves another (issue 14), nor one of
 * another size class (issue 15; a key without a size matches any). */
static bool same_key(const picard_tune_key *a, const picard_tune_key *b)
{
	return strcmp(a->model, b->model) == 0 && a->precision == b->precision &&
	       (!a->ntraj || !b->ntraj || picard_tune_class(a->ntraj) == picard_tune_class(b->ntraj)) &&
	       a->tol == b->tol && a->rtol == b->rtol && a->t0 == b->t0 && a->t1 == b->t1 &&
	       strcmp(a->device, b->device) == 0 &&
	       strcmp(key_ensemble(a), key_ensemble(b)) == 0;
}

/* ---- reading a line ------------------------------------------------------------- */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* A quoted value starting at *p (the opening quote), unescaped in place
 * (the text only shrinks); *p moves past the closing quote. NULL when the
 * quote is not closed or an escape is not \" or \\. */
static const char *cut_quoted(char **p)
{
	char *read = *p + 1, *write = *p;
	const char *value = *p;

	while (*read != '"') {
		if (!*read)
			return NULL;
		if (*read == '\\') {
			read++;
			if (*read != '"' && *read != '\\')
				return NULL;
		}
		*write++ = *read++;
	}
	*write = '\0';
	*p = read + 1;
	return value;
}

/* The next field at *p, cut in place: a key of letters, digits and '_',
 * '=', and a bare or quoted value, followed by a blank or the end. */
static bool cut_field(char **p, struct cache_field *field)
{
	char *c = *p;

	field->key = c;
	while ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
	       (*c >= '0' && *c <= '9') || *c == '_')
		c++;
	if (c == field->key || *c != '=')
		return false;
	*c++ = '\0';
	if (*c == '"') {
		field->value = cut_quoted(&c);
		if (!field->value)
			return false;
	} else {
		field->value = c;
		while (*c && !is_blank(*c) && *c != '"' && *c != '\\')
			c++;
		if (c == field->value || (*c && !is_blank(*c)))
			return false;
	}
	if (*c && !is_blank(*c))
		return false;
	if (*c)
		*c++ = '\0';
	*p = c;
	return true;
}

/* Cut text into at most max fields, no key twice; the count or -1. */
static int cut_fields(char *text, struct cache_field *fields, int max)
{
	int n = 0;

	for (;;) {
		while (is_blank(*text))
			text++;
		if (!*text)
			return n;
		if (n == max || !cut_field(&text, &fields[n]))
			return -1;
		for (int i = 0; i < n; i++)
			if (strcmp(fields[i].key, fields[n].key) == 0)
				return -1;
		n++;
	}
}

/* The value of field key, or NULL. */
static const char *field(const struct cache_field *fields, int n, const char *key)
{
	for (int i = 0; i < n; i++)
		if (strcmp(fields[i].key, key) == 0)
			return fields[i].value;
	return NULL;
}

/* A finite real, the whole text. */
static bool read_real(const char *text, double *out)
{
	char *end;

	if (!text || !*text)
		return false;
	errno = 0;
	*out = strtod(text, &end);
	return !*end && errno != ERANGE && isfinite(*out);
}

/* A whole decimal integer in [min, max], the whole text. */
static bool read_integer(const char *text, long min, long max, long *out)
{
	char *end;

	if (!text || !*text)
		return false;
	errno = 0;
	*out = strtol(text, &end, 10);
	return !*end && errno != ERANGE && *out >= min && *out <= max;
}

/* The fields of an entry of this build into e; false when any is missing
 * or does not read, or the entry is not one picard could have stored. */
static bool read_entry(const struct cache_field *fields, int n, struct cache_entry *e)
{
	const char *precision = field(fields, n, "precision");
	const char *date = field(fields, n, "date");
	long m, K;

	memset(e, 0, sizeof(*e));
	e->key.model = field(fields, n, "model");
	e->key.device = field(fields, n, "device");
	if (!precision || !date || !*date)
		return false;
	if (strcmp(precision, "float") == 0)
		e->key.precision = PICARD_FLOAT;
	else if (strcmp(precision, "double") == 0)
		e->key.precision = PICARD_DOUBLE;
	else
		return false;
	if (!read_real(field(fields, n, "tol"), &e->key.tol) ||
	    !read_real(field(fields, n, "t0"), &e->key.t0) ||
	    !read_real(field(fields, n, "t1"), &e->key.t1) ||
	    !read_integer(field(fields, n, "m"), 2, CACHE_M_MAX, &m) ||
	    !read_integer(field(fields, n, "K"), 1, CACHE_K_MAX, &K) ||
	    !read_real(field(fields, n, "h"), &e->point.h) ||
	    !read_integer(field(fields, n, "windows"), 1, LONG_MAX, &e->point.windows) ||
	    !read_real(field(fields, n, "E"), &e->point.error) ||
	    !read_real(field(fields, n, "seconds"), &e->point.seconds))
		return false;
	e->point.m = (int)m;
	e->point.K = (int)K;
	e->point.meets = true;
	/* optional (older entries): auto */
	const char *layout = field(fields, n, "layout");
	const char *per_block = field(fields, n, "traj_per_block");
	long tpb = 0;
	if (layout) {
		int l = picard_layout_parse(layout);
		if (l < 0)
			return false;
		e->point.layout = (picard_layout)l;
	}
	if (per_block && !read_integer(per_block, 0, 1024, &tpb))
		return false;
	e->point.traj_per_block = (int)tpb;
	const char *scheme = field(fields, n, "scheme");
	const char *rtol = field(fields, n, "iter_rtol");
	if (scheme && !picard_scheme_named(scheme))
		return false;
	if (scheme)
		e->point.scheme = picard_scheme_named(scheme)->id;
	if (rtol && (!read_real(rtol, &e->point.iter_rtol) || !(e->point.iter_rtol >= 0)))
		return false;
	/* newton's block (absent: 0, the scheme's default) */
	const char *block = field(fields, n, "block");
	long windows_together = 0;
	if (block && !read_integer(block, 1, INT_MAX, &windows_together))
		return false;
	e->point.block = (int)windows_together;
	/* issue 14: the relative part and the ensemble (absent: 0, default) */
	const char *key_rtol = field(fields, n, "rtol");
	if (key_rtol && !read_real(key_rtol, &e->key.rtol))
		return false;
	e->key.ensemble = field(fields, n, "ensemble");
	/* issue 15: the size class timed, stored as its smallest size */
	const char *traj = field(fields, n, "traj");
	if (traj && !read_integer(traj, 1, LONG_MAX, &e->key.ntraj))
		return false;
	return check_key(&e->key) == PICARD_OK && check_point(&e->key, &e->point) == PICARD_OK;
}

/* The fields of a cost line of this build into e (is_cost set); false
 * when any is missing or out of range. */
static bool read_cost(const struct cache_field *fields, int n, struct cache_entry *e)
{
	struct tune_cost *c = &e->cost;
	const char *precision = field(fields, n, "precision");
	const char *scheme = field(fields, n, "scheme");
	const char *layout = field(fields, n, "layout");
	long m;
	int l;

	memset(e, 0, sizeof(*e));
	e->is_cost = true;
	c->model = field(fields, n, "model");
	c->device = field(fields, n, "device");
	if (!precision || !scheme || !layout || !picard_scheme_named(scheme) ||
	    !valid_name(c->model) || !valid_text(c->device) || !field(fields, n, "date"))
		return false;
	if (strcmp(precision, "float") == 0)
		c->precision = PICARD_FLOAT;
	else if (strcmp(precision, "double") == 0)
		c->precision = PICARD_DOUBLE;
	else
		return false;
	c->scheme = picard_scheme_named(scheme)->id;
	l = picard_layout_parse(layout);
	if (l < 0)
		return false;
	c->layout = (picard_layout)l;
	if (!read_integer(field(fields, n, "traj"), 1, LONG_MAX, &c->ntraj) ||
	    !read_integer(field(fields, n, "m"), 2, CACHE_M_MAX, &m) ||
	    !read_real(field(fields, n, "seconds_per_eval"), &c->seconds_per_eval) ||
	    !(c->seconds_per_eval > 0))
		return false;
	c->m = (int)m;
	/* lobatto's windows in flight (absent: one window after the other) */
	const char *block = field(fields, n, "block");
	long in_flight = 1;
	if (block && !read_integer(block, 1, INT_MAX, &in_flight))
		return false;
	c->block = (int)in_flight;
	return true;
}

/* Cost keys match exactly, the ensemble by its size class. */
static bool same_cost(const struct tune_cost *a, const struct tune_cost *b)
{
	return strcmp(a->model, b->model) == 0 && a->precision == b->precision &&
	       picard_tune_class(a->ntraj) == picard_tune_class(b->ntraj) &&
	       strcmp(a->device, b->device) == 0 && a->scheme == b->scheme && a->m == b->m &&
	       a->layout == b->layout && (a->block > 1 ? a->block : 1) == (b->block > 1 ? b->block : 1);
}

/* What the text of one line is; an entry's fields go to e. */
static enum cache_line_kind parse_line(char *text, struct cache_entry *e)
{
	struct cache_field fields[CACHE_FIELDS];
	const char *build;
	int n;

	while (is_blank(*text))
		text++;
	if (!*text || *text == '#')
		return CACHE_LINE_SKIP;
	n = cut_fields(text, fields, CACHE_FIELDS);
	if (n < 0)
		return CACHE_LINE_MALFORMED;
	build = field(fields, n, "build");
	if (!build)
		return CACHE_LINE_MALFORMED;
	if (strcmp(build, picard_build_id()) != 0)
		return CACHE_LINE_STALE;
	if (field(fields, n, "seconds_per_eval"))
		return read_cost(fields, n, e) ? CACHE_LINE_COST : CACHE_LINE_MALFORMED;
	return read_entry(fields, n, e) ? CACHE_LINE_ENTRY : CACHE_LINE_MALFORMED;
}

/* The next line of the file: what it is, its entry in e. A line without
 * its newline (cut short), with a NUL byte, or too long is malformed. */
static enum cache_line_kind next_line(struct cache_reader *r, struct cache_entry *e)
{
	enum cache_line_kind kind;
	size_t len;

	r->line_len = getline(&r->line, &r->line_cap, r->file);
	if (r->line_len < 0)
		return CACHE_LINE_EOF;
	r->lineno++;
	len = (size_t)r->line_len;
	if (r->line[len - 1] != '\n' || strlen(r->line) != len || len > CACHE_LINE_MAX) {
		kind = CACHE_LINE_MALFORMED;
	} else {
		if (!r->parsed)
			r->parsed = malloc(CACHE_LINE_MAX + 1);
		if (!r->parsed)
			return CACHE_LINE_EOF; /* close_reader() reports it */
		memcpy(r->parsed, r->line, len - 1);
		r->parsed[len - 1] = '\0';
		if (len >= 2 && r->parsed[len - 2] == '\r')
			r->parsed[len - 2] = '\0';
		kind = parse_line(r->parsed, e);
	}
	if (kind == CACHE_LINE_MALFORMED && !r->malformed++)
		r->first_malformed = r->lineno;
	return kind;
}

/* Open path for reading; ENOTFOUND when it does not exist. */
static int open_reader(struct cache_reader *r, const char *path)
{
	memset(r, 0, sizeof(*r));
	r->path = path;
	r->file = fopen(path, "r");
	if (r->file)
		return PICARD_OK;
	if (errno == ENOENT)
		return picard_fail(PICARD_ENOTFOUND, "no tuning cache at %s", path);
	return picard_fail(PICARD_EIO, "tuning cache %s: %s", path, strerror(errno));
}

/* Close the file: one warning for all malformed lines; EIO when reading
 * failed (or memory for a line ran out) before the end. */
static int close_reader(struct cache_reader *r)
{
	int err = PICARD_OK;

	if (!r->file)
		return PICARD_OK;
	if (ferror(r->file) || (r->line_len >= 0 && !r->parsed))
		err = picard_fail(PICARD_EIO, "tuning cache %s: read failed at line %ld",
				  r->path, r->lineno);
	if (r->malformed) {
		fprintf(stderr, "picard: warning: ignoring malformed line %ld of %s",
			r->first_malformed, r->path);
		if (r->malformed > 1)
			fprintf(stderr, " (and %ld more)", r->malformed - 1);
		fputc('\n', stderr);
	}
	fclose(r->file);
	free(r->line);
	free(r->parsed);
	r->file = NULL;
	return err;
}

int picard_tune_cache_load(const picard_tune_key *key, picard_tune_point *point)
{
	char path[CACHE_PATH_MAX];
	struct cache_reader reader;
	struct cache_entry entry;
	enum cache_line_kind kind;
	bool found = false;
	int err;

	err = check_key(key);
	if (!err && !point)
		err = picard_fail(PICARD_EINVAL, "tuning cache: no point to fill");
	if (!err)
		err = picard_tune_cache_path(path, sizeof(path));
	if (!err)
		err = open_reader(&reader, path);
	if (err)
		return err;
	/* The last matching line wins, as a person appending one would expect. */
	while ((kind = next_line(&reader, &entry)) != CACHE_LINE_EOF)
		if (kind == CACHE_LINE_ENTRY && same_key(&entry.key, key)) {
			*point = entry.point;
			found = true;
		}
	err = close_reader(&reader);
	if (err)
		return err;
	if (!found)
		return picard_fail(PICARD_ENOTFOUND, "no entry for %s in %s", key->model, path);
	return PICARD_OK;
}

int tune_cost_load(struct tune_cost *cost)
{
	char path[CACHE_PATH_MAX];
	struct cache_reader reader;
	struct cache_entry entry;
	enum cache_line_kind kind;
	bool found = false;
	int err = picard_tune_cache_path(path, sizeof(path));

	if (!err)
		err = open_reader(&reader, path);
	if (err)
		return err;
	while ((kind = next_line(&reader, &entry)) != CACHE_LINE_EOF)
		if (kind == CACHE_LINE_COST && same_cost(&entry.cost, cost)) {
			cost->seconds_per_eval = entry.cost.seconds_per_eval;
			found = true;
		}
	err = close_reader(&reader);
	if (!err && !found)
		err = picard_fail(PICARD_ENOTFOUND, "no cost of %s at m = %d in %s",
				  picard_scheme_of(cost->scheme)->name, cost->m, path);
	return err;
}

/* ---- writing ------------------------------------------------------------------ */

/* A real with the fewest significant digits (15 to 17) that read back to
 * the same double. */
static void write_real(FILE *f, const char *name, double value)
{
	char buf[32];

	for (int digits = 15; digits <= 17; digits++) {
		snprintf(buf, sizeof(buf), "%.*g", digits, value);
		if (strtod(buf, NULL) == value)
			break;
	}
	fprintf(f, " %s=%s", name, buf);
}

/* A string value: bare when it can be, else quoted with \" and \\. */
static void write_text(FILE *f, const char *name, const char *value, bool quote)
{
	quote = quote || !*value || strpbrk(value, " \t\"\\");
	fprintf(f, " %s=%s", name, quote ? "\"" : "");
	for (const char *c = value; *c; c++) {
		if (quote && (*c == '"' || *c == '\\'))
			fputc('\\', f);
		fputc(*c, f);
	}
	if (quote)
		fputc('"', f);
}

/* The date field: now, in UTC. */
static void write_date(FILE *f)
{
	time_t now = time(NULL);
	struct tm utc;
	char date[32] = "unknown";

	if (gmtime_r(&now, &utc))
		strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &utc);
	fprintf(f, " date=%s\n", date);
}

/* One cost line, dated now. */
static void write_cost(FILE *f, const struct tune_cost *c)
{
	fprintf(f, "model=%s precision=%s traj=%ld", c->model,
		c->precision == PICARD_DOUBLE ? "double" : "float",
		1L << picard_tune_class(c->ntraj));
	write_text(f, "device", c->device, true);
	write_text(f, "build", picard_build_id(), false);
	fprintf(f, " scheme=%s m=%d layout=%s", picard_scheme_of(c->scheme)->name, c->m,
		picard_layout_name(c->layout));
	if (c->block > 1)
		fprintf(f, " block=%d", c->block);
	write_real(f, "seconds_per_eval", c->seconds_per_eval);
	write_date(f);
}

/* One entry line, fields in the order of the header, dated now (UTC). */
static void write_entry(FILE *f, const picard_tune_key *key, const picard_tune_point *p)
{
	fprintf(f, "model=%s precision=%s", key->model,
		key->precision == PICARD_DOUBLE ? "double" : "float");
	write_real(f, "tol", key->tol);
	write_real(f, "t0", key->t0);
	write_real(f, "t1", key->t1);
	if (key->rtol > 0)
		write_real(f, "rtol", key->rtol);
	if (strcmp(key_ensemble(key), "default") != 0)
		write_text(f, "ensemble", key->ensemble, false);
	if (key->ntraj > 0)
		fprintf(f, " traj=%ld", 1L << picard_tune_class(key->ntraj));
	write_text(f, "device", key->device, true);
	write_text(f, "build", picard_build_id(), false);
	fprintf(f, " m=%d K=%d", p->m, p->K);
	write_real(f, "h", p->h);
	fprintf(f, " windows=%ld", p->windows);
	write_real(f, "E", p->error);
	write_real(f, "seconds", p->seconds);
	if (p->layout != PICARD_LAYOUT_AUTO && picard_layout_name(p->layout))
		fprintf(f, " layout=%s traj_per_block=%d", picard_layout_name(p->layout),
			p->traj_per_block);
	/* the paper's scheme by default: entries from before the others */
	if (p->scheme != PICARD_SCHEME_TRAPEZOID)
		fprintf(f, " scheme=%s", picard_scheme_of(p->scheme)->name);
	if (p->iter_rtol > 0)
		write_real(f, "iter_rtol", p->iter_rtol);
	if (p->block > 0)
		fprintf(f, " block=%d", p->block);
	write_date(f);
}

/* The directory of path created, and an exclusive lock on path.lock held
 * (its descriptor into *lock_fd, -1 where locks are not supported: the
 * store goes on without). */
static int prepare_dir(const char *path, int *lock_fd)
{
	char dir[CACHE_PATH_MAX], lock[CACHE_PATH_MAX + 8];
	char *slash;
	int err = PICARD_OK;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		err = picard_make_dirs(dir);
	}
	if (err)
		return err;
	snprintf(lock, sizeof(lock), "%s.lock", path);
	*lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (*lock_fd >= 0 && flock(*lock_fd, LOCK_EX) != 0) {
		close(*lock_fd);
		*lock_fd = -1;
	}
	return PICARD_OK;
}

/* The old file's lines that stay: other keys, other builds. Malformed
 * lines are dropped (with the warning), comments replaced by the header.
 * added: the line that replaces its key's. */
static int copy_kept_lines(const char *path, const struct cache_entry *added, FILE *out)
{
	struct cache_reader reader;
	struct cache_entry entry;
	enum cache_line_kind kind;
	int err = open_reader(&reader, path);

	if (err == PICARD_ENOTFOUND)
		return PICARD_OK;
	if (err)
		return err;
	while ((kind = next_line(&reader, &entry)) != CACHE_LINE_EOF)
		if (kind == CACHE_LINE_STALE ||
		    (kind == CACHE_LINE_ENTRY && (added->is_cost || !same_key(&entry.key, &added->key))) ||
		    (kind == CACHE_LINE_COST && (!added->is_cost || !same_cost(&entry.cost, &added->cost))))
			fputs(reader.line, out);
	return close_reader(&reader);
}

/* Write the new file to temp (created beside path), then rename it. */
static int rewrite(const char *path, const struct cache_entry *added)
{
	char temp[CACHE_PATH_MAX + 8];
	FILE *out = NULL;
	int fd, err;

	snprintf(temp, sizeof(temp), "%s.XXXXXX", path);
	fd = mkstemp(temp);
	if (fd < 0)
		return picard_fail(PICARD_EIO, "tuning cache: cannot create %s: %s",
				   temp, strerror(errno));
	fchmod(fd, 0644);
	out = fdopen(fd, "w");
	if (!out) {
		close(fd);
		err = picard_fail(PICARD_EIO, "tuning cache %s: %s", temp, strerror(errno));
		goto out_unlink;
	}
	fputs(cache_header, out);
	err = copy_kept_lines(path, added, out);
	if (err)
		goto out_close;
	if (added->is_cost)
		write_cost(out, &added->cost);
	else
		write_entry(out, &added->key, &added->point);
	if (fflush(out) != 0 || ferror(out) || fsync(fileno(out)) != 0) {
		err = picard_fail(PICARD_EIO, "tuning cache: writing %s: %s", temp, strerror(errno));
		goto out_close;
	}
	if (fclose(out) != 0) {
		out = NULL;
		err = picard_fail(PICARD_EIO, "tuning cache: writing %s: %s", temp, strerror(errno));
		goto out_unlink;
	}
	out = NULL;
	if (rename(temp, path) != 0) {
		err = picard_fail(PICARD_EIO, "tuning cache: cannot rename %s to %s: %s",
				  temp, path, strerror(errno));
		goto out_unlink;
	}
	return PICARD_OK;
out_close:
	fclose(out);
out_unlink:
	unlink(temp);
	return err;
}

/* Store added under the lock. */
static int store_line(const struct cache_entry *added)
{
	char path[CACHE_PATH_MAX];
	int lock_fd = -1, err;

	err = picard_tune_cache_path(path, sizeof(path));
	if (!err)
		err = prepare_dir(path, &lock_fd);
	if (!err)
		err = rewrite(path, added);
	if (lock_fd >= 0)
		close(lock_fd);
	return err;
}

int picard_tune_cache_store(const picard_tune_key *key, const picard_tune_point *point)
{
	struct cache_entry added = {.is_cost = false};
	int err = check_key(key);

	if (!err)
		err = check_point(key, point);
	if (err)
		return err;
	added.key = *key;
	added.point = *point;
	return store_line(&added);
}

int tune_cost_store(const struct tune_cost *cost)
{
	struct cache_entry added = {.is_cost = true, .cost = *cost};

	if (!valid_name(cost->model) || !valid_text(cost->device) || cost->m < 2 ||
	    !picard_scheme_of(cost->scheme) || !picard_layout_name(cost->layout) ||
	    cost->ntraj < 1 || !(cost->seconds_per_eval > 0) || !isfinite(cost->seconds_per_eval))
		return picard_fail(PICARD_EINVAL, "tuning cache: a cost of %g s per evaluation",
				   cost->seconds_per_eval);
	return store_line(&added);
}
