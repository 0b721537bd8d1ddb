#!/bin/bash
# issue 37: the GPU suite, and old (ade47bf) and new byte for byte on every scheme family
cd "$(dirname "$0")/.."
mkdir -p old && tar -xJf .xfer/old.tar.xz -C old && tar -xJf .xfer/slim.tar.xz && ln -sfn ../../bin/lib old/bin/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
export PICARD_JIT_CACHE_DIR=/tmp/jitcache
mkdir -p /tmp/o
i=0
while read -r args; do
  i=$((i+1))
  old/bin/picard-run $args --out /tmp/o/old$i.npy > /tmp/o/old$i.txt 2>&1; ro=$?
  bin/picard-run $args --out /tmp/o/new$i.npy > /tmp/o/new$i.txt 2>&1; rn=$?
  same=different; cmp -s /tmp/o/old$i.npy /tmp/o/new$i.npy && same=identical
  st=different; cmp -s /tmp/o/old$i.status.csv /tmp/o/new$i.status.csv 2>/dev/null && st=identical
  [ -e /tmp/o/old$i.status.csv ] || [ -e /tmp/o/new$i.status.csv ] || st="(no status file)"
  echo "$i: $args | exit old $ro new $rn | .npy $same | status $st | $(grep -E '^scheme' /tmp/o/new$i.txt | head -1)"
done <<'LIST'
lotka --traj 8192
lotka --traj 8192 --layout warp --m 16
lotka --traj 4096 --layout paper --m 8
lotka --traj 4096 --scheme dp8
lotka --traj 4096 --scheme vern9 --precision double
kepler --traj 1024 --scheme lobatto --precision double --m 8 --window 0.25
kepler --traj 256 --scheme newton
robertson --traj 1024
robertson --traj 256 --scheme newton-radau
heat1d --traj 64
heat2d --traj 16
lotka --traj 8192 --tol 1e-6
LIST
ls /tmp/o/ | head -3
echo "=== timing, lotka 2^24 double, grid given, alternating old/new, 5 each"
for r in 1 2 3 4 5; do
  for b in old new; do
    p=bin/picard-run; [ $b = old ] && p=old/bin/picard-run
    s=$(date +%s.%N); $p lotka --traj 16777216 --precision double --m 8 --K 4 --h 0.06 >/dev/null; e=$(date +%s.%N)
    echo "$b $(echo "$e - $s" | bc)"
  done
done
echo "=== GPU suite"
PICARD_REQUIRE_GPU=1 PICARD_TEST_MODELS=lotka,kepler,robertson timeout 420 bin/picard-tests --filter '@(gpu|imex_gpu|krylov_gpu|tridiag_gpu)/*' -j16 2>&1 | tail -15
