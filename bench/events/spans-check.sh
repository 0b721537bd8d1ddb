#!/bin/bash
# bench/events/spans-check.sh OUT: --check and --tol with per-member spans
# (--init's t0 and t1 columns) on the GPU, the GSL reference on each
# member's span on the host, from the tree's root after `make`; then the
# spans tests (CPU and GPU) under PICARD_REQUIRE_GPU=1.
# Expect: every command exits 0 with [PASS]; bouncing_ball's check lines
# have "events: N compared"; the tests' synthesis without failures.
set -u
OUT=${1:-${OUT:?OUT}}
mkdir -p "$OUT"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee "$OUT/device.txt"
export PICARD_JIT_CACHE_DIR=/tmp/jc PICARD_CACHE_DIR=/tmp/pc
# 100000 balls from heights 0.5 .. 2.5, each on its own span of 1 to 3.5
awk 'BEGIN { print "y v t0 t1"; for (i = 0; i < 100000; i++)
	printf "%.6f 0 %.6f %.6f\n", 0.5 + 2 * (i % 997) / 997, -(i % 13) / 13, 1 + (i % 101) / 40 }' \
	> "$OUT/balls.csv"
awk 'BEGIN { print "x1 x2 t0 t1"; for (i = 0; i < 100000; i++)
	printf "%.6f %.6f %.6f %.6f\n", 1 + (i % 89) / 89, -(i % 31) / 31, -(i % 7), 5 + (i % 211) / 10 }' \
	> "$OUT/osc.csv"
run() { echo "\$ picard-run $*"; timeout 300 ${PICARD_BIN:-bin}/picard-run "$@" --backend cuda; echo "exit $?"; }
{
	run bouncing_ball --init "$OUT/balls.csv" --precision double --iter-rtol 1e-10 --check --check-traj 1024
	run bouncing_ball --init "$OUT/balls.csv" --precision double --tol 1e-8 --check-traj 1024
	run oscillator --init "$OUT/osc.csv" --precision double --scheme dp8 --iter-rtol 1e-10 --check --check-traj 1024
	run oscillator --init "$OUT/osc.csv" --tol 1e-6 --check-traj 1024
} > "$OUT/spans-check.log" 2>&1
PICARD_REQUIRE_GPU=1 timeout 500 ${PICARD_BIN:-bin}/picard-tests --filter '@(spans/*|spans_gpu/*)' -j16 \
	> "$OUT/gpu-tests.log" 2>&1
echo "tests exit $?"
grep -E "exit|\[PASS\]|\[FAIL\]" "$OUT/spans-check.log"
grep -E "Synthesis|FAIL|CRASH|Timeout" "$OUT/gpu-tests.log" | head -20
