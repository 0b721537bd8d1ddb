/* model_load.c - a model file outside models/, loaded at run time: the
 * system C++ compiler builds its host side into a shared object with the
 * code generation flags the build gives models/ (so both give the same
 * bits on the CPU backend), picard loads it, and NVRTC checks its device
 * side; its kernels are compiled when a solve needs them (src/model/jit.c). The
 * shared object is cached by a hash of the file, picard's headers, the
 * flags and the compiler's version, so a second run loads it at once. */
#define _GNU_SOURCE /* memmem */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cache_dir.h"
#include "content_hash.h"
#include "embedded.h"
#include "errors.h"
#include "jit.h"
#include "model_check.h"
#include "model_impl.h"
#include "model_operator.h"
#include "model_probe.h"
#include "progress.h"
#include "registry.h"

extern char **environ;

#ifndef PICARD_MODEL_CODEGEN
#define PICARD_MODEL_CODEGEN "-O3 -std=c++17 -fPIC -fvisibility=hidden"
#endif
#ifndef PICARD_MODEL_CXX
#define PICARD_MODEL_CXX "g++"
#endif
#define PATH_MAX_LEN 4096

/* A loaded model: the entry, a copy of the shared object's, with the text
 * its kernels are compiled from. */
struct loaded_model {
	picard_model model; /* first: a picard_model * to it is one to this */
	struct picard_model_impl impl;
	char name[128];
	char include[PATH_MAX_LEN + 64]; /* the headers, for the host compiler */
	uint64_t key;                    /* of the host side's inputs */
	char *description;               /* the header comment, once asked for */
	picard_rk_host_fn *rk_host[PICARD_RK_SLOTS][2]; /* loaded on first use */
	struct loaded_model *next;       /* the process's loaded models */
};

/* Every model loaded: each stays while the process runs (its kernels and
 * its shared objects refer to it), and the same file with the same text
 * loads once. The lock also guards the lazy parts of each. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct loaded_model *loaded_models;

/* A path into buf; PICARD_EIO when it does not fit. */
static int pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len)
		return picard_fail(PICARD_EIO, "model cache: a path longer than %zu bytes", len);
	return PICARD_OK;
}

/* ---- the file: its name (its rules: src/model/model_check.c) --------------------------- */

/* The model's name from PATH/NAME.cu: a C identifier, the struct's. */
static int model_name(const char *path, char *name, size_t len)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	if (n < 4 || strcmp(base + n - 3, ".cu") != 0)
		return picard_fail(PICARD_EINVAL, "%s: a model file is named NAME.cu, NAME its "
				   "struct's name", path);
	n -= 3;
	if (n >= len)
		return picard_fail(PICARD_EINVAL, "%s: model name longer than %zu characters",
				   path, len - 1);
	for (size_t i = 0; i < n; i++) {
		const char c = base[i];

		if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (i > 0 && c >= '0' && c <= '9')))
			return picard_fail(PICARD_EINVAL, "%s: the file name must be a C identifier "
					   "(NAME.cu, NAME the model struct's name)", path);
	}
	memcpy(name, base, n);
	name[n] = '\0';
	return PICARD_OK;
}

/* ---- the headers, as files for the host compiler ------------------------------------ */

/* A directory holding the headers a model file includes (not NVRTC's
 * stand-ins), written once per set of headers. */
static int header_dir(const char *cache, uint64_t *hash, char *dir, size_t len)
{
	char path[PATH_MAX_LEN + 64];
	struct stat st;
	uint64_t h = PICARD_HASH_SEED;
	int err;

	for (const struct picard_embedded_file *f = picard_embedded_headers; f->name; f++)
		if (!f->rtc_only) {
			h = picard_hash(h, f->name, strlen(f->name));
			h = picard_hash(h, f->text, strlen(f->text));
		}
	*hash = h;
	err = pathf(dir, len, "%s/include/%016llx", cache, (unsigned long long)h);
	if (!err)
		err = pathf(path, sizeof(path), "%s/.complete", dir);
	if (err || stat(path, &st) == 0)
		return err;
	err = picard_make_dirs(dir);
	for (const struct picard_embedded_file *f = picard_embedded_headers; !err && f->name; f++)
		if (!f->rtc_only) {
			err = pathf(path, sizeof(path), "%s/%s", dir, f->name);
			if (!err)
				err = picard_write_atomic(path, f->text, strlen(f->text));
		}
	if (!err)
		err = pathf(path, sizeof(path), "%s/.complete", dir);
	if (!err)
		err = picard_write_atomic(path, "", 0);
	return err;
}

/* ---- the compiler --------------------------------------------------------------------- */

static const char *compiler(void)
{
	const char *cxx = getenv("PICARD_CXX");

	return cxx && *cxx ? cxx : PICARD_MODEL_CXX;
}

/* Run argv with stderr (and stdout) into log; its exit status, or -1. */
static int run(char *const argv[], const char *log)
{
	posix_spawn_file_actions_t actions;
	pid_t pid;
	int status = -1;

	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_addopen(&actions, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_adddup2(&actions, 2, 1);
	if (posix_spawnp(&pid, argv[0], &actions, NULL, argv, environ) == 0 &&
	    waitpid(pid, &status, 0) == pid)
		status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	else
		status = -1;
	posix_spawn_file_actions_destroy(&actions);
	return status;
}

/* The compiler's version line, part of the key. */
static uint64_t compiler_hash(uint64_t h, const char *log)
{
	char *argv[] = {(char *)compiler(), "--version", NULL};
	char *text = NULL;
	size_t n = 0;

	h = picard_hash(h, compiler(), strlen(compiler()));
	if (run(argv, log) == 0 && picard_read_file(log, &text, &n) == PICARD_OK)
		h = picard_hash(h, text, strcspn(text, "\n"));
	free(text);
	return h;
}

/* True when every error in the compiler's messages is a broken rule of
 * the contract (a static assertion), not a fault of its own. */
static int only_contract_errors(const char *messages)
{
	int any = 0;

	for (const char *line = messages, *next; *line; line = next) {
		const size_t n = strcspn(line, "\n");
		const char *error = strstr(line, ": error: ");
		const char *assertion = strstr(line, "static assertion failed");

		next = line + n + (line[n] == '\n');
		if (!error || error > line + n)
			continue;
		if (!assertion || assertion > line + n)
			return 0;
		any = 1;
	}
	return any;
}

/* The compiler's messages; when they are broken rules of the contract
 * (static assertions "model NAME: RULE"), each rule said as the file's
 * error at its PICARD_REGISTER_MODEL line instead. */
static int compile_failed(const char *path, const char *text, const char *name, const char *log)
{
	char *messages = NULL, marker[300], reg[300], rules[6000];
	const char *at, *rule;
	size_t n = 0, used = 0;
	int err;

	if (picard_read_file(log, &messages, &n) != PICARD_OK)
		return picard_fail(PICARD_ECOMPILE, "%s: %s failed (no messages)", path, compiler());
	if (!only_contract_errors(messages)) {
		err = picard_fail(PICARD_ECOMPILE, "%s does not compile (%s):\n%.6000s", path,
				  compiler(), messages);
		free(messages);
		return err;
	}
	snprintf(marker, sizeof(marker), "model %s: ", name);
	snprintf(reg, sizeof(reg), "PICARD_REGISTER_MODEL(%s)", name);
	at = strstr(text, reg);
	rules[0] = '\0';
	for (rule = strstr(messages, marker); rule && used < sizeof(rules) - 1;
	     rule = strstr(rule, marker)) {
		size_t len;

		rule += strlen(marker);
		len = strcspn(rule, "\"\n");
		if (!memmem(rules, used, rule, len)) /* each rule once */
			used += (size_t)snprintf(rules + used, sizeof(rules) - used,
						 "%s%s:%d: error: %.*s", used ? "\n" : "", path,
						 at ? picard_text_line(text, at) : 1, (int)len, rule);
		if (used >= sizeof(rules))
			used = sizeof(rules) - 1;
	}
	err = picard_fail(PICARD_ECOMPILE, "%s", used ? rules : messages);
	free(messages);
	return err;
}

/* Build the host side of path into so (through a temporary beside it),
 * with define (-DNAME[=VALUE]) saying which part. */
static int build_host_side(const char *path, const char *text, const char *name,
			   const char *include, const char *define, const char *so,
			   const char *log)
{
	char codegen[] = PICARD_MODEL_CODEGEN;
	char include_opt[PATH_MAX_LEN + 8], tmp[PATH_MAX_LEN + 32];
	const char *base = strrchr(path, '/'), *tableau = strchr(define, '=');
	char *argv[32];
	int argc = 0, status, phase;

	int err = pathf(include_opt, sizeof(include_opt), "-I%s", include);

	if (!err)
		err = pathf(tmp, sizeof(tmp), "%s.%ld.tmp", so, (long)getpid());
	if (err)
		return err;
	argv[argc++] = (char *)compiler();
	for (char *flag = strtok(codegen, " "); flag && argc < 20; flag = strtok(NULL, " "))
		argv[argc++] = flag;
	argv[argc++] = "-shared";
	argv[argc++] = (char *)define;
	argv[argc++] = include_opt;
	argv[argc++] = "-x";
	argv[argc++] = "c++";
	argv[argc++] = (char *)path;
	argv[argc++] = "-o";
	argv[argc++] = tmp;
	argv[argc++] = "-lquadmath"; /* the rhs in binary128 (quad.h) */
	argv[argc] = NULL;
	/* a whole model file takes the host compiler seconds */
	phase = picard_progress_begin("compiling %s%s%s for the host (%s)", base ? base + 1 : path,
				      tableau ? "'s steps of " : "", tableau ? tableau + 1 : "",
				      compiler());
	status = run(argv, log);
	picard_progress_end(phase);
	if (status != 0) {
		remove(tmp);
		return compile_failed(path, text, name, log);
	}
	if (rename(tmp, so) != 0) {
		remove(tmp);
		return picard_fail(PICARD_EIO, "model cache: cannot write %s: %s", so, strerror(errno));
	}
	return PICARD_OK;
}

/* NVRTC's check of a file's device side (picard_jit_check) runs on a
 * thread of its own while the host compiler builds the host side: it
 * needs only the text and the name. It is joined before the probe forks,
 * and its error raised where the check stood, after the host side's and
 * the subscripts' and the probe's. */
struct device_check {
	struct picard_model_impl impl;
	picard_model model;
	pthread_t thread;
	bool started;
	int err;
	char detail[8192];
};

static void *device_check_run(void *arg)
{
	struct device_check *c = arg;

	c->err = picard_jit_check(&c->model);
	if (c->err)
		snprintf(c->detail, sizeof(c->detail), "%s", picard_error_detail());
	return NULL;
}

static void device_check_start(struct device_check *c, const char *path, const char *text,
			       const char *name)
{
	memset(c, 0, sizeof(*c));
	c->impl.source = text;
	c->impl.source_path = path;
	c->model.name = name;
	c->model.impl = &c->impl;
	c->started = pthread_create(&c->thread, NULL, device_check_run, c) == 0;
}

/* Wait for the check (run it here if its thread did not start); its
 * error, not yet raised. */
static void device_check_wait(struct device_check *c)
{
	if (c->started)
		pthread_join(c->thread, NULL);
	else
		device_check_run(c);
	c->started = false;
}

int picard_model_load(const char *path, const picard_model **out)
{
	struct device_check check = {.started = false};
	char name[128], cache[PATH_MAX_LEN], include[PATH_MAX_LEN + 64];
	char so[PATH_MAX_LEN + 128], log[PATH_MAX_LEN + 128], symbol[160];
	char *text = NULL;
	struct loaded_model *loaded = NULL;
	const picard_model *entry;
	struct stat st;
	uint64_t key;
	void *handle;
	int err;

	if (!path || !out)
		return picard_fail(PICARD_EINVAL, "picard_model_load: NULL argument");
	*out = NULL;
	err = model_name(path, name, sizeof(name));
	if (!err)
		err = picard_read_file(path, &text, NULL);
	if (!err)
		err = picard_model_check_text(path, text, name, stderr);
	if (!err)
		err = picard_jit_cache_dir(cache, sizeof(cache));
	if (!err)
		err = header_dir(cache, &key, include, sizeof(include));
	if (err)
		goto fail;
	pthread_mutex_lock(&lock);
	for (loaded = loaded_models; loaded; loaded = loaded->next)
		if (!strcmp(loaded->impl.source_path, path) && !strcmp(loaded->impl.source, text))
			break;
	pthread_mutex_unlock(&lock);
	if (loaded) {
		free(text);
		*out = &loaded->model;
		return PICARD_OK;
	}
	err = pathf(log, sizeof(log), "%s/models/%s.%ld.log", cache, name, (long)getpid());
	if (!err)
		err = pathf(so, sizeof(so), "%s/models", cache);
	if (!err)
		err = picard_make_dirs(so);
	if (err)
		goto fail;
	key = picard_hash(key, text, strlen(text));
	key = picard_hash(key, PICARD_MODEL_CODEGEN, strlen(PICARD_MODEL_CODEGEN));
	key = compiler_hash(key, log);
	err = pathf(so, sizeof(so), "%s/models/%s-%016llx.so", cache, name, (unsigned long long)key);
	if (!err)
		device_check_start(&check, path, text, name);
	if (!err && stat(so, &st) != 0)
		err = build_host_side(path, text, name, include, "-DPICARD_HOST_NO_RK", so, log);
	remove(log);
	if (err)
		goto fail;
	handle = dlopen(so, RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		err = picard_fail(PICARD_EIO, "%s: cannot load %s: %s", path, so, dlerror());
		goto fail;
	}
	snprintf(symbol, sizeof(symbol), "picard_model_%s", name);
	entry = (const picard_model *)dlsym(handle, symbol);
	loaded = calloc(1, sizeof(*loaded));
	if (!entry || !loaded) {
		err = entry ? picard_fail(PICARD_ENOMEM, "loading %s", path) :
			      picard_fail(PICARD_ECOMPILE, "%s: no %s in the compiled file", path, symbol);
		goto fail;
	}
	loaded->model = *entry;
	loaded->impl = *entry->impl;
	snprintf(loaded->name, sizeof(loaded->name), "%s", name);
	snprintf(loaded->include, sizeof(loaded->include), "%s", include);
	loaded->key = key;
	loaded->description = NULL;
	loaded->impl.source = text;
	loaded->impl.source_path = strdup(path);
	loaded->model.impl = &loaded->impl;
	/* out-of-bounds subscripts: the constant ones at their line, the
	 * others by a guarded first evaluation, before NVRTC's compile */
	err = picard_model_check_subscripts(path, text, &loaded->model);
	device_check_wait(&check); /* before the probe forks */
	if (!err)
		err = picard_model_probe(&loaded->model);
	if (!err && check.err)
		err = picard_fail(check.err, "%s", check.detail);
	if (!err)
		err = picard_model_check_operator(&loaded->model);
	if (err)
		goto fail;
	pthread_mutex_lock(&lock);
	loaded->next = loaded_models;
	loaded_models = loaded;
	pthread_mutex_unlock(&lock);
	*out = &loaded->model;
	return PICARD_OK;
fail:
	if (check.started)
		device_check_wait(&check);
	if (loaded)
		free((char *)loaded->impl.source_path);
	free(loaded);
	free(text);
	return err;
}

/* Where tableau's host side of loaded is cached, into so. */
static int rk_host_path(const struct loaded_model *loaded, const char *tableau, char *so,
			size_t len)
{
	char cache[PATH_MAX_LEN];
	int err = picard_jit_cache_dir(cache, sizeof(cache));

	return err ? err : pathf(so, len, "%s/models/%s-%016llx-%s.so", cache, loaded->name,
				 (unsigned long long)loaded->key, tableau);
}

/* Build tableau's host side of loaded into so (its log beside it, per
 * process and tableau, removed after). */
static int build_rk_host(const struct loaded_model *loaded, const char *tableau, const char *so)
{
	char log[PATH_MAX_LEN + 256], define[128];
	int err = pathf(log, sizeof(log), "%s.%ld.log", so, (long)getpid());

	snprintf(define, sizeof(define), "-DPICARD_HOST_RK_ONLY=%s", tableau);
	if (!err)
		err = build_host_side(loaded->impl.source_path, loaded->impl.source, loaded->name,
				      loaded->include, define, so, log);
	remove(log);
	return err;
}

/* Whether model is one picard_model_load loaded (else built in). */
static bool is_loaded(const picard_model *model)
{
	bool found = false;

	pthread_mutex_lock(&lock);
	for (const struct loaded_model *l = loaded_models; l && !found; l = l->next)
		found = &l->model == model;
	pthread_mutex_unlock(&lock);
	return found;
}

int picard_model_prepare_rk_hosts(const picard_model *model, const char *const *tableaus, int n)
{
	const struct loaded_model *loaded = (const struct loaded_model *)model;
	int failed = PICARD_OK;
	char detail[1024] = "";

	if (!is_loaded(model))
		return PICARD_OK; /* built in: its host sides are in picard */
#pragma omp parallel for schedule(dynamic, 1)
	for (int i = 0; i < n; i++) {
		char so[PATH_MAX_LEN + 256];
		struct stat st;
		int err = rk_host_path(loaded, tableaus[i], so, sizeof(so));

		if (!err && stat(so, &st) != 0)
			err = build_rk_host(loaded, tableaus[i], so);
		if (err) {
#pragma omp critical(picard_prepare_rk_hosts)
			if (!failed) {
				failed = err;
				snprintf(detail, sizeof(detail), "%s", picard_error_detail());
			}
		}
	}
	return failed ? picard_fail(failed, "%s", detail) : PICARD_OK;
}

int picard_model_rk_host(const picard_model *model, int slot, const char *tableau,
			 picard_rk_host_fn *const **host)
{
	struct loaded_model *loaded = (struct loaded_model *)model;
	char so[PATH_MAX_LEN + 256], symbol[160];
	struct stat st;
	void *handle;
	int err;

	if (model->impl->rk_host[slot][0]) { /* built in */
		*host = model->impl->rk_host[slot];
		return PICARD_OK;
	}
	pthread_mutex_lock(&lock);
	if (loaded->rk_host[slot][0]) {
		pthread_mutex_unlock(&lock);
		*host = loaded->rk_host[slot];
		return PICARD_OK;
	}
	err = rk_host_path(loaded, tableau, so, sizeof(so));
	if (!err && stat(so, &st) != 0)
		err = build_rk_host(loaded, tableau, so);
	if (!err) {
		handle = dlopen(so, RTLD_NOW | RTLD_LOCAL);
		snprintf(symbol, sizeof(symbol), "picard_rk_host_%s", loaded->name);
		picard_rk_host_fn *const *fns =
			handle ? (picard_rk_host_fn *const *)dlsym(handle, symbol) : NULL;

		if (fns) {
			loaded->rk_host[slot][0] = fns[0];
			loaded->rk_host[slot][1] = fns[1];
		} else {
			err = picard_fail(PICARD_EIO, "%s: cannot load %s: %s",
					  model->impl->source_path, so, dlerror());
		}
	}
	pthread_mutex_unlock(&lock);
	*host = loaded->rk_host[slot];
	return err;
}

/* The leading comment block, "/" "* ... *" "/", line by line without its
 * markers (" * " prefixes), tabs as four blanks: src/mk/gen-registry.sh's
 * rule for models/. */
static char *header_comment(const char *text)
{
	const char *end = strstr(text, "*/");
	char *out, *o;

	if (strncmp(text, "/*", 2) != 0 || !end)
		return strdup("");
	out = o = malloc(4 * (size_t)(end - text) + 2);
	if (!out)
		return NULL;
	for (const char *line = text + 2, *next; line < end; line = next) {
		size_t n = strcspn(line, "\n");

		next = line + n + 1;
		if (line + n > end)
			n = (size_t)(end - line);
		if (line == text + 2)
			while (n && (*line == ' ' || *line == '\t'))
				line++, n--;
		else if (n >= 3 && !strncmp(line, " * ", 3))
			line += 3, n -= 3;
		else if (n >= 2 && !strncmp(line, " *", 2))
			line += 2, n -= 2;
		while (n && (line[n - 1] == ' ' || line[n - 1] == '\t') && line + n == end)
			n--;
		if (line + n == end && n == 0)
			break;
		for (size_t i = 0; i < n; i++)
			if (line[i] == '\t')
				o += sprintf(o, "    ");
			else
				*o++ = line[i];
		*o++ = '\n';
	}
	*o = '\0';
	return out;
}

/* The file's header comment (its leading block, without the comment
 * markers), as a registered model's description is; "" for a model that
 * was not loaded from a file. */
static const char *loaded_description(const picard_model *model)
{
	struct loaded_model *loaded = (struct loaded_model *)model;

	/* called for models outside the registry: picard_model_load's */
	if (!model->impl || !model->impl->source)
		return "";
	pthread_mutex_lock(&lock);
	if (!loaded->description)
		loaded->description = header_comment(model->impl->source);
	pthread_mutex_unlock(&lock);
	return loaded->description ? loaded->description : "";
}

const char *picard_model_description(const picard_model *model)
{
	for (int i = 0; model && picard_registry[i]; i++)
		if (picard_registry[i] == model)
			return picard_registry_descriptions[i];
	return model ? loaded_description(model) : "";
}
