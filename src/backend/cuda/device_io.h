/* device_io.h - the CUDA backend's traffic with the host, at the bus's
 * speed: per-member arrays move through two pinned buffers a piece at a
 * time, the copy of one piece overlapping the host threads' conversion of
 * the other (row-major doubles <-> the device's SoA reals), and what need
 * not travel stays on the device: a row every member shares is broadcast
 * there, and the members' totals are reduced there
 * (src/backend/cuda/device_io.cu). */
#ifndef PICARD_DEVICE_IO_H
#define PICARD_DEVICE_IO_H

#include <stddef.h>

#include "backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A CUDA runtime error (cudaError_t) as picard's: ENOMEM for an
 * allocation, else ECUDA; the message names what failed. */
int picard_cuda_fail(int cuda_error, const char *what);

/* Row-major doubles rows[i*stride + c] (count rows of width) to the
 * device's SoA reals dev[c*count + i] of real_size bytes (4: float). */
int picard_io_upload_soa(const double *rows, int stride, int width, long count,
			 size_t real_size, void *dev);
/* One row of width doubles to every one of count members of dev, as
 * picard_io_upload_soa would write count copies of it. */
int picard_io_broadcast_row(const double *row, int width, long count, size_t real_size,
			    void *dev);
/* Members offset .. offset+count-1 of draw (backend.h) into the device's
 * SoA reals: the states into x0 (dim columns of count), and, where params
 * is not NULL and the members have their own, their parameters into it
 * (nparams columns): the numbers picard_draw_host gives, on stream 0. */
int picard_io_draw(const struct picard_draw *draw, int dim, int nparams, long offset,
		   long count, size_t real_size, void *x0, void *params);
/* The device's SoA reals dev[c*count + i] to row-major doubles
 * rows[i*width + c]. */
int picard_io_download_soa(const void *dev, int width, long count, size_t real_size,
			   double *rows);
/* nrows rows of len reals each, contiguous on the device, to doubles
 * host[r*pitch + j]. */
int picard_io_download_rows(const void *dev, long nrows, long len, size_t real_size,
			    double *host, long pitch);
/* bytes as they are. */
int picard_io_download_bytes(const void *dev, size_t bytes, void *host);

/* Each of count members' scaled error (picard_scaled_error under scale)
 * of its final state x (SoA reals of x_size bytes) against ref's (SoA
 * doubles), both of n components, into the host's errors; NaN where
 * either status (device ints) is neither OK nor NOT_CONVERGED. */
int picard_io_final_errors(const void *x, size_t x_size, const int *x_status, const double *ref,
			   const int *ref_status, int n, long count, const picard_tolerance *scale,
			   double *errors);

/* The totals (backend.h) of count members, reduced on the device from
 * its per-member arrays (status as int, fail_time 2 per member) of a grid
 * of windows; *irregular: how many have a status other than OK or a
 * failing window or time set, whose per-member diagnostics must come to
 * the host. */
int picard_io_totals(const int *status, const long *fail_window, const double *fail_time,
		     const long *sweeps, const int *sweeps_max, long count, long windows,
		     struct picard_job_totals *out, long *irregular);

#ifdef __cplusplus
}
#endif

#endif
