# matrix.gp - issue 8's matrix: lotka, picard (tuned per cell) against the
# per-thread dp8 ensemble at every ensemble size and error level of
# run-suite.sh --only matrix: left the solve times, right their ratio.
# Each row's error level is the --target of the "# command:" line above it.
# gnuplot -e "dir='...'" plots/matrix.gp  (reads dir/matrix.csv)
set terminal pngcairo size 1200,520 font ",11"
set output dir.'/matrix.png'
set datafile separator ','
set logscale xy
set format x '10^{%L}'
set xlabel 'trajectories'
set grid
src = dir.'/matrix.csv'
# rows of method m at target E: ntraj, time
sel(m, E) = sprintf("< awk -F, '/^# command:/ { t = $0; sub(/.*--target /, \"\", t); sub(/ .*/, \"\", t) } !/^#/ && $6 == \"%s\" && t == \"%s\" { print $5 \",\" $13 }' %s", m, E, src)
# picard / dp8 at target E, pairing each dp8 row with the picard row before it
ratio(E) = sprintf("< awk -F, '/^# command:/ { t = $0; sub(/.*--target /, \"\", t); sub(/ .*/, \"\", t) } !/^#/ && t == \"%s\" && $6 ~ /^picard/ { p = $13 } !/^#/ && t == \"%s\" && $6 == \"dp8\" && p { print $5 \",\" p / $13; p = 0 }' %s", E, E, src)
levels = "1e-2 1e-4 1e-6 1e-8"
prec(E) = (E eq '1e-2' || E eq '1e-4') ? 'float' : 'double'
set multiplot layout 1,2 title 'lotka, error <= E* at t = 100 (float for 1e-2 and 1e-4, double for 1e-6 and 1e-8)'
set ylabel 'solve time (us), median'
set key top left
plot for [i=1:4] sel('picard-lobatto', word(levels, i)) using 1:2 with linespoints lw 2 pt 7 lc i \
	title 'picard, '.word(levels, i).' '.prec(word(levels, i)), \
     for [i=1:4] sel('dp8', word(levels, i)) using 1:2 with linespoints lw 2 dt 2 pt 5 lc i \
	title 'dp8, '.word(levels, i)
set ylabel 'time ratio picard / dp8'
set key top left
plot for [i=1:4] ratio(word(levels, i)) using 1:2 with linespoints lw 2 pt 7 lc i \
	title word(levels, i).' '.prec(word(levels, i)), \
     1 with lines lc 'black' dt 3 notitle
unset multiplot
