/* parse.c - strict values, the flag-table parser, the scheme's name and
 * MODEL, shared by the picard programs (see parse.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "parse.h"
#include "scheme.h"

/* ---- strict values ------------------------------------------------------- */

/* strtol() and strtod() skip leading white space, "\r" and "\v" included:
 * any such character is refused first, so " 5" and "\r5" are not numbers. */

int parse_long(const char *flag, const char *text, long min, long max, long *out)
{
	char *end;
	long value;

	if (!*text || isspace((unsigned char)*text))
		return cli_error(CLI_EUSAGE, "%s '%s': expected an integer", flag, text);
	errno = 0;
	value = strtol(text, &end, 10);
	if (*end)
		return cli_error(CLI_EUSAGE, "%s '%s': expected an integer", flag, text);
	if (errno == ERANGE)
		return cli_error(CLI_EUSAGE, "%s %s: out of range", flag, text);
	if (value < min)
		return cli_error(CLI_EUSAGE, "%s %s: must be at least %ld", flag, text, min);
	if (value > max)
		return cli_error(CLI_EUSAGE, "%s %s: must be at most %ld", flag, text, max);
	*out = value;
	return 0;
}

int parse_double(const char *flag, const char *text, double *out)
{
	char *end;
	double value;

	if (!*text || isspace((unsigned char)*text))
		return cli_error(CLI_EUSAGE, "%s '%s': expected a number", flag, text);
	errno = 0;
	value = strtod(text, &end);
	if (*end)
		return cli_error(CLI_EUSAGE, "%s '%s': expected a number", flag, text);
	if (!isfinite(value))
		return cli_error(CLI_EUSAGE, "%s %s: must be finite", flag, text);
	if (errno == ERANGE)
		return cli_error(CLI_EUSAGE, "%s %s: out of range for a double", flag, text);
	*out = value;
	return 0;
}

int parse_positive(const char *flag, const char *text, double *out)
{
	int err = parse_double(flag, text, out);

	if (!err && !(*out > 0))
		return cli_error(CLI_EUSAGE, "%s %s: must be > 0", flag, text);
	return err;
}

int parse_precision(const char *flag, const char *text, picard_precision *out)
{
	if (strcmp(text, "float") == 0)
		*out = PICARD_FLOAT;
	else if (strcmp(text, "double") == 0)
		*out = PICARD_DOUBLE;
	else
		return cli_error(CLI_EUSAGE, "%s '%s': expected float or double", flag, text);
	return 0;
}

int parse_backend(const char *flag, const char *text, picard_backend *out)
{
	if (strcmp(text, "auto") == 0)
		*out = PICARD_BACKEND_AUTO;
	else if (strcmp(text, "cuda") == 0)
		*out = PICARD_BACKEND_CUDA;
	else if (strcmp(text, "cpu") == 0)
		*out = PICARD_BACKEND_CPU;
	else
		return cli_error(CLI_EUSAGE, "%s '%s': expected auto, cuda or cpu", flag, text);
	return 0;
}

int parse_seed(const char *flag, const char *text, unsigned long long *out)
{
	char *end;

	if (*text < '0' || *text > '9')
		return cli_error(CLI_EUSAGE, "%s '%s': expected an integer >= 0", flag, text);
	errno = 0;
	*out = strtoull(text, &end, 10);
	if (*end)
		return cli_error(CLI_EUSAGE, "%s '%s': expected an integer >= 0", flag, text);
	if (errno == ERANGE)
		return cli_error(CLI_EUSAGE, "%s %s: out of range", flag, text);
	return 0;
}

int parse_path(const char *flag, const char *text, const char **out)
{
	if (!*text)
		return cli_error(CLI_EUSAGE, "%s '': expected a file name", flag);
	*out = text;
	return 0;
}

/* The comma-separated item of a list that starts at *item, into buf (len
 * bytes); *item moves to the next item, or to NULL after the last. An empty
 * or overlong item is refused: what names what the list holds. */
static int list_item(const char *flag, const char *text, const char *what,
		     const char **item, char *buf, size_t len)
{
	size_t item_len = strcspn(*item, ",");

	if (item_len == 0 || item_len >= len)
		return cli_error(CLI_EUSAGE, "%s '%s': expected %s separated by commas",
				 flag, text, what);
	memcpy(buf, *item, item_len);
	buf[item_len] = '\0';
	*item = (*item)[item_len] ? *item + item_len + 1 : NULL;
	return 0;
}

int parse_int_list(const char *flag, const char *text, int min, int max,
		   int *out, int maxcount, int *count)
{
	const char *item = text;
	char buf[32];
	long value;
	int n = 0, err;

	while (item) {
		if (n == maxcount)
			return cli_error(CLI_EUSAGE, "%s '%s': at most %d values", flag, text, maxcount);
		err = list_item(flag, text, "integers", &item, buf, sizeof(buf));
		if (!err)
			err = parse_long(flag, buf, min, max, &value);
		if (err)
			return err;
		for (int i = 0; i < n; i++)
			if (out[i] == value)
				return cli_error(CLI_EUSAGE, "%s '%s': %ld is repeated", flag, text, value);
		out[n++] = (int)value;
	}
	*count = n;
	return 0;
}

int parse_times(const char *flag, const char *text, double t0, double t1,
		double *out, long *count)
{
	const char *item = text;
	char buf[64], prev[64] = "";
	double t, prev_t = -INFINITY;
	long n = 0;
	int err;

	while (item) {
		err = list_item(flag, text, "times", &item, buf, sizeof(buf));
		if (!err)
			err = parse_double(flag, buf, &t);
		if (err)
			return err;
		if (t < t0 || t > t1)
			return cli_error(CLI_EUSAGE, "%s %s: %s is outside the span [%.15g, %.15g]",
					 flag, text, buf, t0, t1);
		if (t < prev_t)
			return cli_error(CLI_EUSAGE, "%s %s: %s after %s (the times must be non-decreasing)",
					 flag, text, buf, prev);
		if (out)
			out[n] = t;
		n++;
		prev_t = t;
		memcpy(prev, buf, sizeof(buf));
	}
	*count = n;
	return 0;
}

/* ---- the flag table ------------------------------------------------------- */

/* The flag whose name is the first len characters of arg, or NULL. */
static const struct cli_flag *find_flag(const struct cli_command *cmd,
					const char *arg, size_t len)
{
	if (len == 2 && strncmp(arg, "-h", 2) == 0)
		return find_flag(cmd, "--help", 6);
	for (size_t i = 0; i < cmd->nflags; i++)
		if (strlen(cmd->flags[i].name) == len &&
		    strncmp(cmd->flags[i].name, arg, len) == 0)
			return &cmd->flags[i];
	return NULL;
}

/* True when arg is a long flag ("--x..."), so it cannot be a value. */
static bool looks_like_flag(const char *arg)
{
	return arg[0] == '-' && arg[1] == '-' && arg[2] != '\0';
}

/* Apply the flag at argv[*i] (its value may be argv[*i + 1]: *i moves on). */
static int apply_flag(const struct cli_command *cmd, void *opts, int argc,
		      char **argv, int *i)
{
	const char *arg = argv[*i];
	const char *eq = arg[1] == '-' ? strchr(arg, '=') : NULL;
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
	const struct cli_flag *flag = find_flag(cmd, arg, len);

	if (!flag) {
		cli_error(CLI_EUSAGE, "unknown flag '%.*s'", (int)len, arg);
		cli_hint("'%s --help' lists the flags", cmd->program);
		return CLI_EUSAGE;
	}
	if (!flag->metavar) {
		if (eq)
			return cli_error(CLI_EUSAGE, "%s takes no value (got '%s')", flag->name, eq + 1);
		return flag->set(opts, flag->name, NULL);
	}
	if (eq)
		return flag->set(opts, flag->name, eq + 1);
	if (*i + 1 >= argc || looks_like_flag(argv[*i + 1]))
		return cli_error(CLI_EUSAGE, "%s: missing value %s", flag->name, flag->metavar);
	*i += 1;
	return flag->set(opts, flag->name, argv[*i]);
}

void cli_print_version(FILE *f, const char *program)
{
	int runtime, driver;

	picard_cuda_versions(&runtime, &driver);
	fprintf(f, "%s (picard) %s\nbuild %s\nCUDA runtime %d.%d", program, picard_version(),
		picard_build_id(), runtime / 1000, runtime % 1000 / 10);
	if (driver)
		fprintf(f, ", driver supports CUDA %d.%d\n", driver / 1000, driver % 1000 / 10);
	else
		fprintf(f, "; no CUDA driver found (the CPU backend runs)\n");
}

int cli_parse_args(const struct cli_command *cmd, int argc, char **argv,
		   void *opts, const bool *stop)
{
	bool flags_done = false;
	int err;

	cli_set_program(cmd->program); /* the error lines name it */
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];

		err = 0;
		if (!flags_done && strcmp(arg, "--version") == 0) {
			/* as GNU programs do: whatever else is on the line */
			cli_print_version(stdout, cmd->program);
			return CLI_DONE;
		}
		if (!flags_done && strcmp(arg, "--") == 0)
			flags_done = true;
		else if (flags_done || arg[0] != '-' || arg[1] == '\0')
			err = cmd->positional(opts, arg);
		else
			err = apply_flag(cmd, opts, argc, argv, &i);
		if (err)
			return err;
		if (*stop)
			return 0;
	}
	return 0;
}

void cli_print_flags(FILE *f, const struct cli_flag *flags, size_t nflags)
{
	for (size_t i = 0; i < nflags; i++) {
		char left[32];

		snprintf(left, sizeof(left), "%s%s%s", flags[i].name,
			 flags[i].metavar ? " " : "", flags[i].metavar ? flags[i].metavar : "");
		fprintf(f, "  %-16s %s\n", left, flags[i].help);
	}
	fprintf(f, "  %-16s %s\n", "--version", "picard's version and build, the CUDA runtime and "
		"driver found, and exit");
}

/* ---- model ---------------------------------------------------------------- */

/* The registered model names, comma separated, into buf. */
static void model_names(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < picard_model_count() && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
				 picard_model_at(i)->name);
}

int cli_find_model(const char *name, const picard_model **model)
{
	char names[256];

	model_names(names, sizeof(names));
	if (!name) {
		cli_error(CLI_EUSAGE, "no MODEL given (known: %s)", names);
		cli_hint("'picard-run --list' describes the models");
		return CLI_EUSAGE;
	}
	/* a path: a model file compiled now (or taken from the cache) */
	if (strchr(name, '/') || (strlen(name) > 3 && !strcmp(name + strlen(name) - 3, ".cu"))) {
		int err = picard_model_load(name, model);

		/* the file is input: what stops it is a usage error, nothing solved */
		if (err) {
			cli_error(CLI_EUSAGE, "MODEL %s: %s", name, picard_strerror(err));
			fprintf(stderr, "%s\n", picard_error_detail());
			if (err == PICARD_ECOMPILE || err == PICARD_EINVAL)
				cli_hint("docs/models.md says what a model file holds");
			return CLI_EUSAGE;
		}
		return 0;
	}
	*model = picard_model_find(name);
	if (!*model)
		return cli_error(CLI_EUSAGE, "unknown model '%s' (known: %s; or a model file, "
				 "PATH/NAME.cu)", name, names);
	return 0;
}

/* ---- schemes ----------------------------------------------------------------- */

int cli_parse_scheme(const char *flag, const char *value, picard_scheme *scheme)
{
	const picard_scheme_type *type = picard_scheme_named(value);
	char names[256];

	if (!type)
		return cli_error(CLI_EUSAGE, "%s '%s': expected one of %s", flag, value,
				 picard_scheme_names(names, sizeof(names)));
	*scheme = type->id;
	return 0;
}

void cli_list_schemes(FILE *f)
{
	for (int i = 0; picard_scheme_list[i]; i++) {
		const picard_scheme_type *s = picard_scheme_list[i];

		fprintf(f, "%-12s order %s: %s\n", s->name, s->order_name, s->summary);
		fprintf(f, "%-12s options: %s\n", "", s->options);
	}
}
