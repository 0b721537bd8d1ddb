# summary.awk runs.csv - bench/mpi/scaling.sh's runs reduced per kind and
# rank count: min and median of the solve (the slowest rank's), of rank 0's
# whole run and of mpirun's wall clock, medians of the reductions' and the
# output's times; speed-up (strong: solve of 1 rank over N's) and
# efficiency (strong: speed-up / N; weak: 1 rank's solve over N's), of the
# medians and of the minima (the runs least disturbed by other work).
BEGIN { FS = "," }
/^#/ || $1 == "kind" { next }
{
	key = $1 "," $2 "," $3
	if (!(key in count)) order[++keys] = key
	n = ++count[key]
	solve[key, n] = $5; total[key, n] = $6; wall[key, n] = $7
	reduce[key, n] = $8; write[key, n] = $9; bytes[key] = $10
}
function sort(a, key, n,    i, j, t) {
	for (i = 1; i <= n; i++) s[i] = a[key, i]
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && s[j - 1] + 0 > s[j] + 0; j--) { t = s[j]; s[j] = s[j - 1]; s[j - 1] = t }
}
function med(a, key, n) { sort(a, key, n); return n % 2 ? s[(n + 1) / 2] : (s[n / 2] + s[n / 2 + 1]) / 2 }
function lo(a, key, n) { sort(a, key, n); return s[1] }
END {
	print "kind,ranks,traj,repeats,solve_min_s,solve_median_s,total_min_s,total_median_s,wall_min_s,wall_median_s,reduce_median_s,write_median_s,out_bytes,speedup_median,efficiency_median,speedup_min,efficiency_min"
	for (k = 1; k <= keys; k++) {
		key = order[k]; n = count[key]; split(key, f, ",")
		m = med(solve, key, n); mn = lo(solve, key, n)
		if (f[2] == 1) { base[f[1]] = m; base_min[f[1]] = mn }
		sp = base[f[1]] > 0 && m > 0 ? base[f[1]] / m : 0
		sp_min = base_min[f[1]] > 0 && mn > 0 ? base_min[f[1]] / mn : 0
		div = f[1] == "weak" ? 1 : f[2]
		printf "%s,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%s,%.3f,%.3f,%.3f,%.3f\n", key, n,
		       mn, m, lo(total, key, n), med(total, key, n),
		       lo(wall, key, n), med(wall, key, n), med(reduce, key, n),
		       med(write, key, n), bytes[key], sp, sp / div, sp_min, sp_min / div
	}
}
