#!/bin/sh
# make-plots.sh DIR - every figure of plots/*.gp whose CSV is in DIR, into
# DIR (each script names the CSV it reads in its header, and its PNG).
dir=${1:?usage: make-plots.sh RESULTS-DIR}
status=0
for gp in plots/*.gp; do
	name=$(basename "$gp" .gp)
	csv=$(sed -n "s/^# .*dir\/\([a-z0-9_\/-]*\.csv\).*/\1/p" "$gp" | head -1)
	if [ -n "$csv" ] && [ ! -f "$dir/$csv" ]; then
		echo "  SKIP    $name ($dir/$csv absent)"
		continue
	fi
	png=$(sed -n "s/^set output dir\.'\/\([a-z0-9_-]*\.png\)'.*/\1/p" "$gp")
	echo "  PLOT    $dir/${png:-$name.png}"
	gnuplot -e "dir='$dir'" "$gp" || status=1
done
exit $status
