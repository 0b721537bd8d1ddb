#!/bin/bash
# issue 39, branch i39-stiff: events in the stiff per-thread schemes
# (rodas5p, rodas4, ros23, radau5) on the GPU. Run from the root of a
# build of the branch (bin/picard-tests built), $OUT an output folder:
# the GPU's event logs and final states against the CPU's
# (events_gpu/stiff_schemes_like_the_cpu), the explicit pairs' GPU tests
# beside them unchanged, and the CPU suites of events.
set -u
mkdir -p "$OUT"
start=$(date +%s)
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee "$OUT/device.txt"
export PICARD_JIT_CACHE_DIR=/tmp/jc PICARD_CACHE_DIR=/tmp/pc
PICARD_REQUIRE_GPU=1 PICARD_TEST_MODELS=lotka,bouncing_ball,threshold timeout 560 \
	bin/picard-tests --filter '@(events_gpu|events|events_stiff)/*' -j16 --verbose \
	> "$OUT/gpu-tests.log" 2>&1
echo "tests exit $? at $(( $(date +%s) - start )) s"
grep -E "Synthesis|FAIL|CRASH|Timeout|timed out|Assert" "$OUT/gpu-tests.log" | head -30
grep -E "closed form|CPU's|largest" "$OUT/gpu-tests.log" | sed 's/.*\] //' | head -40
