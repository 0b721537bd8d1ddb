/* parse.h - what the command lines of the picard programs share: strict
 * numbers (no blanks, no trailing characters, no NaN, Inf or overflow), a
 * table of flags walked by one parser ("--flag value", "--flag=value", "--"
 * ends the flags, -h means --help), the scheme's name and the MODEL
 * argument. What an option is where it is not given lives in
 * options/defaults.h, the checks of options together in options/validate.h.
 *
 * Every function returns 0, or CLI_EUSAGE after printing one line that
 * names the flag and the offending text (diag.h).
 */
#ifndef PICARD_CLI_PARSE_H
#define PICARD_CLI_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "picard.h"

/* ---- strict values ------------------------------------------------------- */

/* A whole decimal integer in [min, max]. */
int parse_long(const char *flag, const char *text, long min, long max, long *out);
/* A finite real (no underflow to zero). */
int parse_double(const char *flag, const char *text, double *out);
/* A finite real > 0 (h, tol, bound). */
int parse_positive(const char *flag, const char *text, double *out);
/* "float" or "double". */
int parse_precision(const char *flag, const char *text, picard_precision *out);

#define CLI_TEXT_OF(x) #x
#define CLI_TEXT(x) CLI_TEXT_OF(x) /* a macro's value as text, for help lines */

/* "auto", "cuda" or "cpu". */
int parse_backend(const char *flag, const char *text, picard_backend *out);
/* An unsigned 64-bit integer; a sign is refused (strtoull would wrap -1). */
int parse_seed(const char *flag, const char *text, unsigned long long *out);
/* A non-empty file name. */
int parse_path(const char *flag, const char *text, const char **out);
/* Comma-separated integers in [min, max], at most maxcount, no repeats:
 * "4,8,16" -> out = {4, 8, 16}, *count = 3. */
int parse_int_list(const char *flag, const char *text, int min, int max,
		   int *out, int maxcount, int *count);
/* Comma-separated times, each finite and within [t0, t1], non-decreasing:
 * "0,2.5,10" -> out = {0, 2.5, 10}, *count = 3. out NULL: checked and
 * counted only (a first pass that sizes out). */
int parse_times(const char *flag, const char *text, double t0, double t1,
		double *out, long *count);

/* ---- the flag table ------------------------------------------------------- */

/* One flag: its name, how its value reads in the usage text (NULL for a
 * switch), the setter, and one line of help with its default. */
struct cli_flag {
	const char *name;    /* "--traj" */
	const char *metavar; /* "N", or NULL: the flag takes no value */
	/* Parse value (NULL for a switch) into the program's options. */
	int (*set)(void *opts, const char *flag, const char *value);
	const char *help;    /* usage line, default included */
};

/* A program's command line. */
struct cli_command {
	const char *program;          /* "picard-run", named in the hints */
	const struct cli_flag *flags; /* the table */
	size_t nflags;                /* entries in flags */
	/* Take a positional argument (MODEL); refuses a second one. */
	int (*positional)(void *opts, const char *arg);
};

/* Apply every argument of argv to opts through cmd's table; stops early,
 * returning 0, once *stop is true (--help sets it). */
int cli_parse_args(const struct cli_command *cmd, int argc, char **argv,
		   void *opts, const bool *stop);
/* --version's text: "PROGRAM (picard) VERSION", the build, the CUDA
 * runtime and driver. cli_parse_args prints it when it meets --version and
 * returns CLI_DONE. */
void cli_print_version(FILE *f, const char *program);
/* The flags with their help lines, one per line, and --version's, for a
 * usage text. */
void cli_print_flags(FILE *f, const struct cli_flag *flags, size_t nflags);

/* ---- schemes ----------------------------------------------------------------- */

/* --scheme NAME: a scheme of the list (src/schemes/scheme.h); the error line names
 * them all. */
int cli_parse_scheme(const char *flag, const char *value, picard_scheme *scheme);
/* --list-schemes: each scheme, its order and the options it takes. */
void cli_list_schemes(FILE *f);

/* ---- model ---------------------------------------------------------------- */

/* The registered model called name (NULL: none given); the error line lists
 * the known models. */
int cli_find_model(const char *name, const picard_model **model);

#endif
