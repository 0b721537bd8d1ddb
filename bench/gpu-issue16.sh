#!/bin/sh
# gpu-issue16.sh - issue 16 on the GPU machine, from the repository root,
# with .xfer/bin.tar.xz (make gpu-carry) and .xfer/jit.tar.xz (a kernel
# cache filled for sm_90 without a GPU: for every model, PICARD_JIT_ARCH=90
# PICARD_JIT_CACHE_DIR=/tmp/jitcache bin/picard-run MODEL --precompile,
# or with --scheme S a scheme's kernels alone, then tar -C /tmp jitcache)
# carried:
#   tests      the whole suite with PICARD_REQUIRE_GPU=1, -j16, the kernels
#              from the carried cache (those it lacks compiled on the way)
#   first-run  bench/jit/first-run.sh: a new model file's first run and its
#              cached runs, against a registered model's
# Into ${OUT:-.}/i16: device.txt, tests.log (verbose: each test's time),
# first-run.csv.
set -u
out=${OUT:-.}/i16
mkdir -p "$out"
tar -xJf .xfer/bin.tar.xz
[ -f .xfer/jit.tar.xz ] && tar -xJf .xfer/jit.tar.xz -C /tmp
export PICARD_JIT_CACHE_DIR=/tmp/jitcache PICARD_CACHE_DIR="$out/cache"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } \
	> "$out/device.txt"
cat "$out/device.txt"
for part in "$@"; do
	case $part in
	tests)
		start=$(date +%s)
		PICARD_REQUIRE_GPU=1 timeout "${TESTS_LIMIT:-480}" bin/picard-tests -j16 --verbose \
			> "$out/tests.log" 2>&1
		echo "tests: exit $? in $(( $(date +%s) - start )) s: $(grep Synthesis "$out/tests.log")"
		grep -E '^\[(FAIL|ERR)' "$out/tests.log" | head -20
		;;
	first-run)
		REPEATS=${REPEATS:-3} sh bench/jit/first-run.sh "$out" > /dev/null 2>&1
		cat "$out/first-run.csv"
		;;
	*)
		echo "gpu-issue16.sh: unknown part $part (tests, first-run)" >&2
		exit 2
		;;
	esac
done
rm -rf "$out/cache"
