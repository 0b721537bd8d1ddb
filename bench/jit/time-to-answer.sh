#!/bin/sh
# time-to-answer.sh OUTDIR - issue 35: a new model's first answer. Each
# case runs twice, from empty kernel and tuning caches ("cold"), then
# again with what the first left ("warm"); wall time of the whole
# picard-run process, its exit status, and its summary's search and
# compile lines. Model files from bench/jit/models (chainN made from
# chain.cu.in). Writes OUTDIR/time-to-answer.csv and OUTDIR/runs.log.
# BACKEND=cpu for the CPU backend; LIMIT seconds per run (default 240);
# PICARD_RUN the program (default bin/picard-run); CASES the case names to
# run (default all).
set -u
out=${1:?usage: time-to-answer.sh OUTDIR}
backend=${BACKEND:-auto}
limit=${LIMIT:-240}
prog=${PICARD_RUN:-bin/picard-run}
cases=${CASES:-all}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
here=$(cd "$(dirname "$0")" && pwd)
cp "$here"/models/spring3.cu "$work"/
for n in 10 51; do
	sed "s/DIM/$n/g" "$here"/models/chain.cu.in >"$work/chain$n.cu"
done
# a shipped model's text as a new file (the issue's pendulum case)
{ echo "/* time-to-answer.sh: pendulum as a new file */"; cat "$here"/../../models/pendulum.cu; } \
	| sed 's/struct pendulum/struct pend2/; s/REGISTER_MODEL(pendulum)/REGISTER_MODEL(pend2)/' \
	>"$work/pend2.cu"

now() { date +%s.%N; }
csv=$out/time-to-answer.csv
log=$out/runs.log
echo "case,cache,seconds,exit,backend" >"$csv"
: >"$log"
run_case() { # name args...
	name=$1
	shift
	case " $cases " in *" all "*|*" $name "*) ;; *) return ;; esac
	export PICARD_JIT_CACHE_DIR="$work/jit-$name" PICARD_CACHE_DIR="$work/tune-$name"
	for cache in cold warm; do
		t0=$(now)
		timeout "$limit" "$prog" "$@" --backend "$backend" >"$work/out" 2>&1
		rc=$?
		t1=$(now)
		s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
		echo "$name,$cache,$s,$rc,$backend" >>"$csv"
		{ echo "== $name $cache: $s s, exit $rc: picard-run $*"
		  grep -E '^(picard-run|parameters|search|schemes|compiled|grid|tolerance|total)' "$work/out"
		  echo; } >>"$log"
	done
}
run_case spring3-tol1e-8 "$work/spring3.cu" --tol 1e-8 --traj 1
run_case spring3-tol1e-8-double "$work/spring3.cu" --tol 1e-8 --precision double --traj 1
run_case pendulum-file-tol1e-6-check "$work/pend2.cu" --tol 1e-6 --check --traj 1
run_case chain10-tol1e-9 "$work/chain10.cu" --tol 1e-9 --precision double --traj 1
run_case chain51-tol1e-9 "$work/chain51.cu" --tol 1e-9 --precision double --traj 1
cat "$csv"
