#!/bin/sh
# gpu-several.sh - issue 20 on a machine with several GPUs, from the
# repository root, with bin/picard-run, lib/libpicard_mpirun.so (make where
# Open MPI is installed) and mpirun here. Into ${OUT:-.}/several:
#   tol.txt        picard-run lotka --tol 1e-6 --precision double on the
#                  strong ensemble, one process: the scheme its search
#                  picks (a per-thread pair, measured: issue 15), and
#                  the same under mpirun -np G: tuned once, broadcast
#   pair/, picard/ bench/mpi/scaling.sh over 1, 2, 4 .. G ranks, one GPU
#                  each: strong (STRONG_TRAJ, 2^24) and weak (WEAK_TRAJ
#                  per GPU, 2^22), and the strong runs writing a .npy
#                  with MPI-IO; pair: the picked scheme with its
#                  options; picard: the paper's trapezoid Picard scheme
#                  (its defaults, float)
#   identical.txt  the .npy of G ranks against one rank's, by cmp
# REPEATS (3), SAVE_EVERY (100: the states at t0 and t1).
set -u
out=${OUT:-.}/several
mkdir -p "$out"
gpus=$(nvidia-smi -L | wc -l)
ranks="1"
g=2
while [ "$g" -le "$gpus" ]; do ranks="$ranks $g"; g=$((g * 2)); done
strong=${STRONG_TRAJ:-16777216}
weak=${WEAK_TRAJ:-4194304}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "$gpus GPUs, $(nproc) cores";
  mpirun --version 2>&1 | head -n 1; date -u +%Y-%m-%dT%H:%MZ; } > "$out/device.txt"
cat "$out/device.txt"

# 1. the tuner's pick, one process, then the same under mpirun (rank 0
# tunes, every rank runs it)
export PICARD_CACHE_DIR="$out/tune-cache"
bin/picard-run lotka --traj "$strong" --precision double --tol 1e-6 > "$out/tol.txt" 2>&1
echo "exit $?" >> "$out/tol.txt"
rm -rf "$PICARD_CACHE_DIR"
echo "== mpirun -np $gpus: tuned once, broadcast" >> "$out/tol.txt"
mpirun --oversubscribe --bind-to none -np "$gpus" bin/picard-run lotka --traj "$strong" \
	--precision double --tol 1e-6 >> "$out/tol.txt" 2>&1
echo "exit $?" >> "$out/tol.txt"
rm -rf "$PICARD_CACHE_DIR"
grep -E '^(grid|solve|tolerance|ranks|mpi|== )' "$out/tol.txt"
# the grid line to options: "vern9 adaptive, rtol=R atol=A, ..." or
# "dp8 K steps of S per window"
pair=$(awk '/^grid/ && !done {
	done = 1
	if ($3 == "adaptive,") {
		split($4, r, "="); split($5, a, "="); sub(/,$/, "", a[2])
		printf "--scheme %s --precision double --iter-rtol %s --iter-atol %s", $2, r[2], a[2]
	} else { # the window is the span over the windows: "W window(s), t in [a, b]"
		for (i = 1; i <= NF; i++)
			if ($i ~ /^windows?,$/) w = $(i - 1)
		match($0, /\[[^]]*\]/); split(substr($0, RSTART + 1, RLENGTH - 2), t, ", ")
		printf "--scheme %s --precision double --steps %s --h %.17g", $2, $3, (t[2] - t[1]) / w
	}
}' "$out/tol.txt")
echo "the pair's options: $pair" | tee "$out/pair-options.txt"

# 2. scaling, one GPU per rank (node-local rank -> device)
BACKEND=cuda RANKS="$ranks" REPEATS=${REPEATS:-3} STRONG_TRAJ=$strong WEAK_TRAJ=$weak \
	SAVE_EVERY=${SAVE_EVERY:-100} FLAGS="$pair" sh bench/mpi/scaling.sh "$out/pair" > /dev/null
BACKEND=cuda RANKS="$ranks" REPEATS=${REPEATS:-3} STRONG_TRAJ=$strong WEAK_TRAJ=$weak \
	SAVE_EVERY=${SAVE_EVERY:-100} sh bench/mpi/scaling.sh "$out/picard" > /dev/null
cat "$out/pair/summary.csv" "$out/picard/summary.csv"

# 3. G ranks' file against one rank's
# shellcheck disable=SC2086
mpirun --oversubscribe --bind-to none -np "$gpus" bin/picard-run lotka --traj "$strong" $pair \
	--out /tmp/several-g.npy > /dev/null 2>&1
# shellcheck disable=SC2086
bin/picard-run lotka --traj "$strong" $pair --out /tmp/several-1.npy > /dev/null 2>&1
if cmp /tmp/several-g.npy /tmp/several-1.npy; then
	echo "$gpus ranks, one GPU each: the .npy byte-identical to one process ($(stat -c %s /tmp/several-1.npy) bytes)"
else
	echo "$gpus ranks: the .npy DIFFERS from one process's"
fi | tee "$out/identical.txt"
rm -f /tmp/several-g.npy /tmp/several-1.npy /tmp/several-*.status.csv
