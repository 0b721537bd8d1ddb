# tridiag.gp - the batched tridiagonal solvers (issue 21) next to the
# checkerboard papers' claims: (a) speed-up over one host thread's Thomas
# (the papers' t_CPU / t, Zolfaghari & Foadaddini 2016 eq. (11)) against
# N for N systems of N rows, each solver at its best split, with the 2016
# paper's checkerboard points (5.7x at 128x128, 22.2x at 1024x1024) and
# its PCR at half of them ("about 2x faster than PCR"); (b) shared against
# global memory for the checkerboard (the 2018 paper: 1.2-1.6x).
# gnuplot -e "dir='...'" plots/tridiag.gp  (reads dir/bench-tridiag.csv
# from bench/linsolve/gpu-tridiag.sh)
set terminal pngcairo size 1200,520 font ",11"
set output dir.'/tridiag.png'
set datafile separator ','
csv = dir.'/bench-tridiag.csv'
# the best (largest) speed-up over splits of solver s in layout l, per N
best(l, s) = sprintf("< awk -F, 'NR > 2 && $6 == \"%s\" && $7 == \"%s\" { if ($15 > b[$4]) b[$4] = $15 } END { for (n in b) print n \",\" b[n] }' %s | sort -n", l, s, csv)
# shared over global at each one's best split, per N
gain(l) = sprintf("< awk -F, 'NR > 2 && $6 == \"%s\" && $7 ~ /checkerboard/ { k = $4 SUBSEP $7; if (!(k in t) || $10 < t[k]) t[k] = $10; seen[$4] = 1 } END { for (n in seen) print n \",\" t[n, \"checkerboard-global\"] / t[n, \"checkerboard-shared\"] }' %s | sort -n", l, csv)
set multiplot layout 1,2
set title 'speed-up over one host thread''s Thomas (H100, contiguous; medians)'
set logscale xy
set xlabel 'N (N systems of N rows)'
set ylabel 't_{host Thomas} / t'
set xtics (128, 256, 512, 1024, 2048, 4096)
set key bottom right font ",9"
set xrange [100:5000]
set grid
$paper << EOD
128,5.7,2.85
1024,22.2,11.1
EOD
plot best('contiguous', 'thomas') using 1:2 with linespoints lw 2 pt 7 title 'GPU Thomas (one thread a system)', \
     best('contiguous', 'checkerboard-global') using 1:2 with linespoints lw 2 pt 5 title 'checkerboard, global (best split)', \
     best('contiguous', 'checkerboard-shared') using 1:2 with linespoints lw 2 pt 9 title 'checkerboard, shared (best split)', \
     best('contiguous', 'pcr-shared') using 1:2 with linespoints lw 2 pt 11 title 'PCR (shared memory)', \
     best('contiguous', 'cusparse-gtsv2') using 1:2 with linespoints lw 2 pt 13 dt 2 title 'cuSPARSE gtsv2StridedBatch', \
     $paper using 1:2 with points pt 4 ps 2.5 lw 3 lc rgb 'black' title '2016 paper: checkerboard (its GPU and CPU)', \
     $paper using 1:3 with points pt 6 ps 2.5 lw 3 lc rgb 'gray40' title '2016 paper: PCR (half of it)'
unset logscale y
set title 'checkerboard: shared over global memory (best split each)'
set ylabel 't_{global} / t_{shared}'
set key top right
set yrange [0:2]
set object 1 rect from 100, 1.2 to 5000, 1.6 fc rgb '#d0d0d0' fs solid 0.5 noborder behind
set label 1 '2018 paper: 1.2-1.6x' at 140, 1.68
plot gain('contiguous') using 1:2 with linespoints lw 2 pt 7 title 'contiguous', \
     gain('interleaved') using 1:2 with linespoints lw 2 pt 5 title 'interleaved', \
     1 with lines dt 2 lc rgb 'black' notitle
