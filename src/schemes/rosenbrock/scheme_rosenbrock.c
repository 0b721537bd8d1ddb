/* scheme_rosenbrock.c - the per-thread Rosenbrock schemes, for stiff
 * models: rodas5p (Steinebach's Rodas5P, order 5(4)), rodas4 (Hairer &
 * Wanner's RODAS, order 4(3)) and ros23 (Shampine & Reichelt's
 * Rosenbrock23, order 2(3), for loose tolerances). Linearly implicit: a
 * step is one LU of W = I/(h gamma) - J and a solve a stage, no Newton
 * iteration (rosenbrock_integrate.cuh, one integrator for the tableaus
 * of rosenbrock_tableaus.cuh), one thread per trajectory with its own
 * steps. On the per-thread Runge-Kutta schemes' grid, options and tuner
 * (src/schemes/rk/rk_scheme.h), and their backends' parts: the CPU's (the
 * model's instance in its rk_host slot) and the CUDA kernel template with
 * the scheme's tableau, refused where its local memory cannot hold the
 * step (cuda_rosenbrock.c), or a warp per trajectory for larger models
 * (the warp layout, rk_warp_kernel.cuh). */
#include "rk_scheme.h"

extern const struct picard_cuda_scheme picard_cuda_rosenbrock; /* cuda_rosenbrock.c */

static double order_rodas5p(const picard_grid *g) { (void)g; return 5; }
static double order_rodas4(const picard_grid *g) { (void)g; return 4; }
static double order_ros23(const picard_grid *g) { (void)g; return 2; }

RK_TUNE_POINT(tune_point_rodas5p, PICARD_SCHEME_RODAS5P)
RK_TUNE_POINT(tune_point_rodas4, PICARD_SCHEME_RODAS4)
RK_TUNE_POINT(tune_point_ros23, PICARD_SCHEME_ROS23)

/* Their "steps" are step attempts, a right-hand side a stage (ros23:
 * its third is the next step's first; the Jacobian and df/dt besides). */
RK_TABLE_LAYOUTS(picard_scheme_rodas5p, PICARD_SCHEME_RODAS5P, "rodas5p",
	 "Steinebach's Rodas5P, a Rosenbrock method of order 5(4), L-stable and stiffly "
	 "accurate for stiff models, one thread or one warp per trajectory, fixed or adaptive steps",
	 "5", order_rodas5p, tune_point_rodas5p, 8, 4, 5, "rosenbrock_rodas5p", true,
	 &picard_cuda_rosenbrock, RK_STIFF_OPTIONS, picard_rk_check_stiff_layout,
	 picard_rk_stiff_tune_layouts, 2);
RK_TABLE_LAYOUTS(picard_scheme_rodas4, PICARD_SCHEME_RODAS4, "rodas4",
	 "Hairer & Wanner's RODAS, a Rosenbrock method of order 4(3), L-stable and stiffly "
	 "accurate for stiff models, one thread or one warp per trajectory, fixed or adaptive steps",
	 "4", order_rodas4, tune_point_rodas4, 6, 5, 4, "rosenbrock_rodas4", true,
	 &picard_cuda_rosenbrock, RK_STIFF_OPTIONS, picard_rk_check_stiff_layout,
	 picard_rk_stiff_tune_layouts, 2);
RK_TABLE_LAYOUTS(picard_scheme_ros23, PICARD_SCHEME_ROS23, "ros23",
	 "Shampine & Reichelt's Rosenbrock23 (MATLAB's ode23s), a W-method of order 2(3), "
	 "L-stable, for stiff models at loose tolerances, one thread or one warp per trajectory, fixed "
	 "or adaptive steps",
	 "2", order_ros23, tune_point_ros23, 2, 6, 2, "rosenbrock_ros23", true,
	 &picard_cuda_rosenbrock, RK_STIFF_OPTIONS, picard_rk_check_stiff_layout,
	 picard_rk_stiff_tune_layouts, 2);
