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
# device.txt, across-time.csv (model, trajectories, scheme, tolerance,
# median and min solve in ms, E, whether every member met it), run.log
# (picard-run's whole output), profile.log (newton-radau's phases,
# PICARD_NEWTON_PROFILE, one trajectory).
set -u
out=${OUT:-.}/across-time
mkdir -p "$out"
[ -x bin/picard-run ] || tar -xJf .xfer/bin.tar.xz
R=${REPEATS:-5}
TOL=${TOL:-1e-4}
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null ||
	grep -m1 'model name' /proc/cpuinfo; nproc; date -u +%Y-%m-%dT%H:%MZ; } > "$out/device.txt"
cat "$out/device.txt"
# a tuning cache of its own, outside $out: every search runs
export PICARD_JIT_CACHE_DIR=${PICARD_JIT_CACHE_DIR:-/tmp/jitcache} PICARD_CACHE_DIR="$(mktemp -d)"
csv="$out/across-time.csv"
[ -f "$csv" ] || echo "model,traj,scheme,tol,median_ms,min_ms,E,met" > "$csv"

# picard-run's summary to one CSV row (bench/run_summary.awk).
summarise() { # model traj method < output
	awk -v model="$1" -v traj="$2" -v method="$3" -v tol="$TOL" -f bench/run_summary.awk
}

for model in ${MODELS:-robertson hires}; do
	for n in ${TRAJS:-1 8 64 512}; do
		for scheme in radau5 newton-radau; do
			grid="--tol $TOL"
			window=$(eval echo "\${WINDOW_$model:-}")
			[ "$scheme" = newton-radau ] && [ -n "$window" ] && grid="--window $window --check"
			echo "== picard-run $model --traj $n --scheme $scheme $grid" >> "$out/run.log"
			timeout "${ROW_TIMEOUT:-300}" bin/picard-run "$model" --traj "$n" --scheme "$scheme" \
				--precision double $grid --repeat "$R" > "$out/row.txt" 2>&1
			echo "exit $?" >> "$out/row.txt"
			cat "$out/row.txt" >> "$out/run.log"
			summarise "$model" "$n" "$scheme" < "$out/row.txt" | tee -a "$csv"
		done
	done
done
rm -f "$out/row.txt"
# where an iteration's time goes: the phases of one trajectory's solve
for model in ${MODELS:-robertson hires}; do
	echo "== $model, one trajectory, newton-radau at its tuned grid" >> "$out/profile.log"
	window=$(eval echo "\${WINDOW_$model:-}")
	grid="--tol $TOL"
	[ -n "$window" ] && grid="--window $window"
	PICARD_NEWTON_PROFILE=1 timeout "${ROW_TIMEOUT:-300}" bin/picard-run "$model" --traj 1 \
		--scheme newton-radau --precision double $grid >> "$out/profile.log" 2>&1
done
