#!/bin/bash
# session 20, call 2: the sweep with C in sweep.py's process, twice, the
# call overhead, and the Solver's sweep without its finite check (experiment)
set -u
mkdir -p "$OUT"
tar -xJf .xfer/c19b.tar.xz
export PICARD_LIB=$PWD/lib/libpicard.so LD_LIBRARY_PATH=$PWD/bin/lib:${LD_LIBRARY_PATH:-} PYTHONUNBUFFERED=1
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for i in 1 2; do
timeout 150 python3 bench/sweep/sweep.py --repeats 9 --out "$OUT/sweep-$i.csv" | tail -9
done
timeout 60 python3 bench/python/call_overhead.py --backend cuda --ntraj 8192 | tee "$OUT/call-overhead.csv"
timeout 120 python3 .xfer/exp_nocheck.py | tee "$OUT/experiment-nocheck.txt"
date -u
