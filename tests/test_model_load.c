/* test_model_load.c - model files loaded at run time (suite model_load):
 * picard_model_load on a copy of a shipped model gives the built-in one's
 * results bit for bit on the CPU backend, under every scheme and both
 * precisions, with its parameters and start states spread; bad files are
 * refused with the file and line of their error; NVRTC (no device needed)
 * compiles each shipped model's right-hand side for the device. The host
 * compiler and NVRTC run here; the kernels' GPU runs are in test_gpu.c. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit.h"
#include "model_impl.h"
#include "picard.h"
#include "scheme.h"
#include "support.h"

#define NTRAJ 7
#define SPREAD 0.1
#define SEED 20261125ULL

static void setup(void)
{
	make_workdir("load", "cache");
}

TestSuite(model_load, .init = setup, .fini = remove_workdir);

/* The file models/NAME.cu copied into the work directory, loaded. */
static const picard_model *load_copy(const char *name)
{
	char src[128], *text;
	const picard_model *model = NULL;
	size_t size = 0;
	struct path dst;
	int err;

	snprintf(src, sizeof(src), "models/%s.cu", name);
	text = slurp(src, &size);
	cr_assert_gt(size, 0, "cannot read %s (run the tests from the top directory)", src);
	snprintf(src, sizeof(src), "%s.cu", name);
	dst = in_workdir(src);
	write_file(dst.s, text, size);
	free(text);
	err = picard_model_load(dst.s, &model);
	cr_assert_eq(err, 0, "%s: %s: %s", dst.s, picard_strerror(err), picard_error_detail());
	return model;
}

/* One CPU solve: final states, statuses and every window end. */
struct outcome {
	double *x, *ends;
	picard_traj_status status[NTRAJ];
	size_t nends;
};

static struct outcome solve(const picard_model *model, const picard_options *opt,
			    const double *x0, const double *params)
{
	picard_solver *solver = test_solver(model, opt, NTRAJ);
	struct outcome o;
	picard_record rec = {.every = 1, .traj_stride = 1};
	int err;

	o.nends = picard_record_size(solver, &rec);
	o.ends = calloc(o.nends, sizeof(double));
	o.x = calloc(NTRAJ * model->dim, sizeof(double));
	cr_assert(o.ends && o.x);
	rec.states = o.ends;
	err = picard_solve(solver, x0, params, o.x, o.status, NULL, &rec, 1, NULL);
	cr_assert(err == 0 || err == PICARD_EFAILED, "%s: %s", picard_strerror(err),
		  picard_error_detail());
	picard_solver_free(solver);
	return o;
}

static void expect_same_bits(const char *name)
{
	static const picard_scheme schemes[] = {PICARD_SCHEME_TRAPEZOID, PICARD_SCHEME_LOBATTO,
						PICARD_SCHEME_DP5, PICARD_SCHEME_DP8,
						PICARD_SCHEME_VERN9};
	const picard_model *builtin = test_model(name), *loaded = load_copy(name);
	double spreads[16], *x0, *params;

	cr_assert_neq(loaded, builtin);
	cr_assert_str_eq(loaded->name, builtin->name);
	cr_assert_eq(loaded->dim, builtin->dim);
	cr_assert_eq(loaded->nparams, builtin->nparams);
	cr_assert_eq(loaded->t1, builtin->t1);
	cr_assert_neq(loaded->impl->rhs_double, builtin->impl->rhs_double,
		      "the loaded model runs the built-in code");
	for (int q = 0; q < 16; q++)
		spreads[q] = SPREAD;
	x0 = malloc(NTRAJ * builtin->dim * sizeof(double));
	params = malloc(NTRAJ * (builtin->nparams + 1) * sizeof(double));
	cr_assert_eq(picard_ensemble_model(builtin, NTRAJ, SPREAD, spreads, SEED,
					   PICARD_BACKEND_CPU, x0, params), 0);
	for (size_t s = 0; s < sizeof(schemes) / sizeof(schemes[0]); s++)
		for (int p = 0; p < 2; p++) {
			const bool rk = schemes[s] >= PICARD_SCHEME_DP5;
			const double t1 = builtin->t0 + (builtin->t1 - builtin->t0) / 4;
			picard_options opt = {
				.scheme = schemes[s], .backend = PICARD_BACKEND_CPU,
				.precision = p ? PICARD_DOUBLE : PICARD_FLOAT,
				.t0 = builtin->t0, .t1 = t1,
				.h = rk ? (t1 - builtin->t0) / 8 : 0,
				.K_max = rk ? 100000 : 0, .iter_rtol = rk ? 1e-6 : 0,
			};
			struct outcome a = solve(builtin, &opt, x0, params);
			struct outcome b = solve(loaded, &opt, x0, params);

			cr_log_info("%s %s %s: %zu window-end values", name,
				    picard_scheme_of(schemes[s])->name, p ? "double" : "float",
				    a.nends);
			cr_expect_eq(memcmp(a.status, b.status, sizeof(a.status)), 0,
				     "%s %s: statuses differ", name, picard_scheme_of(schemes[s])->name);
			cr_expect_eq(memcmp(a.x, b.x, NTRAJ * builtin->dim * sizeof(double)), 0,
				     "%s %s %s: final states differ in their bits", name,
				     picard_scheme_of(schemes[s])->name, p ? "double" : "float");
			cr_expect_eq(memcmp(a.ends, b.ends, a.nends * sizeof(double)), 0,
				     "%s %s %s: window ends differ in their bits", name,
				     picard_scheme_of(schemes[s])->name, p ? "double" : "float");
			free(a.x), free(a.ends), free(b.x), free(b.ends);
		}
	free(x0);
	free(params);
}

Test(model_load, copy_of_lotka_matches_builtin_bitwise, .timeout = 300)
{
	expect_same_bits("lotka");
}

/* kepler: an exact solution, invariants, a start state from parameters. */
Test(model_load, copy_of_kepler_matches_builtin_bitwise, .timeout = 300)
{
	const picard_model *loaded;

	expect_same_bits("kepler");
	loaded = load_copy("kepler"); /* the cache's copy, the same entry's parts */
	cr_expect_eq(loaded->ninvariants, 2);
	cr_expect_null(loaded->exact, "kepler declares no exact solution");
	cr_assert(loaded->initial && loaded->invariants);
	{
		/* the loaded file's own start and invariants, by value: the
		 * periapsis of e = 0.3 with mu = 2 (semi-major axis 1), energy
		 * -mu / 2, angular momentum sqrt(mu (1 - e^2)) */
		const double p[2] = {2, 0.3}, vp = sqrt(2 * 1.3 / 0.7);
		double x[4], inv[2];

		loaded->initial(p, x);
		cr_expect_float_eq(x[0], 0.7, 1e-15, "q1 = %.17g", x[0]);
		cr_expect_eq(x[1], 0);
		cr_expect_eq(x[2], 0);
		cr_expect_float_eq(x[3], vp, 1e-15, "p2 = %.17g, exact %.17g", x[3], vp);
		loaded->invariants(x, p, inv);
		cr_expect_float_eq(inv[0], -1, 1e-14, "energy %.17g, exact -1", inv[0]);
		cr_expect_float_eq(inv[1], sqrt(2 * (1 - 0.09)), 1e-14, "angular momentum %.17g",
				   inv[1]);
	}
}

/* logistic: the loaded file's exact solution, by value at parameters,
 * start and times that are not its defaults. */
Test(model_load, copy_of_logistic_carries_its_exact_solution, .timeout = 120)
{
	const picard_model *loaded = load_copy("logistic");
	const double p[2] = {0.8, 50}, x0 = 7, t0 = 1, t = 3.5;
	const double want = 50 / (1 + (50 / x0 - 1) * exp(-0.8 * (t - t0)));
	double x = 0;

	cr_assert_not_null(loaded->exact);
	cr_assert_neq(loaded->exact, test_model("logistic")->exact, "the built-in code runs");
	loaded->exact(t, t0, &x0, p, &x);
	cr_expect_float_eq(x, want, 1e-13 * want, "x(%g) = %.17g, exact %.17g", t, x, want);
}

/* ---- bad files ----------------------------------------------------------------- */

static const char good_model[] =
	"#include \"picard_model.cuh\"\n"                                 /* 1 */
	"struct NAME {\n"                                                 /* 2 */
	"\tstatic constexpr int dim = DIM, nparams = 1;\n"                /* 3 */
	"\tstatic constexpr const char *param_names[] = {\"a\"};\n"       /* 4 */
	"\tstatic constexpr double param_defaults[] = {0.5};\n"           /* 5 */
	"\tstatic constexpr double x0[] = {1};\n"                         /* 6 */
	"\tstatic constexpr double t0 = 0, t1 = 1;\n"                     /* 7 */
	"\tstatic constexpr const char *summary = \"x' = -a x\";\n"       /* 8 */
	"\tstatic constexpr const char *reference = \"a test\";\n"        /* 9 */
	"\ttemplate <typename real>\n"                                    /* 10 */
	"\tQUALIFIERS static void rhs(real, const real *x, const real *p, real *dxdt)\n" /* 11 */
	"\t{\n"                                                           /* 12 */
	"\t\tdxdt[0] = BODY;\n"                                           /* 13 */
	"\t}\n"                                                           /* 14 */
	"};\n"                                                            /* 15 */
	"\n"                                                              /* 16 */
	"PICARD_REGISTER_MODEL(REGISTERED)\n";                            /* 17 */

/* good_model with each placeholder replaced, written as file, loaded. */
static int load_variant(const char *file, const char *name, const char *dim,
			const char *qualifiers, const char *body, const char *registered)
{
	const char *keys[] = {"REGISTERED", "QUALIFIERS", "NAME", "DIM", "BODY"};
	const char *values[] = {registered, qualifiers, name, dim, body};
	char text[4096];
	size_t used = 0;
	const picard_model *model = NULL;
	struct path path = in_workdir(file);
	const char *c = good_model;

	while (*c) {
		size_t k;

		for (k = 0; k < 5; k++)
			if (!strncmp(c, keys[k], strlen(keys[k])))
				break;
		if (k < 5) {
			memcpy(text + used, values[k], strlen(values[k]));
			used += strlen(values[k]);
			c += strlen(keys[k]);
		} else {
			text[used++] = *c++;
		}
	}
	write_file(path.s, text, used);
	return picard_model_load(path.s, &model);
}

/* The error detail names the file and line, and says what is wrong. */
static void expect_error(int err, int code, const char *file, int line, const char *says)
{
	char where[160];

	cr_assert_eq(err, code, "%s: %s, expected %s", file, picard_strerror(err),
		     picard_strerror(code));
	snprintf(where, sizeof(where), "%s:%d:", in_workdir(file).s, line);
	cr_expect(strstr(picard_error_detail(), where), "no '%s' in: %s", where,
		  picard_error_detail());
	cr_expect(strstr(picard_error_detail(), says), "no '%s' in: %s", says,
		  picard_error_detail());
}

Test(model_load, good_variant_loads_and_runs, .timeout = 120)
{
	const picard_model *model = NULL;
	/* converged sweeps: the window's fixed point, the trapezoid rule */
	picard_options opt = {.backend = PICARD_BACKEND_CPU, .precision = PICARD_DOUBLE,
			      .t1 = 1, .h = 1.0 / 70,
			      .K_max = 100, .iter_rtol = 1e-14, .iter_atol = 1e-14};
	double x0 = 1, x1 = 0, trapezoid, ah;
	const picard_grid *grid;
	picard_solver *solver;
	long steps;

	cr_assert_eq(load_variant("decaying.cu", "decaying", "1", "__host__ __device__",
				  "-p[0] * x[0]", "decaying"), 0, "%s", picard_error_detail());
	cr_assert_eq(picard_model_load(in_workdir("decaying.cu").s, &model), 0);
	solver = test_solver(model, &opt, 1);
	cr_assert_eq(picard_solve(solver, &x0, NULL, &x1, NULL, NULL, NULL, 0, NULL), 0);
	grid = picard_solver_grid(solver);
	steps = grid->windows * (grid->m - 1);
	cr_assert_eq(steps, 70, "h = 1/70 fits whole windows: %ld steps", steps);
	/* x' = -a x by the trapezoid rule: x_n+1 = x_n (1 - a h/2) / (1 + a h/2) */
	ah = 0.5 * grid->h;
	trapezoid = pow((1 - ah / 2) / (1 + ah / 2), (double)steps);
	cr_expect_float_eq(x1, trapezoid, 1e-12, "x(1) = %.17g, the trapezoid rule's %.17g", x1,
			   trapezoid);
	/* and its error against exp(-a): a^3 h^2 t / 12 x(t) = 1.3e-6 at h = 1/70 */
	cr_expect_float_eq(x1, exp(-0.5), 1.5e-6, "x(1) = %.17g, exact %.17g", x1, exp(-0.5));
	picard_solver_free(solver);
}

Test(model_load, syntax_error_names_file_and_line, .timeout = 120)
{
	int err = load_variant("broken.cu", "broken", "1", "__host__ __device__", "-p[0] * x[0] +",
			       "broken");

	expect_error(err, PICARD_ECOMPILE, "broken.cu", 13, "error");
}

Test(model_load, broken_contract_names_the_rule, .timeout = 120)
{
	int err = load_variant("nodim.cu", "nodim", "0", "__host__ __device__", "-x[0]", "nodim");

	expect_error(err, PICARD_ECOMPILE, "nodim.cu", 17, "dim must be at least 1");
}

Test(model_load, rhs_without_qualifiers_is_refused, .timeout = 120)
{
	int err = load_variant("hostonly.cu", "hostonly", "1", "", "-x[0]", "hostonly");

	expect_error(err, PICARD_ECOMPILE, "hostonly.cu", 11, "__host__ __device__");
}

Test(model_load, registration_must_match_the_file, .timeout = 120)
{
	int err = load_variant("named.cu", "named", "1", "__host__ __device__", "-x[0]", "other");

	expect_error(err, PICARD_ECOMPILE, "named.cu", 17, "PICARD_REGISTER_MODEL(named)");
}

/* An error only the device side has: a C library header, which the host
 * compiler has and NVRTC does not. */
Test(model_load, device_side_error_names_file_and_line, .timeout = 120)
{
	const picard_model *model = NULL;
	const char *text =
		"#include \"picard_model.cuh\"\n"
		"#include <stdio.h>\n"
		"struct devbad {\n"
		"\tstatic constexpr int dim = 1, nparams = 0;\n"
		"\tstatic constexpr double x0[] = {1};\n"
		"\tstatic constexpr double t0 = 0, t1 = 1;\n"
		"\tstatic constexpr const char *summary = \"s\", *reference = \"r\";\n"
		"\ttemplate <typename real>\n"
		"\t__host__ __device__ static void rhs(real, const real *x, const real *, real *dxdt)\n"
		"\t{\n"
		"\t\tdxdt[0] = -x[0];\n"
		"\t}\n"
		"};\n"
		"PICARD_REGISTER_MODEL(devbad)\n";
	struct path path = in_workdir("devbad.cu");
	int err;

	write_file(path.s, text, strlen(text));
	err = picard_model_load(path.s, &model);
	expect_error(err, PICARD_ECOMPILE, "devbad.cu", 2, "stdio.h");
}

Test(model_load, file_name_must_be_name_dot_cu)
{
	const picard_model *model = NULL;
	struct path path = in_workdir("model.txt");

	write_file(path.s, "x", 1);
	cr_expect_eq(picard_model_load(path.s, &model), PICARD_EINVAL);
	cr_expect(strstr(picard_error_detail(), "NAME.cu"), "%s", picard_error_detail());
	cr_expect_eq(picard_model_load(in_workdir("absent.cu").s, &model), PICARD_EIO);
	cr_expect_null(model);
}

/* ---- NVRTC on every shipped model, no device needed ---------------------------- */

Test(model_load, every_model_compiles_for_the_device, .timeout = 300)
{
	for (int i = 0; i < picard_model_count(); i++) {
		const picard_model *model = picard_model_at(i);
		int err = picard_jit_check(model);

		cr_expect_eq(err, 0, "%s: %s", model->name, picard_error_detail());
		err = picard_jit_check_kernel(model, "picard::jacobian_check");
		cr_expect_eq(err, 0, "%s: the Jacobians: %s", model->name, picard_error_detail());
	}
}

/* ---- Jacobians of a loaded file ---------------------------------------------------- */

/* A file without jacobian: the automatic derivative through its rhs. */
Test(model_load, jacobian_without_one_is_automatic, .timeout = 120)
{
	const picard_model *model = NULL;
	const double x = 3, p = 0.25;
	double J = 0;

	cr_assert_eq(load_variant("plain.cu", "plain", "1", "__host__ __device__",
				  "-p[0] * x[0] * x[0]", "plain"), 0, "%s", picard_error_detail());
	cr_assert_eq(picard_model_load(in_workdir("plain.cu").s, &model), 0);
	cr_expect_eq(model->impl->declares_jacobian, 0);
	picard_model_jacobian(model, 0, &x, &p, &J);
	cr_expect_float_eq(J, -2 * p * x, 1e-15, "J = %.17g, exact %.17g", J, -2 * p * x);
}

/* fput, 64 components: the automatic derivative in passes of 8 directions
 * against the file's analytic one, at its start and at a spread state. */
Test(model_load, fput_jacobian_ad_matches_analytic, .timeout = 120)
{
	const picard_model *model = NULL;
	double x[2][64], ja[64 * 64], jd[64 * 64], worst = 0;

	cr_assert_eq(picard_model_load("examples/models/fput.cu", &model), 0, "%s",
		     picard_error_detail());
	cr_assert(model->impl->declares_jacobian);
	cr_assert_eq(picard_ensemble_spread(64, model->x0, 1, 0.3, SEED, PICARD_BACKEND_CPU, x[1]),
		     0);
	for (int k = 0; k < 64; k++)
		x[0][k] = model->x0[k], x[1][k] += 0.1 * (k % 7);
	for (int s = 0; s < 2; s++) {
		model->impl->jacobian[0](0, x[s], model->param_defaults, ja);
		model->impl->jacobian[1](0, x[s], model->param_defaults, jd);
		for (int i = 0; i < 64 * 64; i++)
			worst = fmax(worst, fabs(ja[i] - jd[i]) / fmax(1, fabs(ja[i])));
	}
	cr_expect_leq(worst, 1e-14, "fput: AD and analytic differ by %.2e", worst);
}

Test(model_load, jacobian_of_the_wrong_shape_is_refused, .timeout = 120)
{
	int err = load_variant("badjac.cu", "badjac", "1", "__host__ __device__",
			       "-x[0]; }\n\ttemplate <typename real> static void jacobian(real *J) { J[0] = -1;",
			       "badjac");

	expect_error(err, PICARD_ECOMPILE, "badjac.cu", 18, "jacobian, if declared, must be");
}

/* ---- the rules no compiler sees (src/model_check.c, the build's too) -------------- */

Test(model_load, rhs_that_prints_is_refused, .timeout = 120)
{
	int err = load_variant("noisy.cu", "noisy", "1", "__host__ __device__",
			       "-x[0]; printf(\"%g\", x[0])", "noisy");

	expect_error(err, PICARD_ECOMPILE, "noisy.cu", 11, "rhs must be a pure function");
	cr_expect(strstr(picard_error_detail(), "printf"), "%s", picard_error_detail());
}

Test(model_load, struct_must_be_named_after_the_file, .timeout = 120)
{
	const picard_model *model = NULL;
	const char *text = "#include \"picard_model.cuh\"\nstruct other {};\n"
			   "PICARD_REGISTER_MODEL(named2)\n";
	struct path path = in_workdir("named2.cu");

	write_file(path.s, text, strlen(text));
	expect_error(picard_model_load(path.s, &model), PICARD_ECOMPILE, "named2.cu", 3,
		     "no struct named2");
}
