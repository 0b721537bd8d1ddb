#!/bin/bash
# session 18, call 1: issue 40 measurements (bench/gpu-issue40.sh) with the
# tuner that searches lobatto's windows in flight.
set -u
mkdir -p "$OUT"
start=$(date +%s)
tar -xJf .xfer/c1.tar.xz
mkdir -p /tmp/fakecxx && printf '#!/bin/sh\n[ "$1" = --version ] && { echo "g++ (Debian 12.2.0-14+deb12u1) 12.2.0"; exit 0; }\nexec /usr/bin/g++ "$@"\n' > /tmp/fakecxx/g++ && chmod +x /tmp/fakecxx/g++
export PATH=/tmp/fakecxx:$PATH
export PICARD_JIT_CACHE_DIR=/tmp/jc
REPEATS=7 timeout 560 sh bench/gpu-issue40.sh orbit kepler tol rk > "$OUT/i40-console.txt" 2>&1
echo "exit $? at $(( $(date +%s) - start )) s" | tee -a "$OUT/i40-console.txt"
cp i40/orbit.csv i40/kepler.csv i40/rk.csv i40/tol.log i40/device.txt "$OUT/" 2>/dev/null
tar -czf "$OUT/logs.tgz" i40/*.log 2>/dev/null
ls "$OUT"
tail -60 "$OUT/i40-console.txt"
