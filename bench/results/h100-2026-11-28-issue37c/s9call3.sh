#!/bin/bash
cd "$(dirname "$0")/.."
mkdir -p old && tar -xJf .xfer/old.tar.xz -C old && tar -xJf .xfer/slim.tar.xz && ln -sfn ../../bin/lib old/bin/lib
nvidia-smi --query-gpu=name --format=csv,noheader; date -u
export PICARD_JIT_CACHE_DIR=/tmp/jitcache
for b in old new; do p=bin/picard-run; [ $b = old ] && p=old/bin/picard-run; $p lotka --traj 64 --precision double --m 8 --K 4 --h 0.06 >/dev/null; done
for r in 1 2 3 4 5 6 7; do
  for b in old new; do
    p=bin/picard-run; [ $b = old ] && p=old/bin/picard-run
    s=$(date +%s%N); $p lotka --traj 16777216 --precision double --m 8 --K 4 --h 0.06 >/dev/null; e=$(date +%s%N)
    echo "$b $(( (e - s) / 1000000 )) ms"
  done
done
