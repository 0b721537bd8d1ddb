#!/bin/sh
# gpu-issue34.sh - issue 34's wrong answers, tried again on the GPU
# (--backend cuda), from the repository root with the bin/ of make
# gpu-carry unpacked: each command, its exit status and the lines of its
# summary and output that say what it solved. Into ${OUT:-.}/i34/repro.log.
set -u
out=${OUT:-.}/i34
mkdir -p "$out"
export PICARD_CACHE_DIR="$out/cache"
log=$out/repro.log
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } > "$log"
try() {
	echo "\$ picard-run $*" >> "$log"
	timeout 120 bin/picard-run --backend cuda "$@" --out "$out/x.csv" > "$out/run.txt" 2>&1
	echo "exit $?" >> "$log"
	grep -E '^(grid|check|failed|tolerance|picard-run|hint)' "$out/run.txt" >> "$log"
	[ -f "$out/x.csv" ] && head -4 "$out/x.csv" >> "$log"
	rm -f "$out/x.csv"
	echo >> "$log"
}
# (1) --param: x(10) = exp(-20) = 2.0611536e-09 on every member
try decay --param lambda=2 --check --traj 3 --spread 0.1 --scheme dp5 --steps 1000 --precision double
try vanderpol --param mu=1000 --t1 3000 --scheme radau5 --precision double --iter-rtol 1e-6 --check --traj 64
# (2) newton's spurious roots: never ok with x1 = -34
try robertson --scheme newton --check --traj 1 --spread 0
# (3) --check without --tol judges
try decay --param lambda=2 --check --traj 1 --spread 0
# (5) riccati at a = 10: its pole at t = 1/(a x0) = 1 reported there, rows before it kept
for s in dp5 dp8 vern9 radau5; do
	try riccati --param a=10 --scheme $s --traj 2 --spread 0 --precision double --save-every 0.25
done
# (6) work limits
try lotka --K 100000 --traj 1
try lotka --h 1e-7 --traj 1
# (7) float range
try lotka --param a1=1e39 --traj 4
# (11) an ensemble whose members cannot all meet --tol
try kepler --spread-param e=0.8 --spread 0 --traj 16 --tol 1e-5
cat "$log"
