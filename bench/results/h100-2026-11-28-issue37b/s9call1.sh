#!/bin/bash
# issue 37: the kernel cache across the restructure (old ade47bf, new main)
cd "$(dirname "$0")/.."
mkdir -p old && tar -xJf .xfer/old.tar.xz -C old && tar -xJf .xfer/slim.tar.xz && ln -sfn ../../bin/lib old/bin/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export PICARD_JIT_CACHE_DIR=/tmp/jitcache
for args in "lotka --traj 8192" "kepler --scheme lobatto --traj 1024 --precision double" "robertson --traj 1024" "lotka --traj 8192 --tol 1e-6"; do
  echo "=== old: $args"; old/bin/picard-run $args | grep -E '^(scheme|compiled|total|status|trajectories)' 
  echo "=== new: $args"; bin/picard-run $args | grep -E '^(scheme|compiled|total|status|trajectories)'
done
ls /tmp/jitcache/kernels | wc -l
