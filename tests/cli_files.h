/* cli_files.h - reading what picard-run writes, for the tests that check
 * its values: lines of text, the CSV of final or saved states, and the
 * .npy array (its header parsed, its data read back). */
#ifndef PICARD_TESTS_CLI_FILES_H
#define PICARD_TESTS_CLI_FILES_H

#include <stddef.h>

/* Lines in text (each ending in '\n'). */
long count_lines(const char *text);
/* Line number lineno (0-based) of text into buf, without its '\n'; the
 * test fails when there is none. */
void nth_line(const char *text, long lineno, char *buf, size_t len);
/* A saved-times CSV: header "t,traj,status,x1,...", then ntraj rows per
 * time, time by time, every trajectory ok; the times into times[ntimes]
 * and the states into x[time][traj][k] (ntraj, n given). */
void read_saved_csv(const char *path, long ntimes, long ntraj, int n, double *times, double *x);
/* The final-states CSV of ntraj trajectories of n components, each ok,
 * into x. */
void read_final_csv(const char *path, long ntraj, int n, double *x);
/* A .npy file of float64 values, little-endian, C order: its header is
 * checked (magic, version 1.0, a dictionary padded to 64 bytes ending in
 * '\n', descr '<f8', fortran_order False, the given shape string such
 * as "(5, 4, 2)"), and its values values into data. */
void read_npy(const char *path, const char *shape, size_t values, double *data);

#endif
