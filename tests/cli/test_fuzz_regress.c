/* test_fuzz_regress.c - inputs that the fuzz targets of tests/fuzz/ (make
 * fuzz) found to be mishandled, replayed against the option parser and the
 * --init reader directly, so a fix that regresses fails make test. Each
 * test names the target and the input it found; the error lines the parser
 * prints are captured (Criterion's stderr redirection) and checked. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/diag.h"
#include "cli/init_file.h"
#include "cli/options.h"
#include "cli/parse.h"

TestSuite(fuzz_regress, .init = cr_redirect_stderr);

/* Everything printed on stderr so far (the parser's error lines). */
static char *stderr_text(void)
{
	static char text[16384];
	FILE *err = cr_get_redirected_stderr();
	size_t len;

	fflush(stderr);
	len = fread(text, 1, sizeof(text) - 1, err);
	text[len] = '\0';
	return text;
}

/* options_parse on "picard-run MODEL FLAG VALUE". */
static int parse_flag(const char *model, const char *flag, const char *value)
{
	const char *args[] = {"picard-run", model, flag, value, NULL};
	struct run_options opts;

	return options_parse(4, (char **)args, &opts);
}

/* --init text for model, read from memory (size bytes, NULs included). */
static int read_text_init(const char *model_name, const char *text, size_t size,
			  struct init_data *init)
{
	const picard_model *model = picard_model_find(model_name);
	FILE *file;
	int err;

	cr_assert_not_null(model, "model %s not registered", model_name);
	file = fmemopen((void *)text, size, "r");
	cr_assert_not_null(file);
	err = init_stream_read("init.csv", file, false, model, init);
	fclose(file);
	return err;
}

/* fuzz_options: "\r52" was accepted as 52 (strtol skips any leading white
 * space; only ' ' and '\t' were refused). Every leading blank is refused
 * now, for integers and reals alike. */
Test(fuzz_regress, leading_control_blank)
{
	static const char *const texts[] = {"\r52", "\v52", "\f52", "\n52", " 52", "\t52"};
	double real;
	long value;

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		cr_expect_eq(parse_flag("lotka", "--traj", texts[i]), CLI_EUSAGE,
			     "--traj '%s' accepted", texts[i]);
		cr_expect_eq(parse_flag("lotka", "--h", texts[i]), CLI_EUSAGE,
			     "--h '%s' accepted", texts[i]);
		cr_expect_eq(parse_flag("lotka", "--t1", texts[i]), CLI_EUSAGE,
			     "--t1 '%s' accepted", texts[i]);
		cr_expect_eq(parse_long("--x", texts[i], 0, 100, &value), CLI_EUSAGE);
		cr_expect_eq(parse_double("--x", texts[i], &real), CLI_EUSAGE);
	}
	cr_expect(strstr(stderr_text(), "--traj '\r52': expected an integer"));
	/* the same digits without the blank still parse */
	cr_expect_eq(parse_flag("lotka", "--traj", "52"), 0);
	cr_expect_eq(parse_flag("lotka", "--h", "52"), 0);
}

/* fuzz_init_file (with its NUL invariant): a text line with a NUL byte was
 * cut there, so "2\0 9" read as "2" and a raw file not named .bin could
 * pass as a short text file. Such a line is refused, naming the line. */
Test(fuzz_regress, init_text_nul_byte)
{
	static const char text[] = "1 0.5\n2\0 9\n";
	struct init_data init;
	const char *errors;

	cr_expect_eq(read_text_init("decay", text, sizeof(text) - 1, &init), CLI_EUSAGE);
	cr_expect_null(init.x0);
	cr_expect_eq(init.ntraj, 0);
	errors = stderr_text();
	cr_expect(strstr(errors, "init.csv:2: a NUL byte"), "stderr: %s", errors);
	/* a NUL inside a comment is refused as well: text holds none */
	cr_expect_eq(read_text_init("decay", "1\n# \0\n", 5, &init), CLI_EUSAGE);
	/* without it the same rows are read */
	cr_assert_eq(read_text_init("decay", "1 0.5\n2 9\n", 10, &init), 0);
	cr_expect_eq(init.ntraj, 2);
	cr_expect_eq(init.x0[1], 2.0);
	cr_expect_eq(init.params[1], 9.0);
	init_data_free(&init);
}

/* Beyond the fuzzer's reach (its inputs stay under 4 KiB): a raw stream
 * larger than the reader's first 64 KiB buffer, from memory, which has no
 * size to ask for in advance, is read whole; one byte more is refused. */
Test(fuzz_regress, init_binary_stream_grows)
{
	const picard_model *model = picard_model_find("decay");
	const size_t count = 3 * 65536 / 8 + 1; /* three first buffers and a state */
	double *values = calloc(1, count * sizeof(double) + 1);
	struct init_data init;
	FILE *file;

	cr_assert_not_null(model);
	cr_assert_not_null(values);
	for (size_t i = 0; i < count; i++)
		values[i] = (double)i; /* little-endian host, as init_binary */
	file = fmemopen(values, count * sizeof(double), "rb");
	cr_assert_not_null(file);
	cr_assert_eq(init_stream_read("big.bin", file, true, model, &init), 0,
		     "stderr: %s", stderr_text());
	fclose(file);
	cr_expect_eq(init.ntraj, (long)count);
	cr_expect_eq(init.x0[count - 1], (double)(count - 1));
	init_data_free(&init);

	file = fmemopen(values, count * sizeof(double) + 1, "rb");
	cr_assert_not_null(file);
	cr_expect_eq(init_stream_read("big.bin", file, true, model, &init), CLI_EUSAGE);
	fclose(file);
	cr_expect(strstr(stderr_text(), "big.bin: 196617 bytes is not a multiple of 8"));
	free(values);
}

/* fuzz_options: "picard-run osclator.cu" (a model file that is not there)
 * returned the library's PICARD_EIO, not a usage error: a model file is
 * input, and what stops it exits 2, naming it. And --version printed and
 * exited inside the parser: it returns CLI_DONE now. */
Test(fuzz_regress, missing_model_file_and_version)
{
	const char *missing[] = {"picard-run", "osclator.cu", NULL};
	const char *version[] = {"picard-run", "lotka", "--version", "--traj", NULL};
	struct run_options opts;

	cr_expect_eq(options_parse(2, (char **)missing, &opts), CLI_EUSAGE);
	cr_expect(strstr(stderr_text(), "MODEL osclator.cu: input/output error"), "%s",
		  stderr_text());
	cr_expect_eq(options_parse(4, (char **)version, &opts), CLI_DONE);
}
