#!/bin/sh
# gpu-targets.sh - issue 17's targets on the GPU machine, side by side in
# one run, from the repository root with .xfer/bin.tar.xz carried (make
# gpu-carry, bench programs included). Parts:
#   check      picard-run newton against the CPU backend (lotka, kepler),
#              and the newton GPU tests (PICARD_REQUIRE_GPU=1)
#   profile    PICARD_NEWTON_PROFILE=1: an iteration's time split into the
#              linearisation (f, J, the windows' LU) and the step (scan,
#              placement, convergence, records)
#   kepler     64 orbits x 100 periods, double, at 1e-8 and 1e-10:
#              bench-rk's adaptive DOP853 and dp5, bench-picard's dp8 and
#              newton (blocks of 64 and 512), the fewest windows meeting E
#   kepler-fixed  the same at 1e-10, newton at given windows, m and
#              convergence tests
#   lotka      1 trajectory, double, 1e-8: the same
#   orbit      one kepler orbit (e = 0.5) over 1000 periods: picard-run's
#              dp8 (adaptive, rtol 1e-13 .. 1e-15) and newton (m, window
#              given; the default convergence test and a tighter one),
#              the error at t1 against the exact return to x0
#   crossover  lotka at 1e-6 and 1e-10 over 1 .. 16384 trajectories: dp8
#              adaptive against newton
# REPEATS (default 5), CMP_TIMEOUT (seconds a bench row may take, 300).
# Into ${OUT:-.}/nt: device.txt, runs.log, tests.log,
# profile.log, bench.csv (+ .log), orbit.csv.
set -u
out=${OUT:-.}/nt
mkdir -p "$out"
[ -x bin/picard-run ] || tar -xJf .xfer/bin.tar.xz
export PICARD_JIT_CACHE_DIR=${PICARD_JIT_CACHE_DIR:-/tmp/jitcache} PICARD_CACHE_DIR="$out/cache"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } \
	> "$out/device.txt"
cat "$out/device.txt"
R=${REPEATS:-5}
N="--scheme newton --precision double"

compare() { # one bench row appended to bench.csv, failures noted
	echo "== $*" >> "$out/bench.csv.log"
	timeout "${CMP_TIMEOUT:-300}" "$@" --repeats "$R" --csv "$out/bench.csv" >> "$out/bench.csv.log" 2>&1 ||
		echo "# FAILED: $*" >> "$out/bench.csv"
}
run() { echo "== $*"; timeout 200 bin/picard-run "$@" 2>&1; echo "exit $?"; }

for part in "$@"; do
	case $part in
	check)
		{
			run lotka $N --backend cuda --traj 4 --check --repeat "$R"
			run lotka $N --backend cuda --traj 4 --block 16 --check
			run kepler $N --backend cuda --traj 64 --spread 0.01 --window 0.1 \
				--t1 62.83185307179586 --check --repeat "$R"
		} > "$out/runs.log"
		grep -E "^==|^exit|check|solve|sweeps|failed" "$out/runs.log"
		PICARD_REQUIRE_GPU=1 timeout 300 bin/picard-tests -j16 --filter 'gpu/newton*' \
			--verbose > "$out/tests.log" 2>&1
		echo "tests: exit $?"
		grep -E "newton|FAIL|Synthesis|Assert|differ" "$out/tests.log" | grep -v SKIP | head -40
		;;
	profile)
		for c in "lotka --traj 1 --window 0.5" "lotka --traj 1 --window 2 --m 12" \
			 "kepler --traj 1 --spread 0 --window 0.2 --m 12" \
			 "kepler --traj 64 --spread 0.01 --window 0.2 --m 12" \
			 "kepler --traj 64 --spread 0.01 --window 0.2 --m 12 --block 64"; do
			echo "== $c"
			PICARD_NEWTON_PROFILE=1 timeout 200 bin/picard-run $c $N --backend cuda 2>&1 |
				grep -E "grid|solve|sweeps|newton profile"
		done > "$out/profile.log"
		cat "$out/profile.log"
		;;
	kepler)
		for E in 1e-8 1e-10; do
			K="kepler --precision double --traj 64 --spread 0.01 --target $E"
			compare bin/bench-rk $K --method dp8-adaptive
			compare bin/bench-picard $K --scheme dp8 --adaptive
			compare bin/bench-picard $K --scheme newton --m 8,12,16 --block 64
			compare bin/bench-picard $K --scheme newton --m 12 --block 512
		done
		grep -v "^#" "$out/bench.csv" | tail -8
		;;
	kepler-fixed)
		# the newton rows at given windows and convergence tests, beside
		# the search (kepler)
		K="kepler --precision double --traj 64 --spread 0.01"
		compare bin/bench-rk $K --target 1e-10 --method dp8-adaptive
		for c in "--m 12 --windows 800" "--m 12 --windows 1600" "--m 16 --windows 800" \
			 "--m 8 --windows 3200" "--m 8 --windows 6400"; do
			for r in 1e-11 1e-12; do
				compare bin/bench-picard $K --scheme newton $c --block 64 --iter-rtol $r
			done
		done
		compare bin/bench-picard $K --scheme newton --m 12 --windows 1600 --block 256 --iter-rtol 1e-12
		grep -v "^#" "$out/bench.csv" | tail -10
		;;
	lotka)
		L="lotka --precision double --traj 1 --target 1e-8"
		compare bin/bench-rk $L --method dp8-adaptive
		compare bin/bench-picard $L --scheme dp8 --adaptive
		compare bin/bench-picard $L --scheme newton --m 8,12,16
		compare bin/bench-picard $L --scheme newton --m 8,12,16 --block 16
		grep -v "^#" "$out/bench.csv" | tail -4
		;;
	orbit)
		T1=6283.185307179586
		echo "method,setting,solve,error_t1" > "$out/orbit.csv"
		for c in "dp8 --iter-rtol 1e-13" "dp8 --iter-rtol 1e-14" "dp8 --iter-rtol 1e-15" \
			 "newton --m 12 --window 0.4" "newton --m 12 --window 0.3" \
			 "newton --m 12 --window 0.4 --iter-rtol 1e-12" \
			 "newton --m 16 --window 0.6 --iter-rtol 1e-12"; do
			timeout 200 bin/picard-run kepler --traj 1 --spread 0 --t1 $T1 --precision double \
				--backend cuda --repeat "$R" --out "$out/orbit-final.csv" --scheme $c \
				> "$out/orbit-run.log" 2>&1
			cat "$out/orbit-run.log" >> "$out/orbit.log"
			sed -n 's/^solve *//p' "$out/orbit-run.log" | head -1 > "$out/solve.txt"
			awk -F, -v c="$c" -v s="$(cat "$out/solve.txt")" 'NR == 2 {
				split("0.5 0 0 1.7320508075688772", x0, " "); e = 0
				for (k = 1; k <= 4; k++) { d = $(2 + k) - x0[k]; d = d < 0 ? -d : d; if (d > e) e = d }
				split(c, w, " "); print w[1] ",\"" c "\",\"" s "\"," e }' "$out/orbit-final.csv" \
				>> "$out/orbit.csv"
		done
		cat "$out/orbit.csv"
		;;
	crossover)
		for E in 1e-6 1e-10; do
			for n in 1 16 256 4096 16384; do
				X="lotka --precision double --traj $n --target $E"
				compare bin/bench-rk $X --method dp8-adaptive
				compare bin/bench-picard $X --scheme newton --m 8,12 --block 64
			done
		done
		grep -v "^#" "$out/bench.csv" | tail -20
		;;
	*)
		echo "gpu-targets.sh: unknown part $part" >&2
		exit 2
		;;
	esac
done
rm -rf "$out/cache"
