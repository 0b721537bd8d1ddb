# mpi_scaling.gp - picard-run under mpirun, one GPU a rank (issue 20):
# the slowest rank's solve against the GPUs (strong and weak scaling, the
# tuner's per-thread pair and the trapezoid Picard scheme), and where a
# strong run's time goes (solve, the .npy's MPI-IO write, the rest of rank
# 0's run: start-up, the draw, the summary; mpirun's own).
# gnuplot -e "dir='...'" plots/mpi_scaling.gp  (reads dir/pair/summary.csv
# and dir/picard/summary.csv from bench/mpi/gpu-several.sh)
set terminal pngcairo size 1200,520 font ",11"
set output dir.'/mpi_scaling.png'
set datafile separator ','
pair = dir.'/pair/summary.csv'
picard = dir.'/picard/summary.csv'
sel(f, k) = sprintf("< awk -F, '$1==\"%s\"' %s", k, f)
set multiplot layout 1,2
set title 'lotka on H100s: the slowest rank''s solve (median of 3)'
set logscale y
set xlabel 'GPUs (one rank each)'
set ylabel 'solve (ms)'
set xtics 1
set xrange [0.5:*]
set key bottom left
set grid
plot sel(pair, 'strong') using 2:($6*1000) with linespoints lw 2 pt 7 title 'dp8 (the tuner''s, 1e-6 double), strong 2^{24}', \
     sel(pair, 'weak') using 2:($6*1000) with linespoints lw 2 pt 5 dt 2 title 'dp8, weak 2^{22} per GPU', \
     sel(picard, 'strong') using 2:($6*1000) with linespoints lw 2 pt 9 title 'trapezoid (float), strong 2^{24}', \
     sel(picard, 'weak') using 2:($6*1000) with linespoints lw 2 pt 11 dt 2 title 'trapezoid, weak 2^{22} per GPU'
unset logscale y
set title 'where a strong run with --out goes (dp8, medians)'
set ylabel 'seconds'
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.6
set key top right
set xlabel 'GPUs (one rank each)'
set xrange [*:*]
plot sel(pair, 'strong-out') using ($6):xtic(2) title 'solve', \
     '' using ($12) title 'MPI-IO write (.npy, 537 MB)', \
     '' using ($8-$6-$12) title 'rest of rank 0''s run (1 GPU: the write too)', \
     '' using ($10-$8) title 'mpirun'
unset multiplot
