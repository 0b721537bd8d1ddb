#!/bin/sh
# run-suite.sh [--quick] [--only PART] DIR - every benchmark of bench/ in one go, on the
# machine at hand (the H100 for the committed runs), CSVs into DIR:
#
#   fig2.csv, fig3.csv   E versus h (the paper's Figs. 2 and 3, Euler too)
#   h_star.csv           the convergence boundary read off them
#   table1.csv           the tuned optimum per E* and per m (Table 1, Fig. 4)
#                        with the serial Euler time T1 and the speed-up
#   compare-*.csv        picard against the per-thread GPU Runge-Kutta
#                        ensembles and GSL on the CPU (bench/compare)
#   scaling.csv          the same at 1 .. 1048576 trajectories
#   layouts.csv          the trapezoid's CUDA layouts against each other,
#                        Table 1's settings and 1M trajectories (issue 8)
#
# Every CSV starts with '#' lines: device, driver, build flags, date and
# the exact command. --quick runs each part small, to check the suite;
# --only paper|compare|scaling|layouts|matrix runs one part (scaling reads
# compare's CSV; matrix.csv, ensemble sizes x error levels, runs only so).
# Needs the binaries of `make bench` (bin/); plots: make plots RESULTS=DIR.
set -u
quick=0 only=all
[ "${1:-}" = --quick ] && { quick=1; shift; }
[ "${1:-}" = --only ] && { only=$2; shift 2; }
dir=${1:?usage: run-suite.sh [--quick] [--only paper|compare|scaling|layouts|matrix] DIR}
part() { [ $only = all ] || [ $only = "$1" ]; }
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
	ftargets="1e-3" dtargets="1e-8" ktargets="1e-8" sizes="1 1024 8192"
else
	hmin=1e-5 pd=4 tols=1e-2,1e-3,1e-4 traj=8192 eul=256 reps=5
	ftargets="1e-2 1e-3 1e-4" dtargets="1e-6 1e-8" ktargets="1e-8 1e-10"
	sizes="1 16 256 1024 8192 65536 1048576"
fi
# every comparison appends its rows to one CSV (bench/compare/README.md)
compare() { # compare CSV PROGRAM ARGS...: one solver at one target
	csv=$1; shift
	echo "  RUN     $* >> $csv"
	start=$(date +%s)
	"$@" --csv "$dir/$csv" >> "$dir/$csv.log" 2>&1 || echo "          (exit $?: see $csv.log)"
	echo "          $(( $(date +%s) - start )) s"
}

# ---- the paper (lotka, float, the paper's one initial state) ----------------
if part paper; then
run fig2.csv bin/bench-paper sweep --m 4,16,64,256 --K 3 --h-min $hmin --h-max 1 \
	--per-decade $pd --euler --traj $traj
run fig3.csv bin/bench-paper sweep --m 256 --K 2,3,4,6,9 --h-min $hmin --h-max 1 \
	--per-decade $pd --traj $traj
{ header awk -F, -f bench/paper/h_star.awk fig2.csv fig3.csv
  awk -F, -f bench/paper/h_star.awk "$dir/fig2.csv" "$dir/fig3.csv" | sort -t, -k1,1n -k2,2n; } > "$dir/h_star.csv"
run table1.csv bin/bench-paper tune --tols $tols --traj $traj --euler-traj $eul --repeats $reps
fi

# ---- picard against the alternatives (bench/compare) ---------------------------
# lotka, 8192 trajectories, picard-run's ensemble: float where it reaches E*,
# double for the tighter ones
if part compare; then
for E in $ftargets; do
	compare compare-lotka.csv bin/bench-picard lotka --precision float --target $E
	# the trapezoid's float floor is near 1e-4: its search would run to
	# millions of windows for nothing below 1e-3
	[ "$(awk "BEGIN { print ($E >= 1e-3) }")" = 1 ] &&
	compare compare-lotka.csv bin/bench-picard lotka --precision float --target $E \
		--scheme trapezoid --m 4,8,16,32
	for meth in rk4 dp5 dp8 dp5-adaptive dp8-adaptive; do
		compare compare-lotka.csv bin/bench-rk lotka --method $meth --precision float --target $E
	done
	compare compare-lotka.csv bin/bench-cpu lotka --method gsl-rk8pd --threads 1 --target $E
	compare compare-lotka.csv bin/bench-cpu lotka --method gsl-rk8pd --threads 0 --target $E
	compare compare-lotka.csv bin/bench-cpu lotka --method gsl-rkf45 --threads 0 --target $E
	compare compare-lotka.csv bin/bench-cpu lotka --method euler --threads 1 --traj 128 \
		--sample 32 --repeats 1 --target $E
done
for E in $dtargets; do
	compare compare-lotka.csv bin/bench-picard lotka --precision double --target $E
	for meth in rk4 dp5 dp8 dp5-adaptive dp8-adaptive; do
		compare compare-lotka.csv bin/bench-rk lotka --method $meth --precision double --target $E
	done
	compare compare-lotka.csv bin/bench-cpu lotka --method gsl-rk8pd --threads 1 --target $E
	compare compare-lotka.csv bin/bench-cpu lotka --method gsl-rk8pd --threads 0 --target $E
done

# the long serial chain: kepler, 64 orbits of e ~ 0.5, 100 periods, double;
# errors against the exact two-body solution (bench/compare/README.md)
for E in $ktargets; do
	compare compare-kepler.csv bin/bench-picard kepler --precision double --traj 64 \
		--spread 0.01 --m 8,12,16,24,32 --target $E
	# newton across windows (issue 17), a block of 64: the faster one
	# for 64 orbits (results/h100-2026-11-25-newton)
	compare compare-kepler.csv bin/bench-picard kepler --scheme newton --precision double \
		--traj 64 --spread 0.01 --m 8,12 --block 64 --target $E
	for meth in dp8 dp5-adaptive dp8-adaptive; do
		compare compare-kepler.csv bin/bench-rk kepler --method $meth --precision double \
			--traj 64 --spread 0.01 --target $E
	done
	compare compare-kepler.csv bin/bench-cpu kepler --method gsl-rk8pd --threads 0 \
		--traj 64 --spread 0.01 --target $E
done
fi

# ensemble size: lotka at E* = 1e-4 (float) with the settings found at 8192
# above (the first m and window count of picard's row, dp8's step count),
# picard's layout chosen by AUTO
if part scaling; then
best() { # best CSV METHOD PRECISION TARGET-ROW-FIELD: a field of the row
	awk -F, -v m="$2" -v p="$3" '$6 == m && $7 == p { v = $'"$4"' } END { print v }' "$dir/$1"
}
E=$(echo $ftargets | awk '{ print $NF }')
pw=$(best compare-lotka.csv picard-lobatto float 9)
pm=$(best compare-lotka.csv picard-lobatto float 8 | sed 's/^m=\([0-9]*\).*/\1/')
rs=$(best compare-lotka.csv dp8 float 9)
if [ -n "$pw" ] && [ -n "$rs" ]; then
	for n in $sizes; do
		compare scaling.csv bin/bench-picard lotka --precision float --traj $n \
			--m "$pm" --windows "$pw" --iter-rtol 1e-6
		compare scaling.csv bin/bench-rk lotka --method dp8 --precision float --traj $n \
			--steps "$rs"
	done
else
	echo "  SKIP    scaling: no picard or dp8 row at E* = $E in compare-lotka.csv"
fi
fi

# ---- the trapezoid's layouts (issue 8) -------------------------------------------
if part layouts; then
	run layouts.csv timeout 150 bin/bench-layouts
fi

# ---- ensemble sizes x error levels (issue 8) -------------------------------------
# picard (the best m, its layout by AUTO) and dp8 at each size and E*: the
# matrix whose cells are set against the floors; newton in its double cells
# up to 8192 trajectories. Not part of the whole
# suite (several minutes on an H100, past one device call with the rest):
# --only matrix.
if [ $only = matrix ]; then
	if [ $quick = 1 ]; then msizes="1 8192" mtargets="float:1e-3 double:1e-8"
	else
		msizes="1 64 1024 8192 65536 1048576"
		mtargets="float:1e-2 float:1e-4 double:1e-6 double:1e-8"
	fi
	for n in $msizes; do
		for pt in $mtargets; do
			p=${pt%%:*} E=${pt#*:}
			compare matrix.csv bin/bench-picard lotka --precision $p --traj $n \
				--target $E --repeats 3
			compare matrix.csv bin/bench-rk lotka --method dp8 --precision $p --traj $n \
				--target $E --repeats 3
			# newton: double only; past 8192 trajectories it only
			# falls further behind (results/h100-2026-11-25-newton)
			if [ $p = double ] && [ $n -le 8192 ]; then
				compare matrix.csv bin/bench-picard lotka --scheme newton \
					--precision double --traj $n --target $E --repeats 3
			fi
		done
	done
fi
