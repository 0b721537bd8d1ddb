/* cuda_backend.cu - the CUDA side of picard_solve: device checks, the
 * solver's device memory (allocated once, in picard_cuda_create), host <->
 * device transfers with the SoA layout x[k*ntraj + i] the kernels read
 * coalesced, and the launch of the kernel instance the solve needs,
 * compiled at run time from the model's text (src/model/jit.c). Every CUDA call
 * here is checked. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "errors.h"
extern "C" {
#include "imex.h" /* plain C, without guards of its own */
}
#include "imex/imex_gpu.h"
#include "krylov/krylov.h"
#include "device_io.h"
#include "jit.h"
#include "lobatto.h"
#include "model_impl.h"
#include "newton_rules.h"
#include "scheme.h"
#include "tridiag/tridiag.h"

struct picard_cuda_solver {
	const picard_model *model;  /* what is integrated */
	picard_grid grid;           /* the fitted grid */
	picard_precision precision; /* float or double kernels */
	long chunk;                 /* trajectories the device buffers hold:
				       larger ensembles are solved in chunks */
	size_t real_size;           /* sizeof(float) or sizeof(double) */
	void *x0, *params, *x_final; /* device, real SoA [component][traj] */
	int *status;                /* device, per trajectory */
	long *fail_window;          /* device, per trajectory */
	double *fail_time;          /* device, 2 per trajectory (launch.h) */
	long *sweeps;               /* device, sweeps per trajectory */
	int *sweeps_max;            /* device, most sweeps in a window */
	const void *kernel;         /* the instance of the layout and precision */
	const void *kernel_dense;   /* the same with dense output, once needed */
	void *record_dev[PICARD_MAX_RECORDS]; /* device record buffers, kept
				       for the next solve (grown, never per solve) */
	size_t record_dev_size[PICARD_MAX_RECORDS]; /* their bytes */
	double *times_dev[PICARD_MAX_RECORDS]; /* device copies of records'
				       times, grown likewise */
	size_t times_dev_size[PICARD_MAX_RECORDS]; /* their bytes */
	void *weights_dev[PICARD_MAX_RECORDS]; /* lobatto: their dense output
				       weights, likewise */
	size_t weights_dev_size[PICARD_MAX_RECORDS]; /* their bytes */
	cudaEvent_t start, stop;    /* timing of the kernel alone */
	cudaStream_t pipe;          /* a pipelined solve's kernels (solve_pipelined) */
	cudaEvent_t pipe_start[2], pipe_stop[2]; /* their timing, a pair per half */
	cudaEvent_t inputs_ready;   /* a part's inputs on the device: the
				       copies and draws on stream 0 before it */
	/* lobatto scheme only */
	int groups_per_warp;        /* trajectories per warp */
	int block_threads;          /* threads per block of the kernel */
	void *lobatto_tables;       /* device, see picard_launch */
	/* newton scheme only: its device buffers */
	struct picard_newton_workspace newton;
	/* the imex schemes only: their engine (src/schemes/imex/) */
	struct imex_gpu *imex;
	const struct picard_job *job; /* the solve under way: its note */
};

/* Trajectories per warp of the lobatto kernel: 32/G, except for an
 * ensemble of at most 4 per multiprocessor, which cannot hide latency
 * anyway: one per warp, so that no trajectory's window waits on another's
 * sweeps (the groups of a warp diverge when their sweep counts differ). */
static int lobatto_groups_per_warp(long ntraj, int G, int sm_count)
{
	return ntraj <= 4L * sm_count ? 1 : 32 / G;
}

/* Threads per block of the lobatto kernel: 256 (8 warps), halved down to
 * one warp while the ensemble would fill fewer blocks than the device has
 * multiprocessors, so a small ensemble (kepler's 64 trajectories) still
 * spreads over many SMs; at most the kernel's limit. */
static int lobatto_block_threads(long ntraj, int groups_per_warp, int sm_count,
				 int kernel_threads)
{
	const double warps = ceil((double)ntraj / groups_per_warp);
	int threads = 256;

	while (threads > 32 && warps * 32 / threads < sm_count)
		threads /= 2;
	while (threads > 32 && threads > kernel_threads)
		threads /= 2;
	return threads;
}

/* On a CUDA error: err says what was being done (picard_cuda_fail), and
 * control goes to out. */
#define CUDA_TRY(call, what)                                                   \
	do {                                                                   \
		cudaError_t cuda_err_ = (call);                                \
		if (cuda_err_ != cudaSuccess) {                                \
			err = picard_cuda_fail(cuda_err_, what);               \
			goto out;                                              \
		}                                                              \
	} while (0)

extern "C" bool picard_cuda_available(void)
{
	int count = 0;

	return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

extern "C" void picard_cuda_warm_up(void)
{
	if (picard_cuda_available())
		cudaFree(0); /* creates the primary context */
}

extern "C" int picard_cuda_device_name(char *buf, size_t len)
{
	cudaDeviceProp prop;
	cudaError_t e = cudaGetDeviceProperties(&prop, 0);

	if (e != cudaSuccess)
		return picard_fail(PICARD_ENODEV, "no CUDA device: %s", cudaGetErrorString(e));
	snprintf(buf, len, "%s", prop.name);
	return PICARD_OK;
}

/* ---- the layout and its shape ------------------------------------------------- */

/* AUTO's rule and the warp/thread defaults, measured on an NVIDIA H100 80GB
 * HBM3 (132 SMs, driver 580.159.04), 2026-11-23, lotka in float, K = 2,
 * solve time (CUDA events) median of 7 solves, bin/bench-layouts:
 * bench/results/h100-2026-11-23/suite/layouts.csv, after the convergence
 * test became a vote without division (src/schemes/convergence.h; the first
 * measurements, before it, are in h100-2026-11-23/layouts.txt: there the
 * warp layout won at m = 8, the division having cost the thread layout,
 * which tests every node in one thread, the most).
 *
 * Which layout. 8192 trajectories, windows of length 0.42 (239 windows):
 *
 *	m      paper   warp (parallel)  warp (serial)  thread
 *	2      0.73    0.48             0.41           0.13  ms
 *	4      0.81    0.59             0.60           0.21
 *	8      1.01    0.71             0.75           0.41
 *	16     1.30    0.91             1.16           0.85
 *	32     2.86    1.63             3.36           1.69
 *
 * and m = 8, h = 0.06 over the ensemble size:
 *
 *	ntraj     paper   warp    thread
 *	8192      1.00    0.71    0.41  ms
 *	32768     3.83    2.58    0.45
 *	1048576   118     77.3    7.78
 *
 * The thread layout's time is flat until the ensemble fills the GPU; the
 * warp layout's grows with ntraj from 8192 on. The thread layout now wins
 * at 8192 for every m <= 16; at m = 32 the warp layout does, by 4%, and
 * the crossing with the ensemble size lies near 96 trajectories per SM
 * (first measurement). The paper's layout never wins where the others
 * apply. So:
 *   m > 32                                     -> paper
 *   m <= AUTO_THREAD_MAX_M, or
 *   ntraj >= AUTO_THREAD_TRAJ_PER_SM * SMs     -> thread
 *   otherwise (m of 17 to 32, small ensembles) -> warp
 * Not measured: other models (a costlier right-hand side favours the warp
 * layout, which evaluates the m nodes in parallel, and the thread layout
 * spills for kepler in double past m = 8 per ptxas); picard-tune times
 * every layout and keeps the fastest, whatever AUTO says.
 *
 * Which scan: the serial sum wins at m = 2 (0.41 vs 0.48 ms), ties at m =
 * 4, loses from m = 8 on (0.75 vs 0.71, 1.16 vs 0.91, 3.36 vs 1.63 ms).
 *
 * Trajectories per block of the warp layout, Table 1 at h = 0.06 (m = 8):
 * 1: 1.32, 2: 0.77, 4..64: 0.71 ms (within 1%); first measurement: at m =
 * 2, 4: 4 per block best, at m = 16, 32: 16 per block. The thread layout:
 * 32, 64 or 128 per block alike (0.41 ms), 256 slower (0.45). */
#define AUTO_THREAD_TRAJ_PER_SM 96   /* thread layout from this many
					trajectories per SM on */
/* The lobatto scheme's layouts, H100 2026-11-23, lotka float m = 6, 15
 * windows, iter_rtol 1e-6, bench-picard, median solve time (us):
 *
 *	ntraj      warp     thread
 *	8192       88.6     134.7
 *	65536      440.9    220.7
 *	262144     1661.9   772.9
 *	1048576    6436.6   2844.5
 *
 * The warp layout wins while its groups alone keep the SMs busy (62
 * trajectories per SM: by 1.5x), the thread layout once the ensemble does
 * (496 per SM: by 2.0x); AUTO switches at the geometric mean of the two,
 * not measured in between, and for m <= PICARD_LOBATTO_THREAD_MAX_M.
 * picard-tune times both. */
#define AUTO_LOBATTO_THREAD_TRAJ_PER_SM 176
#define AUTO_THREAD_MAX_M 16         /* and for windows this short */
/* A large state: the thread layouts hold a window's states in registers
 * (bound(m) * n reals, fisher_kpp's 8 * 32 the most a shipped model runs
 * there), the warp layout a node's state per lane (n reals, twice); past
 * these the model runs where it loops over components in shared memory
 * (the paper's m*n threads), or in the lobatto group layout. */
#define AUTO_THREAD_MAX_STATE 256
#define AUTO_WARP_MAX_DIM 32
#define AUTO_SERIAL_SCAN_MAX_M 2     /* serial sum (5) for m up to this */
#define THREAD_BLOCK_THREADS 128     /* thread layout: threads per block */

/* Warp layout: trajectories per block for G lanes each (above). */
static int warp_traj_per_block(int lanes)
{
	return lanes <= 4 ? 4 : lanes == 8 ? 8 : 16;
}

/* Smallest power of two >= m. */
static int group_lanes(int m)
{
	int g = 1;

	while (g < m)
		g <<= 1;
	return g;
}

/* A scheme on the CUDA backend (its table in src/schemes/scheme.h names it): how
 * it settles the layout, which kernels run, the block's shape and the
 * tables it uploads. */
struct picard_cuda_scheme {
	/* Settle grid->layout, traj_per_block and scan for ntraj trajectories
	 * on a device of sms multiprocessors: what was asked, or AUTO's rule
	 * (above). */
	void (*layout)(picard_grid *grid, const picard_options_layout *asked, int dim,
		       long ntraj, int sms);
	/* The kernel instance a launch runs, as the template's name with its
	 * arguments (model and real type given) into buf: src/model/jit.c compiles
	 * it. */
	int (*instance)(const picard_grid *grid, const picard_launch *L, const char *model,
			const char *real, char *buf, size_t len);
	/* Lanes per trajectory of the launch (launch_shape). */
	int (*group)(const picard_grid *grid);
	/* Threads of a block per trajectory, for the automatic block within
	 * the kernel's limit and the device's (0: the block's shape is the
	 * scheme's own, sized by its upload). */
	int (*threads_per_traj)(const picard_grid *grid, const picard_launch *L);
	/* Threads per block of a launch. */
	int (*block_threads)(const struct picard_cuda_solver *cuda, const picard_launch *L);
	/* Its tables to the device once the chunk is known, or NULL. */
	int (*upload)(struct picard_cuda_solver *cuda, long chunk, int sm_count,
		      int kernel_threads);
	/* Dense output's weights of record r to the device, or NULL. */
	int (*upload_dense)(struct picard_cuda_solver *cuda, int r, const picard_record *rec);
	/* Device bytes a trajectory needs beyond its states, or NULL. */
	size_t (*traj_bytes)(const picard_grid *grid, int dim);
	/* Run the solve of a chunk (L) itself, launches and all, or NULL:
	 * one launch of the kernel. */
	int (*run)(struct picard_cuda_solver *cuda, const picard_launch *L);
};

static const struct picard_cuda_scheme *cuda_scheme(const picard_grid *grid)
{
	return picard_scheme_of(grid->scheme)->cuda;
}

/* ---- trapezoid: the paper's, warp and thread layouts ------------------------- */

/* The thread layout's bound MAXM >= m: each bound unrolls its loops. */
static int thread_max_m(int m)
{
	return m <= 4 ? 4 : m <= 8 ? 8 : m <= 16 ? 16 : PICARD_LAYOUT_MAX_M;
}


static void trapezoid_layout(picard_grid *grid, const picard_options_layout *asked, int dim,
			     long ntraj, int sms)
{
	picard_layout layout = asked->layout;

	if (layout == PICARD_LAYOUT_AUTO)
		layout = grid->m > PICARD_LAYOUT_MAX_M || dim > AUTO_WARP_MAX_DIM ?
				 PICARD_LAYOUT_PAPER :
			 thread_max_m(grid->m) * dim > AUTO_THREAD_MAX_STATE ? PICARD_LAYOUT_WARP :
			 grid->m <= AUTO_THREAD_MAX_M ||
			 ntraj >= (long)AUTO_THREAD_TRAJ_PER_SM * sms ? PICARD_LAYOUT_THREAD :
			 PICARD_LAYOUT_WARP;
	grid->layout = layout;
	grid->scan = PICARD_SCAN_AUTO;
	grid->traj_per_block = asked->traj_per_block;
	switch (layout) {
	case PICARD_LAYOUT_WARP:
		grid->scan = asked->scan != PICARD_SCAN_AUTO ? asked->scan :
			     grid->m <= AUTO_SERIAL_SCAN_MAX_M ? PICARD_SCAN_SERIAL :
			     PICARD_SCAN_PARALLEL;
		if (!grid->traj_per_block)
			grid->traj_per_block = warp_traj_per_block(group_lanes(grid->m));
		break;
	case PICARD_LAYOUT_THREAD:
		if (!grid->traj_per_block)
			grid->traj_per_block = THREAD_BLOCK_THREADS;
		break;
	default:
		grid->traj_per_block = 1;
		break;
	}
}

/* Template flags as C++ spells them. */
static const char *flag(bool b)
{
	return b ? "true" : "false";
}

static int trapezoid_instance(const picard_grid *grid, const picard_launch *L, const char *model,
			      const char *real, char *buf, size_t len)
{
	(void)grid;
	switch (L->layout) {
	case PICARD_LAYOUT_WARP:
		snprintf(buf, len, "picard_warp_kernel<%s, %s, %s, %s>", model, real,
			 flag(L->scan != PICARD_SCAN_SERIAL), flag(L->dense));
		break;
	case PICARD_LAYOUT_THREAD:
		snprintf(buf, len, "picard_thread_kernel<%s, %s, %d, %s>", model, real,
			 thread_max_m(L->m), flag(L->dense));
		break;
	default:
		snprintf(buf, len, "picard_paper_kernel<%s, %s, %s>", model, real, flag(L->dense));
		break;
	}
	return PICARD_OK;
}

static int trapezoid_group(const picard_grid *grid)
{
	return grid->layout == PICARD_LAYOUT_WARP ? group_lanes(grid->m) : 1;
}

/* The paper's block is m*n threads for one trajectory: no automatic
 * block to size. */
static int trapezoid_threads_per_traj(const picard_grid *grid, const picard_launch *L)
{
	return grid->layout == PICARD_LAYOUT_PAPER ? 0 : L->group;
}

static int trapezoid_launch_threads(const struct picard_cuda_solver *cuda, const picard_launch *L)
{
	if (L->layout == PICARD_LAYOUT_PAPER)
		return L->m * cuda->model->dim;
	return L->traj_per_block * L->group;
}

extern "C" const struct picard_cuda_scheme picard_cuda_trapezoid = {
	trapezoid_layout, trapezoid_instance, trapezoid_group, trapezoid_threads_per_traj,
	trapezoid_launch_threads, NULL, NULL, NULL, NULL,
};

/* ---- lobatto: its group (warp) and thread layouts ----------------------------- */

/* Its own kernels: the group (warp) layout, whose block shape follows the
 * ensemble (lobatto_block_threads), or the thread layout
 * (lobatto_thread_kernel.cuh); AUTO by the ensemble (above). */
static void lobatto_layout(picard_grid *grid, const picard_options_layout *asked, int dim,
			   long ntraj, int sms)
{
	picard_layout layout = asked->layout;

	if (layout == PICARD_LAYOUT_AUTO)
		layout = grid->m <= PICARD_LOBATTO_THREAD_MAX_M &&
			 (grid->m <= 8 ? 8 : 16) * dim <= AUTO_THREAD_MAX_STATE &&
			 ntraj >= (long)AUTO_LOBATTO_THREAD_TRAJ_PER_SM * sms ?
			 PICARD_LAYOUT_THREAD : PICARD_LAYOUT_WARP;
	grid->layout = layout == PICARD_LAYOUT_THREAD ? PICARD_LAYOUT_THREAD : PICARD_LAYOUT_WARP;
	grid->scan = PICARD_SCAN_AUTO;
	grid->traj_per_block = layout != PICARD_LAYOUT_THREAD ? 0 :
			       asked->traj_per_block ? asked->traj_per_block :
			       THREAD_BLOCK_THREADS;
}

/* The group layout's instance of G = L->group lanes; the thread layout's
 * of the bound MAXM (8 or 16) >= m. */
static int lobatto_instance(const picard_grid *grid, const picard_launch *L, const char *model,
			    const char *real, char *buf, size_t len)
{
	(void)grid;
	if (L->layout == PICARD_LAYOUT_THREAD) {
		if (L->m > PICARD_LOBATTO_THREAD_MAX_M)
			return picard_fail(PICARD_EINVAL, "lobatto thread layout: m = %d, at most %d",
					   L->m, PICARD_LOBATTO_THREAD_MAX_M);
		snprintf(buf, len, "picard_lobatto_thread_kernel<%s, %s, %d, %s>", model, real,
			 L->m <= 8 ? 8 : 16, flag(L->dense));
		return PICARD_OK;
	}
	if (L->group < 2 || L->group > 32 || (L->group & (L->group - 1)))
		return picard_fail(PICARD_EINVAL, "lobatto: %d lanes per trajectory", L->group);
	snprintf(buf, len, "picard_lobatto_kernel<%s, %s, %d, %s>", model, real, L->group,
		 flag(L->dense));
	return PICARD_OK;
}

/* G lanes in both layouts: the thread layout's is only its tables' stride. */
static int lobatto_group(const picard_grid *grid)
{
	return group_lanes(grid->m);
}

/* The thread layout: one thread each; the group layout's block is sized
 * by lobatto_upload from the ensemble. */
static int lobatto_threads_per_traj(const picard_grid *grid, const picard_launch *L)
{
	(void)L;
	return grid->layout == PICARD_LAYOUT_WARP ? 0 : 1;
}

static int lobatto_launch_threads(const struct picard_cuda_solver *cuda, const picard_launch *L)
{
	(void)cuda;
	return L->layout == PICARD_LAYOUT_THREAD ? L->traj_per_block : L->block_threads;
}

static int lobatto_upload(struct picard_cuda_solver *cuda, long ntraj, int sm_count,
			  int kernel_threads);
static int upload_dense_weights(struct picard_cuda_solver *cuda, int r, const picard_record *rec);

extern "C" const struct picard_cuda_scheme picard_cuda_lobatto = {
	lobatto_layout, lobatto_instance, lobatto_group, lobatto_threads_per_traj,
	lobatto_launch_threads, lobatto_upload, upload_dense_weights, NULL, NULL,
};

/* ---- per-thread Runge-Kutta: one thread per trajectory ------------------------- */

static void rk_layout(picard_grid *grid, const picard_options_layout *asked, int dim, long ntraj,
		      int sms)
{
	(void)dim;
	(void)ntraj;
	(void)sms;
	grid->layout = PICARD_LAYOUT_THREAD;
	grid->scan = PICARD_SCAN_AUTO;
	grid->traj_per_block = asked->traj_per_block ? asked->traj_per_block : THREAD_BLOCK_THREADS;
}

/* Fixed and adaptive steps are instances of their own. */
static int rk_instance(const picard_grid *grid, const picard_launch *L, const char *model,
		       const char *real, char *buf, size_t len)
{
	snprintf(buf, len, "picard::picard_rk_kernel<%s, picard::%s, %s, %s, %s>", model,
		 picard_scheme_of(grid->scheme)->tableau, real, flag(L->dense), flag(L->adaptive));
	return PICARD_OK;
}

static int rk_group(const picard_grid *grid)
{
	(void)grid;
	return 1;
}

static int rk_threads_per_traj(const picard_grid *grid, const picard_launch *L)
{
	(void)grid;
	(void)L;
	return 1;
}

static int rk_launch_threads(const struct picard_cuda_solver *cuda, const picard_launch *L)
{
	(void)cuda;
	return L->traj_per_block;
}

/* radau5's step holds four dim x dim matrices (J, E1, E2's real and
 * imaginary parts: radau::work, src/schemes/radau5/radau5_integrate.cuh) in its
 * thread's local memory, which CUDA caps at 512 KB a thread: a larger
 * model is refused before any compile, with the reason. */
#define RADAU5_LOCAL_MAX_BYTES (512u * 1024)

static int rk_check_local(const picard_model *model, const picard_grid *grid, size_t real_size)
{
	const double bytes = 4.0 * model->dim * model->dim * real_size;

	if (grid->scheme != PICARD_SCHEME_RADAU5 || bytes <= RADAU5_LOCAL_MAX_BYTES)
		return PICARD_OK;
	return picard_fail(PICARD_EINVAL, "radau5 on the GPU: model %s (dim %d) needs %.0f KB of "
			   "local memory a thread for its step's four dim x dim matrices in %s, past "
			   "the %u KB CUDA allows: run it on the CPU backend (--backend cpu)",
			   model->name, model->dim, bytes / 1024,
			   real_size == sizeof(double) ? "double" : "float",
			   RADAU5_LOCAL_MAX_BYTES / 1024);
}

extern "C" const struct picard_cuda_scheme picard_cuda_rk = {
	rk_layout, rk_instance, rk_group, rk_threads_per_traj, rk_launch_threads, NULL, NULL, NULL,
	NULL,
};

/* ---- newton: windows across threads (src/schemes/newton/newton_kernel.cuh) -------------- */

/* Its own shape: a thread per window, a block per trajectory's step. */
static void newton_layout(picard_grid *grid, const picard_options_layout *asked, int dim,
			  long ntraj, int sms)
{
	(void)asked, (void)dim, (void)ntraj, (void)sms;
	grid->layout = PICARD_LAYOUT_THREAD;
	grid->scan = PICARD_SCAN_AUTO;
	grid->traj_per_block = 1;
}

static int newton_instance(const picard_grid *grid, const picard_launch *L, const char *model,
			   const char *real, char *buf, size_t len)
{
	(void)grid;
	if (strcmp(real, "double") != 0)
		return picard_fail(PICARD_EINVAL, "the newton scheme runs in double");
	snprintf(buf, len, "picard::picard_newton_kernel<%s, %s>", model, flag(L->dense));
	return PICARD_OK;
}

static int newton_threads_per_traj(const picard_grid *grid, const picard_launch *L)
{
	(void)grid, (void)L;
	return 0;
}

static int newton_launch_threads(const struct picard_cuda_solver *cuda, const picard_launch *L)
{
	(void)L;
	return cuda->newton.step_threads;
}

/* The scan's maps (n x n and n) of each step thread, twice, within the
 * static limit of shared memory. */
#define NEWTON_SHARED_BYTES 48000
#define NEWTON_STEP_THREADS_MAX 256

static size_t newton_map_bytes(int n)
{
	return 2 * ((size_t)n * n + n) * sizeof(double);
}

static size_t newton_traj_bytes(const picard_grid *grid, int n)
{
	const size_t B = grid->block, m = grid->m, N = (m - 1) * n;

	return B * (m * n + N * (n + 1) + 1) * sizeof(double) + 3 * B * sizeof(int) +
	       n * sizeof(double) + sizeof(struct picard_newton_control);
}

/* Windows per block of the linearisation: as many warps as the shared
 * memory holds windows, at most NEWTON_LINEARISE_WARPS_MAX. */
#define NEWTON_LINEARISE_WARPS_MAX 4

static size_t newton_window_bytes(const struct picard_cuda_solver *cuda)
{
	const int n = cuda->model->dim, m = cuda->grid.m;

	return picard_newton_window_reals((m - 1) * n, n, m) * sizeof(double);
}

static int newton_upload(struct picard_cuda_solver *cuda, long chunk, int sm_count,
			 int kernel_threads)
{
	struct picard_newton_workspace *ws = &cuda->newton;
	const int n = cuda->model->dim, m = cuda->grid.m, B = cuda->grid.block;
	const size_t N = (size_t)(m - 1) * n, windows = (size_t)chunk * B;
	int T = NEWTON_STEP_THREADS_MAX, err = lobatto_upload(cuda, chunk, sm_count, kernel_threads);

	if (err)
		return err;
	while (T > 1 && (T * newton_map_bytes(n) > NEWTON_SHARED_BYTES || T > kernel_threads))
		T /= 2;
	if (T * newton_map_bytes(n) > NEWTON_SHARED_BYTES)
		return picard_fail(PICARD_EINVAL, "the newton scheme's scan holds a map of %d x %d "
				   "reals per thread in shared memory: at most %d components on the "
				   "GPU (--backend cpu runs any)", n, n, 50);
	if (newton_window_bytes(cuda) > NEWTON_SHARED_BYTES)
		return picard_fail(PICARD_EINVAL, "the newton scheme's linear system of a window, "
				   "(m-1) n = %zu unknowns, takes %zu bytes of shared memory, over %d: "
				   "fewer nodes (--m) or --backend cpu", N, newton_window_bytes(cuda),
				   NEWTON_SHARED_BYTES);
	ws->B = B;
	ws->N = (int)N;
	ws->step_threads = T;
	ws->linearise_warps = NEWTON_LINEARISE_WARPS_MAX;
	while (ws->linearise_warps > 1 &&
	       ws->linearise_warps * newton_window_bytes(cuda) > NEWTON_SHARED_BYTES)
		ws->linearise_warps--;
	CUDA_TRY(cudaMalloc(&ws->X, windows * m * n * sizeof(double)), "newton: device memory");
	CUDA_TRY(cudaMalloc(&ws->R, windows * N * (n + 1) * sizeof(double)), "newton: device memory");
	CUDA_TRY(cudaMalloc(&ws->start, chunk * n * sizeof(double)), "newton: device memory");
	CUDA_TRY(cudaMalloc(&ws->change, windows * sizeof(double)), "newton: device memory");
	CUDA_TRY(cudaMalloc(&ws->slope, windows * sizeof(double)), "newton: device memory");
	CUDA_TRY(cudaMalloc(&ws->age, windows * sizeof(int)), "newton: device memory");
	CUDA_TRY(cudaMalloc(&ws->linearised, windows * sizeof(int)), "newton: device memory");
	CUDA_TRY(cudaMalloc(&ws->trusted, windows * sizeof(int)), "newton: device memory");
	CUDA_TRY(cudaMalloc(&ws->ctl, chunk * sizeof(*ws->ctl)), "newton: device memory");
	ws->predicted = NULL;
	if (picard_scheme_of(cuda->grid.scheme)->solves_stiff) /* the predictor check */
		CUDA_TRY(cudaMalloc(&ws->predicted, windows * n * sizeof(double)),
			 "newton: device memory");
	CUDA_TRY(cudaMalloc(&ws->ndone, sizeof(int)), "newton: device memory");
out:
	return err;
}

static void newton_free(struct picard_newton_workspace *ws)
{
	cudaFree(ws->X), cudaFree(ws->R), cudaFree(ws->start);
	cudaFree(ws->change), cudaFree(ws->slope), cudaFree(ws->age), cudaFree(ws->linearised), cudaFree(ws->trusted);
	cudaFree(ws->ctl), cudaFree(ws->ndone), cudaFree(ws->predicted);
}

/* Iterations between two looks at how many trajectories are done: the
 * launches run ahead of the host meanwhile (a finished trajectory's
 * phases return at once). */
#define NEWTON_POLL 8

/* PICARD_NEWTON_PROFILE=1: each phase timed on its own (events around
 * every launch, which serialises them: the sum is slower than a plain
 * solve), reported on stderr after the solve: where an iteration's time
 * goes (bench/newton). */
struct newton_profile {
	bool on;
	cudaEvent_t mark[2];
	float ms[2];      /* linearise, step */
	long launches[2];
};

static void newton_profile_phase(struct newton_profile *prof, int phase, cudaStream_t stream,
				 bool after)
{
	float ms = 0;

	if (!prof->on)
		return;
	cudaEventRecord(prof->mark[after], stream);
	if (!after)
		return;
	cudaEventSynchronize(prof->mark[1]);
	cudaEventElapsedTime(&ms, prof->mark[0], prof->mark[1]);
	prof->ms[phase - 1] += ms;
	prof->launches[phase - 1]++;
}

/* The host loop: start, then linearise and step until every trajectory
 * of the chunk is done. Each window is the block's first for at most K
 * iterations, so the loop is bounded. */
static int newton_run(struct picard_cuda_solver *cuda, const picard_launch *L)
{
	struct newton_profile prof = {};
	const struct picard_newton_workspace *ws = &cuda->newton;
	const void *kernel = L->dense ? cuda->kernel_dense : cuda->kernel;
	const long per_traj = (ws->B + ws->linearise_warps - 1) / ws->linearise_warps;
	const size_t linearise_shared = ws->linearise_warps * newton_window_bytes(cuda);
	const double limit = (double)L->windows * (L->K + 2) + NEWTON_POLL;
	const size_t shared = (size_t)ws->step_threads * newton_map_bytes(cuda->model->dim);
	cudaStream_t stream = (cudaStream_t)L->stream;
	int phase = 0, done = 0, err = PICARD_OK;
	void *args[] = { (void *)L, (void *)ws, &phase };

	prof.on = getenv("PICARD_NEWTON_PROFILE") != NULL;
	for (int i = 0; prof.on && i < 2; i++)
		CUDA_TRY(cudaEventCreate(&prof.mark[i]), "cudaEventCreate");
	CUDA_TRY(cudaMemsetAsync(ws->ndone, 0, sizeof(int), stream), "cudaMemset");
	CUDA_TRY(cudaLaunchKernel(kernel, dim3((unsigned)((L->ntraj + 127) / 128)), dim3(128), args, 0,
				  stream), "newton: start");
	for (double it = 0; done < L->ntraj; it += NEWTON_POLL) {
		if (it > limit)
			return picard_fail(PICARD_EFAILED, "newton: %g iterations without an end", it);
		for (int i = 0; i < NEWTON_POLL; i++) {
			phase = 1;
			newton_profile_phase(&prof, phase, stream, false);
			CUDA_TRY(cudaLaunchKernel(kernel, dim3((unsigned)(L->ntraj * per_traj)),
						  dim3(32 * ws->linearise_warps), args,
						  linearise_shared, stream), "newton: linearise");
			newton_profile_phase(&prof, phase, stream, true);
			phase = 2;
			newton_profile_phase(&prof, phase, stream, false);
			CUDA_TRY(cudaLaunchKernel(kernel, dim3((unsigned)L->ntraj),
						  dim3((unsigned)ws->step_threads), args, shared, stream),
				 "newton: step");
			newton_profile_phase(&prof, phase, stream, true);
		}
		CUDA_TRY(cudaMemcpyAsync(&done, ws->ndone, sizeof(int), cudaMemcpyDeviceToHost, stream),
			 "newton: progress");
		CUDA_TRY(cudaStreamSynchronize(stream), "newton: progress");
	}
	if (prof.on)
		fprintf(stderr, "newton profile: %ld iterations launched (%d between looks), "
			"linearise %.3f ms (%.1f us each, %d warps of %ld blocks), step %.3f ms "
			"(%.1f us each, %d threads)\n", prof.launches[0], NEWTON_POLL, prof.ms[0],
			1e3 * prof.ms[0] / prof.launches[0], ws->linearise_warps,
			L->ntraj * per_traj, prof.ms[1], 1e3 * prof.ms[1] / prof.launches[1],
			ws->step_threads);
out:
	for (int i = 0; prof.on && i < 2; i++)
		cudaEventDestroy(prof.mark[i]);
	return err;
}

extern "C" const struct picard_cuda_scheme picard_cuda_newton = {
	newton_layout, newton_instance, lobatto_group, newton_threads_per_traj,
	newton_launch_threads, newton_upload, upload_dense_weights, newton_traj_bytes, newton_run,
};

/* ---- imex: a chunk's linear solves batched (src/schemes/imex/) ---------------------- */

/* Its own loop of launches (src/schemes/imex/engine.cu): a thread per member
 * in its kernels, no layout to choose. */
static void imex_layout(picard_grid *grid, const picard_options_layout *asked, int dim,
			long ntraj, int sms)
{
	(void)asked, (void)dim, (void)ntraj, (void)sms;
	grid->layout = PICARD_LAYOUT_THREAD;
	grid->scan = PICARD_SCAN_AUTO;
	grid->traj_per_block = THREAD_BLOCK_THREADS;
}

/* The run-time compiled part, k on the faces and g (imex_kernel.cuh): one
 * instance a model, in double; none for a registered model without an
 * operator. */
static int imex_instance(const picard_grid *grid, const picard_launch *L, const char *model,
			 const char *real, char *buf, size_t len)
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
	return imex_gpu_create(&cuda->imex, cuda->model, &cuda->grid, &tab, &lin, chunk);
}

/* The chunk's solve; the first failed linear solve noted for the
 * solver's detail, as the CPU backend notes it. */
static int imex_run(struct picard_cuda_solver *cuda, const picard_launch *L)
{
	struct imex_gpu_failure first;
	int err = imex_gpu_run(cuda->imex, L->dense ? cuda->kernel_dense : cuda->kernel, L, &first);

	if (!err && first.member >= 0 && cuda->job)
		picard_note_failure(cuda->job, L->traj_offset + first.member, "%s", first.message);
	return err;
}

extern "C" const struct picard_cuda_scheme picard_cuda_imex = {
	imex_layout, imex_instance, rk_group, rk_threads_per_traj, rk_launch_threads, imex_upload,
	NULL, imex_traj_bytes, imex_run,
};

/* The launch fields that say which kernel runs and in what shape. */
static void launch_shape(const picard_grid *grid, picard_launch *L)
{
	L->layout = grid->layout;
	L->group = cuda_scheme(grid)->group(grid);
	L->traj_per_block = grid->traj_per_block;
	L->scan = grid->scan;
	L->m = grid->m;
	L->adaptive = grid->adaptive;
}

/* Compile (or load) the kernel instance L needs and describe it. */
static int load_kernel(const picard_model *model, const picard_grid *grid, const picard_launch *L,
		       size_t real_size, const void **kernel, picard_kernel_info *info)
{
	char expression[256];
	cudaFuncAttributes attr;
	cudaError_t e;
	int err = cuda_scheme(grid)->instance(grid, L, model->name,
					      real_size == sizeof(double) ? "double" : "float",
					      expression, sizeof(expression));

	if (!err)
		err = picard_jit_kernel(model, expression, kernel);
	if (err)
		return err;
	e = cudaFuncGetAttributes(&attr, *kernel);
	if (e != cudaSuccess)
		return picard_cuda_fail(e, "describing the kernel");
	*info = { attr.maxThreadsPerBlock, attr.numRegs, attr.localSizeBytes };
	return PICARD_OK;
}

/* Check the launch shape against the device (paper: m*n threads per block,
 * 2*m*n reals of shared memory; warp: traj_per_block*G threads; thread:
 * traj_per_block threads) and choose how many of the ntraj trajectories,
 * per_traj bytes each, one chunk holds: as many as fit in the free memory
 * (or device_limit bytes, if lower) and in one grid. */
static int check_limits(const picard_model *model, picard_grid *grid,
			const picard_options_layout *asked, size_t real_size,
			long ntraj, long batch, size_t per_traj, size_t device_limit,
			long *chunk, const void **kernel,
			int *sm_count, int *kernel_threads)
{
	const struct picard_cuda_scheme *scheme = cuda_scheme(grid);
	cudaDeviceProp prop;
	size_t free_bytes = 0, total_bytes = 0, shared = 0;
	int count = 0, threads, threads_each;
	picard_kernel_info info;
	picard_launch L;
	cudaError_t e;
	int err;

	e = cudaGetDeviceCount(&count);
	if (e != cudaSuccess || count == 0)
		return picard_fail(PICARD_ENODEV, "no CUDA device: %s",
				   e != cudaSuccess ? cudaGetErrorString(e) : "none found");
	e = cudaGetDeviceProperties(&prop, 0);
	if (e != cudaSuccess)
		return picard_cuda_fail(e, "cudaGetDeviceProperties");
	*sm_count = prop.multiProcessorCount;
	scheme->layout(grid, asked, model->dim, ntraj, prop.multiProcessorCount);
	memset(&L, 0, sizeof(L));
	launch_shape(grid, &L);
	err = load_kernel(model, grid, &L, real_size, kernel, &info);
	if (err)
		return err;
	*kernel_threads = info.max_threads;
	/* an automatic block shape within what this model's kernel allows: a
	 * register-heavy model (fisher_kpp's 32 components: 256 threads in
	 * double on an H100) gets fewer trajectories per block, not a refusal */
	threads_each = scheme->threads_per_traj(grid, &L);
	if (!asked->traj_per_block && threads_each > 0 && info.max_threads / threads_each >= 1 &&
	    grid->traj_per_block > info.max_threads / threads_each)
		grid->traj_per_block = info.max_threads / threads_each;
	if (threads_each == 0 && grid->layout != PICARD_LAYOUT_PAPER) {
		/* the scheme's own block (lobatto's groups): one group of at
		 * most 32 lanes per trajectory, tables of 2 G^2 reals in
		 * static shared memory, within every device's limits */
		if (info.max_threads < 32)
			return picard_fail(PICARD_EBLOCK, "the %s kernel of this model allows %d threads per block",
					   picard_scheme_of(grid->scheme)->name, info.max_threads);
		goto memory;
	}
	if (grid->layout == PICARD_LAYOUT_PAPER) {
		threads = grid->m * model->dim;
		shared = 2 * (size_t)threads * real_size;
		if (threads > prop.maxThreadsPerBlock)
			return picard_fail(PICARD_EBLOCK, "m*n = %d*%d = %d threads, the device allows %d per block",
					   grid->m, model->dim, threads, prop.maxThreadsPerBlock);
	} else {
		threads = grid->traj_per_block * threads_each;
		if (threads > prop.maxThreadsPerBlock)
			return picard_fail(PICARD_EBLOCK, "%s layout: %d trajectories per block x %d threads = %d threads, the device allows %d per block",
					   picard_layout_name(grid->layout), grid->traj_per_block,
					   threads_each, threads, prop.maxThreadsPerBlock);
	}
	if (threads > info.max_threads)
		return picard_fail(PICARD_EBLOCK, "%s layout: %d threads per block, this model's kernel allows %d (%d registers per thread)",
				   picard_layout_name(grid->layout), threads, info.max_threads,
				   info.registers);
	if (shared > prop.sharedMemPerBlock)
		return picard_fail(PICARD_ESHMEM, "2*m*n reals = %zu bytes of shared memory, the device allows %zu",
				   shared, (size_t)prop.sharedMemPerBlock);
memory:
	e = cudaMemGetInfo(&free_bytes, &total_bytes);
	if (e != cudaSuccess)
		return picard_cuda_fail(e, "cudaMemGetInfo");
	if (device_limit && device_limit < free_bytes)
		free_bytes = device_limit;
	/* 90% of what is free, the rest for records and the runtime */
	*chunk = (long)fmin((double)batch, 0.9 * free_bytes / per_traj);
	if (*chunk > prop.maxGridSize[0])
		*chunk = prop.maxGridSize[0];
	if (*chunk < 1)
		return picard_fail(PICARD_ENOMEM, "one trajectory needs %zu bytes of device memory, %.1f MiB are free",
				   per_traj, free_bytes / 1048576.0);
	return PICARD_OK;
}

extern "C" void picard_cuda_free(struct picard_cuda_solver *cuda)
{
	if (!cuda)
		return;
	cudaFree(cuda->x0);
	cudaFree(cuda->params);
	cudaFree(cuda->x_final);
	cudaFree(cuda->status);
	cudaFree(cuda->fail_window);
	cudaFree(cuda->fail_time);
	cudaFree(cuda->sweeps);
	cudaFree(cuda->sweeps_max);
	cudaFree(cuda->lobatto_tables);
	newton_free(&cuda->newton);
	imex_gpu_free(cuda->imex);
	if (cuda->start)
		cudaEventDestroy(cuda->start);
	if (cuda->stop)
		cudaEventDestroy(cuda->stop);
	for (int h = 0; h < 2; h++) {
		if (cuda->pipe_start[h])
			cudaEventDestroy(cuda->pipe_start[h]);
		if (cuda->pipe_stop[h])
			cudaEventDestroy(cuda->pipe_stop[h]);
	}
	if (cuda->inputs_ready)
		cudaEventDestroy(cuda->inputs_ready);
	if (cuda->pipe)
		cudaStreamDestroy(cuda->pipe);
	for (int r = 0; r < PICARD_MAX_RECORDS; r++) {
		cudaFree(cuda->record_dev[r]);
		cudaFree(cuda->times_dev[r]);
		cudaFree(cuda->weights_dev[r]);
	}
	free(cuda);
}

/* The lobatto kernel's shape (lanes per trajectory, threads per block for
 * a chunk of ntraj) and its tables on the device: A^T and E^T [l][j] with
 * rows of G (zero past m), then the node offsets, as picard_launch says. */
static int lobatto_upload(struct picard_cuda_solver *cuda, long ntraj,
			  int sm_count, int kernel_threads)
{
	const int m = cuda->grid.m;
	size_t bytes;
	struct picard_lobatto *lob = NULL;
	unsigned char *host = NULL;
	const int G = group_lanes(m); /* lanes per trajectory, m >= 2 */
	int err;

	if (cuda->grid.layout == PICARD_LAYOUT_WARP) {
		cuda->groups_per_warp = lobatto_groups_per_warp(ntraj, G, sm_count);
		cuda->block_threads = lobatto_block_threads(ntraj, cuda->groups_per_warp,
							    sm_count, kernel_threads);
		cuda->grid.traj_per_block = cuda->block_threads / 32 * cuda->groups_per_warp;
	}
	bytes = 2 * (size_t)G * G * cuda->real_size + G * sizeof(double);
	lob = (struct picard_lobatto *)malloc(sizeof(*lob));
	host = (unsigned char *)calloc(1, bytes);
	if (!lob || !host) {
		err = picard_fail(PICARD_ENOMEM, "lobatto tables");
		goto out;
	}
	err = picard_scheme_of(cuda->grid.scheme)->collocation(m, lob);
	if (err)
		goto out;
	picard_lobatto_tables(lob, cuda->grid.window, cuda->precision == PICARD_DOUBLE, G, true,
			      host, host + (size_t)G * G * cuda->real_size,
			      (double *)(host + 2 * (size_t)G * G * cuda->real_size));
	CUDA_TRY(cudaMalloc(&cuda->lobatto_tables, bytes), "device memory for the lobatto tables");
	CUDA_TRY(cudaMemcpy(cuda->lobatto_tables, host, bytes, cudaMemcpyHostToDevice),
		 "copy the lobatto tables");
out:
	free(lob);
	free(host);
	return err;
}

extern "C" int picard_cuda_create(struct picard_cuda_solver **out,
				  const picard_model *model, picard_grid *grid,
				  const picard_options_layout *layout,
				  picard_precision precision, long ntraj, long batch,
				  size_t device_limit)
{
	const void *kernel = NULL;
	struct picard_cuda_solver *cuda;
	const int n = model->dim, np = model->nparams;
	const size_t rs = precision == PICARD_DOUBLE ? sizeof(double) : sizeof(float);
	const size_t per_traj = (2 * n + np) * rs + 2 * (sizeof(int) + sizeof(long)) +
				(cuda_scheme(grid)->traj_bytes ? cuda_scheme(grid)->traj_bytes(grid, n) : 0);
	long chunk = 0;
	int err, sm_count = 0, kernel_threads = 0;

	err = rk_check_local(model, grid, rs);
	if (!err)
		err = check_limits(model, grid, layout, rs, ntraj, batch, per_traj, device_limit, &chunk,
				   &kernel, &sm_count, &kernel_threads);
	if (err)
		return err;
	cuda = (struct picard_cuda_solver *)calloc(1, sizeof(*cuda));
	if (!cuda)
		return picard_fail(PICARD_ENOMEM, "CUDA solver");
	cuda->model = model;
	cuda->grid = *grid;
	cuda->kernel = kernel;
	cuda->precision = precision;
	cuda->chunk = chunk;
	cuda->real_size = rs;
	ntraj = chunk; /* the buffers below hold one chunk */
	CUDA_TRY(cudaMalloc(&cuda->x0, ntraj * n * rs), "device memory for x0");
	CUDA_TRY(cudaMalloc(&cuda->params, ntraj * (np ? np : 1) * rs), "device memory for parameters");
	CUDA_TRY(cudaMalloc(&cuda->x_final, ntraj * n * rs), "device memory for final states");
	CUDA_TRY(cudaMalloc(&cuda->status, ntraj * sizeof(int)), "device memory for status");
	CUDA_TRY(cudaMalloc(&cuda->fail_window, ntraj * sizeof(long)), "device memory for status");
	CUDA_TRY(cudaMalloc(&cuda->fail_time, 2 * ntraj * sizeof(double)),
		 "device memory for failure times");
	CUDA_TRY(cudaMalloc(&cuda->sweeps, ntraj * sizeof(long)), "device memory for sweep counts");
	CUDA_TRY(cudaMalloc(&cuda->sweeps_max, ntraj * sizeof(int)), "device memory for sweep counts");
	CUDA_TRY(cudaEventCreate(&cuda->start), "cudaEventCreate");
	CUDA_TRY(cudaEventCreate(&cuda->stop), "cudaEventCreate");
	for (int h = 0; h < 2; h++) {
		CUDA_TRY(cudaEventCreate(&cuda->pipe_start[h]), "cudaEventCreate");
		CUDA_TRY(cudaEventCreate(&cuda->pipe_stop[h]), "cudaEventCreate");
	}
	CUDA_TRY(cudaEventCreateWithFlags(&cuda->inputs_ready, cudaEventDisableTiming),
		 "cudaEventCreate");
	/* not the legacy stream 0, which the copies take: its kernels run
	 * while they copy */
	CUDA_TRY(cudaStreamCreateWithFlags(&cuda->pipe, cudaStreamNonBlocking), "cudaStreamCreate");
	if (cuda_scheme(grid)->upload) {
		err = cuda_scheme(grid)->upload(cuda, chunk, sm_count, kernel_threads);
		if (err)
			goto out;
		grid->traj_per_block = cuda->grid.traj_per_block; /* its block may be its own */
	}
	*out = cuda;
	return PICARD_OK;
out:
	picard_cuda_free(cuda);
	return err;
}

/* Grow a device buffer to bytes (a repeated solve allocates nothing) and
 * copy host there. */
static int upload_grown(void **dev, size_t *size, const void *host, size_t bytes,
			const char *what)
{
	int err = PICARD_OK;

	if (bytes > *size) {
		cudaFree(*dev);
		*dev = NULL;
		*size = 0;
		CUDA_TRY(cudaMalloc(dev, bytes), what);
		*size = bytes;
	}
	CUDA_TRY(cudaMemcpy(*dev, host, bytes, cudaMemcpyHostToDevice), what);
out:
	return err;
}

/* A lobatto record's dense output weights (picard_lobatto_dense_weights)
 * into the device buffer of record r. */
static int upload_dense_weights(struct picard_cuda_solver *cuda, int r, const picard_record *rec)
{
	const int m = cuda->grid.m;
	const size_t bytes = (size_t)rec->ntimes * m * cuda->real_size;
	struct picard_lobatto *lob = (struct picard_lobatto *)malloc(sizeof(*lob));
	void *host = malloc(bytes);
	int err = !lob || !host ? picard_fail(PICARD_ENOMEM, "dense output weights of %ld times",
					      rec->ntimes) :
				  picard_scheme_of(cuda->grid.scheme)->collocation(m, lob);

	if (!err) {
		picard_lobatto_dense_weights(lob, &cuda->grid, rec->times, rec->ntimes,
					     cuda->precision == PICARD_DOUBLE, host);
		err = upload_grown(&cuda->weights_dev[r], &cuda->weights_dev_size[r], host, bytes,
				   "dense output weights");
	}
	free(lob);
	free(host);
	return err;
}

/* Device buffers for the job's records, one chunk's slots each: the
 * solver's, grown when a record needs more than an earlier solve's (a
 * repeated solve allocates nothing). */
static int alloc_records(struct picard_cuda_solver *cuda,
			 const struct picard_job *job, picard_launch *L)
{
	int err = PICARD_OK;

	L->nrecords = job->nrecords;
	for (int r = 0; r < job->nrecords; r++) {
		const picard_record *rec = &job->records[r];
		picard_device_record *dr = &L->records[r];
		size_t bytes;

		dr->every = rec->every;
		dr->traj_stride = rec->traj_stride;
		dr->ntimes = rec->times ? rec->ntimes : 0;
		dr->times = NULL;
		dr->weights = NULL;
		if (rec->times) {
			err = upload_grown((void **)&cuda->times_dev[r], &cuda->times_dev_size[r],
					   rec->times, rec->ntimes * sizeof(double),
					   "a record's times");
			if (!err && cuda_scheme(&cuda->grid)->upload_dense)
				err = cuda_scheme(&cuda->grid)->upload_dense(cuda, r, rec);
			if (err)
				return err;
			dr->times = cuda->times_dev[r];
			dr->weights = cuda->weights_dev[r];
		}
		dr->slots = picard_record_slots(cuda->chunk, rec->traj_stride) + 1;
		bytes = picard_record_rows(&cuda->grid, rec) * dr->slots * cuda->model->dim *
			cuda->real_size + 1;
		if (bytes > cuda->record_dev_size[r]) {
			cudaFree(cuda->record_dev[r]);
			cuda->record_dev[r] = NULL;
			cuda->record_dev_size[r] = 0;
			CUDA_TRY(cudaMalloc(&cuda->record_dev[r], bytes), "device memory for a record");
			cuda->record_dev_size[r] = bytes;
		}
		dr->states = cuda->record_dev[r];
	}
out:
	return err;
}

/* Rows of a device record: its times, or the window ends it keeps. */
static long device_record_rows(const struct picard_cuda_solver *cuda,
			       const picard_device_record *dr)
{
	return dr->times ? dr->ntimes : cuda->grid.windows / dr->every;
}

/* Set a chunk's records up: trajectories offset .. offset+count-1 keep the
 * global slots first .. first+slots-1; NaN (all bits set) everywhere, so a
 * row never reached reads as NaN, never as zero. */
static int start_records(struct picard_cuda_solver *cuda, picard_launch *L,
			 long offset, long count)
{
	int err = PICARD_OK;

	for (int r = 0; r < L->nrecords; r++) {
		picard_device_record *dr = &L->records[r];
		long first = picard_record_slots(offset, dr->traj_stride);

		dr->first_slot = first;
		dr->slots = picard_record_slots(offset + count, dr->traj_stride) - first;
		CUDA_TRY(cudaMemset(dr->states, 0xff, device_record_rows(cuda, dr) * dr->slots *
				    cuda->model->dim * cuda->real_size), "cudaMemset");
	}
out:
	return err;
}

/* Copy a chunk's record into its slots of the caller's doubles: row r
 * of the device's at row r, slot first_slot of the caller's. */
static int download_record(struct picard_cuda_solver *cuda,
			   const picard_device_record *dr,
			   const picard_record *rec)
{
	const int n = cuda->model->dim;

	return picard_io_download_rows(dr->states, device_record_rows(cuda, dr), dr->slots * n,
				       cuda->real_size, rec->states + dr->first_slot * n,
				       picard_record_slots(cuda->job->ntraj, rec->traj_stride) * n);
}

/* A chunk's statuses, failing windows and failing times into the job's
 * arrays at offset. A chunk whose members all finished with no failing
 * window or time (none irregular) has nothing to say per member: its
 * statuses and failing windows are set here, not copied (the failing
 * times are NaN already: picard_solve). */
static int download_outcomes(const picard_launch *L, const struct picard_job *job,
			     long offset, long count, long irregular)
{
	int err = PICARD_OK;

	if (irregular) {
		err = picard_io_download_bytes(L->status, count * sizeof(int), job->status + offset);
		if (!err)
			err = picard_io_download_bytes(L->fail_window, count * sizeof(long),
						       job->fail_window + offset);
		if (!err)
			err = picard_io_download_bytes(L->fail_time, 2 * count * sizeof(double),
						       job->fail_time + 2 * offset);
		return err;
	}
#pragma omp parallel for
	for (long i = 0; i < count; i++) {
		job->status[offset + i] = PICARD_TRAJ_OK;
		job->fail_window[offset + i] = -1;
	}
	return err;
}

/* Per-trajectory results of a chunk into the job's arrays at offset (its
 * outcomes left on the device where the job says so), its totals added to
 * the job's. */
static int download_chunk(struct picard_cuda_solver *cuda, const struct picard_job *job,
			  const picard_launch *L, long offset, long count)
{
	const int n = cuda->model->dim;
	struct picard_job_totals t, *all = job->totals;
	long irregular = 0;
	int err = picard_io_totals(L->status, L->fail_window, L->fail_time, L->sweeps,
				   L->sweeps_max, count, cuda->grid.windows, &t, &irregular);

	if (err)
		return err;
	all->failed += t.failed;
	all->sweeps += t.sweeps;
	all->windows_run += t.windows_run;
	all->sweeps_max = t.sweeps_max > all->sweeps_max ? t.sweeps_max : all->sweeps_max;
	if (job->x_final)
		err = picard_io_download_soa(L->x_final, n, count, cuda->real_size,
					     job->x_final + offset * n);
	if (!err && !job->outcomes_on_device)
		err = download_outcomes(L, job, offset, count, irregular);
	for (int r = 0; r < L->nrecords && !err; r++)
		err = download_record(cuda, &L->records[r], &job->records[r]);
	return err;
}

/* Threads per block of the launch, as its scheme shapes it. */
static int launch_block_threads(const struct picard_cuda_solver *cuda,
				const picard_launch *L)
{
	return cuda_scheme(&cuda->grid)->block_threads(cuda, L);
}

/* Launch the solver's kernel (its dense instance with dense output) over
 * L's trajectories: one block each in the paper's layout, with 2*m*n reals
 * of shared memory; traj_per_block per block in the others. */
static cudaError_t launch_kernel(const struct picard_cuda_solver *cuda, const picard_launch *L)
{
	const bool paper = L->layout == PICARD_LAYOUT_PAPER;
	const long blocks = paper ? L->ntraj : (L->ntraj + L->traj_per_block - 1) / L->traj_per_block;
	const size_t shared = paper ? 2 * (size_t)L->m * cuda->model->dim * cuda->real_size : 0;
	void *args[] = { (void *)L };

	return cudaLaunchKernel(L->dense ? cuda->kernel_dense : cuda->kernel, dim3((unsigned)blocks),
				dim3((unsigned)launch_block_threads(cuda, L)), args, shared,
				(cudaStream_t)L->stream);
}

/* Trajectories offset .. offset+count-1's initial states and parameters
 * to the device, or drawn there (job->draw); on stream 0. */
static int upload_inputs(const struct picard_cuda_solver *cuda, const struct picard_job *job,
			 const picard_launch *L, long offset, long count)
{
	const picard_model *model = cuda->model;
	int err = job->draw ? picard_io_draw(job->draw, model->dim, model->nparams, offset, count,
					     cuda->real_size, (void *)L->x0,
					     job->param_stride ? (void *)L->params : NULL) :
		  picard_io_upload_soa(job->x0 + offset * model->dim, model->dim, model->dim,
				       count, cuda->real_size, (void *)L->x0);

	if (job->draw && job->param_stride)
		return err; /* drawn with the states */
	if (!err && model->nparams && job->param_stride)
		err = picard_io_upload_soa(job->params + offset * job->param_stride,
					   job->param_stride, model->nparams, count,
					   cuda->real_size, (void *)L->params);
	else if (!err && model->nparams) /* one row for all: no copy per member */
		err = picard_io_broadcast_row(job->params, model->nparams, count, cuda->real_size,
					      (void *)L->params);
	return err;
}

/* Upload (unless the job starts from another solver's inputs on the
 * device), solve and download trajectories offset .. offset+count-1; the
 * kernel's time is added to *seconds. */
static int solve_chunk(struct picard_cuda_solver *cuda, const struct picard_job *job,
		       picard_launch *L, long offset, long count, double *seconds)
{
	float ms = 0;
	int err;

	L->ntraj = count;
	L->traj_offset = offset;
	err = job->inputs_of ? PICARD_OK : upload_inputs(cuda, job, L, offset, count);
	if (!err)
		err = start_records(cuda, L, offset, count);
	if (err)
		return err;
	/* all bits set is a NaN: the schemes that know no failing step
	 * leave it so */
	CUDA_TRY(cudaMemset(cuda->fail_time, 0xff, 2 * count * sizeof(double)),
		 "clear failure times");
	CUDA_TRY(cudaEventRecord(cuda->start, 0), "cudaEventRecord");
	if (cuda_scheme(&cuda->grid)->run) {
		err = cuda_scheme(&cuda->grid)->run(cuda, L);
		if (err)
			return err;
	} else {
		CUDA_TRY(launch_kernel(cuda, L), "kernel launch");
	}
	CUDA_TRY(cudaEventRecord(cuda->stop, 0), "cudaEventRecord");
	CUDA_TRY(cudaEventSynchronize(cuda->stop), "kernel execution");
	CUDA_TRY(cudaEventElapsedTime(&ms, cuda->start, cuda->stop), "cudaEventElapsedTime");
	*seconds += ms * 1e-3;
	err = download_chunk(cuda, job, L, offset, count);
out:
	return err;
}


/* A pipelined solve's parts: the members one kernel takes, at least
 * PIPELINE_MIN (to fill the device), about a PIPELINE_PARTS-th of the
 * solve's. */
#define PIPELINE_MIN (1L << 20)
#define PIPELINE_PARTS 4

/* The members of each part where the job can be pipelined (solve_pipelined),
 * else 0: no records, no scheme of its own loop (newton, imex), inputs
 * from the host, and nothing read from the device arrays after (the
 * estimate's comparison); at least two parts, each within half the
 * chunk's buffers. */
static long pipeline_part(const struct picard_cuda_solver *cuda, const struct picard_job *job)
{
	long part = (job->ntraj + PIPELINE_PARTS - 1) / PIPELINE_PARTS;

	if (job->nrecords || job->inputs_of || job->outcomes_on_device || job->single_pass ||
	    cuda_scheme(&cuda->grid)->run)
		return 0;
	if (part < PIPELINE_MIN)
		part = PIPELINE_MIN;
	if (part > cuda->chunk / 2)
		part = cuda->chunk / 2;
	return part >= PIPELINE_MIN && job->ntraj > part ? part : 0;
}

/* Half h of the chunk's buffers, for parts of part members. */
static void pipeline_half(const struct picard_cuda_solver *cuda, picard_launch *L, int h,
			  long part)
{
	const size_t rs = cuda->real_size, at = (size_t)h * part;
	const int n = cuda->model->dim, np = cuda->model->nparams ? cuda->model->nparams : 1;

	L->x0 = (const char *)cuda->x0 + at * n * rs;
	L->params = (const char *)cuda->params + at * np * rs;
	L->x_final = (char *)cuda->x_final + at * n * rs;
	L->status = cuda->status + at;
	L->fail_window = cuda->fail_window + at;
	L->fail_time = cuda->fail_time + 2 * at;
	L->sweeps = cuda->sweeps + at;
	L->sweeps_max = cuda->sweeps_max + at;
	L->stream = cuda->pipe;
}

/* Start half h's kernel on the pipeline's stream, after its inputs on
 * stream 0 (a draw or a broadcast row runs there after the host returns),
 * its failing times cleared (all bits set: NaN) before it. */
static int start_part(struct picard_cuda_solver *cuda, const picard_launch *L, int h)
{
	int err = PICARD_OK;

	CUDA_TRY(cudaEventRecord(cuda->inputs_ready, 0), "cudaEventRecord");
	CUDA_TRY(cudaStreamWaitEvent(cuda->pipe, cuda->inputs_ready, 0), "cudaStreamWaitEvent");
	CUDA_TRY(cudaMemsetAsync(L->fail_time, 0xff, 2 * L->ntraj * sizeof(double), cuda->pipe),
		 "clear failure times");
	CUDA_TRY(cudaEventRecord(cuda->pipe_start[h], cuda->pipe), "cudaEventRecord");
	CUDA_TRY(launch_kernel(cuda, L), "kernel launch");
	CUDA_TRY(cudaEventRecord(cuda->pipe_stop[h], cuda->pipe), "cudaEventRecord");
out:
	return err;
}

/* Wait for half h's kernel; its time added to *seconds. */
static int finish_part(struct picard_cuda_solver *cuda, int h, double *seconds)
{
	float ms = 0;
	int err = PICARD_OK;

	CUDA_TRY(cudaEventSynchronize(cuda->pipe_stop[h]), "kernel execution");
	CUDA_TRY(cudaEventElapsedTime(&ms, cuda->pipe_start[h], cuda->pipe_stop[h]),
		 "cudaEventElapsedTime");
	*seconds += ms * 1e-3;
out:
	return err;
}

/* The job in parts of part members, each half of the chunk's buffers
 * taking every other one: while the device runs a part's kernel, the host
 * copies the next part's inputs up and the last part's results down
 * (the copies on stream 0, the kernels on their own stream). A member's
 * results are those of one launch: only the launch's extent differs. */
static int solve_pipelined(struct picard_cuda_solver *cuda, const struct picard_job *job,
			   const picard_launch *L, long part, double *seconds)
{
	const long parts = (job->ntraj + part - 1) / part;
	picard_launch half[2] = {*L, *L};
	int err = PICARD_OK;

	for (int h = 0; h < 2; h++)
		pipeline_half(cuda, &half[h], h, part);
	for (long p = 0; p <= parts && !err; p++) {
		picard_launch *now = &half[p & 1], *last = &half[(p + 1) & 1];

		if (p < parts) {
			now->traj_offset = p * part;
			now->ntraj = job->ntraj - now->traj_offset < part ?
					     job->ntraj - now->traj_offset : part;
			err = upload_inputs(cuda, job, now, now->traj_offset, now->ntraj);
		}
		if (!err && p > 0)
			err = finish_part(cuda, (int)((p + 1) & 1), seconds);
		if (!err && p < parts)
			err = start_part(cuda, now, (int)(p & 1));
		if (!err && p > 0)
			err = download_chunk(cuda, job, last, last->traj_offset, last->ntraj);
	}
	if (err) /* no kernel left running on buffers the caller may free */
		cudaStreamSynchronize(cuda->pipe);
	return err;
}

/* With dense output the kernels run their dense instances, which the
 * solver did not load or check when it was made: load it now (out of the
 * timed solve) and check that the block still fits its registers. */
static int prepare_dense(struct picard_cuda_solver *cuda, const picard_launch *L)
{
	const int threads = launch_block_threads(cuda, L);
	picard_kernel_info info;
	int err = load_kernel(cuda->model, &cuda->grid, L, cuda->real_size, &cuda->kernel_dense,
			      &info);

	if (err)
		return err;
	if (threads > info.max_threads)
		return picard_fail(PICARD_EBLOCK, "dense output: %d threads per block, the kernel with dense output allows %d (%d registers per thread); use fewer nodes or trajectories per block",
				   threads, info.max_threads, info.registers);
	return PICARD_OK;
}

extern "C" int picard_cuda_solve(struct picard_cuda_solver *cuda,
				 const struct picard_job *job, double *seconds)
{
	picard_launch L;
	long part;
	int err;

	memset(&L, 0, sizeof(L));
	launch_shape(&cuda->grid, &L);
	L.K = cuda->grid.K;
	L.adaptive = cuda->grid.adaptive;
	L.warm_start = cuda->grid.warm_start;
	L.iter_atol = cuda->grid.iter_atol;
	L.iter_rtol = cuda->grid.iter_rtol;
	L.h = cuda->grid.h;
	L.t0 = cuda->grid.t0;
	L.t1 = cuda->grid.t1;
	L.windows = cuda->grid.windows;
	L.bound = job->bound;
	if (job->inputs_of && !picard_cuda_shares_inputs(cuda, job->inputs_of, job->ntraj))
		return picard_fail(PICARD_EINVAL, "CUDA solve: another solver's inputs, of another "
				   "precision or more than one chunk");
	L.x0 = job->inputs_of ? job->inputs_of->x0 : cuda->x0;
	L.params = job->inputs_of ? job->inputs_of->params : cuda->params;
	L.x_final = cuda->x_final;
	L.status = cuda->status;
	L.fail_window = cuda->fail_window;
	L.fail_time = cuda->fail_time;
	L.sweeps = cuda->sweeps;
	L.sweeps_max = cuda->sweeps_max;
	L.window = cuda->grid.window;
	L.groups_per_warp = cuda->groups_per_warp;
	L.block_threads = cuda->block_threads;
	L.lobatto_tables = cuda->lobatto_tables;

	*seconds = 0;
	memset(job->totals, 0, sizeof(*job->totals));
	cuda->job = job;
	err = alloc_records(cuda, job, &L);
	for (int r = 0; r < job->nrecords; r++)
		L.dense |= job->records[r].times != NULL;
	if (!err && L.dense)
		err = prepare_dense(cuda, &L);
	part = err ? 0 : pipeline_part(cuda, job);
	if (part)
		err = solve_pipelined(cuda, job, &L, part, seconds);
	for (long offset = 0; !err && !part && offset < job->ntraj; offset += cuda->chunk)
		err = solve_chunk(cuda, job, &L, offset,
				  job->ntraj - offset < cuda->chunk ? job->ntraj - offset : cuda->chunk,
				  seconds);
	cuda->job = NULL;
	return err;
}

extern "C" long picard_cuda_chunks(const struct picard_cuda_solver *cuda, long ntraj)
{
	return (ntraj + cuda->chunk - 1) / cuda->chunk;
}

extern "C" bool picard_cuda_one_chunk(const struct picard_cuda_solver *cuda, long count)
{
	return count <= cuda->chunk;
}

extern "C" bool picard_cuda_shares_inputs(const struct picard_cuda_solver *to,
					  const struct picard_cuda_solver *from, long count)
{
	return to->model == from->model && to->real_size == from->real_size &&
	       picard_cuda_one_chunk(to, count) && picard_cuda_one_chunk(from, count);
}

extern "C" int picard_cuda_final_errors(const struct picard_cuda_solver *solve,
					const struct picard_cuda_solver *ref, long count,
					const picard_tolerance *scale, double *errors)
{
	if (solve->model->dim != ref->model->dim || ref->real_size != sizeof(double) ||
	    !picard_cuda_one_chunk(solve, count) || !picard_cuda_one_chunk(ref, count))
		return picard_fail(PICARD_EINVAL, "final errors on the device: solves of %ld "
				   "members in one chunk each, the reference in double", count);
	return picard_io_final_errors(solve->x_final, solve->real_size, solve->status,
				      (const double *)ref->x_final, ref->status, solve->model->dim,
				      count, scale, errors);
}

/* ---- compiling ahead --------------------------------------------------------------- */

/* The kernel instance a solver of grid would load: the layout settled as
 * check_limits settles it (the device's multiprocessor count and ntraj),
 * without compiling or allocating. A block shape the kernel's registers
 * then shrink does not change the instance. */
extern "C" int picard_cuda_kernel_name(const picard_model *model, picard_grid *grid,
				       const picard_options_layout *asked, picard_precision precision,
				       long ntraj, char *buf, size_t len)
{
	int dev = 0, sm_count = 0;
	cudaError_t e = cudaGetDevice(&dev);
	picard_launch L;

	if (e == cudaSuccess)
		e = cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, dev);
	if (e != cudaSuccess)
		return picard_cuda_fail(e, "the device's multiprocessors");
	cuda_scheme(grid)->layout(grid, asked, model->dim, ntraj, sm_count);
	memset(&L, 0, sizeof(L));
	launch_shape(grid, &L);
	return cuda_scheme(grid)->instance(grid, &L, model->name,
					   precision == PICARD_DOUBLE ? "double" : "float", buf, len);
}

/* Every kernel instance a solve of model may run: each scheme's launch
 * shapes over the layouts, node counts that reach each compile-time bound
 * and group size, scans, dense output or not, fixed or adaptive steps,
 * both precisions; the scheme's instance hook names them, duplicates
 * dropped. only (if not NULL): that scheme's alone. */
static int model_instances(const picard_model *model, const picard_scheme *only, char ***out,
			   int *count)
{
	static const int ms[] = {2, 3, 4, 5, 8, 9, 16, 17, 32};
	static const picard_layout layouts[] = {PICARD_LAYOUT_PAPER, PICARD_LAYOUT_WARP,
						PICARD_LAYOUT_THREAD};
	char **list = NULL, expression[256];
	int n = 0, cap = 0;

	for (int s = 0; picard_scheme_list[s]; s++) {
		const picard_scheme_type *type = picard_scheme_list[s];

		if (!type->cuda || (only && type->id != *only))
			continue;
		for (int variant = 0; variant < 9 * 3 * 2 * 2 * 2 * 2; variant++) {
			picard_grid grid;
			picard_launch L;
			int v = variant, known = 0;

			memset(&grid, 0, sizeof(grid));
			memset(&L, 0, sizeof(L));
			grid.scheme = type->id;
			grid.m = ms[v % 9], v /= 9;
			grid.layout = layouts[v % 3], v /= 3;
			grid.scan = v % 2 ? PICARD_SCAN_PARALLEL : PICARD_SCAN_SERIAL, v /= 2;
			grid.adaptive = v % 2, v /= 2;
			L.dense = v % 2, v /= 2;
			if (grid.m > type->max_m && type->max_m > 0)
				continue;
			launch_shape(&grid, &L);
			if (type->cuda->instance(&grid, &L, model->name, v % 2 ? "double" : "float",
						 expression, sizeof(expression)))
				continue; /* a shape this scheme does not have */
			for (int i = 0; i < n && !known; i++)
				known = strcmp(list[i], expression) == 0;
			if (known)
				continue;
			if (n == cap) {
				char **grown = (char **)realloc(list, (cap = 2 * cap + 64) * sizeof(*list));

				if (!grown)
					break;
				list = grown;
			}
			list[n] = strdup(expression);
			if (list[n])
				n++;
		}
	}
	*out = list;
	*count = n;
	return list ? PICARD_OK : picard_fail(PICARD_ENOMEM, "kernel list");
}

static int precompile(const picard_model *model, const picard_scheme *only, int *instances)
{
	char **list = NULL;
	int count = 0, err = model_instances(model, only, &list, &count);

	if (!err)
		err = picard_jit_precompile(model, (const char *const *)list, count);
	for (int i = 0; i < count; i++)
		free(list[i]);
	free(list);
	if (instances)
		*instances = count;
	return err;
}

extern "C" int picard_precompile(const picard_model *model, int *instances)
{
	return precompile(model, NULL, instances);
}

extern "C" int picard_precompile_scheme(const picard_model *model, picard_scheme scheme,
					int *instances)
{
	return precompile(model, &scheme, instances);
}
