#!/bin/bash
# bench/events/reference-check.sh OUT: --check, --tol and picard-tune on the
# models with events, the engine on the GPU and the GSL reference that
# locates the events on the host, from the tree's root after `make`.
# Expect: every command exits 0 except the two coarse ones (exit 1, the
# member named), and each check line has "events: N compared".
set -u
OUT=${1:-${OUT:?OUT}}
mkdir -p "$OUT"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee "$OUT/device.txt"
export PICARD_JIT_CACHE_DIR=/tmp/jc PICARD_CACHE_DIR=/tmp/pc
run() { echo "\$ picard-run $*"; timeout 300 ${PICARD_BIN:-bin}/picard-run "$@" --backend cuda; echo "exit $?"; }
{
	run bouncing_ball --traj 4 --check
	run bouncing_ball --traj 65536 --check --check-traj 1024
	run bouncing_ball --traj 64 --tol 1e-6 --check
	run bouncing_ball --traj 100000 --tol 1e-8 --check --precision double
	run threshold --traj 4096 --check
	run threshold --traj 4 --scheme dp5 --steps 1 --h 2.5 --tol 1e-6 --check
	run threshold --traj 2 --spread 0 --param c=0.0067729 --scheme dp5 --steps 1 --h 2.5 --tol 1e-6 --check
	echo "\$ picard-tune bouncing_ball --tol 1e-6 --budget 60"
	timeout 300 ${PICARD_BIN:-bin}/picard-tune bouncing_ball --tol 1e-6 --budget 60 --backend cuda; echo "exit $?"
} > "$OUT/reference-check.log" 2>&1
PICARD_REQUIRE_GPU=1 PICARD_TEST_MODELS=bouncing_ball,threshold timeout 300 \
	${PICARD_BIN:-bin}/picard-tests --filter '@(reference_events/*|check_events/*|events_gpu/*)' -j16 \
	> "$OUT/gpu-tests.log" 2>&1
echo "tests exit $?"
grep -E "Synthesis|FAIL|CRASH|Timeout" "$OUT/gpu-tests.log" | head -20
