/* progress.c - see progress.h. A watcher thread, started with the first
 * phase, wakes four times a second: it says each phase that has run
 * PICARD_PROGRESS_AFTER seconds once (not a terminal) or redraws the
 * terminal line; beginning and ending a phase only mark it, so work that
 * ends sooner costs a lock and nothing on stderr. */
#define _DEFAULT_SOURCE /* TIOCGWINSZ */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

#define PROGRESS_SLOTS 16            /* phases at once; more are not said */
#define PROGRESS_TICK_NS 250000000L  /* the watcher's period */

/* One phase of work. */
struct phase {
	bool active;         /* begun and not ended */
	bool said;           /* its line was printed (not a terminal) */
	double start;        /* when it began, monotonic seconds */
	unsigned long order; /* the how-manyth begun: a terminal shows the latest */
	char what[200];      /* what it does */
	char detail[160];    /* where it is at, or "" */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool enabled;          /* picard_progress_enable() was called */
static bool tty;              /* stderr is a terminal */
static bool watching;         /* the watcher thread runs */
static char program[64];      /* the lines' prefix */
static struct phase phases[PROGRESS_SLOTS];
static unsigned long begun;   /* phases begun so far */
static int shown;             /* characters of the terminal line now */
static char drawn[512];       /* the terminal line now: not drawn again */

static double now_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Blank the terminal line (lock held). */
static void clear_line(void)
{
	if (shown)
		fprintf(stderr, "\r%*s\r", shown, "");
	shown = 0;
	drawn[0] = '\0';
}

/* The terminal's columns (80 when it does not say), at most a line's. */
static int width(void)
{
	struct winsize size;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) != 0 || size.ws_col < 20)
		return 80;
	return size.ws_col < 512 ? size.ws_col : 512;
}

/* Say what is due at time now (lock held): each phase past the delay
 * once, or the terminal line of the latest phase while the oldest is
 * past it. */
static void draw(double now)
{
	const struct phase *latest = NULL;
	double oldest = now;
	char line[512];
	int len;

	for (int i = 0; i < PROGRESS_SLOTS; i++) {
		struct phase *p = &phases[i];

		if (!p->active)
			continue;
		if (!tty && !p->said && now - p->start >= PICARD_PROGRESS_AFTER) {
			fprintf(stderr, "%s: %s ...\n", program, p->what);
			p->said = true;
		}
		if (p->start < oldest)
			oldest = p->start;
		if (!latest || p->order > latest->order)
			latest = p;
	}
	if (!tty || !latest || now - oldest < PICARD_PROGRESS_AFTER)
		return;
	len = snprintf(line, sizeof(line), "%s: %s ... %.0f s%s%s", program, latest->what,
		       now - latest->start, latest->detail[0] ? ", " : "", latest->detail);
	/* within the terminal's width, or the carriage return cannot
	 * take the line back */
	if (len >= width())
		len = width() - 1;
	line[len] = '\0';
	if (!strcmp(line, drawn))
		return;
	fprintf(stderr, "\r%s%*s", line, shown > len ? shown - len : 0, "");
	fflush(stderr);
	shown = len;
	memcpy(drawn, line, (size_t)len + 1);
}

/* The watcher: draw() every tick, for as long as the process runs. */
static void *watch(void *unused)
{
	(void)unused;
	for (;;) {
		struct timespec tick = {.tv_sec = 0, .tv_nsec = PROGRESS_TICK_NS};

		nanosleep(&tick, NULL);
		pthread_mutex_lock(&lock);
		draw(now_seconds());
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

void picard_progress_enable(const char *name)
{
	pthread_mutex_lock(&lock);
	snprintf(program, sizeof(program), "%s", name);
	tty = isatty(STDERR_FILENO);
	enabled = true;
	pthread_mutex_unlock(&lock);
}

int picard_progress_begin(const char *fmt, ...)
{
	int handle = -1;
	va_list ap;

	pthread_mutex_lock(&lock);
	for (int i = 0; enabled && i < PROGRESS_SLOTS && handle < 0; i++)
		if (!phases[i].active)
			handle = i;
	if (handle >= 0) {
		struct phase *p = &phases[handle];

		va_start(ap, fmt);
		vsnprintf(p->what, sizeof(p->what), fmt, ap);
		va_end(ap);
		p->active = true;
		p->said = false;
		p->start = now_seconds();
		p->order = ++begun;
		p->detail[0] = '\0';
		if (!watching) {
			pthread_t thread;
			pthread_attr_t attr;

			pthread_attr_init(&attr);
			pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
			watching = pthread_create(&thread, &attr, watch, NULL) == 0;
			pthread_attr_destroy(&attr);
		}
	}
	pthread_mutex_unlock(&lock);
	return handle;
}

bool picard_progress_detail(const char *text)
{
	struct phase *latest = NULL;

	pthread_mutex_lock(&lock);
	for (int i = 0; i < PROGRESS_SLOTS; i++)
		if (phases[i].active && (!latest || phases[i].order > latest->order))
			latest = &phases[i];
	if (latest)
		snprintf(latest->detail, sizeof(latest->detail), "%s", text);
	pthread_mutex_unlock(&lock);
	return enabled;
}

void picard_progress_end(int handle)
{
	bool any = false;

	if (handle < 0 || handle >= PROGRESS_SLOTS)
		return;
	pthread_mutex_lock(&lock);
	phases[handle].active = false;
	for (int i = 0; i < PROGRESS_SLOTS; i++)
		any |= phases[i].active;
	if (tty && !any)
		clear_line();
	else if (tty)
		draw(now_seconds());
	if (tty)
		fflush(stderr);
	pthread_mutex_unlock(&lock);
}
