# compare.gp - picard against the alternatives on lotka (8192 trajectories):
# solve time versus the error reached at t1, one line per solver, from
# bench-picard, bench-rk and bench-cpu rows of dir/compare-lotka.csv.
# gnuplot -e "dir='...'" plots/compare.gp  (reads dir/compare-lotka.csv)
set terminal pngcairo size 900,620 font ",11"
set output dir.'/compare-lotka.png'
set datafile separator ','
set logscale xy
set format x '10^{%L}'
set xlabel 'max error at t = 100 (1024 trajectories sampled)'
set ylabel 'solve time (us), median'
set key outside right top
set grid
set title 'lotka, 8192 trajectories: time to reach an error'
src = dir.'/compare-lotka.csv'
sel(m, p, c) = sprintf("< awk -F, '$6==\"%s\" && $7==\"%s\" && $8 ~ /%s/ && $11!=\"inf\"' %s", m, p, c, src)
plot sel('picard-lobatto', 'float', '') using 11:13 with linespoints lw 2 pt 7 title 'picard lobatto (float)', \
     sel('picard-lobatto', 'double', '') using 11:13 with linespoints lw 2 pt 5 title 'picard lobatto (double)', \
     sel('picard-trapezoid', 'float', '') using 11:13 with linespoints lw 2 pt 9 title 'picard trapezoid (float)', \
     for [m in "rk4 dp5 dp8 dp5-adaptive dp8-adaptive"] sel(m, 'float', '') using 11:13 with linespoints dt 2 title m.' GPU (float)', \
     for [m in "rk4 dp5 dp8 dp5-adaptive dp8-adaptive"] sel(m, 'double', '') using 11:13 with linespoints dt 3 title m.' GPU (double)', \
     sel('gsl-rk8pd', 'double', 'threads=1$') using 11:13 with linespoints dt 4 title 'GSL rk8pd, 1 core', \
     sel('gsl-rk8pd', 'double', 'threads=[0-9][0-9]') using 11:13 with linespoints dt 4 title 'GSL rk8pd, all cores', \
     sel('gsl-rkf45', 'double', '') using 11:13 with linespoints dt 4 title 'GSL rkf45, all cores'
