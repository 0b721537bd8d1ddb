#!/bin/sh
# gpu-imex.sh - the imex schemes on the GPU machine (issue 21), from the
# repository root with .xfer/bin.tar.xz carried (make gpu-carry): the GPU
# imex tests with the GPU required (suite imex_gpu, and tridiag_gpu), then
# picard-run MODEL --scheme imex-sdirk2 in double for heat1d, heat2d and
# filtration at 1, 64, 1024 and 8192 trajectories with each GPU linear
# solver the model takes (and the CPU backend beside them, at up to
# CPU_MAX trajectories, default 64), REPEAT solves each (default 5). Into
# ${OUT:-.}/imex: device.txt, tests.log, runs.log and
# gpu-imex.csv (device, date, model, trajectories, backend, linsolve,
# first, median and min solve ms, exit status). Exit status 1 where a
# test failed. MODELS, SIZES, SOLVERS override the lists; TESTS=0 skips
# the tests.
set -u
out=${OUT:-.}/imex
mkdir -p "$out"
[ -x bin/picard-run ] || tar -xJf .xfer/bin.tar.xz
export PICARD_CACHE_DIR=${PICARD_CACHE_DIR:-/tmp/picard-cache}
device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
day=$(date -u +%Y-%m-%dT%H:%MZ)
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "$day"; } > "$out/device.txt"
cat "$out/device.txt"
status=0
if [ "${TESTS:-1}" = 1 ]; then
	for suite in imex_gpu tridiag_gpu; do
		PICARD_REQUIRE_GPU=1 bin/picard-tests --verbose --filter "$suite/*" \
			>> "$out/tests.log" 2>&1 || status=1
	done
	grep -E "Synthesis|FAIL|Assert|expected" "$out/tests.log"
fi

csv="$out/gpu-imex.csv"
echo "device,date,model,trajectories,backend,linsolve,first_ms,median_ms,min_ms,exit" > "$csv"
# "solve  21.1 ms, the first of 5; median 1.2 s, min 980 us" -> 21.1,1200,0.98
solve_ms() {
	awk '$1 == "solve" {
		ms["us,"] = 1e-3; ms["us"] = 1e-3; ms["ms,"] = 1; ms["ms"] = 1; ms["s,"] = 1e3; ms["s"] = 1e3
		first = $2 * ms[$3]
		for (i = 4; i < NF; i++) {
			if ($i == "median") median = $(i + 1) * ms[$(i + 2)]
			if ($i == "min") least = $(i + 1) * ms[$(i + 2)]
		}
		printf "%g,%g,%g\n", first, median, least
	}'
}
run() { # model ntraj backend linsolve
	log=$(bin/picard-run "$1" --scheme imex-sdirk2 --precision double --traj "$2" \
		--backend "$3" ${4:+--linsolve "$4"} --repeat "${REPEAT:-5}" 2>&1)
	rc=$?
	echo "== $1 --traj $2 --backend $3 --linsolve ${4:-default}: exit $rc" >> "$out/runs.log"
	echo "$log" >> "$out/runs.log"
	t=$(echo "$log" | solve_ms)
	echo "$device,$day,$1,$2,$3,${4:-default},${t:-,,},$rc" >> "$csv"
}
for model in ${MODELS:-heat1d heat2d filtration}; do
	case $model in
	filtration) solvers=${SOLVERS:-cg bicgstab} ;;
	*) solvers=${SOLVERS:-thomas checkerboard pcr cusparse} ;;
	esac
	for n in ${SIZES:-1 64 1024 8192}; do
		for s in $solvers; do
			run "$model" "$n" cuda "$s"
		done
		[ "$n" -le "${CPU_MAX:-64}" ] && run "$model" "$n" cpu ""
	done
done
column -s, -t < "$csv"
exit $status
