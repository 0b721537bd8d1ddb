/* cuda_imex.c - the imex schemes on the CUDA backend: a chunk's linear
 * solves batched by their engine (engine.cu, imex_gpu.h), which this part
 * creates for the settled linear solver and runs. */
#include <stdio.h>
#include <string.h>

#include "cuda_solver.h"
#include "errors.h"
#include "imex.h"
#include "imex_gpu.h"
#include "krylov/krylov.h"
#include "model_impl.h"
#include "scheme.h"
#include "tridiag/tridiag.h"

/* Its own loop of launches (src/schemes/imex/engine.cu): a thread per member
 * in its kernels, no layout to choose. */
static void imex_layout(picard_grid *grid, const picard_options_layout *asked, int dim,
			long ntraj, int sms)
{
	(void)asked, (void)dim, (void)ntraj, (void)sms;
	grid->layout = PICARD_LAYOUT_THREAD;
	grid->scan = PICARD_SCAN_AUTO;
	grid->traj_per_block = PICARD_CUDA_THREAD_BLOCK;
}

/* The run-time compiled part, k on the faces and g (imex_kernel.cuh): one
 * instance a model, in double; none for a registered model without an
 * operator. */
static int imex_instance(const picard_grid *grid, const struct picard_launch *L,
			 const char *model, const char *real, char *buf, size_t len)
{
	const picard_model *registered = picard_model_find(model);

	(void)grid, (void)L;
	if (strcmp(real, "double") != 0)
		return picard_fail(PICARD_EINVAL, "the imex schemes run in double");
	if (registered && !registered->op)
		return picard_fail(PICARD_EINVAL, "model %s declares no linear operator", model);
	snprintf(buf, len, "picard::picard_imex_kernel<%s>", model);
	return PICARD_OK;
}

/* Whether the settled linear solver is a Krylov method (else tridiagonal). */
static bool imex_krylov(const picard_grid *grid)
{
	return krylov_method_named(picard_linsolver_name(grid->linsolve)) != NULL;
}

static size_t imex_traj_bytes(const picard_grid *grid, int n)
{
	return imex_gpu_member_bytes(n, grid, picard_imex_method_of(grid->scheme)->stages,
				     imex_krylov(grid));
}

/* The engine for a chunk: the scheme's stages (src/schemes/imex/imex.h) and the
 * settled linear solver's GPU method (src/linsolve/gpu/tridiag/, src/linsolve/gpu/krylov/,
 * by the host list's names). */
static int imex_upload(struct picard_cuda_solver *cuda, long chunk, int sm_count,
		       int kernel_threads)
{
	const struct picard_imex_method *method = picard_imex_method_of(cuda->grid.scheme);
	const char *name = picard_linsolver_name(cuda->grid.linsolve);
	struct imex_gpu_tableau tab;
	struct imex_gpu_linsolve lin;
	struct imex_gpu *engine = NULL;
	int err;

	(void)sm_count, (void)kernel_threads;
	tab.stages = method->stages;
	tab.gamma = method->gamma;
	for (int q = 0; q < 2; q++) {
		tab.c[q] = q < method->stages ? method->c[q] : 0;
		tab.carry[q] = q < method->stages ? method->carry[q] : 0;
	}
	lin.tridiag = tridiag_method_named(name);
	lin.krylov = krylov_method_named(name);
	lin.precond = lin.krylov ?
		krylov_precond_named(picard_preconditioner_name(cuda->grid.precond)) : NULL;
	lin.rtol = cuda->grid.linsolve_rtol;
	lin.maxit = cuda->grid.linsolve_maxit;
	if (!lin.tridiag && !(lin.krylov && lin.precond))
		return picard_fail(PICARD_EINVAL, "--linsolve %s --precond %s: not on the GPU "
				   "(thomas, checkerboard, pcr, cusparse; cg, bicgstab with none, "
				   "jacobi or neumann); --backend cpu", name ? name : "?",
				   picard_preconditioner_name(cuda->grid.precond) ?
				   picard_preconditioner_name(cuda->grid.precond) : "?");
	err = imex_gpu_create(&engine, cuda->model, &cuda->grid, &tab, &lin, chunk);
	cuda->own = engine;
	return err;
}

/* The chunk's solve; the first failed linear solve noted for the
 * solver's detail, as the CPU backend notes it. */
static int imex_run(struct picard_cuda_solver *cuda, const struct picard_launch *L)
{
	struct imex_gpu_failure first;
	int err = imex_gpu_run(cuda->own, picard_cuda_kernel_of(cuda, L), L, &first);

	if (!err && first.member >= 0 && cuda->job)
		picard_note_failure(cuda->job, L->traj_offset + first.member, "%s", first.message);
	return err;
}

static void imex_release(void *own)
{
	imex_gpu_free(own);
}

const struct picard_cuda_scheme picard_cuda_imex = {
	.layout = imex_layout,
	.instance = imex_instance,
	.group = picard_cuda_one_lane,
	.threads_per_traj = picard_cuda_one_thread_each,
	.block_threads = picard_cuda_traj_per_block,
	.upload = imex_upload,
	.traj_bytes = imex_traj_bytes,
	.run = imex_run,
	.release = imex_release,
};
