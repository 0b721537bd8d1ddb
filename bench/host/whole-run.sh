#!/bin/sh
# whole-run.sh OUTDIR BEFORE AFTER [ARGS...] - issue 36: the whole picard-run
# process, not the kernel. Runs BEFORE's and AFTER's bin/picard-run (two
# checkouts' roots) alternately, REPEATS times each (default 5), on ARGS
# (default: lotka, 2^22 members in double, a one-sweep grid on the CPU
# backend, so the host's work shows), without and with --out OUTDIR/x.npy;
# then dd of the bytes that run wrote (the .npy and its status file), the
# disk's own speed. Min and median wall seconds of each into
# OUTDIR/whole-run.csv, printed too.
set -eu
out=${1:?usage: whole-run.sh OUTDIR BEFORE AFTER [ARGS...]}
before=${2:?}
after=${3:?}
shift 3
[ $# -gt 0 ] || set -- lotka --traj 4194304 --precision double --backend cpu --t1 0.12 --m 2 \
	--K 1 --h 0.06
repeats=${REPEATS:-5}
mkdir -p "$out"
times=$(mktemp)
trap 'rm -f "$times" "$out/dd.bin"' EXIT
wall() { # label command...
	label=$1
	shift
	/usr/bin/time -f "$label %e" "$@" >/dev/null 2>>"$times.err" || true
	tail -1 "$times.err" >>"$times"
}
for r in $(seq "$repeats"); do
	for side in before after; do
		eval root=\$$side
		wall "$side,none" "$root/bin/picard-run" "$@"
		wall "$side,npy" "$root/bin/picard-run" "$@" --out "$out/x.npy"
	done
	bytes=$(( $(stat -c %s "$out/x.npy") + $(stat -c %s "$out/x.status.csv") ))
	wall "dd,same-bytes" dd if=/dev/zero of="$out/dd.bin" bs=1M count=$(( bytes / 1048576 + 1 ))
done
rm -f "$times.err"
{
	echo "build,output,runs,min_s,median_s"
	for key in before,none after,none before,npy after,npy dd,same-bytes; do
		grep "^$key " "$times" | awk '{print $2}' | sort -n | awk -v k="$key" \
			'{v[NR]=$1} END {printf "%s,%d,%s,%s\n", k, NR, v[1], v[int((NR+1)/2)]}'
	done
} | tee "$out/whole-run.csv"
