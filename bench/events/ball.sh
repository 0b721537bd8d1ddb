#!/bin/bash
# bench/events/ball.sh OUT [MPGOS_BIN] - issue 39's bouncing ball on the
# GPU: 1M members (heights spread 10%), about 20 bounces each (t1 = 7.6),
# at 1e-8 in double: picard-run's dp8 and, given MPGOS_BIN (built from
# bench/events/mpgos/ball.cu), MPGOS's RKCK45 with its event handling on
# the same members (picard-run writes them, --save-at 0 --out), in two
# rounds alternated; each one's bounce log (4096 members) checked against
# the closed form by check_bounces.awk; one table at the end. Run from the
# repository root; PICARD_BIN: where picard-run is (default bin). Called
# by bench/events/run.sh.
set -u
out=${1:?OUT}
mpgos=${2:-}
bin=${PICARD_BIN:-bin}
mkdir -p "$out"
[ -z "$mpgos" ] || [ -x "$mpgos" ] || { echo "ball.sh: $mpgos: no such program" >&2; exit 2; }
B="bouncing_ball --t1 7.6 --spread 0.1 --seed 1 --precision double --scheme dp8 --iter-rtol 1e-8 --iter-atol 1e-8 --event-log 32 --backend cuda"
N=1048576
log() { # name file command...: the command's output to file and to ball.log
	local name=$1 file=$2; shift 2
	echo "== $name: $*" >> "$out/ball.log"
	timeout 300 "$@" > "$file" 2>&1
	local rc=$?
	cat "$file" >> "$out/ball.log"
	echo "exit $rc" >> "$out/ball.log"
}
if [ -n "$mpgos" ]; then
	log "initial states" "$out/init.txt" "$bin/picard-run" $B --traj $N --save-at 0 --out "$out/init.csv"
fi
for round in 1 2; do
	log "picard $round" "$out/picard-$round.txt" "$bin/picard-run" $B --traj $N --repeat 3 --verbose
	[ -z "$mpgos" ] ||
		log "mpgos $round" "$out/mpgos-$round.txt" "$mpgos" --init "$out/init.csv" --repeat 3 \
			--log "$out/mpgos-bounces.csv" --log-members 4096 --log-capacity 32
done
log "picard 4096 log" "$out/picard-log.txt" "$bin/picard-run" $B --traj 4096 --events "$out/picard-bounces.csv"
for who in picard ${mpgos:+mpgos}; do
	awk -f bench/events/check_bounces.awk "$out/$who-bounces.csv" > "$out/$who-check.txt" 2>&1
	sed "s/^/$who bounces: /" "$out/$who-check.txt" >> "$out/ball.log"
done
rm -f "$out/init.csv" "$out/picard-bounces.csv" "$out/mpgos-bounces.csv"

# The table: each run's solve (median and min of 3, ms, by
# run_summary.awk), its events, and its solver's worst bounce time
# against the closed form.
{
	printf "%-8s %5s %10s %10s %10s %12s\n" solver round "median ms" "min ms" events "worst error"
	for round in 1 2; do
		for who in picard ${mpgos:+mpgos}; do
			f=$out/$who-$round.txt
			IFS=, read -r _ _ _ _ med mn _ < <(awk -f bench/run_summary.awk "$f")
			events=$(awk '/^events / { print $2 }' "$f")
			worst=$(awk '/largest error/ { print $NF }' "$out/$who-check.txt")
			printf "%-8s %5s %10s %10s %10s %12s\n" $who $round $med $mn "${events:--}" "${worst:-none}"
		done
	done
} | tee "$out/ball-table.txt"
