/* parse.h - what the command lines of the picard programs share: strict
 * numbers (no blanks, no trailing characters, no NaN, Inf or overflow), a
 * table of flags walked by one parser ("--flag value", "--flag=value", "--"
 * ends the flags, -h means --help), the MODEL argument and the time span.
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
/* The precision of a run without --precision: double for a scheme that
 * runs in double alone (newton), else float (the paper's). */
picard_precision cli_default_precision(picard_scheme scheme);

/* Below this part of the largest start state a tolerance is not float's:
 * its rounding, 6e-8 |x| an operation, adds up over the windows (the
 * pendulum over 20 s at 1e-6 was out of reach in float on the CPU). */
#define CLI_FLOAT_TOL_FLOOR 1e-6
#define CLI_TEXT_OF(x) #x
#define CLI_TEXT(x) CLI_TEXT_OF(x)
/* --precision's help, picard-run's and picard-tune's */
#define CLI_PRECISION_HELP "float or double: arithmetic of the sweeps (default float; newton, " \
	"newton-radau, a stiff model's scheme, and --tol below " CLI_TEXT(CLI_FLOAT_TOL_FLOOR) \
	" of the largest start state: double)"

/* Whether --tol (atol, rtol) without --precision asks for double: atol +
 * rtol |x| below CLI_FLOAT_TOL_FLOOR |x| at the ensemble's largest start
 * state |x| = scale. picard-run and picard-tune decide alike, so that an
 * entry one stores serves the other. */
bool cli_tolerance_wants_double(double atol, double rtol, double scale);
/* max |x[i]| over n values (0 for none): an ensemble's largest state. */
double cli_largest_abs(const double *x, long n);
/* Whether picard-run picks type for model on its own (its default, its
 * search across schemes): for a model with an operator (a discretised
 * PDE) a scheme that solves with it, as a dense per-thread step at its
 * dimension is slow or refused there; for a stiff model one that solves
 * stiff models. */
struct picard_scheme_type;
bool cli_scheme_suits(const picard_model *model, const struct picard_scheme_type *type);
/* A stiff model (picard_model.stiff) or one with an operator, with no
 * --scheme: the first scheme in the list that suits it, in double unless
 * --precision was given. */
void cli_default_scheme(const picard_model *model, bool scheme_given, picard_scheme *scheme,
			bool precision_given, picard_precision *precision);
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

/* ---- model and span --------------------------------------------------------- */

/* The registered model called name (NULL: none given); the error line lists
 * the known models. */
int cli_find_model(const char *name, const picard_model **model);
/* The time span: given values over the model's defaults, then t0 < t1;
 * the error line names the flag to change. */
int cli_resolve_span(const picard_model *model, bool t0_given, double *t0,
		     bool t1_given, double *t1);

#endif
