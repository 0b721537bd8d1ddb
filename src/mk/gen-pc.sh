#!/bin/sh
# gen-pc.sh PREFIX CUDA_HOME LIBS | gen-pc.sh PREFIX CUDA_HOME mpi MPI_CFLAGS
# MPI_LIBS - picard.pc for pkg-config: the shared library (which brings
# GSL, cuRAND, cuSPARSE, cuBLAS, NVRTC and the CUDA runtime itself), found
# at run time through an RPATH to libdir; for --static, the static library
# and LIBS, what the Makefile links it against (LIB_LDLIBS). With "mpi":
# picard-mpi.pc instead, libpicard_mpi (include/picard_mpi.h) on top of
# picard.pc with the flags of the MPI the build found, as an MPI compiler
# wrapper adds them. The version from include/picard.h.
prefix=$1
cuda=$2
version=$(sed -n 's/^#define PICARD_VERSION "\(.*\)"/\1/p' include/picard.h)
cat <<PC
prefix=$prefix
exec_prefix=\${prefix}
libdir=\${exec_prefix}/lib
includedir=\${prefix}/include
cudadir=$cuda

PC
if [ "${3:-}" = mpi ]; then
	cat <<PC
Name: picard-mpi
Description: picard ensembles over the ranks of an MPI communicator
Version: $version
Requires: picard
Cflags: -I\${includedir} $4
Libs: -L\${libdir} -Wl,-rpath,\${libdir} -lpicard_mpi $5
PC
	exit 0
fi
cat <<PC
Name: picard
Description: GPU ensembles of ODE initial-value problems: parallel-in-time Picard iteration and per-thread Runge-Kutta schemes
Version: $version
Cflags: -I\${includedir}
Libs: -L\${libdir} -Wl,-rpath,\${libdir} -lpicard
Libs.private: -L\${cudadir}/lib64 -Wl,-rpath,\${cudadir}/lib64 $3 -fopenmp
PC
