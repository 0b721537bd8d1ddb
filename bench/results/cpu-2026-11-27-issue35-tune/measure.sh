#!/bin/bash
# Issue 35's target for picard-tune on the CPU backend: how long
# `picard-tune lotka --tol 1e-3` takes from an empty cache and again, and
# the solve time of `picard-run lotka --tol 1e-3` with its entry and
# without (a fresh empty PICARD_CACHE_DIR each time: the quick search),
# five runs each; then the entry picard-tune stored on 28a9733 (the
# trapezoid, m=4 K=3 h=0.0421408), given as flags. Run from the repository
# root after `make`; writes nothing outside $WORK.
WORK=${WORK:-$(mktemp -d /tmp/picard-issue35-XXXXXX)}
mkdir -p "$WORK/tune"
echo "== $(date -u +%FT%TZ) $(git rev-parse --short HEAD) load: $(cut -d' ' -f1-3 /proc/loadavg)"
for pass in cold warm; do
	echo "== picard-tune, $pass cache"
	/usr/bin/time -f "wall %e s, user %U s, sys %S s" env PICARD_CACHE_DIR="$WORK/tune" \
		bin/picard-tune lotka --tol 1e-3 --backend cpu > "$WORK/tune-$pass.out" 2> "$WORK/tune-$pass.err"
	tail -1 "$WORK/tune-$pass.err"
	grep -E "^best|^searched|^budget|^schemes" "$WORK/tune-$pass.out"
done
for i in 1 2 3 4 5; do
	echo "== run $i with the entry"
	PICARD_CACHE_DIR="$WORK/tune" bin/picard-run lotka --tol 1e-3 --backend cpu 2>&1 |
		grep -E "^parameters|^solve|^tolerance|^total" | cut -c1-160
	mkdir -p "$WORK/empty$i"
	echo "== run $i without it (empty cache)"
	PICARD_CACHE_DIR="$WORK/empty$i" bin/picard-run lotka --tol 1e-3 --backend cpu 2>&1 |
		grep -E "^parameters|^solve|^tolerance|^total" | cut -c1-160
done
echo "== the entry of 28a9733's picard-tune, given"
for i in 1 2 3 4 5; do
	bin/picard-run lotka --tol 1e-3 --backend cpu --m 4 --K 3 --h 0.0421408 2>&1 |
		grep -E "^solve|^tolerance" | cut -c1-160
done
echo "== end $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
