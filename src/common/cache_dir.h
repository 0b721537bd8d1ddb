/* cache_dir.h - where picard keeps what it computes once: the tuning
 * cache (src/tune/tune_cache.c) and the run-time compiled models and kernels
 * (src/model/jit.c, src/model/model_load.c). */
#ifndef PICARD_CACHE_DIR_H
#define PICARD_CACHE_DIR_H

#include <stddef.h>

/* $PICARD_CACHE_DIR, else $XDG_CACHE_HOME/picard (absolute only, as the
 * XDG spec says), else $HOME/.cache/picard, into buf. */
int picard_cache_dir(char *buf, size_t len);

/* Where compiled models and kernels go: $PICARD_JIT_CACHE_DIR, else
 * picard_cache_dir(). Their names are hashes of what went in, so a test
 * that points PICARD_CACHE_DIR elsewhere (its own tuning cache) may still
 * share them. */
int picard_jit_cache_dir(char *buf, size_t len);

/* mkdir -p dir. */
int picard_make_dirs(const char *dir);

/* Write len bytes to path atomically: a temporary file beside it, renamed
 * over it, so a reader in another process sees all of it or none. */
int picard_write_atomic(const char *path, const void *data, size_t len);

/* The whole of a file, NUL-terminated (*len without the NUL, if len). */
int picard_read_file(const char *path, char **data, size_t *len);

#endif
