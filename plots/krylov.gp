# krylov.gp - the batched GPU Krylov solvers (issue 21) next to the 2013
# paper's comparison (Mossaiby et al., CG with a tunable SpMV against
# ViennaCL: 5-6x on the CPU, 8-9x on the GPU): (a) SpMV on one N x N
# five-point system, the tuner's kernel against every candidate (the
# range) and cuSPARSE's cusparseSpMV; (b) CG's time per iteration for one
# system, ours against the cuSPARSE + cuBLAS CG, ViennaCL 1.7.1 on CUDA
# and on OpenMP, and the host CG of src/linsolve (16 threads), with the
# paper's ratios to ViennaCL drawn from ours.
# gnuplot -e "dir='...'" plots/krylov.gp  (reads dir/bench-krylov.csv
# from bench/linsolve/gpu-krylov.sh)
set terminal pngcairo size 1200,520 font ",11"
set output dir.'/krylov.png'
set datafile separator ','
csv = dir.'/bench-krylov.csv'
# column 7 the grid N, 8 the batch, 9 the variant, 12 the median (us), 14
# us per iteration
spmv(v) = sprintf("< awk -F, 'NR > 2 && $4 == \"spmv\" && $5 == \"csr\" && $8 == 1 && $9 == \"%s\" { print $7 \",\" $12 }' %s | sort -t, -k1,1n -u", v, csv)
range(x) = sprintf("< awk -F, 'NR > 2 && $4 == \"spmv\" && $5 == \"csr\" && $8 == 1 && $9 ~ /^(thread|group)-/ { n = $7; if (!(n in lo) || $12 < lo[n]) lo[n] = $12; if ($12 > hi[n]) hi[n] = $12 } END { for (n in lo) print n \",\" lo[n] \",\" hi[n] }' %s | sort -n", csv)
cg(v) = sprintf("< awk -F, 'NR > 2 && $4 == \"cg\" && $8 == 1 && $9 == \"%s\" { print $7 \",\" $14 }' %s | sort -t, -k1,1n -u", v, csv)
set multiplot layout 1,2
set title 'SpMV, one N x N five-point system (H100, double, medians)'
set logscale xy
set xlabel 'N'
set ylabel 'time (us)'
set key top left font ",9"
set grid
plot range(0) using 1:2:3 with filledcurves lc rgb '#d8d8d8' title 'our 22 candidate kernels (fastest to slowest)', \
     spmv('tuned') using 1:2 with linespoints lw 2 pt 7 title 'the tuner''s choice', \
     spmv('cusparse-spmv') using 1:2 with linespoints lw 2 pt 5 title 'cuSPARSE cusparseSpMV'
set title 'CG, one N x N system: time per iteration'
set ylabel 'us per iteration'
plot cg('ours-cg-none') using 1:2 with linespoints lw 2 pt 7 title 'ours (no preconditioner)', \
     cg('ours-cg-jacobi') using 1:2 with linespoints lw 2 pt 9 dt 2 title 'ours, Jacobi', \
     cg('cusparse-cg') using 1:2 with linespoints lw 2 pt 5 title 'cuSPARSE + cuBLAS CG', \
     cg('viennacl-cuda-cg') using 1:2 with linespoints lw 2 pt 11 title 'ViennaCL 1.7.1, CUDA', \
     cg('viennacl-openmp-cg-jacobi') using 1:2 with linespoints lw 2 pt 13 title 'ViennaCL 1.7.1, OpenMP (Jacobi, its faster)', \
     cg('host-cg-none') using 1:2 with linespoints lw 2 pt 4 title 'host CG, 16 threads', \
     cg('ours-cg-none') using 1:($2 * 8.5) with lines dt 3 lw 2 lc rgb 'black' title 'ours x 8.5: ViennaCL GPU at the 2013 paper''s ratio (8-9x)', \
     cg('ours-cg-none') using 1:($2 * 5.5) with lines dt 4 lw 2 lc rgb 'gray40' title 'ours x 5.5: ViennaCL CPU at its ratio (5-6x)'
