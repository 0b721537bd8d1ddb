/* test_gri30.c - models/chem/gri30.cu (suite gri30; docs/chemistry.md):
 * Cantera's gri30.yaml, GRI-Mech 3.0 (53 species, 325 reactions: three-
 * body, Lindemann and Troe falloff, irreversible, duplicate), converted by
 * tools/mech2picard as an adiabatic constant-pressure reactor, state (T,
 * Y_1..Y_53), parameters (P, T0, phi). It ships outside models/ and runs by
 * path (picard_model_load): its host side takes minutes to compile, once,
 * into the shared kernel cache; so the checks sit in one test.
 * - the right-hand side against an independent evaluation from the
 *   mechanism file (tools/mech2picard/reference_rhs.py, run here) at
 *   states drawn at random: T 700-2800 K, 0.5-30 atm, every species
 *   present at 1e-10 to 1e-2;
 * - the analytic Jacobian against the automatic one (dual numbers through
 *   rhs) at those states and along an ignition run;
 * - through ignition of the defaults (stoichiometric CH4/air, 1400 K, 1
 *   atm): radau5 and rodas5p against GSL's msbdf with the Jacobian
 *   (picard_reference), the mass and the elements kept.
 * (models/chem/gri30.cu being what the converter writes today is checked
 * with h2o2 in test_chem.c.) Criterion forks per test; no CUDA here. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_impl.h"
#include "picard.h"
#include "scheme.h"
#include "support.h"

#define NSPECIES 53
#define DIM (NSPECIES + 1)
#define ONE_ATM 101325.0
#define NSTATES 6

static void setup(void)
{
	make_workdir("gri30", "cache");
}

TestSuite(gri30, .init = setup, .fini = remove_workdir);

/* A state drawn from seed: T in [700, 2800] K, P in [0.5, 30] atm, each
 * Y_k log-uniform in [1e-10, 1e-2], O2 0.05-0.2, CH4 0-0.05, H2O and CO2
 * 0-0.1, N2 the rest. */
static void random_state(unsigned seed, double *P, double *x)
{
	double sum = 0;

	srand(seed);
#define U() ((double)rand() / RAND_MAX)
	x[0] = 700 + 2100 * U();
	*P = ONE_ATM * 0.5 * pow(60, U());
	for (int k = 1; k < DIM; k++)
		x[k] = pow(10, -10 + 8 * U());
	x[4] = 0.05 + 0.15 * U();  /* O2 */
	x[14] = 0.05 * U();        /* CH4 */
	x[6] = 0.1 * U();          /* H2O */
	x[16] = 0.1 * U();         /* CO2 */
#undef U
	x[48] = 0;                 /* N2 */
	for (int k = 1; k < DIM; k++)
		sum += x[k];
	x[48] = 1 - sum;
}

/* reference_rhs.py's f at (P, x), parsed from its one line of %.17g. */
static void independent_rhs(double P, const double *x, double *f)
{
	char *argv[4 + DIM + 1], args[DIM + 1][32];
	struct cli_run run;
	char *p;

	argv[0] = "python3";
	argv[1] = "tools/mech2picard/reference_rhs.py";
	argv[2] = "tools/mechanisms/gri30.yaml";
	snprintf(args[0], sizeof(args[0]), "%.17g", P);
	argv[3] = args[0];
	for (int k = 0; k < DIM; k++) {
		snprintf(args[k + 1], sizeof(args[k + 1]), "%.17g", x[k]);
		argv[4 + k] = args[k + 1];
	}
	argv[4 + DIM] = NULL;
	run = run_argv(argv);
	cr_assert_eq(run.status, 0, "reference_rhs.py: exit %d\n%s", run.status, run.err);
	p = run.out;
	for (int k = 0; k < DIM; k++) {
		char *end;

		f[k] = strtod(p, &end);
		cr_assert(end != p, "reference_rhs.py printed %d values, not %d: %s", k, DIM, run.out);
		p = end;
	}
	free_run(&run);
}

/* One trajectory of scheme from the defaults at rtol, atol 1e-14 (the
 * radicals want it: docs/chemistry.md), the states at times into out. */
static void record_run(const picard_model *model, picard_scheme scheme, double rtol,
		       const double *times, long n, double *out)
{
	picard_options opt = { .scheme = scheme, .iter_rtol = rtol, .iter_atol = 1e-14,
			       .precision = PICARD_DOUBLE, .t0 = 0, .t1 = model->t1,
			       .backend = PICARD_BACKEND_CPU };
	picard_solver *s = test_solver(model, &opt, 1);
	picard_record record = { .every = 0, .traj_stride = 1, .states = out, .times = times,
				 .ntimes = n };
	picard_traj_status status;

	cr_assert_eq(picard_solve(s, model->x0, NULL, NULL, &status, NULL, &record, 1, NULL), 0,
		     "%s", picard_error_detail());
	cr_assert_eq(status, PICARD_TRAJ_OK, "%s: status %d", picard_scheme_of(scheme)->name, status);
	picard_solver_free(s);
}

/* The largest relative error of T and absolute error of the Y_k of got
 * against ref (n states). */
static void state_errors(const double *got, const double *ref, long n, double *T, double *Y)
{
	*T = *Y = 0;
	for (long i = 0; i < n; i++) {
		*T = fmax(*T, fabs(got[i * DIM] - ref[i * DIM]) / ref[i * DIM]);
		for (int k = 1; k < DIM; k++)
			*Y = fmax(*Y, fabs(got[i * DIM + k] - ref[i * DIM + k]));
	}
}

/* The bars: rhs within 1e-10 of the independent evaluation (the two sum
 * the same terms in other orders: h2o2 measured 2e-15); the Jacobians as
 * test_chem.c's (row 1e-13, entry 1e-10); radau5 and rodas5p at rtol 1e-8
 * within 1e-5 relative in T and 1e-6 in Y of msbdf through ignition (T
 * climbs ~1e6 K/s there: a shift of 10 ns is 0.01 K); the mass within
 * 1e-10, the elements within 1e-8 relative. Measured: see the log. */
Test(gri30, converted_mechanism_holds, .timeout = 1500)
{
	const picard_model *model;
	const long n = 201;
	double worst_f = 0, row = 0, entry = 0, hottest = 0, err_T, err_Y;
	double *times = malloc(n * sizeof(double)), *ref = malloc(n * DIM * sizeof(double));
	double *got = malloc(n * DIM * sizeof(double));
	double start[8], now[8], worst_inv[8] = { 0 };
	int err = picard_model_load("models/chem/gri30.cu", &model);

	cr_assert_eq(err, 0, "%s", picard_error_detail());
	cr_assert_eq(model->dim, DIM);
	cr_assert_eq(model->nparams, 3);
	cr_assert(model->impl->declares_jacobian, "gri30 declares no jacobian");

	for (unsigned s = 0; s < NSTATES; s++) {
		double x[DIM], f[DIM], ref_f[DIM], P, scale = 0;
		double params[3] = { 0, 1400, 1 };

		random_state(1000 + s, &P, x);
		params[0] = P;
		picard_model_rhs(model, 0, x, params, f);
		independent_rhs(P, x, ref_f);
		for (int k = 0; k < DIM; k++)
			scale = fmax(scale, k ? fabs(ref_f[k]) : 0);
		/* T relative to itself, Y relative to the largest dY/dt: a
		 * species at 1e-10 whose terms cancel has no digits of its own */
		worst_f = fmax(worst_f, fabs(f[0] - ref_f[0]) / fabs(ref_f[0]));
		for (int k = 1; k < DIM; k++)
			worst_f = fmax(worst_f, fabs(f[k] - ref_f[k]) / scale);
		jacobian_against_ad(model, params, x, &row, &entry);
	}
	cr_log_info("gri30 rhs at %d random states: %.1e off the independent evaluation", NSTATES,
		    worst_f);
	cr_expect_lt(worst_f, 1e-10, "the rhs is %.2e off", worst_f);

	for (long i = 0; i < n; i++)
		times[i] = model->t1 * (double)i / (double)(n - 1);
	err = picard_reference(model, NULL, model->x0, 0, times, n, ref);
	cr_assert_eq(err, 0, "%s", picard_error_detail());
	cr_assert_gt(ref[(n - 1) * DIM], 2200, "the defaults do not ignite: T = %g at t1",
		     ref[(n - 1) * DIM]);
	for (long i = 0; i < n; i++) {
		hottest = fmax(hottest, ref[i * DIM]);
		if (i % 10 == 0)
			jacobian_against_ad(model, model->param_defaults, ref + i * DIM, &row, &entry);
	}
	cr_log_info("gri30 analytic Jacobian against AD at %d random states and %ld along "
		    "ignition (to %.0f K): %.1e of the row's largest entry, %.1e of the entry",
		    NSTATES, n / 10 + 1, hottest, row, entry);
	cr_expect_leq(row, 1e-13, "%.2e of the row's scale", row);
	cr_expect_leq(entry, 1e-10, "%.2e of an entry", entry);

	const picard_scheme schemes[2] = { PICARD_SCHEME_RADAU5, PICARD_SCHEME_RODAS5P };
	for (int s = 0; s < 2; s++) {
		record_run(model, schemes[s], 1e-8, times, n, got);
		state_errors(got, ref, n, &err_T, &err_Y);
		cr_log_info("gri30 %s rtol 1e-8 against msbdf through ignition: T %.2e relative, "
			    "Y %.2e absolute", picard_scheme_of(schemes[s])->name, err_T, err_Y);
		cr_expect_lt(err_T, 1e-5, "%s: T %.2e off", picard_scheme_of(schemes[s])->name, err_T);
		cr_expect_lt(err_Y, 1e-6, "%s: Y %.2e off", picard_scheme_of(schemes[s])->name, err_Y);
	}

	model->invariants(model->x0, model->param_defaults, start);
	for (long i = 0; i < n; i++) {
		model->invariants(got + i * DIM, model->param_defaults, now);
		for (int q = 0; q < model->ninvariants; q++) {
			const double dev = fabs(now[q] - start[q]) / (start[q] ? fabs(start[q]) : 1);

			worst_inv[q] = fmax(worst_inv[q], dev);
		}
	}
	for (int q = 0; q < model->ninvariants; q++) {
		/* the mass, the elements (linear: kept to rounding), the
		 * enthalpy last (nonlinear: kept to the tolerance's order) */
		const double bar = q == 0 ? 1e-10 : q < model->ninvariants - 1 ? 1e-8 : 1e-6;

		cr_log_info("gri30 through ignition (rodas5p): %s moved %.2e relative",
			    model->invariant_names[q], worst_inv[q]);
		cr_expect_lt(worst_inv[q], bar, "%s moved by %.2e", model->invariant_names[q],
			     worst_inv[q]);
	}
	free(times);
	free(ref);
	free(got);
}
