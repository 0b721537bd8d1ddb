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
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jit.h"
#include "model_check.h"
#include "model_impl.h"
#include "model_probe.h"
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

/* ---- the rules no compiler sees (src/model/model_check.c, the build's too) -------------- */

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

/* ---- out-of-bounds subscripts, endless loops (issue 34, item 4) ------------------ */

/* A model of dim 2 and nparams 2 whose rhs body is body (line 13) and
 * whose struct ends with extra (line 15 on), written as NAME.cu. */
static struct path write_two_state(const char *name, const char *body, const char *extra)
{
	char text[4096];
	struct path path;
	int n = snprintf(text, sizeof(text),
			 "#include \"picard_model.cuh\"\n"                                   /* 1 */
			 "#include <math.h>\n"                                               /* 2 */
			 "struct %s {\n"                                                     /* 3 */
			 "\tstatic constexpr int dim = 2, nparams = 2;\n"                    /* 4 */
			 "\tstatic constexpr const char *param_names[] = {\"a\", \"b\"};\n"  /* 5 */
			 "\tstatic constexpr double param_defaults[] = {0.5, 0.25};\n"       /* 6 */
			 "\tstatic constexpr double x0[] = {1, 2};\n"                        /* 7 */
			 "\tstatic constexpr double t0 = 0, t1 = 1;\n"                       /* 8 */
			 "\tstatic constexpr const char *summary = \"s\", *reference = \"r\";\n" /* 9 */
			 "\ttemplate <typename real>\n"                                      /* 10 */
			 "\t__host__ __device__ static void rhs(real t, const real *x, const real *p, real *dxdt)\n" /* 11 */
			 "\t{\n"                                                             /* 12 */
			 "\t\t%s\n"                                                          /* 13 */
			 "\t}\n"                                                             /* 14 */
			 "%s\n"                                                              /* 15 */
			 "};\n"
			 "PICARD_REGISTER_MODEL(%s)\n", name, body, extra, name);
	char file[64];

	cr_assert_lt(n, (int)sizeof(text));
	snprintf(file, sizeof(file), "%s.cu", name);
	path = in_workdir(file);
	write_file(path.s, text, (size_t)n);
	return path;
}

static int load_two_state(const char *name, const char *body, const char *extra)
{
	const picard_model *model = NULL;
	int err = picard_model_load(write_two_state(name, body, extra).s, &model);

	cr_expect(err || model, "loaded, but no model");
	return err;
}

/* The detail holds each of the strings (NULL-terminated). */
static void expect_detail(const char *first, ...)
{
	va_list ap;

	va_start(ap, first);
	for (const char *s = first; s; s = va_arg(ap, const char *))
		cr_expect(strstr(picard_error_detail(), s), "no '%s' in: %s", s, picard_error_detail());
	va_end(ap);
}

/* A read or write the probe saw: the verb where the CPU tells it. */
static const char *verb(const char *rw)
{
#if defined(__x86_64__)
	return rw;
#else
	(void)rw;
	return "";
#endif
}

Test(model_load, constant_read_of_p_past_nparams_is_refused_at_its_line, .timeout = 120)
{
	int err = load_two_state("pconst", "dxdt[0] = -p[5] * x[0]; dxdt[1] = -x[1];", "");

	expect_error(err, PICARD_ECOMPILE, "pconst.cu", 13, "rhs reads p[5] out of bounds");
	expect_detail("nparams = 2", "p[0] .. p[1]", NULL);
}

Test(model_load, constant_read_of_x_past_dim_is_refused_at_its_line, .timeout = 120)
{
	int err = load_two_state("xconst", "dxdt[0] = -p[0] * x[7]; dxdt[1] = -x[1];", "");

	expect_error(err, PICARD_ECOMPILE, "xconst.cu", 13, "rhs reads x[7] out of bounds");
	expect_detail("dim = 2", NULL);
}

Test(model_load, constant_write_of_dxdt_past_dim_is_refused_at_its_line, .timeout = 120)
{
	int err = load_two_state("dconst", "dxdt[0] = -x[0]; dxdt[1] = -x[1]; dxdt[3] = 0;", "");

	expect_error(err, PICARD_ECOMPILE, "dconst.cu", 13, "rhs writes dxdt[3] out of bounds");
	expect_detail("dxdt[0] .. dxdt[1]", NULL);
}

/* A constant expression of the model's sizes, in the Jacobian: J has
 * dim * dim entries; comments and in-bounds subscripts are no error. */
Test(model_load, constant_expression_past_the_jacobian_is_refused, .timeout = 120)
{
	int err = load_two_state("jconst", "dxdt[0] = -x[0]; dxdt[1] = -x[dim - 1]; // x[9]",
				 "\ttemplate <typename real>\n"
				 "\t__host__ __device__ static void jacobian(real, const real *, const real *, real *J)\n"
				 "\t{ J[0] = -1; J[1] = 0; J[2] = 0; J[3] = -1; J[dim * dim] = 0; }");

	expect_error(err, PICARD_ECOMPILE, "jconst.cu", 17,
		     "jacobian writes J[dim * dim] (= 4) out of bounds");
	expect_detail("dim * dim = 4 entries", NULL);
}

/* Subscripts computed at run time: the guarded first evaluation. */
Test(model_load, loop_to_dim_inclusive_reading_x_is_caught, .timeout = 120)
{
	int err = load_two_state("xloop", "dxdt[1] = 0; for (int i = 0; i <= dim; i++) "
				 "dxdt[1] += x[i]; dxdt[0] = -x[0];", "");

	cr_assert_eq(err, PICARD_EINVAL, "%s: %s", picard_strerror(err), picard_error_detail());
	expect_detail(in_workdir("xloop.cu").s, "rhs (double) at t = 0", verb("reads"),
		      "x[2] out of bounds", "x has 2 entries", NULL);
}

Test(model_load, computed_index_reading_p_is_caught, .timeout = 120)
{
	int err = load_two_state("prun", "int k = nparams + 5; dxdt[0] = -p[k] * x[0]; "
				 "dxdt[1] = -x[1];", "");

	cr_assert_eq(err, PICARD_EINVAL, "%s: %s", picard_strerror(err), picard_error_detail());
	expect_detail("prun.cu: rhs (double)", verb("reads"), "p[7] out of bounds", NULL);
}

Test(model_load, loop_to_dim_inclusive_writing_dxdt_is_caught, .timeout = 120)
{
	int err = load_two_state("dloop", "for (int i = 0; i <= dim; i++) dxdt[i] = -x[i < dim ? i : 0];",
				 "");

	cr_assert_eq(err, PICARD_EINVAL, "%s: %s", picard_strerror(err), picard_error_detail());
	expect_detail("dloop.cu: rhs (double)", verb("writes"), "dxdt[2] out of bounds", NULL);
}

/* Before the start: the canaries in front of dxdt. */
Test(model_load, write_before_dxdt_is_caught, .timeout = 120)
{
	int err = load_two_state("dminus", "int k = -1; dxdt[0] = -x[0]; dxdt[1] = -x[1]; "
				 "dxdt[k] = 0;", "");

	cr_assert_eq(err, PICARD_EINVAL, "%s: %s", picard_strerror(err), picard_error_detail());
	expect_detail("dminus.cu: rhs (double)", "writes dxdt[-1] out of bounds", NULL);
}

Test(model_load, dxdt_left_unwritten_is_caught, .timeout = 120)
{
	int err = load_two_state("partial", "dxdt[0] = -x[0];", "");

	cr_assert_eq(err, PICARD_EINVAL, "%s: %s", picard_strerror(err), picard_error_detail());
	expect_detail("partial.cu: rhs (double)", "leaves dxdt[1] unwritten", NULL);
}

/* The other functions of the contract get the same guards. */
Test(model_load, initial_exact_and_jacobian_are_guarded_too, .timeout = 120)
{
	int err = load_two_state("ibad", "dxdt[0] = -x[0]; dxdt[1] = -x[1];",
				 "\tstatic void initial(const double *p, double *x)\n"
				 "\t{ for (int i = 0; i <= dim; i++) x[i] = p[0]; }");

	cr_assert_eq(err, PICARD_EINVAL, "%s: %s", picard_strerror(err), picard_error_detail());
	expect_detail("ibad.cu: initial", verb("writes"), "x0[2] out of bounds", NULL);

	err = load_two_state("ebad", "dxdt[0] = -x[0]; dxdt[1] = -x[1];",
			     "\tstatic void exact(double t, double t0, const double *x0, "
			     "const double *p, double *x)\n"
			     "\t{ int k = nparams; x[0] = x0[0] * exp(-(t - t0) * p[k]); x[1] = x0[1]; }");
	cr_assert_eq(err, PICARD_EINVAL, "%s: %s", picard_strerror(err), picard_error_detail());
	expect_detail("ebad.cu: exact", verb("reads"), "p[2] out of bounds", NULL);

	err = load_two_state("jbad", "dxdt[0] = -x[0]; dxdt[1] = -x[1];",
			     "\ttemplate <typename real>\n"
			     "\t__host__ __device__ static void jacobian(real, const real *, const real *, real *J)\n"
			     "\t{ for (int i = 0; i <= dim * dim; i++) J[i] = 0; J[0] = J[3] = -1; }");
	cr_assert_eq(err, PICARD_EINVAL, "%s: %s", picard_strerror(err), picard_error_detail());
	expect_detail("jbad.cu: jacobian", verb("writes"), "J[4] out of bounds", NULL);
}

static double seconds_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* An rhs that never returns (y + 1 stops growing at 2^53): stopped at the
 * bound, 2 s, with the file named; the process goes on. */
Test(model_load, endless_loop_in_rhs_is_stopped_within_the_bound, .timeout = 120)
{
	const char *body = "real y = x[0]; while (y > 0) y = y + 1; dxdt[0] = y; dxdt[1] = -x[1];";
	double start, took;
	int err;

	write_two_state("endless", body, ""); /* compiled first, so only the probe is timed */
	load_two_state("endless", body, "");
	start = seconds_now();
	err = load_two_state("endless", body, "");
	took = seconds_now() - start;
	cr_assert_eq(err, PICARD_EINVAL, "%s: %s", picard_strerror(err), picard_error_detail());
	expect_detail(in_workdir("endless.cu").s, "rhs (double) at t = 0",
		      "did not return within 2 s", NULL);
	cr_expect(took >= 1.9 && took < 5, "stopped after %.2f s, the bound is 2 s", took);
}

/* picard-run on such files: exit 2 (a usage error: the file is input),
 * the array named, no output file, nothing left behind. */
Test(model_load, picard_run_refuses_out_of_bounds_and_endless_files, .timeout = 120)
{
	struct path bad = write_two_state("runbad", "for (int i = 0; i <= dim; i++) "
					  "dxdt[i] = -x[i < dim ? i : 0];", "");
	struct path endless = write_two_state("runendless", "real y = x[0]; while (y > 0) "
					      "y = y + 1; dxdt[0] = y; dxdt[1] = -x[1];", "");
	struct path out = in_workdir("x.csv");
	/* under timeout(1): a run that hangs fails the test, and ends */
	char *const bad_args[] = {"timeout", "20", (char *)program("picard-run"), bad.s, "--traj",
				  "1", "--out", out.s, NULL};
	char *const endless_args[] = {"timeout", "20", (char *)program("picard-run"), endless.s,
				      "--traj", "1", "--out", out.s, NULL};
	struct cli_run run = run_argv(bad_args);
	char *listing;

	cr_expect_eq(run.status, 2, "exit %d: %s", run.status, run.err);
	cr_expect(strstr(run.err, "dxdt[2] out of bounds"), "%s", run.err);
	free_run(&run);
	run = run_argv(endless_args);
	cr_expect_eq(run.status, 2, "exit %d: %s", run.status, run.err);
	cr_expect(strstr(run.err, "runendless.cu: rhs (double) at t = 0 did not return within 2 s"),
		  "%s", run.err);
	free_run(&run);
	listing = slurp(out.s, NULL);
	cr_expect_str_empty(listing, "an output file was written");
	free(listing);
	{
		char *const ls[] = {"sh", "-c", "ls \"$0\" | grep -c '^x\\.csv'", workdir, NULL};

		run = run_argv(ls);
		cr_expect_str_eq(run.out, "0\n", "left in %s: %s", workdir, run.out);
		free_run(&run);
	}
}

/* Every shipped model, and the example, passes the same checks. */
Test(model_load, every_shipped_model_passes_the_bounds_checks, .timeout = 300)
{
	const picard_model *fput = NULL;
	int checked = 0;

	for (int i = 0; i < picard_model_count(); i++) {
		const picard_model *model = picard_model_at(i);
		int err;

		cr_assert_not_null(model->impl->source, "%s: no text", model->name);
		err = picard_model_check_subscripts(model->impl->source_path, model->impl->source,
						    model);
		cr_expect_eq(err, 0, "%s: %s", model->name, picard_error_detail());
		err = picard_model_probe(model);
		cr_expect_eq(err, 0, "%s: %s", model->name, picard_error_detail());
		checked++;
	}
	cr_expect_geq(checked, 20, "only %d models checked", checked);
	cr_assert_eq(picard_model_load("examples/models/fput.cu", &fput), 0, "%s",
		     picard_error_detail());
}

/* The count of files in dir whose names end with suffix. */
static int files_ending(const char *dir, const char *suffix)
{
	DIR *d = opendir(dir);
	const size_t n = strlen(suffix);
	struct dirent *e;
	int count = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		count += strlen(e->d_name) >= n && !strcmp(e->d_name + strlen(e->d_name) - n, suffix);
	closedir(d);
	return count;
}

/* Issue 35 (1): picard_tune_prepare builds a model file's host sides of
 * the searches' per-thread pairs before any search (in parallel), into
 * a kernel cache of the test's own; nothing for a scheme without one
 * (trapezoid); and what it built solves: dp8 on the oscillator meets its
 * closed form. */
Test(model_load, prepare_builds_the_searches_host_sides)
{
	const struct path jit = in_workdir("jit");
	const picard_tune_options searches[] = {
		{.scheme = PICARD_SCHEME_DP5, .tol = 1e-8, .precision = PICARD_DOUBLE,
		 .backend = PICARD_BACKEND_CPU},
		{.scheme = PICARD_SCHEME_DP8, .tol = 1e-8, .precision = PICARD_DOUBLE,
		 .backend = PICARD_BACKEND_CPU},
		{.scheme = PICARD_SCHEME_TRAPEZOID, .tol = 1e-8, .precision = PICARD_DOUBLE,
		 .backend = PICARD_BACKEND_CPU},
	};
	char models[4200];
	const picard_model *model;
	int prepared = -1;

	setenv("PICARD_JIT_CACHE_DIR", jit.s, 1);
	model = load_copy("oscillator");
	snprintf(models, sizeof(models), "%s/models", jit.s);
	cr_assert_eq(files_ending(models, "-rk_dp8.so"), 0, "built before it was asked for");
	cr_assert_eq(picard_tune_prepare(model, searches, 3, &prepared), 0, "%s",
		     picard_error_detail());
	cr_expect_eq(prepared, 2);
	cr_expect_eq(files_ending(models, "-rk_dp5.so"), 1);
	cr_expect_eq(files_ending(models, "-rk_dp8.so"), 1);
	cr_expect_eq(files_ending(models, "-rk_vern9.so"), 0);

	picard_options opt = {.scheme = PICARD_SCHEME_DP8, .backend = PICARD_BACKEND_CPU,
			      .precision = PICARD_DOUBLE, .t1 = 5, .h = 5, .K_max = 100000,
			      .iter_rtol = 1e-12};
	picard_solver *solver = test_solver(model, &opt, 1);
	double x1[2], exact[2];

	cr_assert_eq(picard_solve(solver, model->x0, NULL, x1, NULL, NULL, NULL, 0, NULL), 0, "%s",
		     picard_error_detail());
	model->exact(5, 0, model->x0, model->param_defaults, exact);
	cr_expect(fabs(x1[0] - exact[0]) < 1e-9 && fabs(x1[1] - exact[1]) < 1e-9,
		  "x(5) = (%.15g, %.15g), exact (%.15g, %.15g)", x1[0], x1[1], exact[0], exact[1]);
	picard_solver_free(solver);
}

/* Issue 35 (5): kernels built ahead of time (make kernels: --precompile
 * with PICARD_JIT_ARCH, no GPU needed) serve a picard whose own kernel
 * cache is empty: found in PICARD_KERNEL_DIR (an install's
 * share/picard/kernels), none compiled, nothing copied into the empty
 * cache. */
Test(model_load, kernels_built_ahead_serve_an_empty_cache, .timeout = 300)
{
	const struct path ahead = in_workdir("ahead"), empty = in_workdir("empty");
	char kernels[4200], said[128];
	struct cli_run run;
	int count;

	setenv("PICARD_JIT_ARCH", "90", 1);
	setenv("PICARD_JIT_CACHE_DIR", ahead.s, 1);
	run = run_program_line("picard-run", "decay --precompile --scheme dp5");
	cr_assert_eq(run.status, 0, "%s%s", run.out, run.err);
	cr_assert_eq(sscanf(run.out, "decay: %d kernels", &count), 1, "%s", run.out);
	cr_assert_gt(count, 0);
	snprintf(said, sizeof(said), "decay: %d kernels, %d compiled, 0 found", count, count);
	cr_expect_not_null(strstr(run.out, said), "%s", run.out);
	free_run(&run);

	snprintf(kernels, sizeof(kernels), "%s/kernels", ahead.s);
	setenv("PICARD_KERNEL_DIR", kernels, 1);
	setenv("PICARD_JIT_CACHE_DIR", empty.s, 1);
	run = run_program_line("picard-run", "decay --precompile --scheme dp5");
	cr_assert_eq(run.status, 0, "%s%s", run.out, run.err);
	snprintf(said, sizeof(said), "decay: %d kernels, 0 compiled, %d found", count, count);
	cr_expect_not_null(strstr(run.out, said), "%s", run.out);
	snprintf(kernels, sizeof(kernels), "%s/kernels", empty.s);
	cr_expect_eq(files_ending(kernels, ".cubin"), 0, "installed kernels copied into the cache");
	free_run(&run);
}

/* One kernel wanted by two threads at once is compiled once: the second
 * waits for the first's (src/model/jit.c), as a quick search waits for the
 * kernels it compiles in the background. Started together, both would
 * compile it without that. */
struct precompile_one {
	const picard_model *model;
	const char *expression;
	int err;
};

static void *precompile_thread(void *arg)
{
	struct precompile_one *job = arg;

	job->err = picard_jit_precompile(job->model, &job->expression, 1);
	return NULL;
}

Test(model_load, one_kernel_wanted_twice_at_once_is_compiled_once, .timeout = 120)
{
	const picard_model *model = picard_model_find("decay");
	struct precompile_one jobs[2];
	pthread_t threads[2];
	const struct path dir = in_workdir("twice");
	long compiled = 0, cached = 0;

	cr_assert_not_null(model);
	setenv("PICARD_JIT_ARCH", "90", 1);
	setenv("PICARD_JIT_CACHE_DIR", dir.s, 1);
	for (int i = 0; i < 2; i++) {
		jobs[i] = (struct precompile_one){
			.model = model,
			.expression = "picard::picard_rk_kernel<decay, picard::rk_dp5, double, false, false, false>",
		};
		cr_assert_eq(pthread_create(&threads[i], NULL, precompile_thread, &jobs[i]), 0);
	}
	for (int i = 0; i < 2; i++) {
		pthread_join(threads[i], NULL);
		cr_expect_eq(jobs[i].err, PICARD_OK, "thread %d: %s", i, picard_error_detail());
	}
	picard_jit_stats(NULL, &compiled, &cached);
	cr_expect_eq(compiled, 1, "compiled %ld times (found in the cache %ld times)", compiled,
		     cached);
}
