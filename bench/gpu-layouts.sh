#!/bin/sh
# gpu-layouts.sh OUT - issue 8 on the lent GPU: the layouts timed against each
# other (bin/bench-layouts), Table 1's settings and 1M trajectories
# through picard-run under each layout (the summary's solve line), the GPU
# tests, compute-sanitizer on the new kernels. Run from the folder holding
# bin/ (make gpu-bundle); logs go to OUT.
set -u
out=$1
mkdir -p "$out"
{ date -u +%Y-%m-%dT%H:%MZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > "$out/device.txt" 2>&1
timeout 100 bin/bench-layouts > "$out/bench.csv" 2> "$out/bench.err"
run() {
	echo "\$ picard-run $*"
	bin/picard-run "$@" 2>&1 | grep -E '^(grid|layout|solve|sweeps|E |parameters)|error|failed|picard-run:'
}
{
	for h in 0.5 0.06 0.008; do
		for l in "paper" "warp --scan parallel" "warp --scan serial" "thread" "auto"; do
			run lotka --traj 8192 --m 8 --K 2 --h $h --spread 0 --layout $l
		done
	done
	for l in "paper" "warp --scan parallel" "warp --scan serial" "thread" "auto"; do
		run lotka --traj 1048576 --m 8 --K 2 --h 0.06 --spread 0 --layout $l
	done
} > "$out/picard-run.txt" 2>&1
PICARD_REQUIRE_GPU=1 timeout 150 bin/picard-tests --filter 'gpu/*' -j4 --verbose > "$out/tests-gpu.txt" 2>&1
echo "rc $?" >> "$out/tests-gpu.txt"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for l in "warp --scan parallel --m 13" "warp --scan serial --m 13" "thread --m 13"; do
	for tool in memcheck synccheck; do
		echo "== $tool $l" >> "$out/compute-sanitizer.txt"
		timeout 25 "$san" --tool $tool bin/picard-run lotka --traj 67 --backend cuda --K-max 8 \
			--h 0.05 --t1 5 --traj-per-block 5 --layout $l 2>&1 | tail -4 >> "$out/compute-sanitizer.txt"
	done
done
