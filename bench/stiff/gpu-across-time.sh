#!/bin/sh
# gpu-across-time.sh - issue 18's layouts for few trajectories: a stiff
# model's ensemble of 1 to 512 members solved by radau5 (one thread per
# trajectory, adaptive steps) and by newton-radau (Radau IIA windows across
# the GPU, Newton's method across windows), each at the same error bound
# through picard-run --tol (the scheme's quick search on the run's own
# ensemble, then the checked solve), side by side in one run, from the
# repository root. With .xfer/bin.tar.xz carried (make gpu-carry) on the
# GPU machine; on a CPU machine it runs the CPU backend.
# MODELS (default "robertson hires"), TRAJS ("1 8 64 512"), TOL (1e-4),
# REPEATS (5), ROW_TIMEOUT (300 s). WINDOW_<model> (e.g. WINDOW_hires=0.1):
# newton-radau on that model runs windows of that length, checked (--check,
# met when E <= TOL), instead of --tol's search (which stops where the
# error plateaus while the window is longer than the initial layer). Into ${OUT:-.}/across-time:
# device.txt, across-time.csv (model, trajectories, method (the scheme), tolerance,
# median and min solve in ms, E, whether every member met it), run.log
# (picard-run's whole output), profile.log (newton-radau's phases,
# PICARD_NEWTON_PROFILE, one trajectory).
set -u
out=${OUT:-.}/across-time
csv="$out/across-time.csv"
. bench/gpu_rows.sh

for model in ${MODELS:-robertson hires}; do
	for n in ${TRAJS:-1 8 64 512}; do
		picard_row "$model" "$n" radau5 "--tol $TOL"
		window=$(model_setting WINDOW "$model")
		if [ -n "$window" ]; then grid="--window $window --check"; else grid="--tol $TOL"; fi
		picard_row "$model" "$n" newton-radau "$grid"
	done
done
# where an iteration's time goes: the phases of one trajectory's solve
for model in ${MODELS:-robertson hires}; do
	echo "== $model, one trajectory, newton-radau at its tuned grid" >> "$out/profile.log"
	window=$(model_setting WINDOW "$model")
	grid="--tol $TOL"
	[ -n "$window" ] && grid="--window $window"
	PICARD_NEWTON_PROFILE=1 timeout "${ROW_TIMEOUT:-300}" bin/picard-run "$model" --traj 1 \
		--scheme newton-radau --precision double $grid >> "$out/profile.log" 2>&1
done
