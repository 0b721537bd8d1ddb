# fig2.gp - the paper's Fig. 2 as measured: E versus h at K = 3 for
# m = 4, 16, 64, 256, explicit Euler on the same axes.
# gnuplot -e "dir='bench/results/RUN'" plots/fig2.gp  (reads dir/fig2.csv)
set terminal pngcairo size 800,560 font ",11"
set output dir.'/fig2.png'
set datafile separator ','
set logscale xy
set format xy '10^{%L}'
set xlabel 'h'
set ylabel 'E = max |x - x_{rk8pd}|'
set key top left
set grid
set title 'lotka, 8192 trajectories, float, K = 3 (paper Fig. 2)'
src = dir.'/fig2.csv'
sel(m) = sprintf("< awk -F, '$1==\"picard\" && $2==%d && $6!=\"inf\"' %s", m, src)
plot for [m in "4 16 64 256"] sel(m+0) using 4:6 with linespoints title 'm = '.m, \
     sprintf("< awk -F, '$1==\"euler\" && $6!=\"inf\"' %s", src) using 4:6 with linespoints dt 2 lc rgb 'black' title 'explicit Euler (double)'
