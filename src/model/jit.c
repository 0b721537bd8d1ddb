/* jit.c - a model's kernels compiled at run time. A solve names the one
 * template instance it needs (its scheme, layout, precision and shape);
 * NVRTC compiles it from the model's text and picard's kernel headers,
 * which the library carries (build/embedded.c), for the device's
 * architecture. The cubin is cached on disk, keyed by a hash of everything
 * that goes in (text, headers, expression, options, architecture, NVRTC's
 * version), and loaded with cudaLibraryLoadData: a model built into picard
 * and a model file loaded at run time take the same path. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <cuda_runtime_api.h>
#include <nvrtc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cache_dir.h"
#include "content_hash.h"
#include "embedded.h"
#include "errors.h"
#include "jit.h"
#include "model_impl.h"
#include "progress.h"

/* What NVRTC is given besides the architecture: C++17 as the build, and
 * functions without qualifiers (a model's exact solution, its start
 * state) taken as device functions, so that the file needs no change; its
 * rhs must still say __host__ __device__ (src/model/model_load.c checks). */
static const char *const jit_options[] = {"-std=c++17", "-default-device", "-lineinfo"};
#define JIT_NOPTIONS (sizeof(jit_options) / sizeof(jit_options[0]))

/* A loaded instance: model text (by address), expression, architecture. */
struct instance {
	const char *source;
	char *expression;
	int arch;
	cudaLibrary_t library;
	cudaKernel_t kernel;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct instance *instances;
static size_t ninstances, instances_cap;
static double compile_seconds;
static long ncompiled, ncached;

/* ---- the key: 128 bits, two FNV-1a streams of different seeds ---------------- */

struct hash {
	uint64_t a, b;
};

static void hash_string(struct hash *h, const char *s)
{
	const size_t n = s ? strlen(s) : 0;

	h->a = picard_hash(h->a, s, n);
	h->b = picard_hash(h->b, s, n);
}

/* The key of a compilation: model text, headers, options, expression,
 * architecture option and NVRTC's version. */
static struct hash compile_key(const char *source, const char *expression, const char *arch)
{
	struct hash h = {PICARD_HASH_SEED, 0x6c62272e07bb0142ull};
	int major = 0, minor = 0;
	char version[32];

	hash_string(&h, source);
	for (const struct picard_embedded_file *f = picard_embedded_headers; f->name; f++) {
		hash_string(&h, f->name);
		hash_string(&h, f->text);
	}
	for (size_t i = 0; i < JIT_NOPTIONS; i++)
		hash_string(&h, jit_options[i]);
	hash_string(&h, expression);
	hash_string(&h, arch);
	nvrtcVersion(&major, &minor);
	snprintf(version, sizeof(version), "nvrtc %d.%d", major, minor);
	hash_string(&h, version);
	return h;
}

static int cache_path(const struct hash *h, const char *suffix, char *buf, size_t len)
{
	char dir[4096];
	int err = picard_jit_cache_dir(dir, sizeof(dir));

	if (err)
		return err;
	if (snprintf(buf, len, "%s/kernels/%016llx%016llx%s", dir, (unsigned long long)h->a,
		     (unsigned long long)h->b, suffix) >= (int)len)
		return picard_fail(PICARD_EIO, "kernel cache: path too long");
	return PICARD_OK;
}

/* ---- NVRTC --------------------------------------------------------------------- */

/* NVRTC's log as compilers write it, "file(12): error" -> "file:12: error",
 * as the error's detail. */
static void report_log(const picard_model *model, const char *log)
{
	char out[7000];
	size_t used = 0;
	const char *line = log;

	while (*line && used + 1 < sizeof(out)) {
		const char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);
		const char *paren = memchr(line, '(', n);
		int written;

		if (paren && paren > line && paren[1] >= '0' && paren[1] <= '9' &&
		    strstr(paren, "): ") && strstr(paren, "): ") < line + n) {
			const char *close = strstr(paren, "): ");

			written = snprintf(out + used, sizeof(out) - used, "%.*s:%.*s: %.*s\n",
					   (int)(paren - line), line, (int)(close - paren - 1),
					   paren + 1, (int)(line + n - close - 3), close + 3);
		} else if (n > 0) {
			written = snprintf(out + used, sizeof(out) - used, "%.*s\n", (int)n, line);
		} else {
			written = 0;
		}
		if (written > 0)
			used += (size_t)written < sizeof(out) - used ? (size_t)written :
								       sizeof(out) - used - 1;
		line += n + (end ? 1 : 0);
	}
	out[used] = '\0';
	while (used > 0 && out[used - 1] == '\n')
		out[--used] = '\0';
	picard_fail(PICARD_ECOMPILE, "%s: NVRTC cannot compile the model's kernel:\n%s",
		    model->impl->source_path ? model->impl->source_path : model->name, out);
}

/* Compile expression from the model's text; its lowered (mangled) name
 * into *lowered and, when want_code, the cubin (arch "-arch=sm_XY") into
 * *code. */
static int compile(const picard_model *model, const char *expression, const char *arch,
		   int want_code, char **lowered, char **code, size_t *size)
{
	const struct picard_model_impl *impl = model->impl;
	const char *names[PICARD_EMBEDDED_MAX], *texts[PICARD_EMBEDDED_MAX];
	const char *options[JIT_NOPTIONS + 1];
	int nheaders = 0, err = PICARD_OK, phase;
	nvrtcProgram prog;
	nvrtcResult r;
	const char *name;
	size_t log_size = 0;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (const struct picard_embedded_file *f = picard_embedded_headers; f->name; f++) {
		if (nheaders == PICARD_EMBEDDED_MAX)
			return picard_fail(PICARD_ECOMPILE, "more than %d embedded headers",
					   PICARD_EMBEDDED_MAX);
		names[nheaders] = f->name;
		texts[nheaders++] = f->text;
	}
	for (size_t i = 0; i < JIT_NOPTIONS; i++)
		options[i] = jit_options[i];
	options[JIT_NOPTIONS] = arch;
	r = nvrtcCreateProgram(&prog, impl->source,
			       impl->source_path ? impl->source_path : model->name, nheaders,
			       texts, names);
	if (r != NVRTC_SUCCESS)
		return picard_fail(PICARD_ECOMPILE, "NVRTC: %s", nvrtcGetErrorString(r));
	phase = picard_progress_begin("compiling %s with NVRTC", expression);
	r = nvrtcAddNameExpression(prog, expression);
	if (r == NVRTC_SUCCESS)
		r = nvrtcCompileProgram(prog, (int)(arch ? JIT_NOPTIONS + 1 : JIT_NOPTIONS), options);
	if (r == NVRTC_ERROR_COMPILATION) {
		char *log = NULL;

		nvrtcGetProgramLogSize(prog, &log_size);
		log = malloc(log_size + 1);
		if (log && nvrtcGetProgramLog(prog, log) == NVRTC_SUCCESS)
			report_log(model, log);
		else
			picard_fail(PICARD_ECOMPILE, "NVRTC: compilation failed");
		free(log);
		err = PICARD_ECOMPILE;
		goto out;
	}
	if (r != NVRTC_SUCCESS) {
		err = picard_fail(PICARD_ECOMPILE, "NVRTC: %s", nvrtcGetErrorString(r));
		goto out;
	}
	if (nvrtcGetLoweredName(prog, expression, &name) != NVRTC_SUCCESS ||
	    !(*lowered = strdup(name))) {
		err = picard_fail(PICARD_ECOMPILE, "NVRTC: no kernel named %s", expression);
		goto out;
	}
	if (want_code) {
		if (nvrtcGetCUBINSize(prog, size) != NVRTC_SUCCESS || !(*code = malloc(*size)) ||
		    nvrtcGetCUBIN(prog, *code) != NVRTC_SUCCESS) {
			free(*code);
			free(*lowered);
			err = picard_fail(PICARD_ECOMPILE, "NVRTC: no cubin for %s", expression);
			goto out;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pthread_mutex_lock(&lock);
	compile_seconds += (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
	ncompiled++;
	pthread_mutex_unlock(&lock);
out:
	picard_progress_end(phase);
	nvrtcDestroyProgram(&prog);
	return err;
}

/* ---- the cache: "picard-kernel 1\n", the lowered name, "\n", the cubin --------- */

#define CACHE_MAGIC "picard-kernel 1\n"

static int cache_store(const char *path, const char *lowered, const char *code, size_t size)
{
	const size_t head = strlen(CACHE_MAGIC), name = strlen(lowered);
	char *buf = malloc(head + name + 1 + size);
	char dir[4200], *slash;
	int err;

	if (!buf)
		return picard_fail(PICARD_ENOMEM, "kernel cache");
	memcpy(buf, CACHE_MAGIC, head);
	memcpy(buf + head, lowered, name);
	buf[head + name] = '\n';
	memcpy(buf + head + name + 1, code, size);
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	err = picard_make_dirs(dir);
	if (!err)
		err = picard_write_atomic(path, buf, head + name + 1 + size);
	free(buf);
	return err;
}

/* A cached kernel: its lowered name and cubin, or 0 if absent or not one. */
static int cache_load(const char *path, char **data, const char **lowered, const char **code)
{
	struct stat st;
	char *newline;

	if (stat(path, &st) != 0 || picard_read_file(path, data, NULL) != PICARD_OK)
		return 0;
	if (strncmp(*data, CACHE_MAGIC, strlen(CACHE_MAGIC)) != 0 ||
	    !(newline = strchr(*data + strlen(CACHE_MAGIC), '\n'))) {
		free(*data);
		return 0;
	}
	*newline = '\0';
	*lowered = *data + strlen(CACHE_MAGIC);
	*code = newline + 1;
	return 1;
}

/* ---- kernels ----------------------------------------------------------------- */

static int cuda_fail(cudaError_t e, const char *what)
{
	return picard_fail(PICARD_ECUDA, "%s: %s", what, cudaGetErrorString(e));
}

/* The architecture kernels are compiled for: the current device's, or
 * $PICARD_JIT_ARCH (90 for sm_90), so that a machine without a GPU can
 * fill the cache for one that has it (picard-run MODEL --precompile). */
static int device_arch(int *arch)
{
	int dev = 0, major = 0, minor = 0;
	const char *forced = getenv("PICARD_JIT_ARCH");
	cudaError_t e;

	if (forced && *forced) {
		char *end;
		long v = strtol(forced, &end, 10);

		if (*end || v < 50 || v > 200)
			return picard_fail(PICARD_EINVAL, "PICARD_JIT_ARCH=%s: an architecture "
					   "such as 90 (sm_90)", forced);
		*arch = (int)v;
		return PICARD_OK;
	}
	e = cudaGetDevice(&dev);

	if (e == cudaSuccess)
		e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
	if (e == cudaSuccess)
		e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
	if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver)
		return picard_fail(PICARD_ENODEV, "no CUDA device to compile kernels for: %s",
				   cudaGetErrorString(e));
	if (e != cudaSuccess)
		return cuda_fail(e, "the device's architecture");
	*arch = 10 * major + minor;
	return PICARD_OK;
}

/* The cubin of expression for sm_<arch> and its lowered name: from the
 * cache, else compiled (and cached). *blob owns both. Thread-safe: NVRTC
 * compiles in parallel. */
/* Where an installed picard keeps the kernels `make kernels` built ahead
 * of time, into buf: $PICARD_KERNEL_DIR, else share/picard/kernels beside
 * the lib/ that holds this library (a relocated install finds its own).
 * Read only; 0 when there is none. */
static int installed_dir(char *buf, size_t len)
{
	const char *dir = getenv("PICARD_KERNEL_DIR");
	Dl_info info;
	char lib[4096], *slash;

	if (dir && *dir)
		return snprintf(buf, len, "%s", dir) < (int)len;
	if (!dladdr((void *)installed_dir, &info) || !info.dli_fname ||
	    snprintf(lib, sizeof(lib), "%s", info.dli_fname) >= (int)sizeof(lib))
		return 0;
	slash = strrchr(lib, '/');
	if (!slash)
		return 0;
	*slash = '\0';
	return snprintf(buf, len, "%s/../share/picard/kernels", lib) < (int)len;
}

/* A kernel built ahead of time (installed_dir), as cache_load reads one. */
static int installed_load(const struct hash *key, char **data, const char **lowered,
			  const char **code)
{
	char dir[4096], path[4200];

	if (!installed_dir(dir, sizeof(dir)) ||
	    snprintf(path, sizeof(path), "%s/%016llx%016llx.cubin", dir, (unsigned long long)key->a,
		     (unsigned long long)key->b) >= (int)sizeof(path))
		return 0;
	return cache_load(path, data, lowered, code);
}

/* Keys NVRTC is compiling in this process: a thread that wants one of
 * them waits for it (compiled) instead of compiling it again, so that a
 * search may run while its kernels are compiled ahead in the background. */
#define IN_FLIGHT_MAX 64
static struct hash in_flight[IN_FLIGHT_MAX];
static int nin_flight;
static pthread_cond_t landed = PTHREAD_COND_INITIALIZER;

/* Whether key is being compiled (under lock). */
static bool flying(const struct hash *key)
{
	for (int i = 0; i < nin_flight; i++)
		if (in_flight[i].a == key->a && in_flight[i].b == key->b)
			return true;
	return false;
}

/* List key, not flying, as being compiled (under lock); false where the
 * list is full (then a second thread that wants it compiles it too). */
static bool take_off(const struct hash *key)
{
	if (nin_flight == IN_FLIGHT_MAX)
		return false;
	in_flight[nin_flight++] = *key;
	return true;
}

/* key is compiled (or failed): its waiters look in the cache again. */
static void land(const struct hash *key)
{
	pthread_mutex_lock(&lock);
	for (int i = 0; i < nin_flight; i++)
		if (in_flight[i].a == key->a && in_flight[i].b == key->b) {
			in_flight[i] = in_flight[--nin_flight];
			break;
		}
	pthread_cond_broadcast(&landed);
	pthread_mutex_unlock(&lock);
}

static int obtain(const picard_model *model, const char *expression, int arch, char **blob,
		  const char **name, const char **cubin)
{
	char option[32], path[4200];
	char *lowered = NULL, *code = NULL;
	size_t size = 0;
	struct hash key;
	int err;

	snprintf(option, sizeof(option), "-arch=sm_%d", arch);
	key = compile_key(model->impl->source, expression, option);
	err = cache_path(&key, ".cubin", path, sizeof(path));
	if (err)
		return err;
	bool listed, waited = false;

	/* another thread compiling it is waited for; then this one holds
	 * the key while it looks in the cache and, missing, compiles: a
	 * kernel is compiled once however many threads want it at once */
	pthread_mutex_lock(&lock);
	while (flying(&key)) {
		waited = true;
		pthread_cond_wait(&landed, &lock);
	}
	listed = take_off(&key);
	pthread_mutex_unlock(&lock);
	if (cache_load(path, blob, name, cubin) || installed_load(&key, blob, name, cubin)) {
		pthread_mutex_lock(&lock);
		ncached += !waited;
		pthread_mutex_unlock(&lock);
		if (listed)
			land(&key);
		return PICARD_OK;
	}
	err = compile(model, expression, option, 1, &lowered, &code, &size);
	if (!err)
		cache_store(path, lowered, code, size); /* a cache that fails costs time only */
	if (listed)
		land(&key);
	if (err)
		return err;
	/* one block, as from the cache: the name, a NUL, the cubin */
	*blob = malloc(strlen(lowered) + 1 + size);
	if (*blob) {
		strcpy(*blob, lowered);
		memcpy(*blob + strlen(lowered) + 1, code, size);
		*name = *blob;
		*cubin = *blob + strlen(lowered) + 1;
	}
	free(lowered);
	free(code);
	return *blob ? PICARD_OK : picard_fail(PICARD_ENOMEM, "kernel %s", expression);
}

static struct instance *find(const char *source, const char *expression, int arch)
{
	for (size_t i = 0; i < ninstances; i++)
		if (instances[i].source == source && instances[i].arch == arch &&
		    strcmp(instances[i].expression, expression) == 0)
			return &instances[i];
	return NULL;
}

int picard_jit_kernel(const picard_model *model, const char *expression, const void **kernel)
{
	struct instance in = {0}, *known;
	const char *name, *cubin;
	char *blob = NULL;
	cudaError_t e;
	int arch = 0, err;

	if (!model || !model->impl || !model->impl->source)
		return picard_fail(PICARD_EINVAL, "model %s has no source to compile its kernels from",
				   model ? model->name : "(null)");
	err = device_arch(&arch);
	if (err)
		return err;
	pthread_mutex_lock(&lock);
	known = find(model->impl->source, expression, arch);
	if (known)
		*kernel = (const void *)known->kernel;
	pthread_mutex_unlock(&lock);
	if (known)
		return PICARD_OK;
	err = obtain(model, expression, arch, &blob, &name, &cubin);
	if (err)
		return err;
	e = cudaLibraryLoadData(&in.library, cubin, NULL, NULL, 0, NULL, NULL, 0);
	if (e == cudaSuccess)
		e = cudaLibraryGetKernel(&in.kernel, in.library, name);
	free(blob);
	if (e != cudaSuccess)
		return cuda_fail(e, "loading the compiled kernel");
	in.source = model->impl->source;
	in.arch = arch;
	in.expression = strdup(expression);
	pthread_mutex_lock(&lock);
	known = find(model->impl->source, expression, arch); /* another thread's, meanwhile */
	if (!known && in.expression && ninstances == instances_cap) {
		size_t cap = instances_cap ? 2 * instances_cap : 16;
		struct instance *grown = realloc(instances, cap * sizeof(*grown));

		if (grown) {
			instances = grown;
			instances_cap = cap;
		}
	}
	if (known) {
		*kernel = (const void *)known->kernel;
	} else if (in.expression && ninstances < instances_cap) {
		instances[ninstances++] = in;
		*kernel = (const void *)in.kernel;
	} else {
		err = picard_fail(PICARD_ENOMEM, "kernel table");
	}
	pthread_mutex_unlock(&lock);
	if (known || err) {
		cudaLibraryUnload(in.library);
		free(in.expression);
	}
	return err;
}

int picard_jit_precompile(const picard_model *model, const char *const *expressions, int count)
{
	return picard_jit_precompile_until(model, expressions, count, NULL);
}

int picard_jit_precompile_until(const picard_model *model, const char *const *expressions,
				int count, const volatile int *stop)
{
	char first_error[8192] = "";
	int arch = 0, err = device_arch(&arch), failed = PICARD_OK;

	if (err)
		return err;
#pragma omp parallel for schedule(dynamic, 1)
	for (int i = 0; i < count; i++) {
		const char *name, *cubin;
		char *blob = NULL;
		int e;

		if (stop && *stop)
			continue;
		e = obtain(model, expressions[i], arch, &blob, &name, &cubin);

		free(blob);
		if (e) {
#pragma omp critical(picard_precompile)
			if (!failed) {
				failed = e;
				snprintf(first_error, sizeof(first_error), "%s", picard_error_detail());
			}
		}
	}
	return failed ? picard_fail(failed, "%s", first_error) : PICARD_OK;
}

int picard_jit_check_kernel(const picard_model *model, const char *kernel)
{
	char expression[256], path[4200];
	char *lowered = NULL;
	struct hash key;
	struct stat st;
	int err;

	if (!model->impl->source)
		return PICARD_OK;
	snprintf(expression, sizeof(expression), "%s<%s>", kernel, model->name);
	key = compile_key(model->impl->source, expression, "");
	err = cache_path(&key, ".checked", path, sizeof(path));
	if (err)
		return err;
	if (stat(path, &st) == 0)
		return PICARD_OK;
	err = compile(model, expression, NULL, 0, &lowered, NULL, NULL);
	free(lowered);
	if (!err) {
		char dir[4200], *slash;

		snprintf(dir, sizeof(dir), "%s", path);
		slash = strrchr(dir, '/');
		*slash = '\0';
		if (picard_make_dirs(dir) == PICARD_OK)
			picard_write_atomic(path, "checked\n", 8);
	}
	return err;
}

int picard_jit_check(const picard_model *model)
{
	return picard_jit_check_kernel(model, "picard::rhs_check");
}

void picard_jit_stats(double *seconds, long *compiled, long *cached)
{
	pthread_mutex_lock(&lock);
	if (seconds)
		*seconds = compile_seconds;
	if (compiled)
		*compiled = ncompiled;
	if (cached)
		*cached = ncached;
	pthread_mutex_unlock(&lock);
}
