/* viennacl_cg.cu - viennacl_cg.h: one translation unit with both of
 * ViennaCL's backends (VIENNACL_WITH_CUDA, VIENNACL_WITH_OPENMP), the
 * memory domain picking one per call, as ViennaCL is meant to mix them
 * (two units built with different backend macros would define the same
 * templates differently). */
#include <chrono>
#include <cstdio>
#include <exception>
#include <vector>

#include <viennacl/compressed_matrix.hpp>
#include <viennacl/linalg/cg.hpp>
#include <viennacl/linalg/jacobi_precond.hpp>
#include <viennacl/vector.hpp>

#include "viennacl_cg.h"

extern "C" int viennacl_cg(int on_gpu, int jacobi, int n, const int *row_start, const int *col,
			   const double *val, const double *b, double *x, int iters, int *done,
			   double *solve_us, char *error, int len)
{
	try {
		viennacl::context where(on_gpu ? viennacl::CUDA_MEMORY : viennacl::MAIN_MEMORY);
		std::vector<unsigned> starts(row_start, row_start + n + 1);
		std::vector<unsigned> cols(col, col + row_start[n]);
		viennacl::compressed_matrix<double> a(n, n, row_start[n], where);
		viennacl::vector<double> vb(n, where), vx(n, where);
		/* a tolerance no residual meets: iters iterations, as the paper
		 * times 1000 of each method */
		viennacl::linalg::cg_tag tag(1e-300, iters);

		a.set(starts.data(), cols.data(), val, n, n, row_start[n]);
		viennacl::fast_copy(b, b + n, vb.begin());
		viennacl::backend::finish();
		auto start = std::chrono::steady_clock::now();
		if (jacobi) {
			viennacl::linalg::jacobi_precond<viennacl::compressed_matrix<double>> pc(
				a, viennacl::linalg::jacobi_tag());
			vx = viennacl::linalg::solve(a, vb, tag, pc);
		} else {
			vx = viennacl::linalg::solve(a, vb, tag);
		}
		viennacl::backend::finish();
		auto stop = std::chrono::steady_clock::now();
		*solve_us = std::chrono::duration<double, std::micro>(stop - start).count();
		viennacl::fast_copy(vx.begin(), vx.end(), x);
		*done = (int)tag.iters();
		return 0;
	} catch (const std::exception &e) {
		snprintf(error, len, "%s", e.what());
	} catch (...) {
		snprintf(error, len, "unknown exception");
	}
	return -1;
}
