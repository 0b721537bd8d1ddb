/* model_check.c - the rules of the model contract that no compiler sees,
 * read from a model file's text (src/model_check.h): the registration
 * under the file's name, the struct's name, a right-hand side for both
 * sides that does nothing a GPU kernel cannot, and members the contract
 * does not know. The build (build/model-check, src/mk/compile-model.sh)
 * and picard_model_load (src/model_load.c) both check with it. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "model_check.h"

#define CONTRACT "(docs/models.md, the contract)"

static const char *const known_members[] = {
	"dim", "nparams", "param_names", "param_defaults", "x0", "t0", "t1", "summary",
	"reference", "default_h", "stiff", "ninvariants", "invariant_names", "rhs", "jacobian", "exact",
	"initial", "invariants",
	/* a semi-linear model's operator (x' = A x + g) */
	"op", "nx", "ny", "dx", "dy", "op_symmetric", "k_faces", "nonlinear", "nnz", "csr", NULL,
};

/* What rhs's body must not use: it runs in a GPU kernel, thousands at once. */
static const char *const forbidden_words[] = {
	"printf", "fprintf", "puts", "fopen", "malloc", "calloc", "realloc", "free", "new",
	"delete", "static", "throw", "std::cout", "exit", NULL,
};

int picard_text_line(const char *text, const char *at)
{
	int line = 1;

	for (const char *c = text; c < at; c++)
		line += *c == '\n';
	return line;
}

static int ident_char(char c)
{
	return c == '_' || isalnum((unsigned char)c);
}

/* The first occurrence of word in [from, end) as a whole word, or NULL. */
static const char *find_word(const char *from, const char *end, const char *word)
{
	const size_t n = strlen(word);

	for (const char *at = from; at + n <= end; at++)
		if (!strncmp(at, word, n) && (at == from || !ident_char(at[-1])) &&
		    (at + n == end || !ident_char(at[n])))
			return at;
	return NULL;
}

/* The declaration of rhs ("... void rhs("): its start (back to the
 * previous statement or block) into *decl, the name's position returned;
 * NULL when the file has none. */
static const char *rhs_declaration(const char *text, const char **decl)
{
	for (const char *at = find_word(text, text + strlen(text), "rhs"); at;
	     at = find_word(at + 1, text + strlen(text), "rhs")) {
		const char *c = at + 3, *start;

		while (*c == ' ' || *c == '\t')
			c++;
		if (*c != '(')
			continue;
		for (start = at; start > text && !strchr(";{}", start[-1]); start--)
			;
		if (find_word(start, at, "void")) {
			*decl = start;
			return at;
		}
	}
	return NULL;
}

/* rhs's body: from its '{' to the matching '}', into [*body, *end). */
static int rhs_body(const char *rhs, const char **body, const char **end)
{
	const char *c = strchr(rhs, '{');
	int depth = 0;

	if (!c)
		return -1;
	*body = c;
	for (; *c; c++) {
		if (*c == '/' && c[1] == '/') { /* a comment to the line's end */
			c += strcspn(c, "\n");
			if (!*c)
				break;
			continue;
		}
		depth += *c == '{';
		depth -= *c == '}';
		if (depth == 0) {
			*end = c + 1;
			return 0;
		}
	}
	return -1;
}

/* Words of rhs's body outside comments that it must not use, into buf. */
static void forbidden_in(const char *body, const char *end, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; forbidden_words[i]; i++) {
		const char *word = forbidden_words[i];

		for (const char *at = find_word(body, end, word); at; at = find_word(at + 1, end, word)) {
			const char *line = at;

			while (line > body && line[-1] != '\n')
				line--;
			if (strstr(line, "//") && strstr(line, "//") < at)
				continue; /* in a comment */
			used += snprintf(buf + used, used < len ? len - used : 0, "%s ", word);
			break;
		}
	}
}

/* Warn of each static member whose name the contract does not know:
 * most likely a misspelt optional one (defualt_h), else ignored. */
static void unknown_members(const char *path, const char *text, FILE *warnings)
{
	for (const char *line = text, *next; *line; line = next) {
		const size_t n = strcspn(line, "\n");
		const char *c = line, *name = NULL, *end = line + n;

		next = line + n + (line[n] == '\n');
		while (c < end && (*c == ' ' || *c == '\t'))
			c++;
		if (strncmp(c, "static", 6) != 0 || ident_char(c[6]))
			continue;
		/* the last identifier before '=', '(', ';', ',' or '[' */
		for (const char *d = c + 6; d < end && !strchr("=(;,[", *d); d++)
			if (ident_char(*d) && !ident_char(d[-1]))
				name = d;
		if (!name)
			continue;
		{
			size_t len = 0;
			int known = 0;

			while (ident_char(name[len]))
				len++;
			if (!islower((unsigned char)name[0]) && name[0] != '_')
				continue;
			for (int i = 0; known_members[i] && !known; i++)
				known = strlen(known_members[i]) == len &&
					!strncmp(known_members[i], name, len);
			if (!known && warnings) {
				fprintf(warnings, "%s:%d: warning: member '%.*s' is not part of the model "
					"contract (misspelt? known:", path, picard_text_line(text, name), (int)len,
					name);
				for (int i = 0; known_members[i]; i++)
					fprintf(warnings, " %s", known_members[i]);
				fprintf(warnings, ")\n");
			}
		}
	}
}

int picard_model_check_text(const char *path, const char *text, const char *name,
			    FILE *warnings)
{
	char reg[256], words[256];
	const char *at, *rhs, *decl = NULL, *body, *end;

	snprintf(reg, sizeof(reg), "PICARD_REGISTER_MODEL(%s)", name);
	at = strstr(text, reg);
	if (!at) {
		const char *other = strstr(text, "PICARD_REGISTER_MODEL(");

		return picard_fail(PICARD_ECOMPILE, "%s:%d: error: the file must end with %s: the "
				   "model struct is named after the file " CONTRACT, path,
				   picard_text_line(text, other ? other : text + strlen(text)), reg);
	}
	if (strstr(at + 1, "PICARD_REGISTER_MODEL("))
		return picard_fail(PICARD_ECOMPILE, "%s:%d: error: one model per file: "
				   "PICARD_REGISTER_MODEL appears more than once " CONTRACT, path,
				   picard_text_line(text, strstr(at + 1, "PICARD_REGISTER_MODEL(")));
	{
		const char *s = find_word(text, text + strlen(text), "struct");
		int found = 0;

		for (; s && !found; s = find_word(s + 1, text + strlen(text), "struct")) {
			const char *c = s + 6;

			while (*c == ' ' || *c == '\t' || *c == '\n')
				c++;
			found = !strncmp(c, name, strlen(name)) && !ident_char(c[strlen(name)]);
		}
		if (!found)
			return picard_fail(PICARD_ECOMPILE, "%s:%d: error: no struct %s: the model "
					   "struct is named after the file " CONTRACT, path,
					   picard_text_line(text, at), name);
	}
	rhs = rhs_declaration(text, &decl);
	if (!rhs)
		return PICARD_OK; /* the contract's own assertion says so, with its line */
	if (!find_word(decl, rhs, "__host__") || !find_word(decl, rhs, "__device__"))
		return picard_fail(PICARD_ECOMPILE, "%s:%d: error: rhs must be declared template "
				   "<typename real> __host__ __device__: the GPU kernels call it "
				   CONTRACT, path, picard_text_line(text, rhs));
	if (rhs_body(rhs, &body, &end) == 0) {
		forbidden_in(body, end, words, sizeof(words));
		if (words[0])
			return picard_fail(PICARD_ECOMPILE, "%s:%d: error: rhs must be a pure "
					   "function of (t, x, p): it uses %s(no I/O, allocation, "
					   "static state or exceptions: it runs in the GPU kernel) "
					   CONTRACT, path, picard_text_line(text, rhs), words);
	}
	unknown_members(path, text, warnings);
	return PICARD_OK;
}
