/* fuzz_model_check.c - libFuzzer target for the model contract's text
 * rules (picard_model_check_text and picard_model_check_subscripts,
 * src/model/model_check.c): the build and picard_model_load run them on any
 * file a user writes (the subscripts as a model of dim 2, nparams 2). The input is the file's text (a NUL ends it early); the model
 * is named "m". The check must return 0 or PICARD_ECOMPILE, with a detail
 * naming the file, without a crash, a leak or undefined behaviour. Its
 * warnings go to /dev/null. Built and run by `make fuzz`. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_check.h"
#include "picard.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define EXPECT(cond) do { if (!(cond)) __builtin_trap(); } while (0)

static FILE *null_file;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	null_file = fopen("/dev/null", "w");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	int err;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	err = picard_model_check_text("m.cu", text, "m", null_file);
	EXPECT(err == PICARD_OK || err == PICARD_ECOMPILE);
	EXPECT(err == PICARD_OK || strncmp(picard_error_detail(), "m.cu:", 5) == 0);
	{
		const picard_model model = {.name = "m", .dim = 2, .nparams = 2, .ninvariants = 1};

		err = picard_model_check_subscripts("m.cu", text, &model);
		EXPECT(err == PICARD_OK || err == PICARD_ECOMPILE);
		EXPECT(err == PICARD_OK || strncmp(picard_error_detail(), "m.cu:", 5) == 0);
	}
	free(text);
	return 0;
}
