# gpu_rows.sh - what the side-by-side scripts that tabulate picard-run's
# checked solves share (bench/pde/gpu-compare.sh, bench/stiff/
# gpu-across-time.sh), sourced from the repository root with out (the
# output folder) and csv (its table) set: the bundle unpacked (make
# gpu-carry) where bin/ is not built, the device named in device.txt, the
# kernel cache ($PICARD_JIT_CACHE_DIR, else /tmp/jitcache) and a tuning
# cache of the run's own, outside out (every search runs); R and TOL from
# REPEATS (5) and TOL (1e-4).
mkdir -p "$out"
[ -x bin/picard-run ] || tar -xJf .xfer/bin.tar.xz
R=${REPEATS:-5}
TOL=${TOL:-1e-4}
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null ||
	grep -m1 'model name' /proc/cpuinfo; nproc; date -u +%Y-%m-%dT%H:%MZ; } > "$out/device.txt"
cat "$out/device.txt"
export PICARD_JIT_CACHE_DIR=${PICARD_JIT_CACHE_DIR:-/tmp/jitcache} PICARD_CACHE_DIR="$(mktemp -d)"
[ -f "$csv" ] || echo "model,traj,method,tol,median_ms,min_ms,E,met" > "$csv"

# A per-model setting: the value of NAME_MODEL (e.g. WINDOW_hires), or
# nothing.
model_setting() { # NAME model
	eval echo "\${$1_$2:-}"
}

# One row: picard-run MODEL --traj N --scheme S in double with the grid
# flags GRID (e.g. "--tol $TOL", "--steps 982 --check"), R repeats, ROW_TIMEOUT
# seconds (300) at most; its whole output onto run.log, its summary
# (bench/run_summary.awk) onto the table.
picard_row() { # model traj scheme grid
	echo "== picard-run $1 --traj $2 --scheme $3 $4" >> "$out/run.log"
	# shellcheck disable=SC2086 # grid is flags
	timeout "${ROW_TIMEOUT:-300}" bin/picard-run "$1" --traj "$2" --scheme "$3" \
		--precision double $4 --repeat "$R" > "$out/row.txt" 2>&1
	echo "exit $?" >> "$out/row.txt"
	cat "$out/row.txt" >> "$out/run.log"
	awk -v model="$1" -v traj="$2" -v method="$3" -v tol="$TOL" -f bench/run_summary.awk \
		< "$out/row.txt" | tee -a "$csv"
	rm -f "$out/row.txt"
}
