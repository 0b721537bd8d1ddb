#!/bin/bash
# bench/events/run.sh OUT [MPGOS_BIN] - issue 39's event figures on the
# GPU, side by side in one run (picard-run's kernel time, --repeat 7: the
# first, the median and the min):
# 1. what watching for an event that never fires costs: lotka against
#    lotka_floor.cu (lotka and a floor its prey never reaches), 8192
#    members, dp5 in float at rtol 1e-4 and dp8 in double at 1e-8, three
#    rounds alternated;
# 2. bouncing_ball, 1M members (heights spread 10%), 20 bounces each
#    (t1 = 7.6), dp8 at 1e-8, and MPGOS's event handling on the same
#    members given MPGOS_BIN: ball.sh (the table in OUT/ball/ball-table.txt).
# From the repository root; PICARD_BIN: where picard-run is (default bin).
set -u
out=${1:?OUT}
mpgos=${2:-}
bin=${PICARD_BIN:-bin}
mkdir -p "$out"
run() { # name args...
	local name=$1; shift
	echo "== $name: picard-run $*" >> "$out/events.log"
	timeout 200 "$bin/picard-run" "$@" --backend cuda --verbose >> "$out/events.log" 2>&1
	echo "exit $?" >> "$out/events.log"
}
L="--traj 8192 --spread 0.1 --seed 1 --repeat 7"
for round in 1 2 3; do
	run "lotka float $round" lotka $L --precision float --scheme dp5 --iter-rtol 1e-4 --iter-atol 1e-4
	run "floor float $round" bench/events/lotka_floor.cu $L --precision float --scheme dp5 --iter-rtol 1e-4 --iter-atol 1e-4
	run "lotka double $round" lotka $L --precision double --scheme dp8 --iter-rtol 1e-8 --iter-atol 1e-8
	run "floor double $round" bench/events/lotka_floor.cu $L --precision double --scheme dp8 --iter-rtol 1e-8 --iter-atol 1e-8
done
grep -E "^==|solve |events |status|exit" "$out/events.log"
PICARD_BIN=$bin bench/events/ball.sh "$out/ball" $mpgos
