#!/bin/sh
# gpu-debug.sh - the newton scheme's first runs on the GPU machine, from
# the repository root with .xfer/bin.tar.xz carried (make gpu-carry):
# picard-run on lotka and kepler against the CPU backend, then the GPU
# tests of the scheme (PICARD_REQUIRE_GPU=1). Kernels compiled on the
# device (16 cores). Into ${OUT:-.}/nd.
set -u
out=${OUT:-.}/nd
mkdir -p "$out"
tar -xJf .xfer/bin.tar.xz
export PICARD_JIT_CACHE_DIR=/tmp/jitcache PICARD_CACHE_DIR="$out/cache"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } \
	> "$out/device.txt"
cat "$out/device.txt"
run() { echo "== $*"; timeout 120 bin/picard-run "$@" 2>&1; echo "exit $?"; }
{
	run lotka --scheme newton --precision double --backend cuda --traj 4 --check
	run lotka --scheme newton --precision double --backend cpu --traj 4 --check
	run lotka --scheme newton --precision double --backend cuda --traj 4 --block 16 --check
	run lotka --scheme newton --precision double --backend cuda --traj 3 --save-at 0.3,17.77,100 --out "$out/n.csv"
	run kepler --scheme newton --precision double --backend cuda --traj 64 --spread 0.01 --window 0.1 --t1 62.83185307179586 --check --repeat 3
	run kepler --scheme newton --precision double --backend cpu --traj 64 --spread 0.01 --window 0.1 --t1 62.83185307179586 --check
} > "$out/runs.log"
grep -E "^==|^exit|check|solve|sweeps|failed" "$out/runs.log"
PICARD_REQUIRE_GPU=1 timeout "${TESTS_LIMIT:-240}" bin/picard-tests -j16 --filter 'gpu/newton*' \
	--verbose > "$out/tests.log" 2>&1
echo "tests: exit $?"
grep -E "newton|FAIL|Synthesis|Assert|differ" "$out/tests.log" | head -60
rm -rf "$out/cache"
