# compare_kepler.gp - the long serial chain: kepler, 64 orbits over 100
# periods in double, time versus the error reached at t1 (exact two-body
# reference). gnuplot -e "dir='...'" plots/compare_kepler.gp  (reads dir/compare-kepler.csv)
set terminal pngcairo size 900,620 font ",11"
set output dir.'/compare-kepler.png'
set datafile separator ','
set logscale xy
set format x '10^{%L}'
set xlabel 'max error at t1 (all 64 orbits)'
set ylabel 'solve time (us), median'
set key outside right top
set grid
set title 'kepler, e = 0.5, 100 periods, 64 trajectories, double'
src = dir.'/compare-kepler.csv'
sel(m) = sprintf("< awk -F, '$6==\"%s\" && $11!=\"inf\"' %s", m, src)
plot for [m in "picard-lobatto dp8 dp8-adaptive dp5-adaptive gsl-rk8pd"] sel(m) using 11:13 with linespoints lw 2 title m
