# scaling.gp - time versus ensemble size at E* = 1e-4 (lotka, float):
# picard (its settings found at 8192) against the per-thread dp8 ensemble.
# gnuplot -e "dir='...'" plots/scaling.gp  (reads dir/scaling.csv)
set terminal pngcairo size 800,560 font ",11"
set output dir.'/scaling.png'
set datafile separator ','
set logscale xy
set format x '10^{%L}'
set xlabel 'trajectories'
set ylabel 'solve time (us), median'
set key top left
set grid
set title 'lotka, float, error <= 1e-4 at t = 100: parallelism across time vs across trajectories'
src = dir.'/scaling.csv'
sel(m) = sprintf("< awk -F, '$6==\"%s\"' %s", m, src)
plot sel('picard-lobatto') using 5:13 with linespoints lw 2 pt 7 title 'picard lobatto (warp-synchronous)', \
     sel('dp8') using 5:13 with linespoints lw 2 pt 5 title 'dp8, one thread per trajectory'
