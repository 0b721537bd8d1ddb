/* stddef.h for NVRTC (src/jit.c): size_t is built in. */
