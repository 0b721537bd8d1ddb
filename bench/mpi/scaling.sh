#!/bin/sh
# scaling.sh OUTDIR - picard-run under mpirun over 1..N ranks, from the
# repository root with bin/ built with MPI: strong scaling (STRONG_TRAJ
# trajectories in all), weak scaling (WEAK_TRAJ per rank), and the strong
# runs again writing --out FILE.npy with --save-every (MPI-IO), REPEATS runs
# of each. Writes OUTDIR/runs.csv (one row per run: the slowest rank's
# solve from the summary, rank 0's whole run, mpirun's wall clock, the
# reductions' and the output's time from its mpi line) and
# OUTDIR/summary.csv (min and median of the repeats; speed-up and
# efficiency against 1 rank), each under a header naming the machine, the
# date, the command and the load average (runs.csv: each run's).
#   BACKEND cpu|cuda (cpu)   RANKS "1 2 3 4"   REPEATS 5   MODEL lotka
#   STRONG_TRAJ 32768   WEAK_TRAJ 16384   SAVE_EVERY 10   FLAGS (more flags)
#   MPIRUN_FLAGS (--bind-to none: Open MPI binds 1 or 2 ranks to a core
#   each, which would leave a lone rank's OpenMP threads on one core)
set -eu
out=${1:?usage: bench/mpi/scaling.sh OUTDIR}
backend=${BACKEND:-cpu}
ranks_list=${RANKS:-1 2 3 4}
repeats=${REPEATS:-5}
model=${MODEL:-lotka}
strong=${STRONG_TRAJ:-32768}
weak=${WEAK_TRAJ:-16384}
save_every=${SAVE_EVERY:-10}
flags=${FLAGS:-}
mpirun=${MPIRUN:-mpirun}
mpirun_flags=${MPIRUN_FLAGS:---bind-to none}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$out"
cores=$(nproc)
cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)
device=$cpu
[ "$backend" = cuda ] && device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
header() {
	echo "# picard-run under mpirun, $backend backend; device: $device; $cores cores ($cpu)"
	echo "# date: $(date -u +%Y-%m-%dT%H:%MZ); picard: $(bin/picard-run --version | head -n 1)"
	echo "# command: BACKEND=$backend RANKS='$ranks_list' REPEATS=$repeats MODEL=$model" \
	     "STRONG_TRAJ=$strong WEAK_TRAJ=$weak SAVE_EVERY=$save_every FLAGS='$flags'" \
	     "bench/mpi/scaling.sh $out"
	echo "# $($mpirun --version 2>&1 | head -n 1), $mpirun --oversubscribe $mpirun_flags"
	echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg) (the machine may be shared)"
}

# "34.3 ms" or "4.56 s" (the summary's) in seconds
seconds() {
	awk '{ v = $1; if ($2 == "ms") v /= 1000; else if ($2 == "us") v /= 1e6; printf "%.6g", v }'
}

# one run: kind ranks traj run [--out args]: a row of runs.csv
one_run() {
	kind=$1 ranks=$2 traj=$3 run=$4
	shift 4
	start=$(date +%s.%N)
	# shellcheck disable=SC2086
	summary=$($mpirun --oversubscribe $mpirun_flags -np "$ranks" bin/picard-run "$model" --backend "$backend" \
		--traj "$traj" $flags "$@")
	end=$(date +%s.%N)
	solve=$(echo "$summary" | sed -n 's/^solve  *\([0-9.e+-]* [mu]*s\).*/\1/p' | seconds)
	total=$(echo "$summary" | sed -n 's/^total  *//p' | seconds)
	wall=$(echo "$start $end" | awk '{ printf "%.6g", $2 - $1 }')
	# the mpi line: reductions' time, the output's formatting and MPI-IO write
	reduce=$(echo "$summary" | sed -n 's/^mpi .* reductions in \([0-9.e+-]* [mu]*s\).*/\1/p' | seconds)
	write=$(echo "$summary" | sed -n 's/^mpi .* written in \([0-9.e+-]* [mu]*s\).*/\1/p' | seconds)
	bytes=0
	[ $# -gt 0 ] && bytes=$(stat -c %s "$out/x.npy")
	echo "$kind,$ranks,$traj,$run,$solve,$total,$wall,${reduce:-0},${write:-0},$bytes,$(cut -d' ' -f1 /proc/loadavg)"
}

runs=$out/runs.csv
{ header; echo "kind,ranks,traj,run,solve_s,total_s,wall_s,reduce_s,write_s,out_bytes,load1"; } > "$runs"
# the rank counts in turn within each repeat, so that a burst of other
# work on the machine falls on all of them alike
for run in $(seq 1 "$repeats"); do
	for ranks in $ranks_list; do
		one_run strong "$ranks" "$strong" "$run" >> "$runs"
		one_run weak "$ranks" $((weak * ranks)) "$run" >> "$runs"
		one_run strong-out "$ranks" "$strong" "$run" --out "$out/x.npy" \
			--save-every "$save_every" >> "$runs"
	done
	echo "scaling.sh: repeat $run of $repeats done" >&2
done
rm -f "$out/x.npy" "$out/x.status.csv"
{ header; awk -f bench/mpi/summary.awk "$runs"; } > "$out/summary.csv"
# the load at the end too: other work on the machine skews the times
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/summary.csv"
cat "$out/summary.csv"
