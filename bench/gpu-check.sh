#!/bin/sh
# gpu-check.sh - on a GPU machine with the carried bin/: the test suite with
# GPU tests required, then the paper's Table 1 rows on the GPU.
# Output under ${OUT:-.}.
out=${OUT:-.}
PICARD_REQUIRE_GPU=1 bin/picard-tests --verbose -j4 > "$out/tests.log" 2>&1
echo "tests: exit $?"; grep -E "Synthesis|FAIL|Fail" "$out/tests.log" | tail -15
bench/table1.sh --backend cuda > "$out/table1-cuda.txt" 2>&1
cat "$out/table1-cuda.txt"
