/* options.c - picard-run's command line: a table of flags, each with a
 * setter that parses its value strictly and checks its range, then the
 * checks that need the model or several flags at once. Both "--flag value"
 * and "--flag=value" are accepted; "--" ends the flags. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "options.h"

#define TRAJ_MAX (1L << 40)   /* more could not fit any memory */
#define M_MAX (1 << 20)       /* keeps m*n and scratch sizes in range */
#define K_MAX 1000000

/* One flag of the table: its name, how its value reads in the usage text
 * (NULL for a switch), the setter, and one line of help with its default. */
struct flag {
	const char *name;    /* "--traj" */
	const char *metavar; /* "N", or NULL: the flag takes no value */
	int (*set)(struct run_options *opts, const char *flag, const char *value);
	const char *help;    /* usage line, default included */
};

/* ---- strict numbers --------------------------------------------------- */

/* A whole decimal integer in [min, max] from text, or a usage error naming
 * flag and text: no blanks, no trailing characters, no overflow. */
static int parse_long(const char *flag, const char *text, long min, long max,
		      long *out)
{
	char *end;
	long value;

	if (!*text || *text == ' ' || *text == '\t')
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

/* A finite real from text, or a usage error naming flag and text: no
 * blanks, no trailing characters, no NaN or Inf, no overflow or underflow
 * to zero. */
static int parse_double(const char *flag, const char *text, double *out)
{
	char *end;
	double value;

	if (!*text || *text == ' ' || *text == '\t')
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

/* A real that must be > 0 (h, tol, bound). */
static int parse_positive(const char *flag, const char *text, double *out)
{
	int err = parse_double(flag, text, out);

	if (!err && !(*out > 0))
		return cli_error(CLI_EUSAGE, "%s %s: must be > 0", flag, text);
	return err;
}

/* ---- setters, one per flag ---------------------------------------------- */

static int set_traj(struct run_options *opts, const char *flag, const char *value)
{
	opts->traj_given = true;
	return parse_long(flag, value, 1, TRAJ_MAX, &opts->traj);
}

static int set_m(struct run_options *opts, const char *flag, const char *value)
{
	long m = 0;
	int err = parse_long(flag, value, 2, M_MAX, &m);

	opts->m = (int)m;
	return err;
}

static int set_K(struct run_options *opts, const char *flag, const char *value)
{
	long K = 0;
	int err = parse_long(flag, value, 1, K_MAX, &K);

	opts->K = (int)K;
	return err;
}

static int set_h(struct run_options *opts, const char *flag, const char *value)
{
	return parse_positive(flag, value, &opts->h);
}

static int set_t0(struct run_options *opts, const char *flag, const char *value)
{
	opts->t0_given = true;
	return parse_double(flag, value, &opts->t0);
}

static int set_t1(struct run_options *opts, const char *flag, const char *value)
{
	opts->t1_given = true;
	return parse_double(flag, value, &opts->t1);
}

static int set_precision(struct run_options *opts, const char *flag, const char *value)
{
	if (strcmp(value, "float") == 0)
		opts->precision = PICARD_FLOAT;
	else if (strcmp(value, "double") == 0)
		opts->precision = PICARD_DOUBLE;
	else
		return cli_error(CLI_EUSAGE, "%s '%s': expected float or double", flag, value);
	return 0;
}

static int set_backend(struct run_options *opts, const char *flag, const char *value)
{
	if (strcmp(value, "auto") == 0)
		opts->backend = PICARD_BACKEND_AUTO;
	else if (strcmp(value, "cuda") == 0)
		opts->backend = PICARD_BACKEND_CUDA;
	else if (strcmp(value, "cpu") == 0)
		opts->backend = PICARD_BACKEND_CPU;
	else
		return cli_error(CLI_EUSAGE, "%s '%s': expected auto, cuda or cpu", flag, value);
	return 0;
}

static int set_spread(struct run_options *opts, const char *flag, const char *value)
{
	int err = parse_double(flag, value, &opts->spread);

	opts->spread_given = true;
	if (!err && opts->spread < 0)
		return cli_error(CLI_EUSAGE, "%s %s: must be >= 0", flag, value);
	return err;
}

/* The seed is unsigned 64-bit: strtoull would wrap "-1" silently, so a
 * sign is refused before it is called. */
static int set_seed(struct run_options *opts, const char *flag, const char *value)
{
	char *end;

	opts->seed_given = true;
	if (*value < '0' || *value > '9')
		return cli_error(CLI_EUSAGE, "%s '%s': expected an integer >= 0", flag, value);
	errno = 0;
	opts->seed = strtoull(value, &end, 10);
	if (*end)
		return cli_error(CLI_EUSAGE, "%s '%s': expected an integer >= 0", flag, value);
	if (errno == ERANGE)
		return cli_error(CLI_EUSAGE, "%s %s: out of range", flag, value);
	return 0;
}

/* A path must name something: an empty one is a usage error. */
static int set_path(const char **path, const char *flag, const char *value)
{
	if (!*value)
		return cli_error(CLI_EUSAGE, "%s '': expected a file name", flag);
	*path = value;
	return 0;
}

static int set_init(struct run_options *opts, const char *flag, const char *value)
{
	return set_path(&opts->init_path, flag, value);
}

static int set_out(struct run_options *opts, const char *flag, const char *value)
{
	return set_path(&opts->out_path, flag, value);
}

static int set_save_every(struct run_options *opts, const char *flag, const char *value)
{
	return parse_long(flag, value, 1, LONG_MAX, &opts->save_every);
}

static int set_check(struct run_options *opts, const char *flag, const char *value)
{
	(void)flag;
	(void)value;
	opts->check = true;
	return 0;
}

static int set_check_traj(struct run_options *opts, const char *flag, const char *value)
{
	opts->check = true;
	return parse_long(flag, value, 0, LONG_MAX, &opts->check_traj);
}

static int set_tol(struct run_options *opts, const char *flag, const char *value)
{
	opts->check = true;
	opts->tol_given = true;
	return parse_positive(flag, value, &opts->tol);
}

static int set_bound(struct run_options *opts, const char *flag, const char *value)
{
	return parse_positive(flag, value, &opts->bound);
}

static int set_list(struct run_options *opts, const char *flag, const char *value)
{
	(void)flag;
	(void)value;
	opts->list = true;
	return 0;
}

static int set_help(struct run_options *opts, const char *flag, const char *value)
{
	(void)flag;
	(void)value;
	opts->help = true;
	return 0;
}

static const struct flag flags[] = {
	{"--traj", "N", set_traj, "trajectories in the ensemble (default 8192; with --init: the file's rows)"},
	{"--m", "M", set_m, "nodes per window, >= 2 (default 8)"},
	{"--K", "K", set_K, "Picard sweeps per window, >= 1 (default 2)"},
	{"--h", "H", set_h, "node spacing, > 0; shrunk so whole windows end at t1 (default 0.06)"},
	{"--t0", "T", set_t0, "start time (default: the model's)"},
	{"--t1", "T", set_t1, "end time, > t0 (default: the model's)"},
	{"--precision", "P", set_precision, "float or double: arithmetic of the sweeps (default float)"},
	{"--backend", "B", set_backend, "auto, cuda or cpu; auto uses CUDA when a device is present (default auto)"},
	{"--spread", "S", set_spread, "initial states x0*(1 + S*(2u-1)), u uniform; 0: all equal to x0 (default 0.1)"},
	{"--seed", "N", set_seed, "seed of cuRAND's Philox generator for --spread (default 1)"},
	{"--init", "FILE", set_init, "initial states [and parameters] per row: CSV/whitespace text, or raw float64 .bin"},
	{"--out", "FILE", set_out, "write final states to FILE.csv or FILE.npy"},
	{"--save-every", "W", set_save_every, "with --out: also states at every W-th window end and the last"},
	{"--check", NULL, set_check, "compare with GSL rk8pd (rtol = atol = 1e-12) at every window end"},
	{"--check-traj", "N", set_check_traj, "check at most N trajectories, evenly spaced; 0: all (default 1024; implies --check)"},
	{"--tol", "E", set_tol, "fail (exit 1) when the check's global error exceeds E (implies --check)"},
	{"--bound", "B", set_bound, "a state with |x| > B has diverged (default 1e12)"},
	{"--list", NULL, set_list, "list the registered models and exit"},
	{"--help", NULL, set_help, "this text (also -h)"},
};

#define NFLAGS (sizeof(flags) / sizeof(flags[0]))

/* The flag whose name is the first len characters of arg, or NULL. */
static const struct flag *find_flag(const char *arg, size_t len)
{
	if (len == 2 && strncmp(arg, "-h", 2) == 0)
		return find_flag("--help", 6);
	for (size_t i = 0; i < NFLAGS; i++)
		if (strlen(flags[i].name) == len && strncmp(flags[i].name, arg, len) == 0)
			return &flags[i];
	return NULL;
}

void options_usage(FILE *f)
{
	fprintf(f, "usage: picard-run MODEL [options]\n"
		   "       picard-run --list\n\n"
		   "Integrate an ensemble of MODEL's initial-value problems by parallel-in-time\n"
		   "Picard iteration (Korobitsyn & Frolova 2011) on the GPU or the CPU.\n\n"
		   "options (--flag VALUE or --flag=VALUE):\n");
	for (size_t i = 0; i < NFLAGS; i++) {
		char left[32];

		snprintf(left, sizeof(left), "%s%s%s", flags[i].name,
			 flags[i].metavar ? " " : "", flags[i].metavar ? flags[i].metavar : "");
		fprintf(f, "  %-16s %s\n", left, flags[i].help);
	}
	fprintf(f, "\nexit status: 0 success; 1 a library error, failed (non-finite or\n"
		   "diverged) trajectories, a check over --tol or an unwritten --out;\n"
		   "2 bad command line or --init file (nothing was solved).\n");
}

/* ---- the command line ---------------------------------------------------- */

static void set_defaults(struct run_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->traj = RUN_DEFAULT_TRAJ;
	opts->m = RUN_DEFAULT_M;
	opts->K = RUN_DEFAULT_K;
	opts->h = RUN_DEFAULT_H;
	opts->precision = PICARD_FLOAT;
	opts->backend = PICARD_BACKEND_AUTO;
	opts->spread = RUN_DEFAULT_SPREAD;
	opts->seed = RUN_DEFAULT_SEED;
	opts->check_traj = RUN_DEFAULT_CHECK_TRAJ;
	opts->bound = RUN_DEFAULT_BOUND;
}

/* True when arg is a long flag ("--x..."), so it cannot be a value. */
static bool looks_like_flag(const char *arg)
{
	return arg[0] == '-' && arg[1] == '-' && arg[2] != '\0';
}

/* The positional MODEL: there is exactly one. */
static int set_model_name(struct run_options *opts, const char *arg)
{
	if (opts->model_name)
		return cli_error(CLI_EUSAGE, "unexpected argument '%s': MODEL is already '%s'",
				 arg, opts->model_name);
	opts->model_name = arg;
	return 0;
}

/* Apply the flag at argv[*i] (its value may be argv[*i + 1]: *i moves on). */
static int apply_flag(struct run_options *opts, int argc, char **argv, int *i)
{
	const char *arg = argv[*i];
	const char *eq = arg[1] == '-' ? strchr(arg, '=') : NULL;
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
	const struct flag *flag = find_flag(arg, len);

	if (!flag) {
		cli_error(CLI_EUSAGE, "unknown flag '%.*s'", (int)len, arg);
		cli_hint("'picard-run --help' lists the flags");
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

/* The registered model names, comma separated, into buf. */
static void model_names(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < picard_model_count() && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
				 picard_model_at(i)->name);
}

/* MODEL must name a registered model. */
static int find_model(struct run_options *opts)
{
	char names[256];

	model_names(names, sizeof(names));
	if (!opts->model_name) {
		cli_error(CLI_EUSAGE, "no MODEL given (known: %s)", names);
		cli_hint("'picard-run --list' describes the models");
		return CLI_EUSAGE;
	}
	opts->model = picard_model_find(opts->model_name);
	if (!opts->model)
		return cli_error(CLI_EUSAGE, "unknown model '%s' (known: %s)",
				 opts->model_name, names);
	return 0;
}

/* The time span: flags over the model's defaults, and t0 < t1. */
static int resolve_span(struct run_options *opts)
{
	const picard_model *model = opts->model;

	if (!opts->t0_given)
		opts->t0 = model->t0;
	if (!opts->t1_given)
		opts->t1 = model->t1;
	if (opts->t1 > opts->t0)
		return 0;
	if (opts->t0_given && opts->t1_given)
		return cli_error(CLI_EUSAGE, "--t1 %.15g: must be greater than --t0 %.15g",
				 opts->t1, opts->t0);
	if (opts->t1_given)
		return cli_error(CLI_EUSAGE, "--t1 %.15g: must be greater than t0 = %.15g (%s's start)",
				 opts->t1, opts->t0, model->name);
	return cli_error(CLI_EUSAGE, "--t0 %.15g: must be less than t1 = %.15g (%s's end; give --t1)",
			 opts->t0, opts->t1, model->name);
}

/* Checks that involve several flags. */
static int check_combinations(const struct run_options *opts)
{
	if (opts->save_every && !opts->out_path)
		return cli_error(CLI_EUSAGE, "--save-every %ld: needs --out FILE to write the states to",
				 opts->save_every);
	if (opts->init_path && opts->spread_given)
		return cli_error(CLI_EUSAGE, "--spread: not used with --init %s (the file gives the initial states)",
				 opts->init_path);
	if (opts->init_path && opts->seed_given)
		return cli_error(CLI_EUSAGE, "--seed: not used with --init %s (the file gives the initial states)",
				 opts->init_path);
	return 0;
}

int options_parse(int argc, char **argv, struct run_options *opts)
{
	bool flags_done = false;
	int err;

	set_defaults(opts);
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];

		err = 0;
		if (!flags_done && strcmp(arg, "--") == 0)
			flags_done = true;
		else if (flags_done || arg[0] != '-' || arg[1] == '\0')
			err = set_model_name(opts, arg);
		else
			err = apply_flag(opts, argc, argv, &i);
		if (err)
			return err;
		if (opts->help)
			return 0;
	}
	if (opts->list && !opts->model_name)
		return 0;
	err = find_model(opts);
	if (err || opts->list)
		return err;
	err = resolve_span(opts);
	if (err)
		return err;
	return check_combinations(opts);
}

int options_check_stride(const struct run_options *opts, long ntraj)
{
	long stride;

	if (opts->check_traj == 0 || opts->check_traj >= ntraj)
		return 1;
	stride = (ntraj + opts->check_traj - 1) / opts->check_traj;
	return stride > INT_MAX ? INT_MAX : (int)stride;
}
