#!/bin/sh
# first-run.sh OUTDIR - how long a model takes to run the first time (host
# side and kernel compiled, nothing cached) and once cached (issue 16's
# targets: at most 5 s, and at most 0.1 s over a built-in model's run).
# Each case REPEATS times from an empty compile cache, then REPEATS times
# cached; wall time of the whole picard-run process. Writes OUTDIR/first-run.csv.
set -eu
out=${1:?usage: first-run.sh OUTDIR}
repeats=${REPEATS:-3}
traj=${TRAJ:-8192}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# a model file picard has never seen: lotka's text with a comment of its own
mkdir -p "$work/models"
{ echo "/* first-run.sh: a file of its own, $(date +%s%N) */"; cat models/lotka.cu; } \
	>"$work/models/lotka.cu"

now() { date +%s.%N; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

csv=$out/first-run.csv
echo "case,model,run,cache,seconds,traj" >"$csv"
run_case() { # name model extra-args
	name=$1 model=$2
	shift 2
	for i in $(seq "$repeats"); do
		export PICARD_JIT_CACHE_DIR="$work/cache-$name-$i" PICARD_CACHE_DIR="$work/tune"
		t0=$(now); bin/picard-run "$model" --traj "$traj" "$@" >/dev/null; t1=$(now)
		echo "$name,$model,$i,empty,$(seconds "$t0" "$t1"),$traj" >>"$csv"
	done
	for i in $(seq "$repeats"); do
		t0=$(now); bin/picard-run "$model" --traj "$traj" "$@" >/dev/null; t1=$(now)
		echo "$name,$model,$i,cached,$(seconds "$t0" "$t1"),$traj" >>"$csv"
	done
}
run_case builtin lotka
run_case file-small "$work/models/lotka.cu"
run_case file-fput examples/models/fput.cu
cat "$csv"
