/* bench_cpu_models.cu - host-only code: the bench_cpu_model table of every
 * model in bench_models.h (see bench_cpu_models.h). */
#include <string.h>

#include <gsl/gsl_errno.h>

#include "bench_cpu_models.h"
#include "bench_models.h" /* generated: every models/NAME.cu, struct only */
#include "rk_ensemble.cuh"

namespace {

template <class Model>
int gsl_rhs(double t, const double y[], double dydt[], void *ctx)
{
	static const rkens::rk_params<Model, double> par =
		rkens::rk_default_params<Model, double>();

	Model::rhs(t, y, par.v, dydt);
	((bench_gsl_ctx *)ctx)->evals++;
	return GSL_SUCCESS;
}

template <class Model, typename real>
int euler_loop(real *x, real t0, real t1, long steps, long *evals)
{
	const rkens::rk_params<Model, real> par = rkens::rk_default_params<Model, real>();
	rkens::rk_counts c = rkens::rk_fixed<rkens::euler, Model, real>(x, par.v, t0, t1, steps);

	*evals = c.evals;
	return c.status != rkens::RK_OK;
}

} /* namespace */

#define BENCH_CPU_ENTRY(m)                                                     \
	{#m, m::dim, m::x0, gsl_rhs<m>, euler_loop<m, double>,                 \
	 euler_loop<m, float>},
static const bench_cpu_model cpu_models[] = {BENCH_MODELS(BENCH_CPU_ENTRY)};

extern "C" int bench_cpu_model_count(void)
{
	return sizeof(cpu_models) / sizeof(cpu_models[0]);
}

extern "C" const bench_cpu_model *bench_cpu_model_at(int i)
{
	return i >= 0 && i < bench_cpu_model_count() ? &cpu_models[i] : NULL;
}

extern "C" const bench_cpu_model *bench_cpu_model_find(const char *name)
{
	for (int i = 0; i < bench_cpu_model_count(); i++)
		if (!strcmp(cpu_models[i].name, name))
			return &cpu_models[i];
	return NULL;
}
