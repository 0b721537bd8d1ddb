#!/bin/bash
# session 21, call 3: the GPU tests and the orbit after the windows in
# flight count their sweeps once a window and keep the step's parity as an
# int (dp8 at its best, the paper layout at windows 0.70757 and 0.72)
set -u
mkdir -p "$OUT"
tar -xJf .xfer/c21c.tar.xz
export LD_LIBRARY_PATH=$PWD/bin/lib:${LD_LIBRARY_PATH:-} PYTHONUNBUFFERED=1 PICARD_LIB=$PWD/lib/libpicard.so
mkdir -p /tmp/fakecxx && printf '#!/bin/sh\n[ "$1" = --version ] && { echo "g++ (Debian 12.2.0-14) 12.2.0"; exit 0; }\nexec /usr/bin/g++ "$@"\n' > /tmp/fakecxx/g++ && chmod +x /tmp/fakecxx/g++
export PATH=/tmp/fakecxx:$PATH PICARD_JIT_CACHE_DIR=/tmp/jc PICARD_CACHE_DIR=/tmp/pc
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } | tee "$OUT/device.txt"
PICARD_REQUIRE_GPU=1 PICARD_TEST_MODELS=lotka,kepler,decay,riccati,oscillator timeout 330 bin/picard-tests -j16 --verbose \
  --filter '@(gpu/lobatto*|gpu/launches*|gpu/promise*|gpu/quick_search*|gpu/tune_lotka_cli|gpu/matches_cpu*|gpu/repeatable_and_auto|gpu/solver_reused)' > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests: exit $?"; grep -E "^\[(PASS|FAIL)|Synthesis" "$OUT/gpu-tests.log" | grep -v PASS | tail -8; grep -c "^\[PASS" "$OUT/gpu-tests.log"
xz -9 "$OUT/gpu-tests.log"
date -u
awk 'BEGIN { printf "0.5,0,0,%.17g,1,0.5\n", sqrt(3) }' > /tmp/orbit1.csv
orbit() {
  timeout 60 bin/picard-run kepler --init /tmp/orbit1.csv --t1 6283.185307179586 --precision double --backend cuda --out /tmp/final.csv "$@" > /tmp/run.log 2>&1
  echo "rc $?"
  t=$(grep -E "^solve" /tmp/run.log)
  e=$(tail -n +2 /tmp/final.csv | paste -d, /tmp/orbit1.csv - | awk -F, '{ if ($8 != "ok") bad++; for (k = 1; k <= 4; k++) { d = $(k + 8) - $k; d = d < 0 ? -d : d; if (d > e) e = d } } END { printf "%.3g%s", e, bad ? " (" bad " not ok)" : "" }')
  echo "$* | $t | error $e" | tee -a "$OUT/orbit.txt"; head -2 /tmp/final.csv | tail -1 >> "$OUT/orbit.txt"; grep -iE "sweep" /tmp/run.log | head -2 >> "$OUT/orbit.txt"
}
L="--scheme lobatto --K-max 60 --iter-rtol 1e-15 --m 16 --block 8 --repeat 7"
orbit --scheme dp8 --iter-rtol 1e-15 --iter-atol 1e-15 --repeat 3
for r in 1 2; do for w in 0.70757 0.72; do orbit $L --window $w --layout paper; done; done
orbit $L --window 0.70757 --layout warp
orbit --scheme dp8 --iter-rtol 1e-15 --iter-atol 1e-15 --repeat 3
date -u
