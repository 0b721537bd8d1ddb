/* stdbool.h for NVRTC (src/jit.c): C++ has bool. */
