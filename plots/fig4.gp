# fig4.gp - the paper's Fig. 4 as measured: the least time t_c reaching E*
# versus m (the tuner's best K and h for each m), for each E*.
# gnuplot -e "dir='...'" plots/fig4.gp  (reads dir/table1.csv, rows per_m)
set terminal pngcairo size 800,560 font ",11"
set output dir.'/fig4.png'
set datafile separator ','
set logscale xy
set xlabel 'm (nodes per window)'
set ylabel 't_c, solve time of 8192 trajectories (s)'
set key top left
set grid
set title 'lotka, float: fastest configuration reaching E* for each m (paper Fig. 4)'
src = dir.'/table1.csv'
sel(tol) = sprintf("< awk -F, '$1==\"per_m\" && $2==%s && $8!=\"\"' %s", tol, src)
plot for [tol in "0.01 0.001 0.0001"] sel(tol) using 3:8 with linespoints title 'E* = '.tol
