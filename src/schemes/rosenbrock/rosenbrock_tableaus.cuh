/* rosenbrock_tableaus.cuh - the tableaus of the per-thread Rosenbrock
 * schemes (scheme_rosenbrock.c: rodas5p, rodas4, ros23), as compile-time
 * tables for the one integrator that runs them all (rosenbrock_integrate.cuh),
 * in Hairer & Wanner's form without matrix-vector products (Solving ODEs
 * II, IV.7, eq. (7.25)): with W = I / (h gamma) - J, J = df/dx and f_t =
 * df/dt at the step's start (t0, y0), for stages i = 0 .. stages-1
 *
 *	u_i = y0 + sum_{j<i} a(i, j) k_j,
 *	W k_i = f(t0 + c(i) h, u_i) + sum_{j<i} (C(i, j) / h) k_j + h d(i) f_t,
 *
 * y1 = y0 + sum_j b(j) k_j, and the error estimate sum_j e(j) k_j (the
 * difference of the embedded solution to y1, or its sign reversed: the
 * norm alone is used). k_i are increments (h times slopes).
 *
 * Each tableau: stages, order (of b), err_order (of the embedded
 * solution, the lower of the pair: it sets the controller's exponent
 * 1/(err_order + 1)), solution_stages (the stages y1 needs: fixed steps
 * take no others), fsal (the last stage is f at (t0 + h, y1): the next
 * step's f, for free), own_dense (the scheme's own continuous extension,
 * dense(j, theta): y(t0 + theta h) = y0 + sum_j dense(j, theta) k_j;
 * without one, a record's time gets a step of the scheme from the step's
 * start, rosenbrock_integrate.cuh). The order tests (tests/schemes/
 * test_rk.c) hold every table to its nominal order; a check of each in
 * 40 digits (the local errors of y1 and of the embedded solution on a
 * non-autonomous system falling as h^(order+1) and h^(err_order+1)) gave
 * 5.0/4.0 (rodas4), 6.0/5.0 (rodas5p), 3.0/4.0 (ros23). */
#ifndef PICARD_ROSENBROCK_TABLEAUS_CUH
#define PICARD_ROSENBROCK_TABLEAUS_CUH

#include "portable.h"

namespace picard {

/* Rodas5P: G. Steinebach, "Construction of Rosenbrock-Wanner method
 * Rodas5P and numerical benchmarks within the Julia Differential Equations
 * package", BIT Numer. Math. 63 (2023) 27. Eight stages, order 5,
 * embedded order 4, stiffly accurate (the embedded solution is u_7 + k_7
 * = u_8, y1 = u_8 + k_8: the estimate is k_8). Coefficients as
 * OrdinaryDiffEq.jl publishes them (lib/OrdinaryDiffEqRosenbrock/src/
 * rosenbrock_tableaus.jl, Rodas5PTableau): a and C of its matrices A
 * and C; stages 6 to 8 are u_7 = u_6 + k_6, u_8 = u_7 + k_7 (A's last
 * rows). */
struct rosenbrock_rodas5p {
	static constexpr bool rosenbrock = true;
	static constexpr int stages = 8, solution_stages = 8, order = 5, err_order = 4;
	static constexpr bool fsal = false, own_dense = false;
	static constexpr double gamma = 0.21193756319429014;

	__host__ __device__ static constexpr double a6(int j)
	{
		constexpr double A6[5] = {-7.502846399306121, 2.561846144803919,
					  -11.627539656261098, -0.18268767659942256,
					  0.030198172008377946};
		return A6[j];
	}
	__host__ __device__ static constexpr double a(int i, int j)
	{
		constexpr double A[5][4] = {
			{0},
			{3.0},
			{2.849394379747939, 0.45842242204463923},
			{-6.954028509809101, 2.489845061869568, -10.358996098473584},
			{2.8029986275628964, 0.5072464736228206, -0.3988312541770524,
			 -0.04721187230404641},
		};
		return i < 5 ? (j < 4 ? A[i][j] : 0.0) : j < 5 ? a6(j) : j < i ? 1.0 : 0.0;
	}
	__host__ __device__ static constexpr double C(int i, int j)
	{
		constexpr double Cm[8][7] = {
			{0},
			{-14.155112264123755},
			{-17.97296035885952, -2.859693295451294},
			{147.12150275711716, -1.41221402718213, 71.68940251302358},
			{165.43517024871676, -0.4592823456491126, 42.90938336958603,
			 -5.961986721573306},
			{24.854864614690072, -3.0009227002832186, 47.4931110020768,
			 5.5814197821558125, -0.6610691825249471},
			{30.91273214028599, -3.1208243349937974, 77.79954646070892,
			 34.28646028294783, -19.097331116725623, -28.087943162872662},
			{37.80277123390563, -3.2571969029072276, 112.26918849496327,
			 66.9347231244047, -40.06618937091002, -54.66780262877968,
			 -9.48861652309627},
		};
		return j < 7 ? Cm[i][j] : 0.0;
	}
	__host__ __device__ static constexpr double c(int i)
	{
		constexpr double Cv[8] = {0, 0.6358126895828704, 0.4095798393397535,
					  0.9769306725060716, 0.4288403609558664, 1, 1, 1};
		return Cv[i];
	}
	__host__ __device__ static constexpr double d(int i)
	{
		constexpr double D[8] = {0.21193756319429014, -0.42387512638858027,
					 -0.3384627126235924, 1.8046452872882734,
					 2.325825639765069, 0, 0, 0};
		return D[i];
	}
	__host__ __device__ static constexpr double b(int j) { return j < 5 ? a6(j) : 1.0; }
	__host__ __device__ static constexpr double e(int j) { return j == 7 ? 1.0 : 0.0; }
	__host__ __device__ static double dense(int, double) { return 0; }
};

/* RODAS (called RODAS4 since): Hairer & Wanner, Solving ODEs II, IV.7
 * (Table 7.2's method as their code rodas.f has it, METH = 1,
 * subroutine ROCOE), six stages, order 4, embedded order 3, stiffly
 * accurate: u_6 = u_5 + k_5 is the embedded solution, y1 = u_6 + k_6,
 * the estimate k_6. The coefficients to rodas.f's 16 digits, as
 * OrdinaryDiffEq.jl transcribes them (Rodas4Tableau). */
struct rosenbrock_rodas4 {
	static constexpr bool rosenbrock = true;
	static constexpr int stages = 6, solution_stages = 6, order = 4, err_order = 3;
	static constexpr bool fsal = false, own_dense = false;
	static constexpr double gamma = 0.25;

	__host__ __device__ static constexpr double a5(int j)
	{
		constexpr double A5[4] = {1.221224509226641, 6.019134481288629, 12.53708332932087,
					  -0.6878860361058950};
		return A5[j];
	}
	__host__ __device__ static constexpr double a(int i, int j)
	{
		constexpr double A[4][3] = {
			{0},
			{1.544},
			{0.9466785280815826, 0.2557011698983284},
			{3.314825187068521, 2.896124015972201, 0.9986419139977817},
		};
		return i < 4 ? (j < 3 ? A[i][j] : 0.0) : j < 4 ? a5(j) : j < i ? 1.0 : 0.0;
	}
	__host__ __device__ static constexpr double C(int i, int j)
	{
		constexpr double Cm[6][5] = {
			{0},
			{-5.6688},
			{-2.430093356833875, -0.2063599157091915},
			{-0.1073529058151375, -9.594562251023355, -20.47028614809616},
			{7.496443313967647, -10.24680431464352, -33.99990352819905, 11.70890893206160},
			{8.083246795921522, -7.981132988064893, -31.52159432874371, 16.31930543123136,
			 -6.058818238834054},
		};
		return j < 5 ? Cm[i][j] : 0.0;
	}
	__host__ __device__ static constexpr double c(int i)
	{
		constexpr double Cv[6] = {0, 0.386, 0.21, 0.63, 1, 1};
		return Cv[i];
	}
	__host__ __device__ static constexpr double d(int i)
	{
		/* rodas.f: d4 = -0.3620000000000023e-01 */
		constexpr double D[6] = {0.25, -0.1043, 0.1035, -0.03620000000000023, 0, 0};
		return D[i];
	}
	__host__ __device__ static constexpr double b(int j) { return j < 4 ? a5(j) : 1.0; }
	__host__ __device__ static constexpr double e(int j) { return j == 5 ? 1.0 : 0.0; }
	__host__ __device__ static double dense(int, double) { return 0; }
};

/* Rosenbrock23: L. F. Shampine & M. W. Reichelt, "The MATLAB ODE suite",
 * SIAM J. Sci. Comput. 18 (1997) 1-22, section 4.1, MATLAB's ode23s (and
 * OrdinaryDiffEq.jl's Rosenbrock23): a W-method of order 2 (for any
 * matrix in W) with an estimate from a third stage of order 3, L-stable,
 * for loose tolerances. Theirs, with d = 1/(2 + sqrt 2), e32 = 6 + sqrt 2,
 * slopes s_i and W' = I - h d J:
 *
 *	W' s1 = F0 + h d T,  F1 = f(t0 + h/2, y0 + h/2 s1),
 *	W' (s2 - s1) = F1 - s1,  y1 = y0 + h s2,  F2 = f(t0 + h, y1),
 *	W' s3 = F2 - e32 (s2 - F1) - 2 (s1 - F0) + h d T,
 *	error = h/6 (s1 - 2 s2 + s3).
 *
 * Written in the form above (F0 = W' s1 - h d T and F1 = W' (s2 - s1) +
 * s1 turn theirs into it, exactly, whatever matrix W holds): gamma = d,
 * k1 = h d s1, k2 = h d (s2 - s1), k3 = h d (s3 - e32 s2 + (e32 - 2) s1);
 * y1 = y0 + (k1 + k2)/d = u_3, so the third stage's f is the next
 * step's F0 (fsal), and
 * y1's stages are the first two (fixed steps take no third). The
 * estimate is the 3rd-order solution minus y1, (k1 + (e32 - 2) k2 + k3)
 * / (6 d). Dense output is theirs: y(t0 + theta h) = y0 + h (theta (1 -
 * theta) s1 + theta (theta - 2 d) s2) / (1 - 2 d), of order 2. */
struct rosenbrock_ros23 {
	static constexpr bool rosenbrock = true;
	static constexpr int stages = 3, solution_stages = 2, order = 2, err_order = 2;
	static constexpr bool fsal = true, own_dense = true;
	/* 1 / (2 + sqrt 2) and 6 + sqrt 2 */
	static constexpr double gamma = 0.29289321881345247560;
	static constexpr double e32 = 7.4142135623730950488;

	__host__ __device__ static constexpr double a(int i, int j)
	{
		return i == 1 && j == 0 ? 0.5 / gamma : i == 2 && j < 2 ? 1 / gamma : 0.0;
	}
	__host__ __device__ static constexpr double C(int i, int j)
	{
		return i == 1 && j == 0 ? -1 / gamma :
		       i == 2 && j == 0 ? -2 / gamma :
		       i == 2 && j == 1 ? -e32 / gamma : 0.0;
	}
	__host__ __device__ static constexpr double c(int i) { return i == 0 ? 0.0 : i == 1 ? 0.5 : 1.0; }
	__host__ __device__ static constexpr double d(int i)
	{
		return i == 0 ? gamma : i == 1 ? 0.0 : -gamma;
	}
	__host__ __device__ static constexpr double b(int j) { return j < 2 ? 1 / gamma : 0.0; }
	__host__ __device__ static constexpr double e(int j)
	{
		return j == 1 ? (e32 - 2) / (6 * gamma) : 1 / (6 * gamma);
	}
	/* h s1 = k1 / d and h s2 = (k1 + k2) / d in theirs */
	__host__ __device__ static double dense(int j, double theta)
	{
		return j == 0 ? theta / gamma :
		       j == 1 ? theta * (theta - 2 * gamma) / ((1 - 2 * gamma) * gamma) : 0.0;
	}
};

} /* namespace picard */

#endif
