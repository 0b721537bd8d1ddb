/* model_probe.c - a model's host functions evaluated once each, guarded
 * (src/model/model_probe.h): the subscripts src/model/model_check.c cannot read (a
 * loop to dim inclusive, x[(int)t + 7], a helper's) show here. Each array
 * argument lies against a guard page: a read or write past its end, or
 * before its start (the second layout), faults, and the fault's address
 * names the array and the index. The data pages around it are canaries, a
 * const input must come back unchanged, and an output must come back
 * written in full. It runs in a child process, so a stray write cannot
 * touch the caller's memory and an endless loop is ended with the child,
 * PROBE_SECONDS after the function began. */
#define _GNU_SOURCE /* REG_ERR, MAP_ANONYMOUS */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "errors.h"
#include "model_impl.h"
#include "model_probe.h"

#define PROBE_SECONDS 2
#define GUARD_BYTES (64 * 1024)    /* each side: indices up to 8192 doubles out */
#define MAX_ARRAYS 4               /* arguments of one function */
#define FILL_DOUBLE 0x7ff4dead5eed0001ull /* a NaN no arithmetic makes */
#define FILL_FLOAT 0x7fadead1u
#define CANARY 0xa5

/* One array argument against its guard: [guard][data pages][guard]. */
struct guarded {
	const char *name;     /* as the contract names it: "x", "dxdt", "J" */
	char *map;            /* the mapping */
	size_t map_bytes;
	char *pages, *pages_end; /* the readable data pages, the array inside */
	char *data;           /* the array: at the pages' end or start */
	long count;           /* entries */
	size_t size;          /* bytes per entry */
	bool output;          /* written in full by the function, else const */
	void *copy;           /* an input's contents, to check it is unchanged */
};

/* The arrays of the function being probed, and where it faulted. */
static struct guarded arrays[MAX_ARRAYS];
static int narrays;
static int layout; /* 0: arrays end at a guard, 1: they start after one */
static sigjmp_buf fault_jump;
static volatile sig_atomic_t fault_signal;
static void *volatile fault_address;
static volatile int fault_writes; /* 1 write, 0 read, -1 unknown */

static void on_fault(int sig, siginfo_t *info, void *context)
{
	fault_signal = sig;
	fault_address = info->si_addr;
	fault_writes = -1;
#if defined(__x86_64__)
	if (sig == SIGSEGV) /* the page fault's error code: bit 1, a write */
		fault_writes = (((ucontext_t *)context)->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#else
	(void)context;
#endif
	siglongjmp(fault_jump, 1);
}

/* An array of count entries of size bytes against a guard, its entries
 * from values (an input, converted to float when size says so) or the
 * fill pattern (an output). */
static void *guard(const char *name, long count, size_t size, const double *values, bool output)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	const size_t bytes = (size_t)count * size;
	const size_t data_bytes = (bytes + page - 1) / page * page + page;
	struct guarded *g = &arrays[narrays++];

	g->name = name;
	g->count = count;
	g->size = size;
	g->output = output;
	g->map_bytes = 2 * GUARD_BYTES + data_bytes;
	g->map = mmap(NULL, g->map_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g->map == MAP_FAILED)
		_exit(3);
	g->pages = g->map + GUARD_BYTES;
	g->pages_end = g->pages + data_bytes;
	if (mprotect(g->pages, data_bytes, PROT_READ | PROT_WRITE) != 0)
		_exit(3);
	memset(g->pages, CANARY, data_bytes);
	g->data = layout == 0 ? g->pages_end - bytes : g->pages;
	for (long i = 0; i < count; i++) {
		if (output && size == sizeof(double))
			memcpy(g->data + i * size, &(uint64_t){FILL_DOUBLE}, size);
		else if (output)
			memcpy(g->data + i * size, &(uint32_t){FILL_FLOAT}, size);
		else if (size == sizeof(double))
			memcpy(g->data + i * size, &values[i], size);
		else
			memcpy(g->data + i * size, &(float){(float)values[i]}, size);
	}
	g->copy = output ? NULL : malloc(bytes ? bytes : 1);
	if (g->copy)
		memcpy(g->copy, g->data, bytes);
	return g->data;
}

static void release(void)
{
	for (int i = 0; i < narrays; i++) {
		munmap(arrays[i].map, arrays[i].map_bytes);
		free(arrays[i].copy);
	}
	narrays = 0;
}

/* ---- what the child says to the parent: lines "stage ...", "error ...", "ok" */

static int report_fd;

static void say(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	for (int done = 0; done < n;) {
		ssize_t w = write(report_fd, line + done, (size_t)(n - done));

		if (w <= 0)
			_exit(4);
		done += (int)w;
	}
}

/* The array and index of address, from its place in the arrays' maps. */
static bool locate(const void *address, const struct guarded **array, long *index)
{
	const char *a = address;

	for (int i = 0; i < narrays; i++)
		if (a >= arrays[i].map && a < arrays[i].map + arrays[i].map_bytes) {
			const long offset = (long)(a - arrays[i].data);

			*array = &arrays[i];
			*index = offset >= 0 ? offset / (long)arrays[i].size :
					       -((-offset + (long)arrays[i].size - 1) /
						 (long)arrays[i].size);
			return true;
		}
	return false;
}

/* After the function returned: its canaries, inputs and outputs. */
static void check_arrays(const char *what)
{
	for (int i = 0; i < narrays; i++) {
		const struct guarded *g = &arrays[i];
		const size_t bytes = (size_t)g->count * g->size;

		for (const char *c = g->pages; c < g->pages_end; c++) {
			long index;
			const struct guarded *at;

			if (c >= g->data && c < g->data + bytes)
				continue;
			if ((unsigned char)*c != CANARY && locate(c, &at, &index)) {
				say("error %s writes %s[%ld] out of bounds: %s has %ld entries", what,
				    g->name, index, g->name, g->count);
				_exit(0);
			}
		}
		for (long k = 0; k < g->count; k++) {
			const char *entry = g->data + k * g->size;

			if (!g->output && g->copy && memcmp(entry, (char *)g->copy + k * g->size, g->size)) {
				say("error %s writes its input %s[%ld] (const: the contract's functions "
				    "write their outputs only)", what, g->name, k);
				_exit(0);
			}
			if (g->output && (g->size == sizeof(double) ?
					  !memcmp(entry, &(uint64_t){FILL_DOUBLE}, g->size) :
					  !memcmp(entry, &(uint32_t){FILL_FLOAT}, g->size))) {
				say("error %s leaves %s[%ld] unwritten: it writes all %ld entries of %s",
				    what, g->name, k, g->count, g->name);
				_exit(0);
			}
		}
	}
}

/* ---- the functions probed, each with its arrays ------------------------------------ */

/* What a probe evaluates at: the model's defaults. */
struct probe_point {
	const picard_model *model;
	double t;          /* t0, then t1 */
	const double *x;   /* the start state at the defaults, dim entries */
	const double *p;   /* the defaults, nparams entries */
};

/* A function of the model and how to call it with guarded arrays. */
struct probed_function {
	const char *name; /* in messages: "rhs (double)" */
	bool timed;       /* it takes t: messages say which */
	bool (*declared)(const picard_model *model);
	void (*call)(const struct probe_point *at);
};

static bool always(const picard_model *model)
{
	(void)model;
	return true;
}

static void call_rhs_double(const struct probe_point *at)
{
	const picard_model *m = at->model;
	double *x = guard("x", m->dim, sizeof(double), at->x, false);
	double *p = guard("p", m->nparams, sizeof(double), at->p, false);
	double *dxdt = guard("dxdt", m->dim, sizeof(double), NULL, true);

	m->impl->rhs_double(at->t, x, p, dxdt);
}

static void call_rhs_float(const struct probe_point *at)
{
	const picard_model *m = at->model;
	float *x = guard("x", m->dim, sizeof(float), at->x, false);
	float *p = guard("p", m->nparams, sizeof(float), at->p, false);
	float *dxdt = guard("dxdt", m->dim, sizeof(float), NULL, true);

	m->impl->rhs_float((float)at->t, x, p, dxdt);
}

/* The Jacobian's dim * dim entries up to 32 MB: a larger one is left to
 * the solve that asks for it. */
static bool small_jacobian(const picard_model *m) { return m->dim <= 2048; }

static void call_jacobian(const struct probe_point *at)
{
	const picard_model *m = at->model;
	double *x = guard("x", m->dim, sizeof(double), at->x, false);
	double *p = guard("p", m->nparams, sizeof(double), at->p, false);
	double *J = guard("J", (long)m->dim * m->dim, sizeof(double), NULL, true);

	m->impl->jacobian[0](at->t, x, p, J);
}

static bool has_exact(const picard_model *m) { return m->exact != NULL; }

static void call_exact(const struct probe_point *at)
{
	const picard_model *m = at->model;
	double *x0 = guard("x0", m->dim, sizeof(double), at->x, false);
	double *p = guard("p", m->nparams, sizeof(double), at->p, false);
	double *x = guard("x", m->dim, sizeof(double), NULL, true);

	m->exact(at->t, m->t0, x0, p, x);
}

static bool has_initial(const picard_model *m) { return m->initial != NULL; }

static void call_initial(const struct probe_point *at)
{
	const picard_model *m = at->model;
	double *p = guard("p", m->nparams, sizeof(double), at->p, false);
	double *x0 = guard("x0", m->dim, sizeof(double), NULL, true);

	m->initial(p, x0);
}

static bool has_invariants(const picard_model *m) { return m->invariants && m->ninvariants > 0; }

static void call_invariants(const struct probe_point *at)
{
	const picard_model *m = at->model;
	double *x = guard("x", m->dim, sizeof(double), at->x, false);
	double *p = guard("p", m->nparams, sizeof(double), at->p, false);
	double *out = guard("out", m->ninvariants, sizeof(double), NULL, true);

	m->invariants(x, p, out);
}

static bool has_nonlinear(const picard_model *m) { return m->op && m->op->nonlinear; }

static void call_nonlinear(const struct probe_point *at)
{
	const picard_model *m = at->model;
	double *x = guard("x", m->dim, sizeof(double), at->x, false);
	double *p = guard("p", m->nparams, sizeof(double), at->p, false);
	double *g = guard("g", m->dim, sizeof(double), NULL, true);

	m->op->nonlinear(at->t, x, p, g);
}

static bool has_events(const picard_model *m) { return m->events && m->events->g; }

static void call_events(const struct probe_point *at)
{
	const picard_model *m = at->model;
	double *x = guard("x", m->dim, sizeof(double), at->x, false);
	double *p = guard("p", m->nparams, sizeof(double), at->p, false);
	double *g = guard("g", m->events->count, sizeof(double), NULL, true);

	m->events->g(at->t, x, p, g);
}

static bool has_jump(const picard_model *m) { return m->events && m->events->jump; }

/* Each event's jump: x and p are its input and its output, written in
 * place (a jump may change the member's parameters). */
static void call_jump(const struct probe_point *at)
{
	const picard_model *m = at->model;

	for (int k = 0; k < m->events->count; k++) {
		if (m->events->actions[k] != PICARD_EVENT_JUMP)
			continue;
		double *x = guard("x", m->dim, sizeof(double), at->x, false);
		double *p = guard("p", m->nparams, sizeof(double), at->p, false);
		char what[96];

		for (int a = narrays - 2; a < narrays; a++) { /* in place: no const check */
			free(arrays[a].copy);
			arrays[a].copy = NULL;
		}
		m->events->jump(k, at->t, x, p);
		snprintf(what, sizeof(what), "jump of event %d at t = %.17g", k, at->t);
		check_arrays(what);
		release(); /* each event's arrays of their own */
	}
}

static const struct probed_function probed_functions[] = {
	{"rhs (double)", true, always, call_rhs_double},
	{"rhs (float)", true, always, call_rhs_float},
	{"jacobian", true, small_jacobian, call_jacobian},
	{"exact", true, has_exact, call_exact},
	{"invariants", false, has_invariants, call_invariants},
	{"nonlinear", true, has_nonlinear, call_nonlinear},
	{"events", true, has_events, call_events},
	{"jump", true, has_jump, call_jump},
	{NULL, false, NULL, NULL},
};

/* One function at one point in the current layout; on a fault, its
 * message to the parent and the child's end. */
static void probe_one(const struct probed_function *f, const struct probe_point *at)
{
	const struct guarded *array;
	char what[128];
	long index;

	if (f->timed)
		snprintf(what, sizeof(what), "%s at t = %.17g", f->name, at->t);
	else
		snprintf(what, sizeof(what), "%s", f->name);
	say("stage %s", what);
	if (sigsetjmp(fault_jump, 1) == 0) {
		f->call(at);
		check_arrays(what);
		release();
		return;
	}
	if (fault_signal == SIGSEGV && locate((const void *)fault_address, &array, &index)) {
		const char *verb = fault_writes > 0 ? "writes" : fault_writes == 0 ? "reads" :
			"accesses";

		if (array->count > 0)
			say("error %s %s %s[%ld] out of bounds: %s has %ld entries, %s[0] .. %s[%ld]",
			    what, verb, array->name, index, array->name, array->count, array->name,
			    array->name, array->count - 1);
		else
			say("error %s %s %s[%ld] out of bounds: %s has 0 entries", what, verb,
			    array->name, index, array->name);
	} else {
		say("error %s crashed with %s%s", what, strsignal(fault_signal),
		    fault_signal == SIGSEGV ?
		    " outside its arguments (a stack overflow, or an address of its own)" : "");
	}
	_exit(0);
}

/* The child: every function declared, at t0 and t1, in both layouts. */
static void probe_child(const picard_model *model, int fd)
{
	static char altstack[64 * 1024];
	const stack_t stack = {.ss_sp = altstack, .ss_size = sizeof(altstack)};
	struct sigaction action = {.sa_sigaction = on_fault, .sa_flags = SA_SIGINFO | SA_ONSTACK};
	const int signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
	double *x = calloc((size_t)model->dim, sizeof(double));
	const double *p = model->param_defaults;
	struct probe_point at = {model, model->t0, x, p};

	report_fd = fd;
	alarm(30 * PROBE_SECONDS); /* should the parent be gone */
	sigaltstack(&stack, NULL);
	sigemptyset(&action.sa_mask);
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		sigaction(signals[i], &action, NULL);
	if (!x)
		_exit(3);
	for (layout = 0; layout < 2; layout++) {
		if (has_initial(model)) {
			at.t = model->t0;
			probe_one(&(struct probed_function){"initial", false, has_initial, call_initial}, &at);
		}
		picard_model_start(model, p, x); /* the start state, from the checked initial */
		for (int w = 0; w < 2; w++) {
			at.t = w ? model->t1 : model->t0;
			for (const struct probed_function *f = probed_functions; f->name; f++)
				if (f->declared(model))
					probe_one(f, &at);
		}
	}
	say("ok");
	_exit(0);
}

/* ---- the parent: the child's lines, with a deadline per function ---------------- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int picard_model_probe(const picard_model *model)
{
	const char *file = model->impl->source_path ? model->impl->source_path : model->name;
	char buf[8192], stage[256] = "its first function";
	size_t used = 0;
	double deadline;
	int fds[2], status = 0, err = PICARD_OK;
	bool done = false;
	pid_t child;

	if (pipe2(fds, O_CLOEXEC) != 0)
		return picard_fail(PICARD_EIO, "%s: the guarded evaluation: pipe: %s", file,
				   strerror(errno));
	child = fork();
	if (child < 0) {
		close(fds[0]);
		close(fds[1]);
		return picard_fail(PICARD_EIO, "%s: the guarded evaluation: fork: %s", file,
				   strerror(errno));
	}
	if (child == 0) {
		close(fds[0]);
		probe_child(model, fds[1]);
	}
	close(fds[1]);
	deadline = now() + PROBE_SECONDS;
	while (!done && !err) {
		struct pollfd poll_fd = {.fd = fds[0], .events = POLLIN};
		const double left = deadline - now();
		const int ready = left > 0 ? poll(&poll_fd, 1, (int)(1000 * left) + 1) : 0;
		char *line, *newline;
		ssize_t n;

		if (ready < 0 && errno == EINTR)
			continue;
		if (ready == 0) {
			if (now() < deadline)
				continue;
			err = picard_fail(PICARD_EINVAL, "%s: %s did not return within %d s on its "
					  "first evaluation (the model's defaults): stopped. An "
					  "endless loop? (docs/models.md, what a right-hand side must "
					  "not do)", file, stage, PROBE_SECONDS);
			break;
		}
		n = read(fds[0], buf + used, sizeof(buf) - 1 - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* the child ended */
		used += (size_t)n;
		buf[used] = '\0';
		for (line = buf; (newline = strchr(line, '\n')); line = newline + 1) {
			*newline = '\0';
			if (!strncmp(line, "stage ", 6)) {
				snprintf(stage, sizeof(stage), "%s", line + 6);
				deadline = now() + PROBE_SECONDS;
			} else if (!strncmp(line, "error ", 6)) {
				err = picard_fail(PICARD_EINVAL, "%s: %s (a guarded evaluation on the "
						  "host at the model's defaults; docs/models.md, what a "
						  "right-hand side must not do)", file, line + 6);
			} else if (!strcmp(line, "ok")) {
				done = true;
			}
		}
		used -= (size_t)(line - buf);
		memmove(buf, line, used);
	}
	close(fds[0]);
	if (!done)
		kill(child, SIGKILL);
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	if (!done && !err)
		err = picard_fail(PICARD_EINVAL, "%s: %s ended the guarded evaluation (%s): it "
				  "crashed", file, stage, WIFSIGNALED(status) ?
				  strsignal(WTERMSIG(status)) : "no report");
	return err;
}
