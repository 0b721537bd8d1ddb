#!/bin/sh
# launch-gap.sh - where picard-run's solve loses time against the tuner's
# timing of the same configuration (issue 15): lotka, 8192 float, dp8, 14
# fixed steps in one window; picard-run plain, with a check record, with
# --tol (check and estimate records, the companion solve), and
# bench-picard; each --repeat 21, then Nsight Compute's kernel durations.
set -u
o=${OUT:-.}/gap
mkdir -p "$o"
R="bin/picard-run lotka --backend cuda --traj 8192 --precision float --scheme dp8 --m 2 --steps 14 --h 100 --repeat 21"
$R > "$o/a-plain.log" 2>&1
$R --check-traj 256 > "$o/b-check.log" 2>&1
$R --tol 1e-2 --check-traj 256 > "$o/c-tol.log" 2>&1
bin/bench-picard lotka --scheme dp8 --windows 14 --precision float --traj 8192 --repeats 21 \
	--sample 256 > "$o/d-bench.log" 2>&1
grep -H -E "^solve|us|time" "$o"/*.log | grep -v "^.*total"
NCU=/usr/local/cuda/bin/ncu
for v in a-plain c-tol; do
	case $v in a-plain) extra="" ;; *) extra="--tol 1e-2 --check-traj 256" ;; esac
	$NCU --metrics gpu__time_duration.sum,launch__registers_per_thread -k regex:picard_rk \
		$R $extra > "$o/ncu-$v.txt" 2>&1
done
$NCU --metrics gpu__time_duration.sum,launch__registers_per_thread -k regex:picard_rk \
	bin/bench-picard lotka --scheme dp8 --windows 14 --precision float --traj 8192 \
	--repeats 21 --sample 256 > "$o/ncu-bench.txt" 2>&1
for f in "$o"/ncu-*.txt; do
	echo "$f:"
	awk '/picard_rk_kernel/ { k = ($0 ~ /float/) ? "float" : "double" }
	     /gpu__time_duration/ { v = $NF; if ($(NF-1) == "nsecond") v /= 1000; print k, v }' "$f" |
		sort -k1,1 -k2,2n | awk '{ n[$1]++; a[$1, n[$1]] = $2 }
		END { for (k in n) printf "  %s: %d kernels, min %.2f median %.2f max %.2f us\n", k, n[k],
		      a[k, 1], a[k, int((n[k] + 1) / 2)], a[k, n[k]] }'
	grep -m2 registers_per_thread "$f"
done
