#!/bin/sh
# gen-mpi-pc.sh PREFIX MPI_CFLAGS MPI_LIBS - picard-mpi.pc for pkg-config:
# libpicard_mpi (include/picard_mpi.h) on top of picard.pc, with the flags
# of the MPI the build found (an MPI program's compiler wrapper adds the
# same), so gcc prog.c $(pkg-config --cflags --libs picard-mpi) links.
prefix=$1
mpi_cflags=$2
mpi_libs=$3
version=$(sed -n 's/^#define PICARD_VERSION "\(.*\)"/\1/p' include/picard.h)
cat <<PC
prefix=$prefix
exec_prefix=\${prefix}
libdir=\${exec_prefix}/lib
includedir=\${prefix}/include

Name: picard-mpi
Description: picard ensembles over the ranks of an MPI communicator
Version: $version
Requires: picard
Cflags: -I\${includedir} $mpi_cflags
Libs: -L\${libdir} -Wl,-rpath,\${libdir} -lpicard_mpi $mpi_libs
PC
