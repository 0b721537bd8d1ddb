#!/bin/sh
# gpu-krylov.sh - issue 21's Krylov comparison on the GPU machine, from
# the repository root with .xfer/bin.tar.xz carried (make gpu-carry): the
# krylov_gpu tests with the GPU required, then bin/bench-krylov at its
# defaults (SpMV on N x N five-point operators, N = 64 ... 2048, and a
# batch of 256 at N = 64; 1000 CG iterations at N = 128 ... 1024 and 200
# on the batch: ours with each preconditioner, the cuSPARSE-based CG,
# ViennaCL's CG on CUDA and OpenMP, the host CG) or with the arguments
# given. Into ${OUT:-.}/krylov: device.txt, tests.log, bench.log,
# bench-krylov.csv. Exit status 1 where a test or a variant's check
# failed. About 2-3 minutes on an H100 machine with 16 cores, most of it
# the host CG and ViennaCL's OpenMP CG at N = 1024.
set -u
out=${OUT:-.}/krylov
mkdir -p "$out"
[ -x bin/bench-krylov ] || tar -xJf .xfer/bin.tar.xz
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } \
	> "$out/device.txt"
cat "$out/device.txt"
status=0
PICARD_REQUIRE_GPU=1 bin/picard-tests --filter 'krylov_gpu/*' > "$out/tests.log" 2>&1 || status=1
tail -n 1 "$out/tests.log"
bin/bench-krylov --out "$out" "$@" > "$out/bench.log" 2>&1 || status=1
cat "$out/bench.log"
exit $status
