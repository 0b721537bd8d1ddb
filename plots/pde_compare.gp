# pde_compare.gp - a semi-discrete PDE's ensemble at one error bound
# (issue 21): the imex scheme on the GPU (A implicit, batched linear
# solves), the explicit per-thread dp5 on the GPU (steps held by the
# stability limit) and SUNDIALS CVODE (BDF, band solver) on every host
# core, the median solve against the ensemble's size, a panel per model.
# gnuplot -e "dir='...'" plots/pde_compare.gp  (reads dir/compare.csv
# from bench/pde/gpu-compare.sh)
set terminal pngcairo size 1500,480 font ",11"
set output dir.'/pde_compare.png'
set datafile separator ','
csv = dir.'/compare.csv'
sel(m, s) = sprintf("< awk -F, '$1 == \"%s\" && $3 == \"%s\" && $5 != \"nan\"' %s", m, s, csv)
set logscale xy
set xlabel 'trajectories'
set ylabel 'solve (ms, median)'
set grid
set key top left font ",9"
set multiplot layout 1,3 title 'E <= 1e-4 at every checked member: H100 (GPU schemes), its 16 host cores (CVODE); 2026-11-26'
do for [m in "heat1d heat2d filtration"] {
	set title m
	plot sel(m, 'imex-sdirk2') using 2:5 with linespoints lw 2 pt 7 title 'imex-sdirk2 (GPU)', \
	     sel(m, 'dp5') using 2:5 with linespoints lw 2 pt 5 title 'dp5 per thread (GPU)', \
	     sel(m, 'cvode-bdf-band') using 2:5 with linespoints lw 2 pt 9 title 'CVODE BDF, band (CPU)'
}
