/* math.h for NVRTC (src/jit.c), which has no C library: its device math
 * functions are built in; the macros are what the kernels use. */
#define INFINITY __int_as_float(0x7f800000)
#define NAN __int_as_float(0x7fffffff)
