#!/bin/bash
# session 18, call 3: call 2's GPU tests again (the kernel cache of call 2
# warm), verbose, then the launch counts by scheme.
set -u
mkdir -p "$OUT"
start=$(date +%s)
[ -x bin/picard-run ] || tar -xJf .xfer/c2.tar.xz
export PATH=/tmp/fakecxx:$PATH
export PICARD_JIT_CACHE_DIR=/tmp/jc PICARD_CACHE_DIR=/tmp/pc
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee "$OUT/device.txt"
PICARD_REQUIRE_GPU=1 PICARD_TEST_MODELS=lotka,kepler,decay,riccati,oscillator,bouncing_ball,heat1d,robertson \
	timeout 400 bin/picard-tests -j16 --verbose --filter '@(gpu|events_gpu|imex_gpu|krylov_gpu|spans_gpu|tridiag_gpu)/*' \
	> "$OUT/gpu-tests.log" 2>&1
echo "tests exit $? at $(( $(date +%s) - start )) s"
grep -E "Synthesis|^\[FAIL|CRASH|Timeout|timed out" "$OUT/gpu-tests.log" | head -30
grep -cE "^\[PASS\]" "$OUT/gpu-tests.log"
grep -E "launches, " "$OUT/gpu-tests.log" | sed 's/.*\] //' | head
OUT=$OUT timeout 120 sh bench/gpu-issue40.sh launches > "$OUT/launches-console.txt" 2>&1
cp "$OUT/i40/launches.log" "$OUT/" 2>/dev/null; rm -rf "$OUT/i40"
cat "$OUT/launches.log" "$OUT/launches-console.txt" | head -60
echo "done at $(( $(date +%s) - start )) s"
