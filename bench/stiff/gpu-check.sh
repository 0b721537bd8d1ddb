#!/bin/sh
# gpu-check.sh - radau5 on the GPU against the CPU backend and the
# reference, from the repository root on the GPU machine (.xfer/bin.tar.xz
# carried: make gpu-carry). For robertson, hires (stiff, double, their
# whole spans), van der Pol at mu = 1000 and lotka: picard-run --check on
# both backends, the same ensemble, and the largest relative difference of
# the final states (awk). Into ${OUT:-.}/stiff/check.log.
set -u
out=${OUT:-.}/stiff
mkdir -p "$out"
[ -x bin/picard-run ] || tar -xJf .xfer/bin.tar.xz
export PICARD_JIT_CACHE_DIR=${PICARD_JIT_CACHE_DIR:-/tmp/jitcache} PICARD_CACHE_DIR="$out/cache"
tmp=$(mktemp -d)
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ
for case in "robertson" "hires" "vanderpol --param mu=1000 --t1 3000" "lotka"; do
	for b in cuda cpu; do
		echo "== picard-run $case --scheme radau5 --precision double --traj 1024 --check --backend $b"
		bin/picard-run $case --scheme radau5 --precision double --traj 1024 --check \
			--backend $b --out "$tmp/$b.csv" | grep -E "backend|grid|solve|sweeps|check"
		echo "exit $?"
	done
	# final states: the largest |gpu - cpu| / max(1, |cpu|), statuses equal
	awk -F, 'NR == FNR { if (FNR > 1) for (k = 2; k <= NF; k++) c[FNR, k] = $k; next }
		 FNR > 1 { for (k = 3; k <= NF; k++) { d = $k - c[FNR, k]; d = d < 0 ? -d : d;
			   s = c[FNR, k] < 0 ? -c[FNR, k] : c[FNR, k]; s = s < 1 ? 1 : s;
			   if (d / s > w) w = d / s }
			   if ($2 != c[FNR, 2]) st++ }
		 END { printf "gpu vs cpu: worst relative difference %.3e, statuses differing %d\n", w, st }' \
		"$tmp/cpu.csv" "$tmp/cuda.csv"
done
} > "$out/check.log" 2>&1
rm -rf "$tmp"
cat "$out/check.log"
