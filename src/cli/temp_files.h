/* temp_files.h - temporary output files removed when SIGINT or SIGTERM
 * (or SIGHUP) ends the program: output.c writes FILE.XXXXXX and renames it
 * into place, and a run killed before that must not leave it behind. */
#ifndef PICARD_CLI_TEMP_FILES_H
#define PICARD_CLI_TEMP_FILES_H

/* Remove path (a copy is kept) if a signal ends the program before
 * temp_files_forget(path); the handlers are installed on the first call.
 * Returns 0, or -1 when every slot is taken (the file is then not
 * tracked). */
int temp_files_track(const char *path);
/* Stop tracking path: it was renamed into place or removed. */
void temp_files_forget(const char *path);

#endif
