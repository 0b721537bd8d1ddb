/* model.c - looking up registered models (the table is generated from
 * models/NAME.cu into build/registry.c); a model's description is
 * model_load.c's, which knows the loaded ones too. */
#include <string.h>

#include "model_impl.h"
#include "registry.h"

int picard_model_count(void)
{
	int count = 0;

	while (picard_registry[count])
		count++;
	return count;
}

const picard_model *picard_model_at(int i)
{
	return i >= 0 && i < picard_model_count() ? picard_registry[i] : NULL;
}

const picard_model *picard_model_find(const char *name)
{
	for (int i = 0; name && picard_registry[i]; i++)
		if (strcmp(picard_registry[i]->name, name) == 0)
			return picard_registry[i];
	return NULL;
}

void picard_model_rhs(const picard_model *model, double t, const double *x,
		      const double *params, double *dxdt)
{
	model->impl->rhs_double(t, x, params ? params : model->param_defaults, dxdt);
}

void picard_model_jacobian(const picard_model *model, double t, const double *x,
			   const double *params, double *J)
{
	model->impl->jacobian[0](t, x, params ? params : model->param_defaults, J);
}

void picard_model_start(const picard_model *model, const double *params,
			double *x0)
{
	if (model->initial)
		model->initial(params ? params : model->param_defaults, x0);
	else
		for (int k = 0; k < model->dim; k++)
			x0[k] = model->x0[k];
}
