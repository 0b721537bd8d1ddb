/* support.h - what the tests share: a work directory per test (also the
 * tuning cache's, never the user's), reading and writing files, running a
 * program beside the test binary with its output captured, and looking up
 * models. Criterion forks per test, so the one work directory is per
 * test. */
#ifndef PICARD_TESTS_SUPPORT_H
#define PICARD_TESTS_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "picard.h"

/* /tmp/picard-PREFIX-XXXXXX, made by make_workdir(). */
extern char workdir[64];

/* Make the work directory and point PICARD_CACHE_DIR at it, or at its
 * subdirectory cache_subdir (not made) when that is not NULL. */
void make_workdir(const char *prefix, const char *cache_subdir);
/* Remove it and everything in it. */
void remove_workdir(void);
/* Remove path and everything under it (nothing when absent). */
void remove_tree(const char *path);

/* A file name, returned by value. */
struct path {
	char s[128];
};
/* Path of name inside the work directory. */
struct path in_workdir(const char *name);

/* The whole of a file as a string ("" if it cannot be read); its length
 * into *size when size is not NULL. */
char *slurp(const char *path, size_t *size);
/* Expect files a and b to hold the same bytes, a not empty. */
void expect_same_file(const char *a, const char *b);
/* Write size bytes to path (created or truncated). */
void write_file(const char *path, const void *data, size_t size);

/* The program called name beside this test binary (picard-run, ...). */
const char *program(const char *name);

/* What one run of a program did. */
struct cli_run {
	int status; /* exit status, or -1 if it did not exit normally */
	char *out;  /* its stdout */
	char *err;  /* its stderr */
};
/* Run program name with args (NULL-terminated), stdin from /dev/null,
 * stdout and stderr captured. */
struct cli_run run_program(const char *name, const char *const *args);
/* Run argv[0] (a path, or a program on PATH) with argv, NULL-terminated,
 * as run_program() runs its program. */
struct cli_run run_argv(char *const *argv);
/* The same with a blank-separated argument line ("" for none). */
struct cli_run run_program_line(const char *name, const char *line);
void free_run(struct cli_run *run);

/* A program started and not yet waited for: runs at once side by side. */
struct cli_started {
	pid_t pid;       /* its process */
	struct path out; /* where its stdout goes */
	struct path err; /* and its stderr */
};
/* Start argv as run_argv() runs it, its output into files named by tag
 * (distinct for programs running at once). */
struct cli_started start_argv(char *const *argv, const char *tag);
/* The same with program name and a blank-separated argument line. */
struct cli_started start_program_line(const char *name, const char *line, const char *tag);
/* Wait for a started program: what it did, as run_argv() says. */
struct cli_run finish_run(const struct cli_started *started);

/* Skip the test without a CUDA device, or fail it under
 * PICARD_REQUIRE_GPU=1, so a broken driver cannot hide behind a skip.
 * Call it first in a test body: inside the forked child. */
void require_gpu(void);

/* The model called name; the test fails when none is registered. */
const picard_model *test_model(const char *name);
/* A solver for ntraj trajectories of model; the test fails when it is
 * refused. */
picard_solver *test_solver(const picard_model *model, const picard_options *opt, long ntraj);
/* ntraj copies of model's default start state x0 (malloc'd). */
double *default_states(const picard_model *model, long ntraj);
/* The per-thread schemes of the list (those with a tableau, src/schemes/
 * scheme.h: one thread per trajectory, each with its own steps), in the
 * list's order, so that a test over them takes a new one without an
 * edit: all of them, the explicit pairs, or those that solve stiff
 * models (implicit: radau5, the Rosenbrock schemes). */
enum per_thread_kind { PER_THREAD_ALL, PER_THREAD_EXPLICIT, PER_THREAD_STIFF };
#define PER_THREAD_MAX 16
/* Their values into ids (PER_THREAD_MAX at most); returns how many (the
 * test fails on none). */
int per_thread_schemes(enum per_thread_kind kind, picard_scheme *ids);
/* Whether per-thread scheme id is a Rosenbrock method (linearly
 * implicit: its tableau's struct, src/schemes/rosenbrock/
 * rosenbrock_tableaus.cuh). */
bool per_thread_rosenbrock(picard_scheme id);
/* The global error that adaptive steps of per-thread scheme id at local
 * tolerance tol make, up to the problem's own constant: tol for a pair
 * that advances with its higher order, tol^(2/3) for ros23, which
 * advances with the lower order (2) of its 2(3) pair (steps ~ tol^(1/3),
 * as MATLAB's ode23s: it is for loose tolerances). */
double per_thread_error_scale(picard_scheme id, double tol);
/* x = A^-1 b for the dense n x n A (row-major; overwritten) by GSL's LU;
 * the test fails where LU does. */
void test_lu_solve(int n, double *dense, const double *b, double *x);
/* The model's own Jacobian (impl->jacobian[0]) against the automatic one
 * (dual numbers through rhs, [1]) at (x, params), folded into the worst
 * so far: *row, an entry's error relative to its row's largest automatic
 * entry; *entry, relative to the entry itself where that is at least 1e-4
 * of its row. The test fails on an entry that is not finite. */
void jacobian_against_ad(const picard_model *model, const double *params, const double *x,
			 double *row, double *entry);
/* Per component, |x_k - ref_k| / |ref_k|: the largest. */
double max_relative_error(int n, const double *x, const double *ref);

#endif
