/* test_pde_models.c - the semi-linear models x' = A x + g (suite
 * pde_models): every model with an operator (picard_model.op) has rhs =
 * A x + g to rounding (src/model/model_operator.c); a model file whose operator
 * disagrees with its rhs, whose CSR pattern is broken or which calls a
 * non-symmetric A symmetric is refused at load with the model and the
 * component named; each shipped model's solution by radau5 on the CPU is
 * within its spatial discretisation error of the PDE's exact solution;
 * and that error falls as dx^2 (grid convergence: the model file
 * recompiled at run time at nx = N, 2N, 4N). */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_operator.h"
#include "picard.h"
#include "support.h"

static void setup(void)
{
	make_workdir("pde", "cache");
}

TestSuite(pde_models, .init = setup, .fini = remove_workdir);

/* ---- the operator against the rhs -------------------------------------------- */

Test(pde_models, shipped_operators_match_rhs)
{
	static const struct {
		const char *name;
		picard_operator_kind kind;
	} shipped[] = {
		{"heat1d", PICARD_OP_STENCIL_1D},
		{"heat2d", PICARD_OP_STENCIL_2D},
		{"filtration", PICARD_OP_CSR},
	};
	int with_op = 0;

	for (size_t s = 0; s < sizeof(shipped) / sizeof(shipped[0]); s++) {
		const picard_model *model = test_model(shipped[s].name);

		cr_assert_not_null(model->op, "%s declares no operator", model->name);
		cr_expect_eq(model->op->kind, shipped[s].kind, "%s: kind %d", model->name,
			     (int)model->op->kind);
		cr_expect(model->exact, "%s: no exact solution", model->name);
	}
	for (int i = 0; i < picard_model_count(); i++) {
		const picard_model *model = picard_model_at(i);
		int err = picard_model_check_operator(model);

		with_op += model->op != NULL;
		cr_expect_eq(err, PICARD_OK, "%s: %s", model->name, picard_error_detail());
	}
	cr_log_info("%d models with an operator checked", with_op);
}

/* A matrix of the operator: shift I + scale A, against A alone. */
Test(pde_models, operator_matrix_shifts_and_scales)
{
	const picard_model *model = test_model("heat2d");
	picard_sparse a, b;
	const double shift = 1, scale = -0.3;

	cr_assert_eq(picard_operator_matrix(model, NULL, 0, 1, &a), 0, "%s",
		     picard_error_detail());
	cr_assert_eq(picard_operator_matrix(model, NULL, shift, scale, &b), 0, "%s",
		     picard_error_detail());
	for (int i = 0; i < model->dim; i++)
		for (int j = i > 20 ? i - 20 : 0; j < model->dim && j < i + 20; j++)
			cr_assert_float_eq(picard_sparse_entry(&b, i, j),
					   (i == j) * shift + scale * picard_sparse_entry(&a, i, j),
					   1e-12 * (1 + fabs(picard_sparse_entry(&a, i, j))),
					   "(%d, %d)", i, j);
	picard_sparse_free(&a);
	picard_sparse_free(&b);
	cr_expect_neq(picard_operator_matrix(test_model("lotka"), NULL, 0, 1, &a), 0);
	cr_expect(strstr(picard_error_detail(), "lotka declares no linear operator"), "%s",
		  picard_error_detail());
}

/* A model file for the broken-operator tests: a 1D stencil of 8 unknowns,
 * or a CSR one (STENCIL, CSR), with its k, its rhs and its matrix given. */
static const char *const broken_1d =
	"/* NAME.cu - a deliberately inconsistent operator */\n"
	"#include \"picard_model.cuh\"\n"
	"#include \"semilinear.cuh\"\n"
	"struct NAME {\n"
	"\tstatic constexpr int dim = 8, nparams = 1;\n"
	"\tstatic constexpr const char *param_names[] = {\"D\"};\n"
	"\tstatic constexpr double param_defaults[] = {1};\n"
	"\tstatic constexpr double x0[dim] = {};\n"
	"\tstatic constexpr double t0 = 0, t1 = 1;\n"
	"\tstatic constexpr const char *summary = \"broken\", *reference = \"none\";\n"
	"\tstatic constexpr picard_operator_kind op = PICARD_OP_STENCIL_1D;\n"
	"\tstatic constexpr int nx = dim;\n"
	"\tstatic constexpr double dx = 1.0 / 9;\n"
	"\ttemplate <typename real> __host__ __device__\n"
	"\tstatic void k_faces(const real *p, real *kx, real *) {\n"
	"\t\tfor (int i = 0; i <= nx; i++) kx[i] = KFACE;\n\t}\n"
	"\ttemplate <typename real> __host__ __device__\n"
	"\tstatic void nonlinear(real t, const real *x, const real *, real *g) {\n"
	"\t\tfor (int i = 0; i < nx; i++) g[i] = t - x[i] * x[i];\n\t}\n"
	"\ttemplate <typename real> __host__ __device__\n"
	"\tstatic void rhs(real t, const real *x, const real *p, real *dxdt) {\n"
	"\t\tpicard::stencil_1d_apply(nx, real(dx), [&](int i) { return RHSFACE; }, x, dxdt);\n"
	"\t\tfor (int i = 0; i < nx; i++) dxdt[i] += t - x[i] * x[i];\n\t}\n"
	"};\n"
	"PICARD_REGISTER_MODEL(NAME)\n";

static const char *const broken_csr =
	"/* NAME.cu - a deliberately inconsistent CSR operator: a 4-cycle */\n"
	"#include \"picard_model.cuh\"\n"
	"struct NAME {\n"
	"\tstatic constexpr int dim = 4, nparams = 1;\n"
	"\tstatic constexpr const char *param_names[] = {\"c\"};\n"
	"\tstatic constexpr double param_defaults[] = {1};\n"
	"\tstatic constexpr double x0[dim] = {1, 2, 3, 4};\n"
	"\tstatic constexpr double t0 = 0, t1 = 1;\n"
	"\tstatic constexpr const char *summary = \"broken\", *reference = \"none\";\n"
	"\tstatic constexpr picard_operator_kind op = PICARD_OP_CSR;\n"
	"\tstatic constexpr int nnz = 8;\n"
	"\tstatic constexpr bool op_symmetric = true;\n"
	"\tstatic void csr(const double *p, int *row_start, int *col, double *val) {\n"
	"\t\tfor (int i = 0; i < dim; i++) {\n"
	"\t\t\trow_start[i] = 2 * i;\n"
	"\t\t\tconst int j = NEXTCOL, lo = j < i ? j : i, hi = j < i ? i : j;\n"
	"\t\t\tcol[2 * i] = lo; val[2 * i] = lo == i ? -2 * p[0] : p[0];\n"
	"\t\t\tcol[2 * i + 1] = hi; val[2 * i + 1] = hi == i ? -2 * p[0] : p[0];\n\t\t}\n"
	"\t\trow_start[dim] = 2 * dim;\n\t}\n"
	"\ttemplate <typename real> __host__ __device__\n"
	"\tstatic void nonlinear(real, const real *, const real *, real *g) {\n"
	"\t\tfor (int i = 0; i < dim; i++) g[i] = 0;\n\t}\n"
	"\ttemplate <typename real> __host__ __device__\n"
	"\tstatic void rhs(real, const real *x, const real *p, real *dxdt) {\n"
	"\t\tfor (int i = 0; i < dim; i++) dxdt[i] = -2 * p[0] * x[i] + p[0] * x[(i + 1) % dim];\n\t}\n"
	"};\n"
	"PICARD_REGISTER_MODEL(NAME)\n";

/* template with each KEY of keys replaced by its value, into a file
 * NAME.cu of the work directory, loaded: its error code. */
static int load_text(const char *template, const char *const *keys, const char *const *values,
		     int nkeys, const char *name, const picard_model **model)
{
	char text[8192], file[64];
	size_t used = 0;
	const char *c = template;

	while (*c) {
		int k;

		for (k = 0; k < nkeys; k++)
			if (!strncmp(c, keys[k], strlen(keys[k])))
				break;
		if (k < nkeys) {
			used += snprintf(text + used, sizeof(text) - used, "%s", values[k]);
			c += strlen(keys[k]);
		} else {
			text[used++] = *c++;
		}
		cr_assert_lt(used, sizeof(text) - 1);
	}
	snprintf(file, sizeof(file), "%s.cu", name);
	write_file(in_workdir(file).s, text, used);
	*model = NULL;
	return picard_model_load(in_workdir(file).s, model);
}

static void expect_refused(int err, const char *name, const char *says)
{
	char model[64];

	snprintf(model, sizeof(model), "model %s", name);
	cr_expect_eq(err, PICARD_EINVAL, "%s: loaded (%d): %s", name, err, picard_error_detail());
	cr_expect(strstr(picard_error_detail(), model), "%s: %s", name, picard_error_detail());
	cr_expect(strstr(picard_error_detail(), says), "%s: '%s' not in: %s", name, says,
		  picard_error_detail());
}

/* The same file with a consistent operator loads; k_faces giving twice the
 * k the rhs uses is refused naming the component; so is a negative k. */
Test(pde_models, inconsistent_stencil_is_refused, .timeout = 240)
{
	const char *keys[] = {"NAME", "KFACE", "RHSFACE"};
	const char *good[] = {"stencil_good", "p[0] * real(1 + i)", "p[0] * real(1 + i)"};
	const char *doubled[] = {"stencil_doubled", "2 * p[0] * real(1 + i)", "p[0] * real(1 + i)"};
	const char *negative[] = {"stencil_negative", "p[0] * real(3 - i)", "p[0] * real(3 - i)"};
	const picard_model *model;
	int err;

	err = load_text(broken_1d, keys, good, 3, good[0], &model);
	cr_assert_eq(err, 0, "%s", picard_error_detail());
	cr_assert_not_null(model->op);
	cr_expect_eq(model->op->kind, PICARD_OP_STENCIL_1D);
	cr_expect(model->op->symmetric);
	err = load_text(broken_1d, keys, doubled, 3, doubled[0], &model);
	expect_refused(err, doubled[0], "rhs is not A x + g in component 0");
	err = load_text(broken_1d, keys, negative, 3, negative[0], &model);
	expect_refused(err, negative[0], "k_faces gave k = -1 on x-face 4");
}

/* A CSR operator: a column past the last refused; a non-symmetric A
 * declared symmetric refused; the same declared non-symmetric loads. */
Test(pde_models, broken_csr_is_refused, .timeout = 240)
{
	const char *keys[] = {"NAME", "NEXTCOL", "op_symmetric = true"};
	const char *range[] = {"csr_range", "i + 1", "op_symmetric = false"};
	const char *sym[] = {"csr_symmetric", "(i + 1) % dim", "op_symmetric = true"};
	const char *good[] = {"csr_good", "(i + 1) % dim", "op_symmetric = false"};
	const picard_model *model;
	int err;

	err = load_text(broken_csr, keys, range, 3, range[0], &model);
	expect_refused(err, range[0], "row 3, entry 7: column 4 out of range");
	err = load_text(broken_csr, keys, sym, 3, sym[0], &model);
	expect_refused(err, sym[0], "op_symmetric is true but A is not symmetric");
	err = load_text(broken_csr, keys, good, 3, good[0], &model);
	cr_assert_eq(err, 0, "%s", picard_error_detail());
	cr_expect_not(model->op->symmetric);
}

/* ---- solutions against the PDE's ------------------------------------------------ */

/* The largest |x - exact| at the model's t1 over the largest |exact|,
 * params NULL: the defaults. */
static double off_exact(const picard_model *model, const double *params, const double *x0,
			const double *x)
{
	double *exact = malloc(model->dim * sizeof(double)), error = 0, size = 0;

	cr_assert(exact);
	model->exact(model->t1, model->t0, x0, params ? params : model->param_defaults, exact);
	for (int i = 0; i < model->dim; i++) {
		error = fmax(error, fabs(x[i] - exact[i]));
		size = fmax(size, fabs(exact[i]));
	}
	free(exact);
	return error / size;
}

/* The GSL reference of the semi-discrete system (msbdf at 1e-14 for these
 * stiff models) from the model's start to t1 into x (dim), x0 into x0. */
static void reference_at_t1(const picard_model *model, const double *params, double *x0,
			    double *x)
{
	int err;

	picard_model_start(model, params, x0);
	err = picard_reference(model, params, x0, model->t0, &model->t1, 1, x);
	cr_assert_eq(err, 0, "%s: %s", model->name, picard_error_detail());
}

/* radau5 on the CPU at rtol = atol = tol over the model's span from its
 * start: its relative error against the exact solution at t1, and against
 * the GSL reference into *off_reference. */
static double radau5_error_at_t1(const picard_model *model, const double *params, double tol,
				 double *off_reference)
{
	const int n = model->dim;
	picard_options opt = {.scheme = PICARD_SCHEME_RADAU5, .iter_rtol = tol, .iter_atol = tol,
			      .precision = PICARD_DOUBLE, .backend = PICARD_BACKEND_CPU};
	picard_solver *solver = test_solver(model, &opt, 1);
	double *x0 = malloc(n * sizeof(double)), *x = malloc(n * sizeof(double));
	double *ref = malloc(n * sizeof(double)), error, off = 0, size = 0;
	picard_traj_status status;
	int err;

	cr_assert(x0 && x && ref);
	reference_at_t1(model, params, x0, ref);
	err = picard_solve(solver, x0, params, x, &status, NULL, NULL, 0, NULL);
	cr_assert_eq(err, 0, "%s: %s", model->name, picard_error_detail());
	cr_assert_eq(status, PICARD_TRAJ_OK, "%s: %s", model->name, picard_traj_status_name(status));
	error = off_exact(model, params, x0, x);
	for (int i = 0; i < n; i++) {
		off = fmax(off, fabs(x[i] - ref[i]));
		size = fmax(size, fabs(ref[i]));
	}
	*off_reference = off / size;
	picard_solver_free(solver);
	free(x0);
	free(x);
	free(ref);
	return error;
}

/* The GSL reference's relative error against the exact solution at t1,
 * at the defaults: the spatial error alone. */
static double reference_error_at_t1(const picard_model *model)
{
	double *x0 = malloc(model->dim * sizeof(double)), *x = malloc(model->dim * sizeof(double));
	double error;

	cr_assert(x0 && x);
	reference_at_t1(model, NULL, x0, x);
	error = off_exact(model, NULL, x0, x);
	free(x0);
	free(x);
	return error;
}

/* Each shipped model at its defaults and at a swept parameter set (the
 * scale halved, the amplitude doubled): radau5 at 1e-10 agrees with the
 * GSL reference of the semi-discrete system to 1e-7, and is off the
 * PDE's exact solution by the spatial error: below 4 dx^2 and above
 * dx^2 / 100 (relative; measured 0.5 dx^2 for heat1d, 0.6 for heat2d,
 * 1.2 for filtration; the grid convergence tests below measure its
 * order). */
Test(pde_models, solutions_within_spatial_error_of_exact, .timeout = 120)
{
	static const char *const names[] = {"heat1d", "heat2d", "filtration"};

	for (size_t s = 0; s < sizeof(names) / sizeof(names[0]); s++) {
		const picard_model *model = test_model(names[s]);
		const double dx2 = model->op->dx * model->op->dx;
		double p[8], error[2], off[2];

		cr_assert_leq(model->nparams, 8);
		cr_assert_gt(dx2, 0, "%s: dx", model->name);
		for (int q = 0; q < model->nparams; q++)
			p[q] = model->param_defaults[q] * (q == 0 ? 0.5 : 2);
		for (int v = 0; v < 2; v++) {
			error[v] = radau5_error_at_t1(model, v ? p : NULL, 1e-10, &off[v]);
			cr_log_info("%s, %s: radau5 at t1 off the exact solution by %.3e = %.2f dx^2, "
				    "off the reference by %.1e (relative)", model->name,
				    v ? "scale halved, amplitude doubled" : "defaults", error[v],
				    error[v] / dx2, off[v]);
			cr_expect_lt(off[v], 1e-7, "%s: radau5 off the reference by %.3e",
				     model->name, off[v]);
			cr_expect_lt(error[v], 4 * dx2, "%s: %.3e off the exact solution, more than "
				     "4 dx^2", model->name, error[v]);
			cr_expect_gt(error[v], dx2 / 100, "%s: %.3e: no spatial error at all?",
				     model->name, error[v]);
		}
	}
}

/* ---- grid convergence ------------------------------------------------------------ */

/* models/FILE.cu with its grid line GRID replaced by REPLACEMENT and its
 * name by NAME, loaded. */
static const picard_model *grid_variant(const char *file, const char *grid,
					const char *replacement, const char *name)
{
	char path[128];
	char *text;
	const char *keys[] = {grid, file};
	const char *values[] = {replacement, name};
	const picard_model *model;
	int err;

	snprintf(path, sizeof(path), "models/%s.cu", file);
	text = slurp(path, NULL);
	cr_assert(strstr(text, grid), "%s has no line '%s'", path, grid);
	err = load_text(text, keys, values, 2, name, &model);
	free(text);
	cr_assert_eq(err, 0, "%s: %s", name, picard_error_detail());
	return model;
}

/* The errors at three grids halving dx (the GSL reference of each
 * semi-discrete system against the exact solution: the reference's own
 * error, 1e-14, is far below the finest grid's spatial error, 2e-4): the observed order log2(e1 / e2)
 * and log2(e2 / e3) both in [1.8, 2.2]. */
static void expect_order_2(const char *what, const double e[3])
{
	for (int k = 0; k < 2; k++) {
		const double order = log2(e[k] / e[k + 1]);

		cr_log_info("%s: error %.3e -> %.3e, order %.3f", what, e[k], e[k + 1], order);
		cr_expect(order >= 1.8 && order <= 2.2, "%s: observed order %.3f (errors %.3e, "
			  "%.3e)", what, order, e[k], e[k + 1]);
	}
}

/* heat1d at dx = 1/12, 1/24, 1/48 (the shipped grid). */
Test(pde_models, heat1d_converges_at_order_2, .timeout = 240)
{
	const char *grid = "dim = 47";
	double e[3];

	e[0] = reference_error_at_t1(grid_variant("heat1d", grid, "dim = 11", "heat1d_n12"));
	e[1] = reference_error_at_t1(grid_variant("heat1d", grid, "dim = 23", "heat1d_n24"));
	e[2] = reference_error_at_t1(test_model("heat1d"));
	expect_order_2("heat1d", e);
}

/* heat2d at dx = dy = 1/4, 1/8, 1/16 (the shipped grid). */
Test(pde_models, heat2d_converges_at_order_2, .timeout = 240)
{
	const char *grid = "nx = 15, ny = 15";
	double e[3];

	e[0] = reference_error_at_t1(grid_variant("heat2d", grid, "nx = 3, ny = 3", "heat2d_n4"));
	e[1] = reference_error_at_t1(grid_variant("heat2d", grid, "nx = 7, ny = 7", "heat2d_n8"));
	e[2] = reference_error_at_t1(test_model("heat2d"));
	expect_order_2("heat2d", e);
}
