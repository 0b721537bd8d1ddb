# fig3.gp - the paper's Fig. 3 as measured: E versus h at m = 256 for
# K = 2, 3, 4, 6, 9.  gnuplot -e "dir='...'" plots/fig3.gp  (dir/fig3.csv)
set terminal pngcairo size 800,560 font ",11"
set output dir.'/fig3.png'
set datafile separator ','
set logscale xy
set format xy '10^{%L}'
set xlabel 'h'
set ylabel 'E = max |x - x_{rk8pd}|'
set key top left
set grid
set title 'lotka, 8192 trajectories, float, m = 256 (paper Fig. 3)'
src = dir.'/fig3.csv'
sel(K) = sprintf("< awk -F, '$1==\"picard\" && $3==%d && $6!=\"inf\"' %s", K, src)
plot for [K in "2 3 4 6 9"] sel(K+0) using 4:6 with linespoints title 'K = '.K
