#!/bin/bash
# accelerInt (SLACKHA/accelerInt master d66b615 + pyJac v1.0.6) GPU solvers on GRI-Mech 3.0,
# constant-pressure (pyJac CONP), side by side with picard.
# usage: run.sh N OUTDIR
#   env SOLVERS  : solvers to run, default "radau2a exprb43 exp4 rkc" (exp4, rkc only if ../accel_extra/bin is carried too)
#   env TIMEOUT  : per-solver time limit in seconds (default 0 = none; uses coreutils timeout)
#   env ACCEL_NSAVE   : number of reactors whose full final state goes to final_states.csv (default 64)
#   env ACCEL_DUMP_ALL=1 : also write final_states.bin (N x 54 doubles: T, Y[53] GRI order)
# Per solver writes OUTDIR/<solver>/{stdout.txt,stderr.txt,final_T.csv,final_states.csv,final_T_first64.csv}
# and appends a line to OUTDIR/timing.csv.
set -u
N=${1:?usage: run.sh N OUTDIR}
OUT=${2:?usage: run.sh N OUTDIR}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SOLVERS=${SOLVERS:-"radau2a exprb43 exp4 rkc"}
TIMEOUT=${TIMEOUT:-0}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
# initial conditions: ign_data.bin (accelerInt), ics.csv (idx,T0,P,u,Y_CH4,Y_O2,Y_N2), picard_init.csv (T,Y[53] per row)
"$HERE/bin/ic_gen" "$N" "$OUT" || { echo "ic_gen failed"; exit 1; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1 || true
[ -f "$OUT/timing.csv" ] || echo "solver,N,rc,accelerInt_time_s,process_wall_s" > "$OUT/timing.csv"
for s in $SOLVERS; do
  exe="$HERE/bin/$s-int-gpu"
  # exp4 and rkc are shipped separately in ../accel_extra/bin (to keep this folder small)
  [ -x "$exe" ] || exe="$HERE/../accel_extra/bin/$s-int-gpu"
  [ -x "$exe" ] || { echo "skip $s (no binary)"; continue; }
  d="$OUT/$s"; mkdir -p "$d"
  ln -sf ../ign_data.bin "$d/ign_data.bin"
  echo "== $s  N=$N"
  t0=$(date +%s.%N)
  if [ "$TIMEOUT" != "0" ]; then
    (cd "$d" && timeout "$TIMEOUT" "$exe" "$N" > stdout.txt 2> stderr.txt); rc=$?
  else
    (cd "$d" && "$exe" "$N" > stdout.txt 2> stderr.txt); rc=$?
  fi
  t1=$(date +%s.%N)
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')
  tacc=$(awk '/^Time:/{print $2}' "$d/stdout.txt")
  echo "$s,$N,$rc,${tacc:-NA},$wall" >> "$OUT/timing.csv"
  cat "$d/stdout.txt"; tail -3 "$d/stderr.txt" 2>/dev/null
  [ -f "$d/final_T.csv" ] && head -65 "$d/final_T.csv" > "$d/final_T_first64.csv"
  rm -f "$d/ign_data.bin"
done
cat "$OUT/timing.csv"
