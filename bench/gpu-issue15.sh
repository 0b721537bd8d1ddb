#!/bin/sh
# gpu-issue15.sh - issue 15 on the GPU machine, from the repository root
# after `tar -xJf .xfer/bin.tar.xz` (make gpu-carry):
#   tests    the whole suite with PICARD_REQUIRE_GPU=1 (gpu::rk_matches_cpu:
#            every model x dp5, dp8, vern9 x float, double x fixed,
#            adaptive against the CPU backend)
#   matrix SIZES TARGETS   lotka, each size x precision:E, side by side in
#            one run: bench-rk's per-thread kernels (rk4, dp5, dp8, fixed
#            and adaptive; the hand-written reference), the engine's
#            schemes through bench-picard (dp5, dp8, vern9, fixed and
#            adaptive), and picard-run --tol E as a user runs it (the
#            tuner's quick search, then the solve it chose, --repeat
#            REPEATS times: the first solve, the median and min)
#   kepler   64 orbits x 100 periods at 1e-8 and 1e-10, the same
#   winners  the matrix's table (bench/winners.awk) into winners.md
# REPEATS (default 5): timed solves per bench row and picard-run. Into ${OUT:-.}/i15:
# device.txt, tests.log, matrix.csv (+ .log), runs.log (picard-run's
# output), kepler.csv, kepler-runs.log, and winners.md (awk -f
# bench/winners.awk: each cell's fastest, picard-run's choice, the ratios).
set -u
out=${OUT:-.}/i15
mkdir -p "$out"
export PICARD_CACHE_DIR="$out/cache"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } \
	> "$out/device.txt"
cat "$out/device.txt"

compare() { # compare CSV PROGRAM ARGS...: one row appended, failures noted
	csv=$1
	shift
	echo "== $*" >> "$out/$csv.log"
	"$@" --repeats "${REPEATS:-5}" --sample 256 --csv "$out/$csv" >> "$out/$csv.log" 2>&1 ||
		echo "# FAILED: $*" >> "$out/$csv"
}

for part in "$@"; do
	case $part in
	tests)
		PICARD_REQUIRE_GPU=1 bin/picard-tests -j4 > "$out/tests.log" 2>&1
		echo "tests: exit $?: $(grep Synthesis "$out/tests.log")"
		PICARD_REQUIRE_GPU=1 bin/picard-tests --filter 'gpu/rk_matches_cpu' --verbose 2>&1 |
			grep -E 'worst relative|Synthesis' > "$out/rk_matches_cpu.log"
		tail -n 1 "$out/rk_matches_cpu.log"
		;;
	matrix:*)
		spec=${part#matrix:}
		sizes=$(echo "${spec%%/*}" | tr , ' ')
		targets=$(echo "${spec#*/}" | tr , ' ')
		for n in $sizes; do
			for pt in $targets; do
				p=${pt%%:*} E=${pt#*:}
				for m in rk4 dp5 dp8 dp5-adaptive dp8-adaptive; do
					compare matrix.csv bin/bench-rk lotka --method $m --precision $p \
						--traj $n --target "$E"
				done
				for s in dp5 dp8 vern9; do
					compare matrix.csv bin/bench-picard lotka --scheme $s --precision $p \
						--traj $n --target "$E"
					compare matrix.csv bin/bench-picard lotka --scheme $s --adaptive \
						--precision $p --traj $n --target "$E"
				done
				# the quick search times every scheme on the run's
				# ensemble (up to 2^20 trajectories)
				echo "== picard-run lotka --traj $n --precision $p --tol $E" >> "$out/runs.log"
				timeout 300 bin/picard-run lotka --backend cuda --traj "$n" --precision "$p" \
					--tol "$E" --check-traj 256 --repeat "${REPEATS:-5}" \
					>> "$out/runs.log" 2>&1
				echo "exit $?" >> "$out/runs.log"
			done
			echo "matrix: $n done"
		done
		;;
	kepler)
		for E in 1e-8 1e-10; do
			for m in dp8-adaptive dp5-adaptive; do
				compare kepler.csv bin/bench-rk kepler --method $m --precision double \
					--traj 64 --spread 0.01 --target $E
			done
			for s in dp8 vern9; do
				compare kepler.csv bin/bench-picard kepler --scheme $s --adaptive \
					--precision double --traj 64 --spread 0.01 --target $E
			done
			compare kepler.csv bin/bench-picard kepler --scheme lobatto --precision double \
				--traj 64 --spread 0.01 --target $E
			# and as a user runs it: the quick search over every scheme
			echo "== picard-run kepler --traj 64 --spread 0.01 --precision double --tol $E" \
				>> "$out/kepler-runs.log"
			timeout 300 bin/picard-run kepler --backend cuda --traj 64 --spread 0.01 \
				--precision double --tol "$E" --repeat "${REPEATS:-5}" \
				>> "$out/kepler-runs.log" 2>&1
			echo "exit $?" >> "$out/kepler-runs.log"
		done
		;;
	winners)
		awk -F, -f bench/winners.awk "$out/matrix.csv" "$out/runs.log" > "$out/winners.md"
		cat "$out/winners.md"
		;;
	*)
		echo "unknown part $part" >&2
		;;
	esac
done
