/* portable.h - the headers a model file includes are read by three
 * compilers: nvcc, NVRTC (device code only, the kernels compiled at run
 * time: src/jit.c) and the system C++ compiler (host code only: the CPU
 * backend's side of a model, built without the CUDA toolkit). For the
 * last, the CUDA qualifiers of functions written once for both mean
 * nothing. */
#ifndef PICARD_PORTABLE_H
#define PICARD_PORTABLE_H

#if !defined(__CUDACC__)
#define __host__
#define __device__
#endif

/* Host-device templates that call a functor of either kind: nvcc would
 * warn on the instantiations it cannot use; gcc does not know the pragma. */
#if defined(__CUDACC__)
#define PICARD_EXEC_CHECK_DISABLE _Pragma("nv_exec_check_disable")
#else
#define PICARD_EXEC_CHECK_DISABLE
#endif

#endif
