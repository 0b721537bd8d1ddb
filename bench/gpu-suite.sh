#!/bin/sh
# gpu-suite.sh [--quick] [--only PART] [--no-tests] - on the GPU machine,
# with the bin/ of `make gpu-bundle`: the whole test suite with the GPU
# tests required, then bench/run-suite.sh; everything lands in
# ${OUT:-.}/suite.tar.gz (the device tool brings back few files) and the
# summaries on stdout.
out=${OUT:-.}
tests=1 args=
while [ $# -gt 0 ]; do
	case $1 in
	--no-tests) tests=0 ;;
	--only) args="$args --only $2"; shift ;;
	*) args="$args $1" ;;
	esac
	shift
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
date -u
mkdir -p "$out/suite"
if [ $tests = 1 ]; then
	start=$(date +%s)
	PICARD_REQUIRE_GPU=1 bin/picard-tests -j8 --verbose > "$out/suite/tests.log" 2>&1
	echo "tests: exit $?, $(( $(date +%s) - start )) s"
	grep -E "Synthesis|\[FAIL\]" "$out/suite/tests.log" | tail -15
fi
sh bench/run-suite.sh $args "$out/suite"
tar -C "$out" -czf "$out/suite.tar.gz" suite
for f in "$out"/suite/*.csv; do
	echo "== $(basename "$f")"
	grep -v '^#' "$f" | cut -d, -f5-14 | head -40
done
