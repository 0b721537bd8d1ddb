/* jit.h - a model's kernels compiled at run time by NVRTC, one template
 * instance at a time, cached on disk (src/model/jit.c). */
#ifndef PICARD_JIT_H
#define PICARD_JIT_H

#include "picard.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kernel of model instantiated as expression (the template with its
 * arguments: "picard_warp_kernel<lotka, float, true, false>"), compiled for
 * the current device, as a cudaKernel_t for cudaLaunchKernel and
 * cudaFuncGetAttributes. Compiled once per process and content: later
 * calls, and later processes through the cache, load it. */
int picard_jit_kernel(const picard_model *model, const char *expression, const void **kernel);

/* Compile the count instances named by expressions for the current
 * device into the cache, in parallel (one thread per core), without
 * loading them: later solves find them there. */
int picard_jit_precompile(const picard_model *model, const char *const *expressions, int count);

/* The same, in order, starting no further compilation once *stop is set
 * (those begun finish). */
int picard_jit_precompile_until(const picard_model *model, const char *const *expressions,
				int count, const volatile int *stop);

/* Compile model's right-hand side for the device in float and double (no
 * device needed): its file's device-side errors, with file and line,
 * before a solve needs a kernel. Cached like the kernels. */
int picard_jit_check(const picard_model *model);

/* The same for the check kernel template named (picard::jacobian_check:
 * the Jacobian, the model's or the automatic one, on the device). */
int picard_jit_check_kernel(const picard_model *model, const char *kernel);

/* In this process: seconds NVRTC spent, its compilations (kernels and
 * checks), and kernels taken from the cache (for picard-run's report). */
void picard_jit_stats(double *compile_seconds, long *compiled, long *cached);

#ifdef __cplusplus
}
#endif

#endif
