#!/bin/sh
# table1.sh [picard-run args...] - the paper's Table 1 rows: lotka, 8192
# trajectories from x(0) = (50, 30), m=8, K=2, float, h = 0.5, 0.06, 0.008,
# with E against GSL rk8pd on every trajectory at every window end. Extra
# arguments (e.g. --backend cpu) go to picard-run.
set -eu
bin=$(dirname "$0")/../bin/picard-run
echo "# bench/table1.sh $*  $(date -u +%Y-%m-%dT%H:%MZ)  host $(uname -n)"
for row in "1e-2 0.5 0.008 0.016" "1e-3 0.06 0.0007 0.140" "1e-4 0.008 0.00008 1.203"; do
	set -- $row "$@"
	echo "## E*=$1 h=$2: paper E=$3, t_gpu=$4 s (GeForce 8800GT)"
	h=$2
	shift 4
	"$bin" lotka --traj 8192 --m 8 --K 2 --h "$h" --spread 0 --check --check-traj 0 "$@" || true
done
