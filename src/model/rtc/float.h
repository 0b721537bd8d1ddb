/* float.h for NVRTC (src/jit.c), which has no C library. */
#define FLT_EPSILON 1.19209290e-7F
#define FLT_MAX 3.40282347e+38F
#define DBL_EPSILON 2.2204460492503131e-16
#define DBL_MAX 1.7976931348623157e+308
