# parallel_time.gp - parallel in time on kepler (issue 40): solve time
# against the error at t1 (every orbit back at its start: the closed
# form), for one orbit (e = 0.5) over 1000 periods and for 64 orbits
# (e from 0.4 to 0.6) over 100 periods, every method of
# bench/gpu-issue40.sh. gnuplot -e "dir='...'" plots/parallel_time.gp
# (reads every dir/orbit*.csv and dir/kepler*.csv: orbit.csv, orbit-fine.csv,
# orbit-front.csv, ...; columns method,setting,first_ms,median_ms,min_ms,error)
set terminal pngcairo size 1200,520 font ",11"
set output dir.'/parallel-time.png'
set datafile separator ','
set logscale xy
set format x '10^{%L}'
set xlabel 'max error at t1 against the closed form'
set ylabel 'solve time (ms), median of the repeats'
set grid
set key top right
# each case's rows, from every file of it (f.csv, f-fine.csv, ...)
sel(f, m) = sprintf("< cat %s/%s*.csv 2>/dev/null | awk -F, '$1==\"%s\" && $4 != \"\"'", dir, f, m)
methods = "dp8 vern9 lobatto-sequential lobatto-in-flight lobatto-paper"
titles = "'dp8 (DOP853), rtol 1e-11..1e-15' 'vern9, rtol 1e-11..1e-15' 'lobatto, one window after the other' 'lobatto, windows in flight, group layout' 'lobatto, windows in flight, paper layout'"
set multiplot layout 1,2
set title 'one orbit, e = 0.5, 1000 periods (one block)'
plot for [i=1:5] sel('orbit', word(methods, i)) using 6:4 with points pt (i+5) ps 1.6 lw 2 title word(titles, i)
set title '64 orbits, e = 0.4 .. 0.6, 100 periods'
plot for [i=1:5] sel('kepler', word(methods, i)) using 6:4 with points pt (i+5) ps 1.6 lw 2 notitle
unset multiplot
