#!/bin/bash
# issue 37: old and new side by side, more repeats: the floor and the 2^24 run
cd "$(dirname "$0")/.."
mkdir -p old && tar -xJf .xfer/old.tar.xz -C old && tar -xJf .xfer/slim.tar.xz && ln -sfn ../../bin/lib old/bin/lib
nvidia-smi --query-gpu=name --format=csv,noheader; date -u
export PICARD_JIT_CACHE_DIR=/tmp/jitcache
for b in old new; do p=bin/picard-run; [ $b = old ] && p=old/bin/picard-run; $p lotka --traj 64 --precision double --m 8 --K 4 --h 0.06 >/dev/null; $p lotka --traj 4 >/dev/null; done
run() { # label args...
  for r in $(seq 1 15); do
    for b in old new; do
      p=bin/picard-run; [ $b = old ] && p=old/bin/picard-run
      s=$(date +%s%N); $p "$@" >/dev/null; e=$(date +%s%N)
      echo "$b $(( (e - s) / 1000000 ))"
    done
  done | sed "s|^|$* : |"
}
run lotka --traj 4
run lotka --traj 16777216 --precision double --m 8 --K 4 --h 0.06
