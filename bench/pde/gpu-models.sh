#!/bin/sh
# gpu-models.sh - issue 21's semi-linear models (heat1d, heat2d,
# filtration) on the GPU machine, from the repository root with
# .xfer/bin.tar.xz carried (make gpu-carry): the GPU suites that loop
# over every model, with the GPU required (radau5 runs heat1d and refuses
# heat2d and filtration, whose step matrices pass a thread's local
# memory; newton-radau runs heat1d or refuses it for shared memory), the
# device compile of each model's operator (model_load), and picard-run's
# stiff default (radau5, double) on heat1d against the reference. Into
# ${OUT:-.}/pde-models: device.txt, tests.log, run.log. Exit status 1
# where a test or a check failed.
set -u
out=${OUT:-.}/pde-models
mkdir -p "$out"
[ -x bin/picard-tests ] || tar -xJf .xfer/bin.tar.xz
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } \
	> "$out/device.txt"
cat "$out/device.txt"
status=0
PICARD_REQUIRE_GPU=1 bin/picard-tests --verbose \
	--filter '@(gpu/rk_matches_cpu|gpu/newton*|model_load/every_model*|pde_models/*)' \
	> "$out/tests.log" 2>&1 || status=1
grep -E 'heat1d|heat2d|filtration|FAIL|Synthesis' "$out/tests.log"
{
	bin/picard-run heat1d --backend cuda --traj 256 --check || status=1
	bin/picard-run heat2d --backend cuda --traj 16 && status=1 # refused: local memory
} > "$out/run.log" 2>&1
cat "$out/run.log"
exit $status
