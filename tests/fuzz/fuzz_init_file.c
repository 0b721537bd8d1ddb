/* fuzz_init_file.c - libFuzzer target for picard-run's --init reader
 * (init_stream_read). The first input byte picks the format (bit 0: raw
 * float64 or text) and the model (the other bits, modulo the registered
 * models, so state-only and state-plus-parameter rows are both reached);
 * the rest is the file, read from memory through fmemopen(). The reader
 * must return 0 or CLI_EUSAGE without a crash, a leak or undefined
 * behaviour; what it accepts must be whole, finite trajectories (and no
 * text with a NUL byte in it), and what it refuses must leave nothing
 * allocated (checked here: a violation traps).
 *
 * The error lines go to /dev/null (FUZZ_STDERR=1 keeps them), as in
 * fuzz_options.c. Built and run by `make fuzz`.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "init_file.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Traps (a crash libFuzzer reports) when a result is not sane. */
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

/* What the reader returned for model, checked; text holds a NUL byte. */
static void check_result(int err, const struct init_data *init,
			 const picard_model *model, bool text_with_nul)
{
	EXPECT(err == 0 || err == CLI_EUSAGE);
	EXPECT(err || !text_with_nul);
	if (err) {
		EXPECT(!init->x0 && !init->params && init->ntraj == 0);
		return;
	}
	EXPECT(init->ntraj >= 1 && init->x0);
	for (long i = 0; i < init->ntraj * model->dim; i++)
		EXPECT(isfinite(init->x0[i]));
	if (!init->params)
		return;
	EXPECT(model->nparams > 0);
	for (long i = 0; i < init->ntraj * model->nparams; i++)
		EXPECT(isfinite(init->params[i]));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const picard_model *model;
	struct init_data init;
	bool binary;
	char *copy;
	FILE *file;
	int err;

	if (size < 1 || picard_model_count() < 1)
		return 0;
	binary = data[0] & 1;
	model = picard_model_at((data[0] >> 1) % picard_model_count());
	data++;
	size--;

	/* An exact-size copy: a read past the end is an ASan report. */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	file = fmemopen(copy, size, binary ? "rb" : "r");
	if (!file) {
		free(copy);
		return 0;
	}
	err = init_stream_read(binary ? "fuzz.bin" : "fuzz.csv", file, binary, model, &init);
	check_result(err, &init, model, !binary && memchr(data, '\0', size));
	init_data_free(&init);
	EXPECT(!init.x0 && !init.params && init.ntraj == 0);
	fclose(file);
	free(copy);
	return 0;
}
