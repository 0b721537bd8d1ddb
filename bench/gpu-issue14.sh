#!/bin/sh
# gpu-issue14.sh - on the GPU machine, from the repository root after
# `tar -xJf .xfer/bin.tar.xz` (make gpu-carry): issue 14's checks on the
# CUDA backend. The whole test suite with PICARD_REQUIRE_GPU=1 (the gpu
# suite holds the promise cases on CUDA: riccati, vanderpol's mu sweep,
# lotka's rates, lorenz, kepler's eccentricities, fisher_kpp's 32
# components), then the issue's own commands, each with its exit status,
# and the cost of the error estimate beside the solve; float's error over a
# long span on every kernel (the compensated window start). Logs into
# ${OUT:-.}/i14.
out=${OUT:-.}/i14
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/device.txt"
date -u +%Y-%m-%dT%H:%MZ >> "$out/device.txt"
cat "$out/device.txt"

PICARD_REQUIRE_GPU=1 bin/picard-tests -j4 > "$out/tests.log" 2>&1
echo "tests: exit $?: $(grep Synthesis "$out/tests.log")"
# float against double over 318 periods, every kernel (src/common/compensated.h)
PICARD_REQUIRE_GPU=1 bin/picard-tests --filter 'gpu/compensated*' --verbose 2>&1 |
	grep -E 'float - double|Synthesis' > "$out/compensated.log"
cat "$out/compensated.log"

bin=$(pwd)/bin
run() { # name, then picard-run's arguments
	name=$1
	shift
	echo "== picard-run $*" >> commands.log
	"$bin/picard-run" "$@" >> commands.log 2>&1
	rc=$?
	echo "exit $rc" >> commands.log
	echo "$name: exit $rc"
}
cd "$out" || exit 1
printf "x1\n0.1\n0.2\n0.3\n0.4\n-1.0\n" > ric5.csv
printf "x1\n0.1\n0.2\n0.3\n0.4\n-1.0\n1.0\n" > ric6.csv
run ric5 riccati --backend cuda --init ric5.csv --tol 1e-9 --precision double --out ric5-out.csv
run ric6 riccati --backend cuda --init ric6.csv --tol 1e-9 --precision double --out ric6-out.csv
run ric-t20 riccati --backend cuda --t1 20 --traj 1 --spread 0 --tol 1e-6 --precision double
run lotka-float lotka --backend cuda --traj 8192 --tol 1e-3
run lotka-rel lotka --backend cuda --traj 8192 --rtol 1e-5 --atol 1e-3
run lotka-double lotka --backend cuda --traj 8192 --tol 1e-8 --precision double
run kepler-e kepler --backend cuda --traj 64 --spread 0 --spread-param e=0.8 --tol 1e-9 --precision double --t1 62.83185307179586
run fisher fisher_kpp --backend cuda --traj 256 --tol 1e-6 --precision double
tail -n 40 commands.log
