#!/bin/sh
# gpu-ranks.sh - issue 19 on the GPU machine, from the repository root with
# lib/libpicard_mpirun.so built (make where Open MPI is installed) and
# Open MPI here (installed, or carried: mpirun on PATH, its libraries on
# LD_LIBRARY_PATH, OPAL_PREFIX): 1, 2 and 4 ranks sharing the machine's
# one GPU (each rank its own CUDA context, time-sliced; no MPS), strong
# and weak scaling and the
# strong runs writing a .npy with MPI-IO (bench/mpi/scaling.sh). Into
# ${OUT:-.}/mpi-gpu: device.txt, runs.csv, summary.csv.
#   STRONG_TRAJ (1048576), WEAK_TRAJ per rank (262144), REPEATS (5), and
#   scaling.sh's other variables.
set -u
out=${OUT:-.}/mpi-gpu
mkdir -p "$out"
if ! command -v "${MPIRUN:-mpirun}" >/dev/null 2>&1; then
	echo "gpu-ranks.sh: no mpirun on this machine: nothing measured." \
	     "Install Open MPI (apt-get install openmpi-bin libopenmpi3) or set MPIRUN." | tee "$out/skipped.txt" >&2
	exit 2
fi
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
	echo "gpu-ranks.sh: no GPU (nvidia-smi fails): nothing measured." | tee "$out/skipped.txt" >&2
	exit 2
fi
if [ ! -f lib/libpicard_mpirun.so ]; then
	echo "gpu-ranks.sh: no lib/libpicard_mpirun.so (picard-run's MPI side): build where libopenmpi-dev is." \
		| tee "$out/skipped.txt" >&2
	exit 2
fi
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } \
	> "$out/device.txt"
cat "$out/device.txt"
BACKEND=cuda RANKS="1 2 4" STRONG_TRAJ=${STRONG_TRAJ:-1048576} WEAK_TRAJ=${WEAK_TRAJ:-262144} \
	REPEATS=${REPEATS:-5} sh bench/mpi/scaling.sh "$out"
