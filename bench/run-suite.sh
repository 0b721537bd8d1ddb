#!/bin/sh
# run-suite.sh [--quick] DIR - every benchmark of bench/ in one go, on the
# machine at hand (the H100 for the committed runs), CSVs into DIR:
#
#   fig2.csv, fig3.csv   E versus h (the paper's Figs. 2 and 3, Euler too)
#   h_star.csv           the convergence boundary read off them
#   table1.csv           the tuned optimum per E* and per m (Table 1, Fig. 4)
#                        with the serial Euler time T1 and the speed-up
#   compare-*.csv        picard against the per-thread GPU Runge-Kutta
#                        ensembles and GSL on the CPU (bench/compare)
#   scaling.csv          the same at 1 .. 1048576 trajectories
#
# Every CSV starts with '#' lines: device, driver, build flags, date and
# the exact command. --quick runs each part small, to check the suite.
# Needs the binaries of `make bench` (bin/); plots: make plots RESULTS=DIR.
set -u
quick=0
[ "${1:-}" = --quick ] && { quick=1; shift; }
dir=${1:?usage: run-suite.sh [--quick] DIR}
mkdir -p "$dir"
export PICARD_CACHE_DIR="$dir/cache"

header() { # the provenance lines every CSV starts with
	echo "# device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo 'no GPU')"
	echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ), host CPUs: $(nproc)"
	echo "# build: $(cat build/build-id 2>/dev/null || echo unknown), CUDA_ARCH=90, nvcc -O3, gcc -O2"
	echo "# command: $*"
}
run() { # run CSV COMMAND...: the command's output after the header
	csv=$1; shift
	echo "  RUN     $* > $csv"
	start=$(date +%s)
	{ header "$@"; "$@"; } > "$dir/$csv" 2> "$dir/$csv.log" || echo "  FAILED  $csv (see $csv.log)"
	echo "          $(( $(date +%s) - start )) s"
}

if [ $quick = 1 ]; then
	hmin=1e-3 pd=2 tols=1e-2,1e-3 traj=1024 eul=16 reps=3
else
	hmin=1e-5 pd=4 tols=1e-2,1e-3,1e-4 traj=8192 eul=256 reps=5
fi

# ---- the paper (lotka, float, the paper's one initial state) ----------------
run fig2.csv bin/bench-paper sweep --m 4,16,64,256 --K 3 --h-min $hmin --h-max 1 \
	--per-decade $pd --euler --traj $traj
run fig3.csv bin/bench-paper sweep --m 256 --K 2,3,4,6,9 --h-min $hmin --h-max 1 \
	--per-decade $pd --traj $traj
{ header awk -F, -f bench/paper/h_star.awk fig2.csv fig3.csv
  awk -F, -f bench/paper/h_star.awk "$dir/fig2.csv" "$dir/fig3.csv" | sort -t, -k1,1n -k2,2n; } > "$dir/h_star.csv"
run table1.csv bin/bench-paper tune --tols $tols --traj $traj --euler-traj $eul --repeats $reps
