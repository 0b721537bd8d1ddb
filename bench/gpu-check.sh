#!/bin/sh
# gpu-check.sh - on a GPU machine, with the bin/ of `make gpu-bundle`:
# the test suite with the GPU tests required, the paper's Table 1 rows on
# the GPU, and the tolerance search for lotka (float 1e-2 .. 1e-4, double
# 1e-4) followed by picard-run --tol from the cache. Logs under ${OUT:-.}.
out=${OUT:-.}
export PICARD_CACHE_DIR="$out/cache"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
date -u

PICARD_REQUIRE_GPU=1 bin/picard-tests -j4 --verbose > "$out/tests.log" 2>&1
echo "tests: exit $?"
grep -E "Synthesis|\[FAIL\]" "$out/tests.log" | tail -15

bench/table1.sh --backend cuda > "$out/table1-cuda.txt" 2>&1
grep -E "^##|solve|check" "$out/table1-cuda.txt"

for run in "1e-2 float" "1e-3 float" "1e-4 float" "1e-4 double"; do
	set -- $run
	echo "== picard-tune lotka --tol $1 --precision $2"
	start=$(date +%s.%N)
	bin/picard-tune lotka --tol "$1" --precision "$2" --csv "$out/tune-$2-$1.csv" 2>&1
	echo "exit $?, $(awk "BEGIN { print $(date +%s.%N) - $start }") s wall"
done > "$out/tune.log"
cat "$out/tune.log"
for run in "1e-3 float" "1e-4 double"; do
	set -- $run
	echo "== picard-run lotka --traj 8192 --tol $1 --precision $2"
	bin/picard-run lotka --traj 8192 --tol "$1" --precision "$2"
	echo "exit $?"
done
