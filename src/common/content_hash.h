/* content_hash.h - what names a compiled file in picard's cache (src/model/jit.c,
 * src/model/model_load.c): a hash of everything that went into it. */
#ifndef PICARD_CONTENT_HASH_H
#define PICARD_CONTENT_HASH_H

#include <stddef.h>
#include <stdint.h>

#define PICARD_HASH_SEED 14695981039346656037ull /* FNV-1a's offset basis */

/* 64-bit FNV-1a of h continued over n bytes, then over n itself, so that
 * inputs hashed one after the other stay apart ("ab","c" != "a","bc"). */
static inline uint64_t picard_hash(uint64_t h, const void *data, size_t n)
{
	const unsigned char *c = (const unsigned char *)data;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 1099511628211ull;
	for (int i = 0; i < 8; i++)
		h = (h ^ (n >> 8 * i & 0xff)) * 1099511628211ull;
	return h;
}

#endif
