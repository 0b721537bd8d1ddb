# winners.awk - issue 15's table: for each cell (ensemble size, precision,
# error) of bench/gpu-issue15.sh's matrix, bench's fastest hand-written
# per-thread kernel, the engine's fastest scheme through bench-picard (and
# its ratio to bench's), the engine's own dp8 against bench's dp8, and what
# picard-run --tol chose: its scheme, its margin over the runner-up among
# every scheme its quick search timed, its first solve and the median of
# its --repeat solves, and that median's ratio to bench's fastest.
#
#   awk -F, -f bench/winners.awk DIR/matrix.csv DIR/runs.log
#
# Times are medians in us; the ratios in parentheses are of the minima
# (each side's fastest repeat), which the launch's jitter at ~10 us blurs
# less. Every row meets E at t1: bench's, bench-picard's, and picard-run's
# (its per-thread schemes are tuned and checked in one window over the
# span; a Picard scheme at its every window end). A row that
# failed its search ("# FAILED") is not in the CSV and so never wins.

# cells in the order first seen
function cell(n, p, e,    k) {
	k = n SUBSEP p SUBSEP e
	if (!(k in seen)) { seen[k] = 1; order[++ncells] = k }
	return k
}
function us(v, unit) { return unit == "ms" ? v * 1e3 : unit == "s" ? v * 1e6 : v }
FNR == 1 { file++ }
# matrix.csv: each row's target from the "# command:" line above it
file == 1 && /^# command:/ {
	target = $0; sub(/.*--target /, "", target); sub(/ .*/, "", target)
	next
}
file == 1 && (/^#/ || $1 == "device") { next }
file == 1 {
	k = cell($5, $7, target); m = $6; t = $13 + 0; tmin = $14 + 0
	if (m ~ /^picard-/) {
		s = m; sub(/^picard-/, "", s)
		if (!(k in eng) || t < eng[k]) { eng[k] = t; eng_m[k] = s }
		if (!(k in eng_min) || tmin < eng_min[k]) eng_min[k] = tmin
		if (s ~ /^dp8/ && (!(k in edp8) || t < edp8[k])) edp8[k] = t
		if (s ~ /^dp8/ && (!(k in edp8_min) || tmin < edp8_min[k])) edp8_min[k] = tmin
	} else {
		if (!(k in rk) || t < rk[k]) { rk[k] = t; rk_m[k] = m }
		if (!(k in rk_min) || tmin < rk_min[k]) rk_min[k] = tmin
		if (m ~ /^dp8/ && (!(k in bdp8) || t < bdp8[k])) bdp8[k] = t
		if (m ~ /^dp8/ && (!(k in bdp8_min) || tmin < bdp8_min[k])) bdp8_min[k] = tmin
	}
	next
}
# runs.log (whitespace-separated): "== picard-run lotka --traj N --precision P --tol E"
file == 2 && /^== picard-run/ {
	split($0, w, " ")
	for (i in w) {
		if (w[i] == "--traj") n = w[i + 1]
		if (w[i] == "--precision") p = w[i + 1]
		if (w[i] == "--tol") e = w[i + 1]
	}
	run = cell(n, p, e)
	next
}
# "schemes      vern9 ran; each scheme's least predicted time on N trajectories: a 1 ms, b 2 ms, ..."
file == 2 && /^schemes / {
	line = $0; sub(/.*trajectories: /, "", line)
	nt = split(line, parts, ", ")
	best = ""; second = ""
	for (i = 1; i <= nt; i++) {
		split(parts[i], f, " ")
		if (f[2] == "none") continue
		t = us(f[2], f[3])
		if (best == "" || t < tb) { second = best; ts = tb; best = f[1]; tb = t }
		else if (second == "" || t < ts) { second = f[1]; ts = t }
	}
	chose[run] = best
	margin[run] = second == "" ? "-" : sprintf("%.2fx %s", ts / tb, second)
	next
}
# "solve        75.2 us, the first of 21; median 42.1 us, min 40.3 us"
file == 2 && /^solve / {
	line = $0; gsub(/[,;]/, "", line)
	split(line, w, " "); solve[run] = us(w[2], w[3]); median[run] = solve[run]
	for (i in w) if (w[i] == "median") median[run] = us(w[i + 1], w[i + 2])
	next
}
file == 2 && /^tolerance / { met[run] = $0 ~ /\[PASS\]/ ? "met" : "NOT met"; next }
END {
	print "| trajectories | precision | E | bench's fastest | engine's fastest | ratio (min) | engine dp8 / bench dp8 (min) | picard-run chose | margin over runner-up | its solve: first, median | ratio (median) | tolerance |"
	print "|---|---|---|---|---|---|---|---|---|---|---|---|"
	for (c = 1; c <= ncells; c++) {
		k = order[c]; split(k, f, SUBSEP)
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", f[1], f[2], f[3],
		       k in rk ? sprintf("%s %.1f", rk_m[k], rk[k]) : "-",
		       k in eng ? sprintf("%s %.1f", eng_m[k], eng[k]) : "-",
		       (k in rk) && (k in eng) ? sprintf("%.2f (%.2f)", eng[k] / rk[k], eng_min[k] / rk_min[k]) : "-",
		       (k in bdp8) && (k in edp8) ? sprintf("%.1f / %.1f = %.2f (%.2f)", edp8[k], bdp8[k],
		       edp8[k] / bdp8[k], edp8_min[k] / bdp8_min[k]) : "-",
		       k in chose ? chose[k] : "-", k in margin ? margin[k] : "-",
		       k in solve ? sprintf("%.1f, %.1f", solve[k], median[k]) : "-",
		       (k in median) && (k in rk) ? sprintf("%.2f", median[k] / rk[k]) : "-",
		       k in met ? met[k] : "-"
	}
}
