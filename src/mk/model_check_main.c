/* model_check_main.c - build/model-check FILE: the build's look at a model
 * file of models/ before compiling it (src/mk/compile-model.sh), through
 * the checks picard_model_load makes (src/model/model_check.c). Exit 1 with the
 * broken rule on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache_dir.h"
#include "errors.h"
#include "model_check.h"

int main(int argc, char **argv)
{
	char name[128], *text = NULL;
	const char *base;
	size_t n;

	if (argc != 2) {
		fprintf(stderr, "usage: model-check models/NAME.cu\n");
		return 2;
	}
	base = strrchr(argv[1], '/');
	base = base ? base + 1 : argv[1];
	n = strlen(base) > 3 ? strlen(base) - 3 : 0;
	if (n == 0 || n >= sizeof(name) || strcmp(base + n, ".cu") != 0) {
		fprintf(stderr, "error: %s: a model file is models/NAME.cu\n", argv[1]);
		return 1;
	}
	memcpy(name, base, n);
	name[n] = '\0';
	if (picard_read_file(argv[1], &text, NULL) != PICARD_OK ||
	    picard_model_check_text(argv[1], text, name, stderr) != PICARD_OK) {
		fprintf(stderr, "%s\n", picard_error_detail());
		free(text);
		return 1;
	}
	free(text);
	return 0;
}
