/* schemes.c - the list of schemes (src/schemes/scheme.h) and lookups in it. */
#include <stdio.h>
#include <string.h>

#include "scheme.h"

/* Every scheme, as the name of its table picard_scheme_NAME
 * (its folder src/schemes/NAME/, scheme_*.c): adding one is a line here.
 *
 * The per-thread pairs first: the quick search goes down the list, and
 * their solves, cheap to time, bound how far it refines the Picard
 * schemes (src/tune/tune.c, too_slow). Among schemes that suit a model the
 * first is its default (src/cli/options/defaults.c): rodas5p before radau5
 * (the faster on every stiff ensemble measured: bench/results/README.md,
 * issue 38), imex-sdirk2 before imex-euler. */
#define PICARD_SCHEMES(X) \
	X(dp5)            \
	X(dp8)            \
	X(vern9)          \
	X(rodas5p)        \
	X(radau5)         \
	X(rodas4)         \
	X(ros23)          \
	X(lobatto)        \
	X(trapezoid)      \
	X(newton)         \
	X(newton_radau)   \
	X(imex_sdirk2)    \
	X(imex_euler)

#define DECLARE(name) extern const picard_scheme_type picard_scheme_##name;
PICARD_SCHEMES(DECLARE)
#undef DECLARE

#define ENTRY(name) &picard_scheme_##name,
const picard_scheme_type *const picard_scheme_list[] = {
	PICARD_SCHEMES(ENTRY)
	NULL,
};
#undef ENTRY

const picard_scheme_type *picard_scheme_of(picard_scheme id)
{
	for (int i = 0; picard_scheme_list[i]; i++)
		if (picard_scheme_list[i]->id == id)
			return picard_scheme_list[i];
	return NULL;
}

const picard_scheme_type *picard_scheme_named(const char *name)
{
	for (int i = 0; name && picard_scheme_list[i]; i++)
		if (strcmp(picard_scheme_list[i]->name, name) == 0)
			return picard_scheme_list[i];
	return NULL;
}

const char *picard_scheme_names_if(char *buf, size_t len,
				   bool (*keep)(const picard_scheme_type *scheme))
{
	size_t used = 0;

	buf[0] = 0;
	for (int i = 0; picard_scheme_list[i] && used < len; i++)
		if (!keep || keep(picard_scheme_list[i]))
			used += snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
					 picard_scheme_list[i]->name);
	return buf;
}

bool picard_scheme_takes_spans(const picard_scheme_type *scheme)
{
	return scheme->per_member_spans;
}

const char *picard_scheme_names(char *buf, size_t len)
{
	return picard_scheme_names_if(buf, len, NULL);
}

