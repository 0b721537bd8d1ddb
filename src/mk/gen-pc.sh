#!/bin/sh
# gen-pc.sh PREFIX CUDA_HOME - picard.pc for pkg-config: the static
# library and what it links against (GSL, cuRAND and the static CUDA
# runtime from CUDA_HOME, OpenMP), the version from include/picard.h.
prefix=$1
cuda=$2
version=$(sed -n 's/^#define PICARD_VERSION "\(.*\)"/\1/p' include/picard.h)
cat <<PC
prefix=$prefix
exec_prefix=\${prefix}
libdir=\${exec_prefix}/lib
includedir=\${prefix}/include
cudadir=$cuda

Name: picard
Description: GPU ensembles of ODE initial-value problems: parallel-in-time Picard iteration and per-thread Runge-Kutta schemes
Version: $version
Cflags: -I\${includedir}
Libs: -L\${libdir} -lpicard -L\${cudadir}/lib64 -Wl,-rpath,\${cudadir}/lib64 -lgsl -lgslcblas -lcurand -lcudart_static -lstdc++ -lm -ldl -lpthread -lrt -fopenmp
PC
