/* diag.h - how the picard programs report trouble: one line on stderr
 * starting with the program's name ("picard-run: "), an optional hint line,
 * and the exit status that goes with the kind of trouble. */
#ifndef PICARD_CLI_DIAG_H
#define PICARD_CLI_DIAG_H

#include <stdio.h>

/* Returned by CLI functions for bad user input (flags, --init, --out path),
 * beside the library's negative PICARD_E... codes. */
#define CLI_EUSAGE (-100)
/* Returned by the option parsers when nothing is left to do and the
 * program exits 0: --version was printed. */
#define CLI_DONE 1

/* Exit statuses of picard-run (and picard-tune, where 1 also means that no
 * configuration meets the tolerance). */
enum cli_exit {
	CLI_EXIT_OK = 0,     /* ran, every trajectory fine, check passed */
	CLI_EXIT_FAILED = 1, /* library error, failed trajectories, check over
				--tol, output not written */
	CLI_EXIT_USAGE = 2,  /* bad flags or input files: nothing was solved */
};

/* Name the program that prints the error lines ("picard-run" until set);
 * name must outlive every later call. */
void cli_set_program(const char *name);
/* Print "<program>: <message>" on stderr and return err. */
int cli_error(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print "<program>: warning: <message>" on stderr: trouble that does not
 * stop the program. */
void cli_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "hint: <message>" on stderr after an error line. */
void cli_hint(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Report a library error err as "<program>: <strerror>: <detail>" and
 * return err. */
int cli_library_error(int err);

#endif
