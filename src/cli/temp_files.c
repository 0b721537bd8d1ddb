/* temp_files.c - the temporary files a signal removes (temp_files.h). The
 * handler may run at any instruction, so it reads only what is fully
 * written: each slot's path is copied in while this thread blocks the
 * signals, then published by a flag of type sig_atomic_t after a fence
 * (another thread, an OpenMP worker, may take the signal); it calls only
 * async-signal-safe functions (unlink, sigaction, raise: POSIX.1-2017
 * 2.4.3), then re-raises the signal with its default action, so the
 * process ends as that signal would have ended it (status 128 + signo in
 * a shell). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "temp_files.h"

#define SLOTS 4       /* an output, its .npy status file, and spare */
#define PATH_BYTES 4096

static const int signals[] = {SIGINT, SIGTERM, SIGHUP};
#define NSIGNALS ((int)(sizeof(signals) / sizeof(signals[0])))

static char paths[SLOTS][PATH_BYTES];
static volatile sig_atomic_t in_use[SLOTS];
static int installed;
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER; /* between threads
				  (a .npy's status file is written on its own) */

static void remove_and_reraise(int signo)
{
	struct sigaction dfl;

	for (int s = 0; s < SLOTS; s++)
		if (in_use[s])
			unlink(paths[s]);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(signo, &dfl, NULL);
	/* pending until the handler returns (signo is blocked in it), then
	 * the default action ends the process */
	raise(signo);
}

/* Handlers for the signals that end a program by default; one ignored
 * when the program started (nohup) stays ignored. */
static void install(void)
{
	struct sigaction act, old;

	memset(&act, 0, sizeof(act));
	act.sa_handler = remove_and_reraise;
	sigemptyset(&act.sa_mask);
	for (int i = 0; i < NSIGNALS; i++)
		sigaddset(&act.sa_mask, signals[i]);
	for (int i = 0; i < NSIGNALS; i++)
		if (sigaction(signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(signals[i], &act, NULL);
	installed = 1;
}

/* Block the handled signals while a slot changes (set), or restore. */
static void block(int set, sigset_t *saved)
{
	sigset_t mask;

	if (!set) {
		pthread_sigmask(SIG_SETMASK, saved, NULL);
		return;
	}
	sigemptyset(&mask);
	for (int i = 0; i < NSIGNALS; i++)
		sigaddset(&mask, signals[i]);
	pthread_sigmask(SIG_BLOCK, &mask, saved);
}

int temp_files_track(const char *path)
{
	sigset_t saved;
	int slot = -1;

	if (!path || strlen(path) >= PATH_BYTES)
		return -1;
	block(1, &saved);
	pthread_mutex_lock(&slots_lock);
	if (!installed)
		install();
	for (int s = 0; s < SLOTS && slot < 0; s++)
		if (!in_use[s])
			slot = s;
	if (slot >= 0) {
		strcpy(paths[slot], path);
		atomic_thread_fence(memory_order_seq_cst);
		in_use[slot] = 1;
	}
	pthread_mutex_unlock(&slots_lock);
	block(0, &saved);
	return slot >= 0 ? 0 : -1;
}

void temp_files_forget(const char *path)
{
	sigset_t saved;

	if (!path)
		return;
	block(1, &saved);
	pthread_mutex_lock(&slots_lock);
	for (int s = 0; s < SLOTS; s++)
		if (in_use[s] && strcmp(paths[s], path) == 0)
			in_use[s] = 0;
	pthread_mutex_unlock(&slots_lock);
	block(0, &saved);
}
