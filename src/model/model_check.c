/* model_check.c - the rules of the model contract that no compiler sees,
 * read from a model file's text (src/model/model_check.h): the registration
 * under the file's name, the struct's name, a right-hand side for both
 * sides that does nothing a GPU kernel cannot, and members the contract
 * does not know. The build (build/model-check, src/mk/compile-model.sh)
 * and picard_model_load (src/model/model_load.c) both check with it. */
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
	"reference", "default_h", "default_atol", "stiff", "ninvariants", "invariant_names", "rhs", "jacobian", "exact",
	"initial", "invariants",
	/* a semi-linear model's operator (x' = A x + g) */
	"op", "nx", "ny", "dx", "dy", "op_symmetric", "k_faces", "nonlinear", "nnz", "csr",
	/* events */
	"nevents", "event_names", "event_directions", "event_actions", "event_limit",
	"event_min_spacing", "events", "jump", NULL,
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

/* The first declaration of the function name ("... void name(") in text
 * from from on: its start (back to the previous statement or block) into
 * *decl, the name's position returned; NULL when there is none. */
static const char *function_declaration(const char *text, const char *from, const char *name,
					const char **decl)
{
	const char *const end = text + strlen(text);

	for (const char *at = find_word(from, end, name); at; at = find_word(at + 1, end, name)) {
		const char *c = at + strlen(name), *start;

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

/* The declaration of rhs, as function_declaration. */
static const char *rhs_declaration(const char *text, const char **decl)
{
	return function_declaration(text, text, "rhs", decl);
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

/* ---- constant subscripts against the model's sizes ------------------------------- */

/* What an array argument of a model function holds: its entries are a
 * product of the model's sizes. */
enum extent { EXTENT_DIM, EXTENT_NPARAMS, EXTENT_JACOBIAN, EXTENT_INVARIANTS,
	      EXTENT_KX, EXTENT_KY, EXTENT_ROWS, EXTENT_NNZ, EXTENT_EVENTS };

/* A model function of the contract and its array arguments by position
 * (-1 ends the list), as src/model/picard_model.cuh calls it. */
struct checked_function {
	const char *name;
	struct {
		int position;
		enum extent extent;
	} arrays[4];
};

static const struct checked_function checked_functions[] = {
	{"rhs", {{1, EXTENT_DIM}, {2, EXTENT_NPARAMS}, {3, EXTENT_DIM}, {-1, 0}}},
	{"nonlinear", {{1, EXTENT_DIM}, {2, EXTENT_NPARAMS}, {3, EXTENT_DIM}, {-1, 0}}},
	{"jacobian", {{1, EXTENT_DIM}, {2, EXTENT_NPARAMS}, {3, EXTENT_JACOBIAN}, {-1, 0}}},
	{"exact", {{2, EXTENT_DIM}, {3, EXTENT_NPARAMS}, {4, EXTENT_DIM}, {-1, 0}}},
	{"initial", {{0, EXTENT_NPARAMS}, {1, EXTENT_DIM}, {-1, 0}}},
	{"invariants", {{0, EXTENT_DIM}, {1, EXTENT_NPARAMS}, {2, EXTENT_INVARIANTS}, {-1, 0}}},
	{"k_faces", {{0, EXTENT_NPARAMS}, {1, EXTENT_KX}, {2, EXTENT_KY}, {-1, 0}}},
	{"csr", {{0, EXTENT_NPARAMS}, {1, EXTENT_ROWS}, {2, EXTENT_NNZ}, {3, EXTENT_NNZ}}},
	{"events", {{1, EXTENT_DIM}, {2, EXTENT_NPARAMS}, {3, EXTENT_EVENTS}, {-1, 0}}},
	{"jump", {{2, EXTENT_DIM}, {3, EXTENT_NPARAMS}, {-1, 0}}},
	{NULL, {{-1, 0}}},
};

/* The entries an extent stands for, and how the message says so; -1
 * for an array that is not there. */
static long extent_of(const picard_model *model, enum extent extent, const char **says)
{
	const picard_operator *op = model->op;
	const long nx = op ? op->nx : model->dim, ny = op && op->ny > 0 ? op->ny : 1;

	switch (extent) {
	case EXTENT_DIM: *says = "dim"; return model->dim;
	case EXTENT_NPARAMS: *says = "nparams"; return model->nparams;
	case EXTENT_JACOBIAN: *says = "dim * dim"; return (long)model->dim * model->dim;
	case EXTENT_INVARIANTS: *says = "ninvariants"; return model->ninvariants;
	case EXTENT_KX: *says = "(nx + 1) ny"; return (nx + 1) * ny;
	case EXTENT_KY: *says = "nx (ny + 1)"; /* NULL in 1D: not checked */
		return op && op->kind == PICARD_OP_STENCIL_1D ? -1 : nx * (ny + 1);
	case EXTENT_ROWS: *says = "dim + 1"; return (long)model->dim + 1;
	case EXTENT_NNZ: *says = "nnz"; return op ? op->nnz : 0;
	case EXTENT_EVENTS: *says = "nevents"; return model->events ? model->events->count : 0;
	}
	return 0;
}

/* text with its comments, string and character literals blanked (newlines
 * kept, so lines stay where they were); NULL when out of memory. */
static char *code_only(const char *text)
{
	const size_t n = strlen(text);
	char *code = malloc(n + 1);

	if (!code)
		return NULL;
	memcpy(code, text, n + 1);
	for (size_t i = 0; i < n; i++) {
		size_t end = i;

		if (code[i] == '/' && code[i + 1] == '/') {
			end = i + strcspn(code + i, "\n");
		} else if (code[i] == '/' && code[i + 1] == '*') {
			const char *close = strstr(code + i + 2, "*/");

			end = close ? (size_t)(close - code) + 2 : n;
		} else if (code[i] == '"' || code[i] == '\'') {
			for (end = i + 1; end < n && code[end] != code[i] && code[end] != '\n'; end++)
				end += code[end] == '\\' && end + 1 < n;
			end += end < n && code[end] == code[i];
		} else {
			continue;
		}
		for (size_t k = i; k < end; k++)
			if (code[k] != '\n')
				code[k] = ' ';
		i = end - 1;
	}
	return code;
}

/* A subscript's value when it is a constant: integer literals, the
 * model's dim, nparams and ninvariants, + - * / % and parentheses.
 * Anything else (a variable, a cast, a call) is computed at run time:
 * ok goes false, and the guarded evaluation (src/model/model_probe.c) looks. */
struct subscript {
	const char *c, *end;
	const picard_model *model;
	bool ok;
	int depth; /* atoms read: past 64 the probe is left to judge (bounded recursion) */
};

static long subscript_sum(struct subscript *s);

static void subscript_blanks(struct subscript *s)
{
	while (s->c < s->end && isspace((unsigned char)*s->c))
		s->c++;
}

static long subscript_atom(struct subscript *s)
{
	long v = 0;

	subscript_blanks(s);
	if (++s->depth > 64) {
		s->ok = false;
		return 0;
	}
	if (s->c < s->end && (*s->c == '-' || *s->c == '+')) {
		const bool minus = *s->c++ == '-';

		v = subscript_atom(s);
		return minus ? -v : v;
	}
	if (s->c < s->end && *s->c == '(') {
		s->c++;
		v = subscript_sum(s);
		subscript_blanks(s);
		if (s->c < s->end && *s->c == ')')
			s->c++;
		else
			s->ok = false;
		return v;
	}
	if (s->c < s->end && isdigit((unsigned char)*s->c)) {
		for (; s->c < s->end && isdigit((unsigned char)*s->c) && v < 1000000000; s->c++)
			v = 10 * v + (*s->c - '0');
		while (s->c < s->end && strchr("uUlL", *s->c)) /* 3u, 2L */
			s->c++;
		if (s->c < s->end && (ident_char(*s->c) || *s->c == '.'))
			s->ok = false; /* 0x1f, 1.5, 1e3: not an integer index we read */
		return v;
	}
	{
		static const char *const sizes[] = {"dim", "nparams", "ninvariants", NULL};
		const long values[] = {s->model->dim, s->model->nparams, s->model->ninvariants};

		for (int i = 0; sizes[i]; i++) {
			const size_t n = strlen(sizes[i]);

			if ((size_t)(s->end - s->c) >= n && !strncmp(s->c, sizes[i], n) &&
			    (s->c + n == s->end || !ident_char(s->c[n]))) {
				s->c += n;
				return values[i];
			}
		}
	}
	s->ok = false;
	return 0;
}

static long subscript_product(struct subscript *s)
{
	long v = subscript_atom(s);

	for (;;) {
		char op;
		long w;

		subscript_blanks(s);
		if (!s->ok || s->c >= s->end || !strchr("*/%", *s->c))
			return v;
		op = *s->c++;
		w = subscript_atom(s);
		if (op != '*' && w == 0)
			s->ok = false;
		else
			v = op == '*' ? v * w : op == '/' ? v / w : v % w;
		if (v > 1000000000 || v < -1000000000)
			s->ok = false;
	}
}

static long subscript_sum(struct subscript *s)
{
	long v = subscript_product(s);

	for (;;) {
		char op;

		subscript_blanks(s);
		if (!s->ok || s->c >= s->end || (*s->c != '+' && *s->c != '-'))
			return v;
		op = *s->c++;
		v = op == '+' ? v + subscript_product(s) : v - subscript_product(s);
	}
}

/* The name of the parameter at position (from 0) of the list opening at
 * open into name: "" when it is unnamed or not a pointer or array; false
 * when the list is shorter. */
static bool parameter_name(const char *open, int position, char *name, size_t len)
{
	const char *start = open + 1;
	int depth = 0, at = 0;

	name[0] = '\0';
	for (const char *c = start; *c; c++) {
		if (depth == 0 && (*c == ',' || *c == ')')) {
			if (at == position) {
				const char *bracket = memchr(start, '[', (size_t)(c - start));
				const char *limit = bracket ? bracket : c, *last = NULL;
				bool pointer = bracket != NULL;

				for (const char *d = start; d < limit; d++)
					if (ident_char(*d) && (d == start || !ident_char(d[-1])))
						last = d;
				for (const char *d = start; last && d < last; d++)
					pointer |= *d == '*' || *d == '&';
				if (pointer && last && !isdigit((unsigned char)*last)) {
					size_t n = 0;

					while (ident_char(last[n]) && n + 1 < len)
						n++;
					memcpy(name, last, n);
					name[n] = '\0';
				}
				return true;
			}
			if (*c == ')')
				return false;
			at++;
			start = c + 1;
			continue;
		}
		depth += *c == '(' || *c == '<';
		depth -= (*c == ')' || *c == '>') && depth > 0;
	}
	return false;
}

/* The body of the function whose parameter list opens at open: [*body,
 * *end) from its '{' to the matching '}'; -1 for a declaration alone. */
static int function_body(const char *open, const char **body, const char **end)
{
	int depth = 0;
	const char *c = open;

	for (; *c && !(depth == 0 && c > open && (*c == '{' || *c == ';')); c++)
		depth += *c == '(' ? 1 : *c == ')' ? -1 : 0;
	if (*c != '{')
		return -1;
	*body = c;
	for (depth = 0; *c; c++) {
		depth += *c == '{';
		depth -= *c == '}';
		if (depth == 0) {
			*end = c + 1;
			return 0;
		}
	}
	return -1;
}

/* Does the subscript at [name, close] write its entry: an assignment or
 * an increment after it, or an increment before it? */
static bool subscript_writes(const char *code, const char *name, const char *close)
{
	const char *c = close + 1, *b = name;

	while (*c == ' ' || *c == '\t' || *c == '\n')
		c++;
	if ((c[0] == '+' && c[1] == '+') || (c[0] == '-' && c[1] == '-'))
		return true;
	if (c[0] == '=' && c[1] != '=')
		return true;
	if (c[0] && strchr("+-*/%&|^", c[0]) && c[1] == '=')
		return true;
	if ((c[0] == '<' || c[0] == '>') && c[1] == c[0] && c[2] == '=')
		return true;
	while (b > code && (b[-1] == ' ' || b[-1] == '\t'))
		b--;
	return b - code >= 2 && ((b[-1] == '+' && b[-2] == '+') || (b[-1] == '-' && b[-2] == '-'));
}

/* Check each constant subscript of array name (entries of it, says how
 * many in words) in function's [body, end). */
static int check_array(const char *path, const char *code, const picard_model *model,
		       const char *function, const char *body, const char *end,
		       const char *name, long entries, const char *says)
{
	for (const char *at = find_word(body, end, name); at; at = find_word(at + 1, end, name)) {
		const char *open = at + strlen(name), *close;
		struct subscript s;
		char value[32] = "";
		long index;
		int depth = 0;

		if (at[-1] == '.' || (at[-1] == '>' && at[-2] == '-') ||
		    (at[-1] == ':' && at[-2] == ':'))
			continue; /* a member of something else */
		while (open < end && (*open == ' ' || *open == '\t' || *open == '\n'))
			open++;
		if (open >= end || *open != '[')
			continue;
		for (close = open; close < end; close++) {
			depth += *close == '[';
			depth -= *close == ']';
			if (depth == 0)
				break;
		}
		if (close >= end)
			continue;
		s = (struct subscript){open + 1, close, model, true, 0};
		index = subscript_sum(&s);
		subscript_blanks(&s);
		if (!s.ok || s.c != close || (index >= 0 && index < entries))
			continue;
		{
			const char *first = open + 1, *last = close;

			while (first < last && isspace((unsigned char)*first))
				first++;
			while (last > first && isspace((unsigned char)last[-1]))
				last--;
			snprintf(value, sizeof(value), "%ld", index);
			if ((size_t)(last - first) == strlen(value) && !strncmp(first, value, strlen(value)))
				value[0] = '\0';
			else
				snprintf(value, sizeof(value), " (= %ld)", index);
			if (entries > 0)
				return picard_fail(PICARD_ECOMPILE, "%s:%d: error: %s %s %s[%.*s]%s out of "
						   "bounds: %s has %s = %ld entries, %s[0] .. %s[%ld] "
						   CONTRACT, path, picard_text_line(code, at), function,
						   subscript_writes(code, at, close) ? "writes" : "reads",
						   name, (int)(last - first), first, value, name, says,
						   entries, name, name, entries - 1);
			return picard_fail(PICARD_ECOMPILE, "%s:%d: error: %s %s %s[%.*s]%s out of "
					   "bounds: %s has %s = 0 entries " CONTRACT, path,
					   picard_text_line(code, at), function,
					   subscript_writes(code, at, close) ? "writes" : "reads", name,
					   (int)(last - first), first, value, name, says);
		}
	}
	return PICARD_OK;
}

int picard_model_check_subscripts(const char *path, const char *text, const picard_model *model)
{
	char *code = code_only(text);
	int err = PICARD_OK;

	if (!code)
		return picard_fail(PICARD_ENOMEM, "%s: checking its subscripts", path);
	for (const struct checked_function *f = checked_functions; f->name && !err; f++) {
		const char *decl, *from = code, *body, *end;

		for (const char *at; !err && (at = function_declaration(code, from, f->name, &decl));
		     from = at + 1) {
			const char *open = strchr(at, '(');

			if (function_body(open, &body, &end) != 0)
				continue;
			for (int a = 0; a < 4 && f->arrays[a].position >= 0 && !err; a++) {
				char name[64];
				const char *says = "";
				const long entries = extent_of(model, f->arrays[a].extent, &says);

				if (entries >= 0 &&
				    parameter_name(open, f->arrays[a].position, name, sizeof(name)) &&
				    name[0])
					err = check_array(path, code, model, f->name, body, end, name,
							  entries, says);
			}
		}
	}
	free(code);
	return err;
}
