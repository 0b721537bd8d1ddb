/* imex_models.c - the semi-linear test models of imex_models.h: the
 * operator, g, rhs = A x + g and the Jacobian (A dense, g's part by
 * central differences) from one description per model. */
#define _DEFAULT_SOURCE /* M_PI */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "imex_models.h"
#include "linsolve/sparse.h"
#include "model_impl.h"

/* A of op at params in CSR (shift 0, scale 1); 0 or a linsolve code. */
static int operator_csr(const picard_operator *op, const double *params, picard_sparse *a)
{
	const int nx = op->nx, ny = op->kind == PICARD_OP_STENCIL_2D ? op->ny : 1;
	double kx[(64 + 1) * 64], ky[64 * (64 + 1)];

	if (op->kind == PICARD_OP_CSR) {
		int code = picard_sparse_alloc_csr(nx, op->nnz, a);

		if (code)
			return code;
		op->csr(params, a->row_start, a->col, a->val);
		return 0;
	}
	op->k_faces(params, kx, op->kind == PICARD_OP_STENCIL_2D ? ky : NULL);
	return op->kind == PICARD_OP_STENCIL_2D ?
		picard_stencil_2d(nx, ny, op->dx, op->dy, kx, ky, 0, 1, a) :
		picard_stencil_1d(nx, op->dx, kx, 0, 1, a);
}

static void op_rhs(const picard_operator *op, double t, const double *x, const double *p,
		   double *f)
{
	const int n = op->nx * op->ny;
	picard_sparse a = { 0 };
	double g[4096];

	operator_csr(op, p, &a);
	picard_sparse_spmv(&a, x, f);
	op->nonlinear(t, x, p, g);
	for (int i = 0; i < n; i++)
		f[i] += g[i];
	picard_sparse_free(&a);
}

static void op_jacobian(const picard_operator *op, double t, const double *x, const double *p,
			double *J)
{
	const int n = op->nx * op->ny;
	picard_sparse a = { 0 };
	double *xp = malloc(sizeof(double) * 3 * n), *gp = xp + n, *gm = gp + n;

	operator_csr(op, p, &a);
	memcpy(xp, x, sizeof(double) * n);
	for (int c = 0; c < n; c++) {
		const double d = 1e-6 * fmax(1, fabs(x[c]));

		xp[c] = x[c] + d;
		op->nonlinear(t, xp, p, gp);
		xp[c] = x[c] - d;
		op->nonlinear(t, xp, p, gm);
		xp[c] = x[c];
		for (int r = 0; r < n; r++)
			J[r * n + c] = (gp[r] - gm[r]) / (2 * d) + picard_sparse_entry(&a, r, c);
	}
	picard_sparse_free(&a);
	free(xp);
}

/* g = r u (1 - u) */
static void reaction(const double *x, double r, int n, double *g)
{
	for (int i = 0; i < n; i++)
		g[i] = r * x[i] * (1 - x[i]);
}

#define MODEL_FNS(NAME)                                                                       \
	static void NAME##_rhs(double t, const double *x, const double *p, double *f)         \
	{                                                                                     \
		op_rhs(&NAME##_op, t, x, p, f);                                               \
	}                                                                                     \
	static void NAME##_jac(double t, const double *x, const double *p, double *J)         \
	{                                                                                     \
		op_jacobian(&NAME##_op, t, x, p, J);                                          \
	}                                                                                     \
	static const struct picard_model_impl NAME##_impl = {                                 \
		.rhs_double = NAME##_rhs, .jacobian = { NAME##_jac, NAME##_jac },             \
	}

/* ---- heat1d ------------------------------------------------------------ */

#define H1_NX 31
static void h1_k_faces(const double *p, double *kx, double *ky)
{
	(void)ky;
	for (int i = 0; i <= H1_NX; i++)
		kx[i] = p[0] * (1 + 0.5 * (i + 0.5) / (H1_NX + 1));
}

/* g = r u (1 - s u): s = 0 makes g linear, Lipschitz r everywhere */
static void h1_nonlinear(double t, const double *x, const double *p, double *g)
{
	(void)t;
	for (int i = 0; i < H1_NX; i++)
		g[i] = p[1] * x[i] * (1 - p[2] * x[i]);
}

static const picard_operator imex_heat1d_op = {
	.kind = PICARD_OP_STENCIL_1D, .nx = H1_NX, .ny = 1, .dx = 1.0 / (H1_NX + 1),
	.symmetric = true, .k_faces = h1_k_faces, .nonlinear = h1_nonlinear,
};
MODEL_FNS(imex_heat1d);

static const char *const k_r_names[] = { "k", "r" };
static const char *const k_r_s_names[] = { "k", "r", "s" };
static const double h1_defaults[] = { 1, 1, 1 };
static double h1_x0[H1_NX];

/* ---- heat2d ------------------------------------------------------------ */

#define H2_NX 9
#define H2_NY 7
static void h2_k_faces(const double *p, double *kx, double *ky)
{
	for (int j = 0; j < H2_NY; j++)
		for (int i = 0; i <= H2_NX; i++)
			kx[i + (H2_NX + 1) * j] = p[0] * (1 + 0.5 * (i + 0.5) / (H2_NX + 1) +
							  0.25 * (j + 1.0) / (H2_NY + 1));
	for (int j = 0; j <= H2_NY; j++)
		for (int i = 0; i < H2_NX; i++)
			ky[i + H2_NX * j] = p[0] * (1 + 0.5 * (j + 0.5) / (H2_NY + 1));
}

static void h2_nonlinear(double t, const double *x, const double *p, double *g)
{
	(void)t;
	reaction(x, p[1], H2_NX * H2_NY, g);
}

static const picard_operator imex_heat2d_op = {
	.kind = PICARD_OP_STENCIL_2D, .nx = H2_NX, .ny = H2_NY, .dx = 1.0 / (H2_NX + 1),
	.dy = 1.0 / (H2_NY + 1), .symmetric = true, .k_faces = h2_k_faces,
	.nonlinear = h2_nonlinear,
};
MODEL_FNS(imex_heat2d);

static const double h2_defaults[] = { 0.5, 1 };
static double h2_x0[H2_NX * H2_NY];

/* ---- ring (CSR, symmetric) --------------------------------------------- */

#define RING_N 24
static void ring_csr(const double *p, int *row_start, int *col, double *val)
{
	const double c = p[0] * RING_N * RING_N;
	int k = 0;

	/* columns increasing within each row, the wrap-around included */
	for (int i = 0; i < RING_N; i++) {
		int cols[3] = { (i + RING_N - 1) % RING_N, i, (i + 1) % RING_N };
		double vals[3] = { c, -2 * c, c };

		row_start[i] = k;
		for (int a = 0; a < 3; a++)
			for (int b = a + 1; b < 3; b++)
				if (cols[b] < cols[a]) {
					int ci = cols[a];
					double vi = vals[a];

					cols[a] = cols[b], vals[a] = vals[b];
					cols[b] = ci, vals[b] = vi;
				}
		for (int a = 0; a < 3; a++)
			col[k] = cols[a], val[k++] = vals[a];
	}
	row_start[RING_N] = k;
}

static void ring_nonlinear(double t, const double *x, const double *p, double *g)
{
	(void)t;
	reaction(x, p[1], RING_N, g);
}

static const picard_operator imex_ring_op = {
	.kind = PICARD_OP_CSR, .nx = RING_N, .ny = 1, .symmetric = true, .nnz = 3 * RING_N,
	.csr = ring_csr, .nonlinear = ring_nonlinear,
};
MODEL_FNS(imex_ring);

static const double ring_defaults[] = { 0.3, 1 };
static double ring_x0[RING_N];

/* ---- convection (CSR, not symmetric) ----------------------------------- */

#define CV_N 31
static void cv_csr(const double *p, int *row_start, int *col, double *val)
{
	double k_face[CV_N + 1], velocity[CV_N];
	picard_sparse a = { 0 };

	for (int i = 0; i <= CV_N; i++)
		k_face[i] = p[0];
	for (int i = 0; i < CV_N; i++)
		velocity[i] = p[1];
	picard_stencil_convection_1d(CV_N, 1.0 / (CV_N + 1), k_face, velocity, 0, 1, &a);
	memcpy(row_start, a.row_start, sizeof(int) * (CV_N + 1));
	memcpy(col, a.col, sizeof(int) * a.row_start[CV_N]);
	memcpy(val, a.val, sizeof(double) * a.row_start[CV_N]);
	picard_sparse_free(&a);
}

static void cv_nonlinear(double t, const double *x, const double *p, double *g)
{
	(void)t;
	reaction(x, p[2], CV_N, g);
}

static const picard_operator imex_convection_op = {
	.kind = PICARD_OP_CSR, .nx = CV_N, .ny = 1, .symmetric = false, .nnz = 3 * CV_N,
	.csr = cv_csr, .nonlinear = cv_nonlinear,
};
MODEL_FNS(imex_convection);

static const char *const k_v_r_names[] = { "k", "v", "r" };
static const double cv_defaults[] = { 0.2, 2, 1 };
static double cv_x0[CV_N];

/* ---- tiny -------------------------------------------------------------- */

static void tiny_k_faces(const double *p, double *kx, double *ky)
{
	(void)ky;
	kx[0] = kx[1] = kx[2] = p[0];
}

static void tiny_nonlinear(double t, const double *x, const double *p, double *g)
{
	(void)t, (void)x, (void)p;
	g[0] = g[1] = 0;
}

static const picard_operator imex_tiny_op = {
	.kind = PICARD_OP_STENCIL_1D, .nx = 2, .ny = 1, .dx = 1, .symmetric = true,
	.k_faces = tiny_k_faces, .nonlinear = tiny_nonlinear,
};
MODEL_FNS(imex_tiny);

static const char *const k_names[] = { "k" };
static const double tiny_defaults[] = { 0.1 };
static const double tiny_x0[] = { 1, 0.5 };

/* ---- start states ------------------------------------------------------ */

__attribute__((constructor)) static void imex_models_start(void)
{
	for (int i = 0; i < H1_NX; i++)
		h1_x0[i] = 0.8 * sin(M_PI * (i + 1.0) / (H1_NX + 1));
	for (int j = 0; j < H2_NY; j++)
		for (int i = 0; i < H2_NX; i++)
			h2_x0[i + H2_NX * j] = sin(M_PI * (i + 1.0) / (H2_NX + 1)) *
					       sin(M_PI * (j + 1.0) / (H2_NY + 1));
	for (int i = 0; i < RING_N; i++)
		ring_x0[i] = 0.5 + 0.3 * cos(2 * M_PI * i / RING_N);
	for (int i = 0; i < CV_N; i++)
		cv_x0[i] = 0.8 * sin(M_PI * (i + 1.0) / (CV_N + 1));
}

#define MODEL(NAME, DIM, NAMES, DEFAULTS, X0, T1)                                            \
	const picard_model NAME = {                                                           \
		.name = #NAME, .summary = "test model", .dim = DIM,                          \
		.nparams = sizeof(DEFAULTS) / sizeof(DEFAULTS[0]), .param_names = NAMES,     \
		.param_defaults = DEFAULTS, .x0 = X0, .t0 = 0, .t1 = T1, .stiff = true,      \
		.op = &NAME##_op, .impl = &NAME##_impl,                                       \
	}

MODEL(imex_heat1d, H1_NX, k_r_s_names, h1_defaults, h1_x0, 0.4);
MODEL(imex_heat2d, H2_NX * H2_NY, k_r_names, h2_defaults, h2_x0, 0.4);
MODEL(imex_ring, RING_N, k_r_names, ring_defaults, ring_x0, 0.4);
MODEL(imex_convection, CV_N, k_v_r_names, cv_defaults, cv_x0, 0.4);
MODEL(imex_tiny, 2, k_names, tiny_defaults, tiny_x0, 1);
