#!/bin/sh
# gpu-issue78.sh - on the GPU machine after gpu-suite.sh's tests: the cost
# of one sweep (picard lobatto, one trajectory, a fixed K so the sweep
# count is exact, m = 2 .. 32) and the targets of issues 7 and 8 side by
# side in one run (lotka 1e-4 float, 1e-8 double, kepler 1e-10, 1M
# trajectories; lobatto in its warp and its thread layout), CSVs into
# ${OUT:-.}/i78, packed as i78.tar.gz; then dense output's cost. Its
# first use (H100, 2026-11-23) measured the lobatto mat-vec over all G
# lanes: one sweep 0.48 -> 0.17 us (bench/results/h100-2026-11-23-pm/).
out=${OUT:-.}/i78
mkdir -p "$out"
c() { csv=$1; shift; echo "  $* >> $csv"; "$@" --csv "$out/$csv" >> "$out/$csv.log" 2>&1; }
for m in 2 4 8 16 32; do
	c sweep-cost.csv bin/bench-picard lotka --precision float --traj 1 --m $m --K 10 --windows 15
	c sweep-cost.csv bin/bench-picard lotka --precision float --traj 1 --m $m --K 20 --windows 15
done
c targets.csv bin/bench-picard lotka --precision float --target 1e-4
c targets.csv bin/bench-picard lotka --precision float --target 1e-4 --layout thread --m 4,6,8,12,16
c targets.csv bin/bench-rk lotka --method dp8 --precision float --target 1e-4
c targets.csv bin/bench-picard lotka --precision double --target 1e-8 --m 6,8,12
c targets.csv bin/bench-rk lotka --method dp8 --precision double --target 1e-8
c targets.csv bin/bench-picard kepler --precision double --traj 64 --spread 0.01 --m 12,16,24 --target 1e-10
c targets.csv bin/bench-rk kepler --method dp8-adaptive --precision double --traj 64 --spread 0.01 --target 1e-10
c targets.csv bin/bench-picard lotka --precision float --traj 1048576 --m 6 --windows 15 --iter-rtol 1e-6
c targets.csv bin/bench-picard lotka --precision float --traj 1048576 --m 6 --windows 15 --iter-rtol 1e-6 --layout thread
c targets.csv bin/bench-picard lotka --precision double --target 1e-8 --m 6,8,12 --layout thread
c targets.csv bin/bench-rk lotka --method dp8 --precision float --traj 1048576 --steps 21
# dense output's cost: the same solve without and with 201 saved times
# (its kernels are separate instances, src/schemes/trapezoid/paper_kernel.cuh)
run="bin/picard-run lotka --traj 8192 --scheme lobatto --m 6 --window 6.6666667"
for i in 1 2 3; do
	echo "no dense output: $($run | grep '^solve')"
	echo "--save-every 0.5: $($run --out "$out/dense.npy" --save-every 0.5 | grep '^solve')"
done | tee "$out/dense-output.txt"
rm -f "$out/dense.npy"
tar -C "${OUT:-.}" -czf "${OUT:-.}/i78.tar.gz" i78
for f in "$out"/*.csv; do echo "== $(basename "$f")"; grep -v '^#' "$f" | cut -d, -f5-13,16; grep -h '^# m = .*us median' "$f"; done
