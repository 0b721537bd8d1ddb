# bouncing_ball.gp - five bouncing balls: height against time, each
# bounce the event located (docs/models.md, "Events") marked on the floor.
# gnuplot -e "dir='bench/results/RUN'" plots/bouncing_ball.gp
#   (reads dir/positions.csv and dir/bounces.csv: bench/events/figure.sh)
set terminal pngcairo size 900,420 font ",11"
set output dir.'/bouncing_ball.png'
set datafile separator ','
set xlabel 't'
set ylabel 'height y'
set key top right
set grid
set yrange [-0.05:*]
set title 'bouncing\_ball: 5 members, restitution 0.9, dp8 at rtol 1e-10; the bounces its events located'
pos(i) = sprintf("< awk -F, 'NR > 1 && $2 == %d' %s/positions.csv", i, dir)
hits(i) = sprintf("< awk -F, 'NR > 1 && $1 == %d' %s/bounces.csv", i, dir)
plot for [i=0:4] pos(i) using 1:4 with lines lw 1.5 lc i+1 title sprintf('member %d', i), \
     for [i=0:4] hits(i) using 4:7 with points pt 7 ps 0.8 lc i+1 notitle
