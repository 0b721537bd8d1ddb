#!/bin/bash
# session 19, calls 7 and 9 (6: 5 repeats): the sweep after reuse_outputs and the one-pass finite check.
set -u
mkdir -p "$OUT"
tar -xJf .xfer/c19b.tar.xz
export PICARD_LIB=$PWD/lib/libpicard.so LD_LIBRARY_PATH=$PWD/bin/lib:${LD_LIBRARY_PATH:-} PYTHONUNBUFFERED=1
date -u
timeout 120 python3 bench/sweep/sweep.py --repeats 9 --out "$OUT/sweep-call9.csv" | tail -12
timeout 60 python3 bench/python/call_overhead.py --backend cuda --ntraj 8192 | tee "$OUT/call-overhead-call9.csv"
