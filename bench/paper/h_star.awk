# h_star.awk - the convergence boundary h*(m, K) read off bench-paper sweep
# CSVs (Figs. 2 and 3): the largest h of the sweep below which every point
# has E < LIMIT (default 1, i.e. 1-2% of lotka's states), next to the
# paper's values. awk -F, -f h_star.awk fig2.csv fig3.csv
BEGIN {
	if (LIMIT == "") LIMIT = 1
	paper["16,3"] = 0.12; paper["64,3"] = 0.016; paper["256,3"] = 0.002
	paper["256,4"] = 0.004; paper["256,6"] = 0.016; paper["256,9"] = 0.025
}
$1 == "picard" {
	key = $2 "," $3
	seen[key] = 1
	h = $4 + 0
	bad = ($6 == "inf" || $6 + 0 >= LIMIT)
	# smallest failing h, and every good h
	if (bad && (!(key in fail) || h < fail[key])) fail[key] = h
	if (!bad) { n[key]++; good[key, n[key]] = h }
}
END {
	print "m,K,h_star,paper_h_star,E_limit"
	for (key in seen) {
		best = ""
		for (i = 1; i <= n[key]; i++) {
			h = good[key, i]
			if ((!(key in fail) || h < fail[key]) && (best == "" || h > best)) best = h
		}
		printf "%s,%s,%s,%g\n", key, best, (key in paper) ? paper[key] : "", LIMIT
	}
}
