#!/bin/sh
# gpu-picard-events.sh - the Picard schemes' events (issue 39, branch
# i39-picard-events) on the GPU machine, from the repository root, with
# .xfer/bin.tar.xz (make gpu-carry) carried, or bin/ built there. lobatto
# and the trapezoid locate events on the CPU backend alone: with a device
# present, backend cuda must refuse a model with events under them and
# backend auto must solve it on the CPU (events_picard's
# cuda_refuses_picard_events_and_auto_runs_them_on_the_cpu checks
# stats.backend); the event suites and the GPU comparisons of lobatto and
# the trapezoid (models without events, unchanged) must pass with
# PICARD_REQUIRE_GPU=1.
# Into ${OUT:-.}/picard-events: device.txt, tests.log.
set -u
out=${OUT:-.}/picard-events
mkdir -p "$out"
[ -f .xfer/bin.tar.xz ] && tar -xJf .xfer/bin.tar.xz
export PICARD_CACHE_DIR="$out/cache"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } \
	> "$out/device.txt"
cat "$out/device.txt"
start=$(date +%s)
PICARD_REQUIRE_GPU=1 timeout "${TESTS_LIMIT:-540}" bin/picard-tests -j16 --verbose \
	--filter '@(events_picard/*|events/*|events_gpu/*|gpu/lobatto*|gpu/matches_cpu*)' \
	> "$out/tests.log" 2>&1
echo "tests: exit $? in $(( $(date +%s) - start )) s: $(grep Synthesis "$out/tests.log")"
grep -E '^\[(FAIL|ERR)' "$out/tests.log" | head -20
