#!/bin/bash
# session 20, call 4: GPU tests after the paper layout of windows in flight
# (PICARD_REQUIRE_GPU=1), Python on the GPU, and picard-run kepler --tol 1e-8
# on the 64 orbits (its search now times windows in flight as they run).
set -u
mkdir -p "$OUT"
tar -xJf .xfer/c20b.tar.xz
export LD_LIBRARY_PATH=$PWD/bin/lib:${LD_LIBRARY_PATH:-} PYTHONUNBUFFERED=1 PICARD_LIB=$PWD/lib/libpicard.so
mkdir -p /tmp/fakecxx && printf '#!/bin/sh\n[ "$1" = --version ] && { echo "g++ (Debian 12.2.0-14) 12.2.0"; exit 0; }\nexec /usr/bin/g++ "$@"\n' > /tmp/fakecxx/g++ && chmod +x /tmp/fakecxx/g++
export PATH=/tmp/fakecxx:$PATH PICARD_JIT_CACHE_DIR=/tmp/jc PICARD_CACHE_DIR=/tmp/pc
date -u
PICARD_REQUIRE_GPU=1 PICARD_TEST_MODELS=lotka,kepler,decay,riccati,oscillator timeout 330 bin/picard-tests -j16 --verbose \
  --filter '@(gpu/lobatto*|gpu/launches*|gpu/promise*|gpu/quick_search*|gpu/tune_lotka_cli|gpu/matches_cpu*|gpu/repeatable_and_auto|gpu/solver_reused)' > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests: exit $?"; grep -E "^\[(PASS|FAIL)|Synthesis" "$OUT/gpu-tests.log" | grep -v PASS | tail -8; grep -c "^\[PASS" "$OUT/gpu-tests.log"
date -u
PICARD_REQUIRE_GPU=1 timeout 100 python3 -m pytest tests/python -q 2>&1 | tail -3 | tee "$OUT/pytest.txt"
date -u
awk 'BEGIN { for (i = 0; i < 64; i++) { e = 0.4 + 0.2 * i / 63
	printf "%.17g,0,0,%.17g,1,%.17g\n", 1 - e, sqrt((1 + e) / (1 - e)), e } }' > /tmp/k64.csv
timeout 150 bin/picard-run kepler --init /tmp/k64.csv --t1 628.3185307179586 --precision double --tol 1e-8 --repeat 5 --out /tmp/final.csv > "$OUT/tol.log" 2>&1
echo "tol exit $?" >> "$OUT/tol.log"
tail -n +2 /tmp/final.csv | paste -d, /tmp/k64.csv - | awk -F, '{ for (k = 1; k <= 4; k++) { d = $(k + 8) - $k; d = d < 0 ? -d : d; if (d > e) e = d } } END { printf "closed-form error %.3g\n", e }' >> "$OUT/tol.log"
grep -E "parameters|grid|solve|tolerance|exit|closed|search" "$OUT/tol.log" | head -12
date -u
