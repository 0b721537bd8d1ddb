/* portable.h - the headers a model file includes are read by three
 * compilers: nvcc, NVRTC (device code only, the kernels compiled at run
 * time: src/jit.c) and the system C++ compiler (host code only: the CPU
 * backend's side of a model, built without the CUDA toolkit). For the
 * last, the CUDA qualifiers of functions written once for both mean
 * nothing. */
#ifndef PICARD_PORTABLE_H
#define PICARD_PORTABLE_H

#if !defined(__CUDACC__)
#ifndef __host__ /* the CUDA runtime's headers, read first, define them */
#define __host__
#endif
#ifndef __device__
#define __device__
#endif
#endif

/* Host-device templates that call a functor of either kind: nvcc would
 * warn on the instantiations it cannot use; gcc does not know the pragma. */
#if defined(__CUDACC__)
#define PICARD_EXEC_CHECK_DISABLE _Pragma("nv_exec_check_disable")
#else
#define PICARD_EXEC_CHECK_DISABLE
#endif

/* A double add and multiply rounded each on its own, never fused: the
 * host's arithmetic. nvcc would contract a*b + c into one fma, whose
 * single rounding gives other bits than the host where both must agree
 * (the error estimate's comparison, the ensemble's draw). */
#ifdef __CUDA_ARCH__
#define PICARD_ADD_RN(a, b) __dadd_rn(a, b)
#define PICARD_MUL_RN(a, b) __dmul_rn(a, b)
#else
#define PICARD_ADD_RN(a, b) ((a) + (b))
#define PICARD_MUL_RN(a, b) ((a) * (b))
#endif

#endif
