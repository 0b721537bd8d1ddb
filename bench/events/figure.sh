#!/bin/sh
# bench/events/figure.sh DIR - the README's events figure: five bouncing
# balls (heights spread 30%, restitution 0.9) on the CPU backend, their
# heights every 5 ms (DIR/positions.csv) and their bounces (DIR/bounces.csv),
# drawn by plots/bouncing_ball.gp into DIR/bouncing_ball.png.
set -eu
dir=${1:?usage: bench/events/figure.sh DIR}
mkdir -p "$dir"
bin/picard-run bouncing_ball --backend cpu --traj 5 --spread 0.3 --seed 4 --t1 6 \
	--precision double --scheme dp8 --iter-rtol 1e-10 --iter-atol 1e-10 --save-every 0.005 \
	--out "$dir/positions.csv" --events "$dir/bounces.csv" > "$dir/run.txt"
gnuplot -e "dir='$dir'" plots/bouncing_ball.gp
