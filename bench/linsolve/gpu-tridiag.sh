#!/bin/sh
# gpu-tridiag.sh - issue 21's tridiagonal comparison on the GPU machine,
# from the repository root with .xfer/bin.tar.xz carried (make gpu-carry):
# the tridiag_gpu tests with the GPU required, then bin/bench-tridiag at
# its defaults (N systems of N rows, N = 128 ... 4096, both layouts) or
# with the arguments given. Into ${OUT:-.}/tridiag: device.txt,
# tests.log, bench.log, bench-tridiag.csv. Exit status 1 where a test or
# a solver's check failed.
set -u
out=${OUT:-.}/tridiag
mkdir -p "$out"
[ -x bin/bench-tridiag ] || tar -xJf .xfer/bin.tar.xz
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } \
	> "$out/device.txt"
cat "$out/device.txt"
status=0
PICARD_REQUIRE_GPU=1 bin/picard-tests --filter 'tridiag_gpu/*' > "$out/tests.log" 2>&1 || status=1
tail -n 1 "$out/tests.log"
bin/bench-tridiag --out "$out" "$@" > "$out/bench.log" 2>&1 || status=1
cat "$out/bench.log"
exit $status
