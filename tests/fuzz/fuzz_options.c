/* fuzz_options.c - libFuzzer target for picard-run's command line
 * (options_parse, and the strict value parsers of parse.h that picard-tune
 * shares). The input is split at NUL and newline bytes into argv[1..]; each
 * argument is its own allocation, so AddressSanitizer sees a read past any
 * one of them. Whatever the input, the parser must return 0 or CLI_EUSAGE
 * without a crash, a leak or undefined behaviour, and a command line it
 * accepts must hold only sensible options (checked here: a violation traps).
 *
 * The error lines go to /dev/null (FUZZ_STDERR=1 keeps them): the stream
 * stderr is replaced, file descriptor 2 is not, so the sanitizers' and
 * libFuzzer's reports still show. Built and run by `make fuzz`.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "options.h"
#include "parse.h"

#define MAX_ARGS 64      /* arguments taken from one input */
#define LIST_MAX 16      /* values parse_int_list may return */
#define SAVE_TIMES_CHECKED 100000 /* saved times listed and checked */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Traps (a crash libFuzzer reports) when an accepted option is not sane. */
#define EXPECT(cond) do { if (!(cond)) __builtin_trap(); } while (0)

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (!getenv("FUZZ_STDERR")) {
		FILE *null = fopen("/dev/null", "w");

		if (null)
			stderr = null;
	}
	return 0;
}

/* The times of an accepted --save-every or --save-at: in order, within the
 * span, --save-every's from t0 to t1 (counts small enough to list). */
static void check_save_times(const struct run_options *opts)
{
	double *times;

	if (!opts->nsave || opts->nsave > SAVE_TIMES_CHECKED)
		return;
	times = malloc(opts->nsave * sizeof(double));
	if (!times)
		return;
	options_save_times(opts, times);
	for (long i = 0; i < opts->nsave; i++)
		EXPECT(times[i] >= opts->t0 && times[i] <= opts->t1 &&
		       (i == 0 || times[i] >= times[i - 1]));
	EXPECT(!opts->save_every || (times[0] == opts->t0 &&
				     times[opts->nsave - 1] == opts->t1 &&
				     times[opts->nsave - 2] < opts->t1));
	free(times);
}

/* An accepted command line: every value in its range, the span ordered. */
static void check_accepted(const struct run_options *opts)
{
	if (opts->clear_cache)
		EXPECT(!opts->model_name); /* every model's caches, and no more read */
	if (opts->help || opts->list_schemes || opts->clear_cache || (opts->list && !opts->model))
		return;
	EXPECT(opts->model && opts->model_name);
	/* a registered model by its name; a model file by its path */
	EXPECT(strcmp(opts->model->name, opts->model_name) == 0 || strstr(opts->model_name, ".cu"));
	if (opts->list || opts->describe || opts->precompile)
		return; /* parsed no further */
	EXPECT(isfinite(opts->t0) && isfinite(opts->t1) && opts->t0 < opts->t1);
	EXPECT(opts->traj >= 1 && opts->m >= 2 && opts->K >= 1 && opts->K_max >= 0);
	EXPECT(isfinite(opts->iter_rtol) && opts->iter_rtol >= 0);
	EXPECT(isfinite(opts->iter_atol) && opts->iter_atol >= 0);
	EXPECT(isfinite(opts->h) && opts->h > 0);
	EXPECT(isfinite(opts->spread) && opts->spread >= 0);
	EXPECT(isfinite(opts->bound) && opts->bound > 0);
	EXPECT(!opts->tol_given || (isfinite(opts->tol) && opts->tol > 0 && opts->check));
	EXPECT(opts->save_every >= 0 && opts->check_traj >= 0);
	EXPECT(!(opts->save_every && opts->save_at));
	EXPECT(!(opts->save_every || opts->save_at) || (opts->out_path && opts->nsave >= 1));
	EXPECT(!opts->save_every || opts->nsave >= 2);
	check_save_times(opts);
	EXPECT(!opts->init_path || (*opts->init_path && !opts->spread_given &&
				    !opts->seed_given));
	EXPECT(!opts->out_path || *opts->out_path);
	for (long ntraj = 1; ntraj <= (1L << 40); ntraj *= 1021) {
		int stride = options_check_stride(opts, ntraj);

		EXPECT(stride >= 1);
	}
}

/* The shared value parsers on one argument, among them what options_parse
 * does not reach (picard-tune's --m list): what they accept is in range and
 * was written strictly, with no blank before it (parse.h). */
static void parse_values(const char *text)
{
	int list[LIST_MAX], count = -1;
	long value, count_times = 0;
	double real;

	if (parse_int_list("--m", text, 2, 1 << 20, list, LIST_MAX, &count) == 0) {
		EXPECT(count >= 1 && count <= LIST_MAX);
		for (int i = 0; i < count; i++)
			EXPECT(list[i] >= 2 && list[i] <= 1 << 20);
	}
	if (parse_times("--x", text, -5, 5, NULL, &count_times) == 0) {
		double *times = malloc(count_times * sizeof(double));

		EXPECT(count_times >= 1 && count_times <= (long)strlen(text));
		if (times && parse_times("--x", text, -5, 5, times, &count_times) == 0)
			for (long i = 0; i < count_times; i++)
				EXPECT(times[i] >= -5 && times[i] <= 5 &&
				       (i == 0 || times[i] >= times[i - 1]));
		free(times);
	}
	if (parse_long("--x", text, -5, 5, &value) == 0)
		EXPECT(value >= -5 && value <= 5 && !isspace((unsigned char)text[0]));
	if (parse_positive("--x", text, &real) == 0)
		EXPECT(isfinite(real) && real > 0 && !isspace((unsigned char)text[0]));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[MAX_ARGS + 2];
	struct run_options opts;
	size_t start = 0;
	int argc = 0, err;

	argv[argc++] = strdup("picard-run");
	/* A trailing separator adds no empty argument: "a\n" is "a". */
	while (start < size && argc <= MAX_ARGS) {
		size_t len = 0;

		while (start + len < size && data[start + len] != '\0' &&
		       data[start + len] != '\n')
			len++;
		argv[argc] = malloc(len + 1);
		if (!argv[argc])
			break;
		memcpy(argv[argc], data + start, len);
		argv[argc][len] = '\0';
		argc++;
		start += len + 1;
	}
	argv[argc] = NULL;

	err = options_parse(argc, argv, &opts);
	EXPECT(err == 0 || err == CLI_EUSAGE || err == CLI_DONE);
	if (err == 0) {
		check_accepted(&opts);
		if (opts.help)
			options_usage(stderr);
	}
	if (argc > 1)
		parse_values(argv[1]);

	for (int i = 0; i < argc; i++)
		free(argv[i]);
	return 0;
}
