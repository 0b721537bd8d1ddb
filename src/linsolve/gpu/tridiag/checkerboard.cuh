/* checkerboard.cuh - the checkerboard Thomas method (Zolfaghari and
 * Foadaddini 2016; in shared memory, 2018): each system is split into
 * `parts` sub-systems that threads solve with Thomas in parallel.
 *
 * The papers iterate: each sub-system takes its neighbours' end values
 * from the previous iteration of the ADI solver around it (their Fig. 5),
 * so a sweep is exact only once that iteration converges. Here the
 * coupling is solved exactly instead, so that a sweep gives the same x as
 * Thomas and PCR: each part of m rows ends in a separator row (the last
 * part has none); a part's interior is solved for its right-hand side and
 * for a unit coupling to each neighbouring separator (three right-hand
 * sides, one elimination); the separators' equations then form a
 * tridiagonal interface system of parts - 1 rows (the Schur complement,
 * diagonally dominant where the system is), solved by one thread per
 * system; each part's interior is then solved again with the separators
 * known. Three kernels: reduce, interface, solve.
 *
 * The only difference between the two variants is where a part's
 * workspace lives: in global memory, in the systems' layout, or in shared
 * memory, one column per thread. */
#ifndef PICARD_TRIDIAG_CHECKERBOARD_CUH
#define PICARD_TRIDIAG_CHECKERBOARD_CUH

#include "tridiag/rows.cuh"

/* How a system of n rows is split. */
struct checkerboard_split {
	int rows;  /* m: rows of a part, its separator included, >= 2 */
	int count; /* parts, <= the parts asked for */
};

__host__ __device__ inline struct checkerboard_split checkerboard_split_of(int n, int parts)
{
	int rows = (n + parts - 1) / parts;

	if (rows < 2)
		rows = 2; /* every interior keeps a row */
	return {rows, (n + rows - 1) / rows};
}

/* Each part's end values: its interior's first and last rows of the
 * solution for the right-hand side (Y), for a unit left separator (V) and
 * for a unit right separator (W). Stored at ends[(value * count + part) *
 * batch + system], so that consecutive systems' threads write together. */
enum checkerboard_end { END_YF, END_VF, END_WF, END_YL, END_VL, END_WL, END_VALUES };

/* One thread's part: which system and rows, and where they lie. */
struct checkerboard_part {
	long system;
	int index;      /* part k */
	int lo;         /* its first row */
	int len;        /* rows of its interior */
	long first;     /* index of row lo in the arrays */
	long step;      /* distance between rows */
	bool has_left;  /* a separator before it */
	bool has_right; /* a separator after it */
};

/* The part of thread g (system fastest), false past the last. */
__device__ inline bool checkerboard_part_of(const struct tridiag_batch &batch,
					    struct checkerboard_split split, long g,
					    struct checkerboard_part *part)
{
	long system_first;

	if (g >= batch.batch * split.count)
		return false;
	part->system = g % batch.batch;
	part->index = (int)(g / batch.batch);
	part->lo = part->index * split.rows;
	part->has_left = part->index > 0;
	part->has_right = part->index < split.count - 1;
	part->len = part->has_right ? split.rows - 1 : batch.n - part->lo;
	tridiag_system_at(batch, part->system, &system_first, &part->step);
	part->first = system_first + part->lo * part->step;
	return true;
}

__device__ inline double *checkerboard_end_at(double *ends, const struct tridiag_batch &batch,
					      struct checkerboard_split split,
					      const struct checkerboard_part &part, int value)
{
	return &ends[((long)value * split.count + part.index) * batch.batch + part.system];
}

/* Phase 1 for one part: eliminate its interior for the three right-hand
 * sides (the batch's, -a_lo e_1 and -c_hi e_len), keeping the modified
 * upper diagonal and two of the modified right-hand sides in the
 * workspace (the third is zero but in its last row), then substitute back
 * only as far as the first row. Writes the part's END_VALUES. */
__device__ inline void checkerboard_reduce_part(const struct tridiag_batch &batch,
						struct checkerboard_split split,
						const struct checkerboard_part &part,
						struct strided upper_mod, struct strided rhs_y,
						struct strided rhs_v, double *ends)
{
	struct tridiag_rows rows = tridiag_rows_of(batch, part.first - part.lo * part.step,
						   part.step, part.lo, part.len);
	double left = part.has_left ? batch.lower[part.first] : 0.0;
	double right = part.has_right ? batch.upper[part.first + (part.len - 1) * part.step] : 0.0;
	double up = 0.0, y = 0.0, v = 0.0, w, pivot_last = 1.0;

	for (int i = 0; i < part.len; i++) {
		struct tridiag_row row = rows(i);
		double pivot = row.diag - row.lower * up;
		int status = tridiag_pivot_status(pivot);

		if (status != TRIDIAG_OK) {
			atomicMax(&batch.status[part.system], status);
			return;
		}
		pivot_last = pivot;
		up = row.upper / pivot;
		y = (row.rhs - row.lower * y) / pivot;
		v = ((i == 0 ? -left : 0.0) - row.lower * v) / pivot;
		upper_mod[i] = up;
		rhs_y[i] = y;
		rhs_v[i] = v;
	}
	w = -right / pivot_last; /* -c_hi e_len is zero above its last row */
	*checkerboard_end_at(ends, batch, split, part, END_YL) = y;
	*checkerboard_end_at(ends, batch, split, part, END_VL) = v;
	*checkerboard_end_at(ends, batch, split, part, END_WL) = w;
	for (int i = part.len - 2; i >= 0; i--) {
		y = rhs_y[i] - upper_mod[i] * y;
		v = rhs_v[i] - upper_mod[i] * v;
		w = -upper_mod[i] * w;
	}
	*checkerboard_end_at(ends, batch, split, part, END_YF) = y;
	*checkerboard_end_at(ends, batch, split, part, END_VF) = v;
	*checkerboard_end_at(ends, batch, split, part, END_WF) = w;
}

/* Phase 3 for one part: its interior with the separators on either side
 * known (phase 2 wrote them into x), folded into its end rows. */
__device__ inline void checkerboard_solve_part(const struct tridiag_batch &batch,
					       const struct checkerboard_part &part,
					       struct strided upper_mod)
{
	struct tridiag_rows rows = tridiag_rows_of(batch, part.first - part.lo * part.step,
						   part.step, part.lo, part.len);
	long last = part.first + (part.len - 1) * part.step;

	if (part.has_left)
		rows.left_term = batch.lower[part.first] * batch.x[part.first - part.step];
	if (part.has_right)
		rows.right_term = batch.upper[last] * batch.x[last + part.step];
	/* phase 1 checked these pivots and reported a bad one */
	tridiag_thomas_sweep(rows, part.len, upper_mod, {batch.x, part.first, part.step});
}

/* Separator k's row of the interface system: row r = (k+1) m - 1 of the
 * system with x_{r-1} and x_{r+1} replaced by what part k's last and part
 * k+1's first interior rows are in terms of the separators. */
struct checkerboard_interface_rows {
	const double *lower, *diag, *upper, *rhs; /* the batch's arrays */
	long batch;                               /* systems in it */
	struct checkerboard_split split;
	const double *ends;
	long system;
	long first; /* index of the system's row 0 */
	long step;

	__device__ double end(int value, int part) const
	{
		return ends[((long)value * split.count + part) * batch + system];
	}

	__device__ struct tridiag_row operator()(int k) const
	{
		long at = first + ((long)(k + 1) * split.rows - 1) * step;
		double a = lower[at], c = upper[at];

		return {a * end(END_VL, k),
			diag[at] + a * end(END_WL, k) + c * end(END_VF, k + 1),
			c * end(END_WF, k + 1),
			rhs[at] - a * end(END_YL, k) - c * end(END_YF, k + 1)};
	}
};

/* Phase 1, one thread a part; the workspace in global memory (the
 * modified right-hand side of the batch's into x, whose interior rows
 * phase 3 overwrites) or in shared memory. */
template <bool SHARED>
__global__ void checkerboard_reduce_kernel(struct tridiag_batch batch, struct checkerboard_split split,
					   double *upper_mod, double *rhs_v, double *ends)
{
	extern __shared__ double checkerboard_shared[];
	struct checkerboard_part part;

	if (!checkerboard_part_of(batch, split, blockIdx.x * (long)blockDim.x + threadIdx.x, &part))
		return;
	if (SHARED) {
		long column = blockDim.x;
		double *base = checkerboard_shared + threadIdx.x;

		checkerboard_reduce_part(batch, split, part, {base, 0, column},
					 {base + column * split.rows, 0, column},
					 {base + 2 * column * split.rows, 0, column}, ends);
	} else {
		checkerboard_reduce_part(batch, split, part, {upper_mod, part.first, part.step},
					 {batch.x, part.first, part.step},
					 {rhs_v, part.first, part.step}, ends);
	}
}

/* Phase 2, one thread a system: the interface system, its solution into
 * the separator rows of x. */
__global__ void checkerboard_interface_kernel(struct tridiag_batch batch, struct checkerboard_split split,
					      const double *ends, double *upper_mod)
{
	long s = blockIdx.x * (long)blockDim.x + threadIdx.x;
	long first, step;

	if (s >= batch.batch)
		return;
	tridiag_system_at(batch, s, &first, &step);
	struct checkerboard_interface_rows rows = {batch.lower, batch.diag, batch.upper, batch.rhs,
						   batch.batch, split, ends, s, first, step};
	int status = tridiag_thomas_sweep(rows, split.count - 1, {upper_mod, s, batch.batch},
					  {batch.x, first + (split.rows - 1) * step, split.rows * step});
	if (status != TRIDIAG_OK)
		atomicMax(&batch.status[s], status);
}

/* Phase 3, one thread a part. */
template <bool SHARED>
__global__ void checkerboard_solve_kernel(struct tridiag_batch batch, struct checkerboard_split split,
					  double *upper_mod)
{
	extern __shared__ double checkerboard_shared[];
	struct checkerboard_part part;

	if (!checkerboard_part_of(batch, split, blockIdx.x * (long)blockDim.x + threadIdx.x, &part))
		return;
	if (SHARED)
		checkerboard_solve_part(batch, part, {checkerboard_shared + threadIdx.x, 0, blockDim.x});
	else
		checkerboard_solve_part(batch, part, {upper_mod, part.first, part.step});
}

#endif
