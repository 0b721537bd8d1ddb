# run_summary.awk - picard-run's summary as one CSV row: model, traj,
# method, tol, median and min solve (ms), E, met. Reads "solve X u, the
# first of R; median Y u, min Z u" (u: us, ms or s), "check E = e",
# "tolerance ... [PASS]" or [FAIL]. Variables: model, traj, method, tol.
# Used by bench/stiff/gpu-across-time.sh and bench/pde/gpu-compare.sh.
function ms(v, u) { gsub(/[,;]/, "", u); return u == "us" ? v / 1000 : u == "s" ? v * 1000 : v }
/^solve / {
	for (i = 1; i <= NF; i++) {
		if ($i == "median") med = ms($(i + 1), $(i + 2))
		if ($i == "min") mn = ms($(i + 1), $(i + 2))
	}
	gsub(/,/, "", med); gsub(/,/, "", mn)
}
/^check / { E = $4; if (met == "") met = E + 0 <= tol + 0 ? "yes" : "no" }
/^tolerance / { met = /\[PASS\]/ ? "yes" : "no" }
END {
	printf "%s,%s,%s,%s,%s,%s,%s,%s\n", model, traj, method, tol,
	       med == "" ? "nan" : med, mn == "" ? "nan" : mn, E == "" ? "nan" : E,
	       met == "" ? "failed" : met
}
