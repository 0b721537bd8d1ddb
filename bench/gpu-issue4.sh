#!/bin/sh
# gpu-issue4.sh - on a GPU machine with the bin/ of `make gpu-bundle`: the
# tests with GPU tests required, the paper's Table 1 settings with fixed
# K=2 against adaptive K, and the kernels under compute-sanitizer.
out=${OUT:-.}
export PICARD_CACHE_DIR="$out/cache"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
PICARD_REQUIRE_GPU=1 bin/picard-tests -j4 --verbose > "$out/tests.log" 2>&1
echo "tests: exit $?"; grep -E "Synthesis|\[FAIL\]" "$out/tests.log" | tail -15
for h in 0.5 0.06 0.008; do
	for k in "--K 2" "--K-max 20"; do
		echo "== lotka --traj 8192 --m 8 --h $h $k"
		bin/picard-run lotka --traj 8192 --m 8 --h $h $k --check | grep -E "grid|solve|sweeps|check|failed"
	done
done 2>&1 | tee "$out/table1-adaptive.txt"
for tool in memcheck racecheck synccheck initcheck; do
	for p in float double; do
		compute-sanitizer --tool $tool --error-exitcode 9 bin/picard-run lotka --traj 64 \
			--backend cuda --precision $p --K-max 8 --m 16 --h 0.05 --t1 5 > "$out/san.txt" 2>&1
		echo "compute-sanitizer $tool $p: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/san.txt" | head -1)"
	done
done | tee "$out/sanitizers.txt"
