#!/bin/sh
# gpu-issue40.sh - issue 40 (parallel in time) on the GPU machine, from the
# repository root after `tar -xJf .xfer/bin.tar.xz` (make gpu-carry):
#   orbit    one kepler orbit (e = 0.5) over 1000 periods, double: picard's
#            dp8 (DOP853) and vern9 at local tolerances 1e-11 .. 1e-15,
#            lobatto one window after the other, and lobatto with 8 or 16
#            windows in flight over m and window lengths
#   kepler   64 orbits (e from 0.4 to 0.6, each from its periapsis) x 100
#            periods, double: the same methods
#   tol      picard-run kepler --tol 1e-8 and 1e-10 on those 64 orbits as a
#            user runs it (the search, then the solve it chose, checked),
#            twice: the second reads the tuning cache
#   rk       bench-rk's hand-written DOP853 (dp8-adaptive) on kepler 64 x
#            100 (--spread 0: its own ensemble) at 1e-8 and 1e-10
#   orbit-fine, kepler-fine   lobatto at finer windows (1e-9 .. 1e-10),
#            one window after the other and 8 or 16 in flight
#   front    after the front's two-sweep test (picard_front_within): lobatto
#            in flight and one window after the other on the same grids,
#            with dp8 and vern9, on the orbit and on the 64 orbits
#   scan     the orbit only: lobatto in flight on longer windows and more
#            of them in flight (towards 10x DOP853 at its 2.6e-8), and on
#            shorter ones (towards 1e-10)
#   paper    windows in flight in the paper layout (a thread per node and
#            component) beside the group layout, on the orbit and on the
#            64 orbits, with dp8 and vern9 at their best
#   launches kernel launches and host waits of one solve, by scheme
#   tests    the lobatto and tuner GPU tests with PICARD_REQUIRE_GPU=1
# Every orbit returns to its start after whole periods, so the error is
# max |x(t1) - x0| over members and components: the closed form, not our
# own reference. Solve times: picard-run --repeat REPEATS (default 7), its
# first, median and min. Into ${OUT:-.}/i40: device.txt, orbit.csv,
# kepler.csv (method,setting,first_ms,median_ms,min_ms,error), tol.log,
# rk.csv (+ .log), tests.log. BACKEND, ORBIT_T1 and KEPLER_T1 (other than
# cuda, 1000 and 100 periods) only to try the script on a CPU.
set -u
out=${OUT:-.}/i40
mkdir -p "$out"
R=${REPEATS:-7}
export PICARD_CACHE_DIR=${PICARD_CACHE_DIR:-$out/cache}
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } \
	> "$out/device.txt"
cat "$out/device.txt"

# 64 periapsis starts of semi-major axis 1 (period 2 pi): q1, q2, p1, p2, mu, e
init=$out/kepler64.csv
awk 'BEGIN { for (i = 0; i < 64; i++) { e = 0.4 + 0.2 * i / 63
	printf "%.17g,0,0,%.17g,1,%.17g\n", 1 - e, sqrt((1 + e) / (1 - e)), e } }' > "$init"
awk 'BEGIN { printf "0.5,0,0,%.17g,1,0.5\n", sqrt(3) }' > "$out/orbit1.csv"

# row CSV STARTS T1 METHOD SETTING...: one picard-run, a row of CSV
row() {
	csv=$1 starts=$2 t1=$3 method=$4
	shift 4
	timeout 300 bin/picard-run kepler --init "$starts" --t1 "$t1" --precision double \
		--backend "${BACKEND:-cuda}" --repeat "$R" --out "$out/final.csv" "$@" > "$out/run.log" 2>&1
	rc=$?
	cat "$out/run.log" >> "$out/$csv.log"
	times=$(sed -n 's/^solve *\([0-9.e+-]*\) ms, the first of [0-9]*; median \([0-9.e+-]*\) ms, min \([0-9.e+-]*\) ms.*/\1,\2,\3/p' "$out/run.log")
	[ -n "$times" ] || times=$(sed -n 's/^solve *\([0-9.e+-]*\) ms$/\1,\1,\1/p' "$out/run.log")
	[ $rc -eq 0 ] && [ -n "$times" ] || times="failed($rc),,"
	err=$(tail -n +2 "$out/final.csv" 2>/dev/null | paste -d, "$starts" - | awk -F, '
		{ if ($8 != "ok") bad++
		  for (k = 1; k <= 4; k++) { d = $(k + 8) - $k; d = d < 0 ? -d : d; if (d > e) e = d } }
		END { printf "%.3g%s", e, bad ? " (" bad " not ok)" : "" }')
	echo "$method,\"$*\",$times,$err" | tee -a "$out/$csv"
	rm -f "$out/final.csv"
}

methods() { # methods CSV STARTS T1 WINDOWS...: every method on one case
	csv=$1 starts=$2 t1=$3
	echo "method,setting,first_ms,median_ms,min_ms,error" > "$out/$csv"
	for r in 1e-11 1e-12 1e-13 1e-14 1e-15; do
		row "$csv" "$starts" "$t1" dp8 --scheme dp8 --iter-rtol $r --iter-atol $r
		row "$csv" "$starts" "$t1" vern9 --scheme vern9 --iter-rtol $r --iter-atol $r
	done
	L="--scheme lobatto --K-max 60"
	for r in 1e-13 1e-15; do
		row "$csv" "$starts" "$t1" lobatto-sequential $L --m 16 --window 0.70757 --warm-start --iter-rtol $r
	done
	row "$csv" "$starts" "$t1" lobatto-sequential $L --m 16 --window 0.5 --warm-start --iter-rtol 1e-15
	for b in 8 16; do
		for c in "--m 16 --window 0.5" "--m 16 --window 0.70757" "--m 16 --window 0.9" \
			 "--m 24 --window 0.9" "--m 24 --window 1.2566" "--m 32 --window 1.2566" \
			 "--m 32 --window 1.6"; do
			row "$csv" "$starts" "$t1" lobatto-in-flight $L $c --block $b --iter-rtol 1e-15
		done
	done
	row "$csv" "$starts" "$t1" lobatto-in-flight $L --m 16 --window 0.70757 --block 8 --iter-rtol 1e-14
}

# finer windows, where lobatto reaches 1e-9 and 1e-10 (into CSV)
fine() {
	csv=$1 starts=$2 t1=$3
	echo "method,setting,first_ms,median_ms,min_ms,error" > "$out/$csv"
	L="--scheme lobatto --K-max 60 --iter-rtol 1e-15"
	for c in "--m 32 --window 1.0" "--m 32 --window 0.8" "--m 24 --window 0.7" \
		 "--m 24 --window 0.55" "--m 16 --window 0.35"; do
		row "$csv" "$starts" "$t1" lobatto-sequential $L $c --warm-start
		for b in 8 16; do
			row "$csv" "$starts" "$t1" lobatto-in-flight $L $c --block $b
		done
	done
}

# the same grids one window after the other and 8 in flight (into CSV)
front() {
	csv=$1 starts=$2 t1=$3
	echo "method,setting,first_ms,median_ms,min_ms,error" > "$out/$csv"
	row "$csv" "$starts" "$t1" dp8 --scheme dp8 --iter-rtol 1e-15 --iter-atol 1e-15
	for r in 1e-14 1e-15; do
		row "$csv" "$starts" "$t1" vern9 --scheme vern9 --iter-rtol $r --iter-atol $r
	done
	L="--scheme lobatto --K-max 60 --iter-rtol 1e-15"
	for c in "--m 16 --window 0.70757" "--m 16 --window 0.5" "--m 24 --window 0.9" \
		 "--m 24 --window 0.7" "--m 32 --window 1.6" "--m 32 --window 1.0"; do
		row "$csv" "$starts" "$t1" lobatto-sequential $L $c --warm-start
		row "$csv" "$starts" "$t1" lobatto-in-flight $L $c --block 8
	done
	row "$csv" "$starts" "$t1" lobatto-in-flight $L --m 16 --window 0.5 --block 16
}

for part in "$@"; do
	case $part in
	orbit-fine)
		fine orbit-fine.csv "$out/orbit1.csv" "${ORBIT_T1:-6283.185307179586}"
		;;
	front)
		front orbit-front.csv "$out/orbit1.csv" "${ORBIT_T1:-6283.185307179586}"
		front kepler-front.csv "$init" "${KEPLER_T1:-628.3185307179586}"
		;;
	scan)
		csv=orbit-scan.csv
		echo "method,setting,first_ms,median_ms,min_ms,error" > "$out/$csv"
		L="--scheme lobatto --K-max 60 --iter-rtol 1e-15"
		for c in "--m 32 --window 1.6 --block 16" "--m 32 --window 2.0 --block 16" \
			 "--m 32 --window 2.0 --block 8" "--m 32 --window 2.4 --block 16" \
			 "--m 24 --window 1.2 --block 16" "--m 16 --window 0.70757 --block 16" \
			 "--m 32 --window 0.9 --block 8" "--m 32 --window 0.8 --block 8" \
			 "--m 32 --window 1.0 --block 16" "--m 32 --window 1.2 --block 8"; do
			row "$csv" "$out/orbit1.csv" "${ORBIT_T1:-6283.185307179586}" lobatto-in-flight $L $c
		done
		;;
	kepler-fine)
		fine kepler-fine.csv "$init" "${KEPLER_T1:-628.3185307179586}"
		;;
	paper)
		L="--scheme lobatto --K-max 60 --iter-rtol 1e-15"
		for case in orbit kepler; do
			if [ $case = orbit ]; then
				starts=$out/orbit1.csv t1=${ORBIT_T1:-6283.185307179586}
			else
				starts=$init t1=${KEPLER_T1:-628.3185307179586}
			fi
			csv=$case-paper.csv
			echo "method,setting,first_ms,median_ms,min_ms,error" > "$out/$csv"
			row "$csv" "$starts" "$t1" dp8 --scheme dp8 --iter-rtol 1e-15 --iter-atol 1e-15
			row "$csv" "$starts" "$t1" vern9 --scheme vern9 --iter-rtol 1e-15 --iter-atol 1e-15
			for c in "--m 16 --window 0.70757 --block 8" "--m 32 --window 1.0 --block 4" \
				 "--m 32 --window 1.0 --block 8" "--m 16 --window 0.5 --block 8"; do
				row "$csv" "$starts" "$t1" lobatto-in-flight $L $c --layout warp
			done
			for c in "--m 16 --window 0.70757 --block 8" "--m 16 --window 0.5 --block 8" \
				 "--m 8 --window 0.3 --block 16" "--m 8 --window 0.25 --block 16" \
				 "--m 32 --window 1.0 --block 4" "--m 24 --window 0.8 --block 4" \
				 "--m 16 --window 0.6 --block 8" "--m 16 --window 0.75 --block 8" \
				 "--m 16 --window 0.8 --block 8" "--m 16 --window 0.9 --block 8"; do
				row "$csv" "$starts" "$t1" lobatto-paper $L $c --layout paper
			done
		done
		;;
	launches)
		# kernel launches and host waits of one solve, by scheme
		K="--traj 64 --t1 62.83185307179586"
		for c in "kepler $K --scheme lobatto --m 16 --window 0.5 --warm-start" \
			 "kepler $K --scheme lobatto --m 16 --window 0.5 --block 8" \
			 "kepler $K --scheme lobatto --m 16 --window 0.25 --block 8" \
			 "kepler $K --scheme vern9 --iter-rtol 1e-12" \
			 "kepler $K --scheme newton --m 12 --window 0.2" \
			 "kepler $K --scheme newton --m 12 --window 0.1" \
			 "heat1d --traj 1 --scheme imex-sdirk2"; do
			echo "== $c"
			timeout 120 bin/picard-run $c --precision double --backend cuda 2>&1 |
				grep -E "^grid|^solve|^launches|error"
		done > "$out/launches.log" 2>&1
		cat "$out/launches.log"
		;;
	orbit)
		methods orbit.csv "$out/orbit1.csv" "${ORBIT_T1:-6283.185307179586}"
		;;
	kepler)
		methods kepler.csv "$init" "${KEPLER_T1:-628.3185307179586}"
		;;
	tol)
		for E in 1e-8 1e-10; do
			for pass in search cached; do
				echo "== --tol $E ($pass)"
				timeout 300 bin/picard-run kepler --init "$init" --t1 628.3185307179586 \
					--precision double --tol $E --repeat "$R" --out "$out/final.csv" 2>&1
				echo "exit $?"
				tail -n +2 "$out/final.csv" 2>/dev/null | paste -d, "$init" - | awk -F, '
					{ for (k = 1; k <= 4; k++) { d = $(k + 8) - $k; d = d < 0 ? -d : d; if (d > e) e = d } }
					END { printf "closed-form error %.3g\n", e }'
				rm -f "$out/final.csv"
			done
		done > "$out/tol.log" 2>&1
		grep -E "^==|^exit|parameters|^solve|check|closed-form|refused|error" "$out/tol.log"
		;;
	rk)
		for E in 1e-8 1e-10; do
			echo "== dp8-adaptive $E" >> "$out/rk.csv.log"
			timeout 300 bin/bench-rk kepler --precision double --traj 64 --spread 0 --target $E \
				--method dp8-adaptive --repeats "$R" --csv "$out/rk.csv" >> "$out/rk.csv.log" 2>&1 ||
				echo "# FAILED: dp8-adaptive $E" >> "$out/rk.csv"
		done
		cat "$out/rk.csv"
		;;
	tests)
		PICARD_REQUIRE_GPU=1 PICARD_TEST_MODELS=lotka,kepler,decay,riccati,oscillator timeout 400 \
			bin/picard-tests -j16 --filter '@(gpu/lobatto*|tune/*)' > "$out/tests.log" 2>&1
		echo "tests: exit $?: $(grep Synthesis "$out/tests.log")"
		;;
	*)
		echo "gpu-issue40.sh: unknown part $part" >&2
		exit 2
		;;
	esac
done
rm -rf "$out/cache"
