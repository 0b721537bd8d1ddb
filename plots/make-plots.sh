#!/bin/sh
# make-plots.sh DIR - every figure of plots/*.gp whose CSV is in DIR, as
# DIR/NAME.png (each script names the CSV it reads in its header).
dir=${1:?usage: make-plots.sh RESULTS-DIR}
status=0
for gp in plots/*.gp; do
	name=$(basename "$gp" .gp)
	csv=$(sed -n "s/^# .*dir\/\([a-z0-9_-]*\.csv\).*/\1/p" "$gp" | head -1)
	if [ -n "$csv" ] && [ ! -f "$dir/$csv" ]; then
		echo "  SKIP    $name ($dir/$csv absent)"
		continue
	fi
	echo "  PLOT    $dir/$name.png"
	gnuplot -e "dir='$dir'" "$gp" || status=1
done
exit $status
