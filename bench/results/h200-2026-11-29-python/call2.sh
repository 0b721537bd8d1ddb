#!/bin/bash
set -u
mkdir -p "$OUT"
tar -xJf .xfer/c19a.tar.xz
export PICARD_LIB=$PWD/lib/libpicard.so LD_LIBRARY_PATH=$PWD/bin/lib:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
timeout 60 python3 .xfer/prof_dev.py 2>&1 | tee "$OUT/prof.txt"
timeout 100 python3 bench/sweep/sweep.py --out "$OUT/sweep.csv" 2>&1 | tail -6
timeout 120 python3 -c "import jax; print(jax.devices())" 2>&1 | tail -3
