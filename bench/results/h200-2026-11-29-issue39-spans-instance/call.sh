#!/bin/bash
# session 17, call 1: n = i39-spans2 (main 6f01e3d + spans as kernel
# instances of their own), m = main 6f01e3d (s16e: i39-stiff-merge 4faa03a),
# d = 89d8219 (before the stiff merge). GPU tests of n under
# PICARD_REQUIRE_GPU=1; then alternated timings: 1M balls and lotka
# double/float (n vs m vs d), robertson rodas5p/radau5 (n vs m vs d),
# and 1M balls with spans (every member's span the grid's) vs without.
set -u
mkdir -p "$OUT"
start=$(date +%s)
for b in n m d; do mkdir -p $b; done
tar -xJf .xfer/s17n.tar.xz -C n; tar -xJf .xfer/s16e.tar.xz -C m; tar -xJf .xfer/s16d.tar.xz -C d
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee "$OUT/device.txt"
mkdir -p /tmp/fakecxx && printf '#!/bin/sh\n[ "$1" = --version ] && { echo "g++ (Debian 12.2.0-14+deb12u1) 12.2.0"; exit 0; }\nexec /usr/bin/g++ "$@"\n' > /tmp/fakecxx/g++ && chmod +x /tmp/fakecxx/g++
export PATH=/tmp/fakecxx:$PATH
export PICARD_JIT_CACHE_DIR=/tmp/jc PICARD_CACHE_DIR=/tmp/pc
PICARD_REQUIRE_GPU=1 PICARD_TEST_MODELS=lotka,robertson,bouncing_ball,threshold,thermostat,impact_oscillator,izhikevich,kepler_periapsis,lotka_harvest,oscillator \
	timeout 330 n/bin/picard-tests --filter '@(spans_gpu|spans|events_gpu|events|events_stiff|event_models|events_picard|reference_events|check_events|gpu)/*' \
	-j16 --verbose > "$OUT/gpu-tests.log" 2>&1
echo "tests exit $? at $(( $(date +%s) - start )) s"
grep -E "Synthesis|^\[FAIL|CRASH|Timeout|timed out" "$OUT/gpu-tests.log" | head -30
B="bouncing_ball --t1 7.6 --precision double --scheme dp8 --iter-rtol 1e-8 --iter-atol 1e-8 --event-log 32 --backend cuda --repeat 3"
awk 'BEGIN{srand(1); print "x1 x2"; for(i=0;i<1048576;i++) printf "%.17g 0\n", 1+0.1*(2*rand()-1)}' > /tmp/ball0.txt
awk 'NR==1{print "x1 x2 t0 t1"; next}{print $1, $2, 0, 7.6}' /tmp/ball0.txt > /tmp/ballspan.txt
D="lotka --traj 8192 --spread 0.1 --seed 1 --repeat 7 --precision double --scheme dp8 --iter-rtol 1e-8 --iter-atol 1e-8 --backend cuda"
F="lotka --traj 8192 --spread 0.1 --seed 1 --repeat 7 --precision float --scheme dp5 --iter-rtol 1e-4 --iter-atol 1e-4 --backend cuda"
R5="robertson --traj 8192 --spread 0 --seed 1 --spread-param k1=0.1 --spread-param k2=0.1 --spread-param k3=0.1 --precision double --iter-rtol 1e-6 --iter-atol 1e-10 --backend cuda --repeat 3"
for b in n m d; do for c in "$B --init /tmp/ball0.txt --traj 1048576" "$D --repeat 1" "$F --repeat 1" "$R5 --scheme rodas5p --repeat 1" "$R5 --scheme radau5 --repeat 1"; do $b/bin/picard-run $c > /dev/null 2>&1; done; done
n/bin/picard-run $B --init /tmp/ballspan.txt --repeat 1 > /dev/null 2>&1
echo "warm at $(( $(date +%s) - start )) s"
for round in 1 2 3; do for b in n m d; do
	echo "$round $b ball $($b/bin/picard-run $B --init /tmp/ball0.txt 2>&1 | grep '^solve ')"
	echo "$round $b lotka-d $($b/bin/picard-run $D 2>&1 | grep '^solve ')"
	echo "$round $b lotka-f $($b/bin/picard-run $F 2>&1 | grep '^solve ')"
	echo "$round $b rob-rodas5p $($b/bin/picard-run $R5 --scheme rodas5p 2>&1 | grep '^solve ')"
	echo "$round $b rob-radau5 $($b/bin/picard-run $R5 --scheme radau5 2>&1 | grep '^solve ')"
	[ $b = n ] && echo "$round n ball-spans $(n/bin/picard-run $B --init /tmp/ballspan.txt 2>&1 | grep '^solve ')"
done; done | tee "$OUT/timings.txt"
echo "done at $(( $(date +%s) - start )) s"
n/bin/picard-run $B --init /tmp/ballspan.txt --repeat 1 --out /tmp/bs.csv 2>&1 | tail -4
