/* scheme_radau5.c - radau5: Radau IIA of order 5 (Hairer & Wanner,
 * Solving ODEs II, section IV.8, their RADAU5 code), implicit and
 * L-stable for stiff models, one thread per trajectory with its own
 * steps (radau5_integrate.cuh). On the per-thread Runge-Kutta schemes'
 * grid, options and tuner (src/schemes/rk/rk_scheme.h), and their
 * backends' parts: the CPU's (the model's instance in its rk_host slot)
 * and the CUDA kernel template with radau5's tableau, refused where its
 * local memory cannot hold the step, or a warp per trajectory for larger
 * models (cuda_radau5.c). */
#include "rk_scheme.h"

extern const struct picard_cuda_scheme picard_cuda_radau5; /* cuda_radau5.c */

static double order_radau5(const picard_grid *g)
{
	(void)g;
	return 5;
}

RK_TUNE_POINT(tune_point_radau5, PICARD_SCHEME_RADAU5)

/* Radau IIA (src/schemes/radau5/radau5_integrate.cuh): its "steps" are Newton
 * iterations, 3 right-hand sides each. */
RK_TABLE_LAYOUTS(picard_scheme_radau5, PICARD_SCHEME_RADAU5, "radau5",
	 "Radau IIA 5 (Hairer & Wanner's RADAU5), implicit and L-stable for stiff models, "
	 "one thread or one warp per trajectory, fixed or adaptive steps",
	 "5", order_radau5, tune_point_radau5, 3, 3, 5, "rk_radau5", true, &picard_cuda_radau5,
	 RK_STIFF_OPTIONS, picard_rk_check_stiff_layout, picard_rk_stiff_tune_layouts, 2);
