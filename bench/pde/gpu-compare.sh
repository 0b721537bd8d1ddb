#!/bin/sh
# gpu-compare.sh - issue 21's third comparison: a semi-discrete PDE's
# ensemble solved at one error bound by the imex scheme (the stiff linear
# part implicit, batched linear solves on the GPU), by an explicit
# per-thread pair (dp5, adaptive: its steps held by the stability limit
# 2.8 / |lambda_max| of the diffusion), and by SUNDIALS CVODE (BDF with a
# band linear solver, OpenMP over the members, every core), side by side
# in one run, from the repository root. With .xfer/bin.tar.xz carried
# (make gpu-carry) on the GPU machine. picard's schemes run picard-run
# --tol TOL (the quick search on the run's own ensemble, then the checked
# solve: E is the worst member's error against the GSL reference); CVODE
# runs at rtol = TOL / 10 (bench-cvode's E against the same reference).
# DP5_STEPS_<model> (set for heat1d 10625, heat2d 982, filtration 791):
# dp5's fixed steps over the span, that grid checked at TOL (picard-run
# --steps N --check: no search; the counts are those picard-run's own
# --tol 1e-4 search picked on one member, held by the stability limit;
# on the GPU the search's 40-odd points of 1-2 s per-thread solves take
# minutes a row); empty: --tol's search.
# MODELS (default "heat1d heat2d"), TRAJS ("1 64 1024 8192"), TOL (1e-4),
# REPEATS (5), ROW_TIMEOUT (300 s), CVODE_MAX (8192: the largest ensemble
# CVODE is given). Into ${OUT:-.}/pde-compare: device.txt, compare.csv
# (model, trajectories, method, tolerance, median and min solve in ms, E,
# met), run.log (every program's whole output).
set -u
out=${OUT:-.}/pde-compare
csv="$out/compare.csv"
. bench/gpu_rows.sh
: "${DP5_STEPS_heat1d=10625}" "${DP5_STEPS_heat2d=982}" "${DP5_STEPS_filtration=791}"

# bench-cvode's CSV row (time_median_us, time_min_us, err_abs: picard's E, the
# largest |x - x_ref| of the sampled members over its outputs) to ours.
cvode_row() { # model traj < output
	awk -F, -v model="$1" -v traj="$2" -v tol="$TOL" '
	/^"/ && $6 == "cvode-bdf" { med = $12 / 1000; mn = $13 / 1000; E = $24; failed = $20 }
	END { met = (E == "" || failed + 0 != 0) ? "failed" : (E + 0 <= tol + 0) ? "yes" : "no"
		# (a bare ">" among the arguments of printf would redirect them)
		printf "%s,%s,cvode-bdf-band,%s,%s,%s,%s,%s\n", model, traj, tol,
		med == "" ? "nan" : med, mn == "" ? "nan" : mn, E == "" ? "nan" : E, met }'
}

for model in ${MODELS:-heat1d heat2d}; do
	for n in ${TRAJS:-1 64 1024 8192}; do
		picard_row "$model" "$n" imex-sdirk2 "--tol $TOL"
		steps=$(model_setting DP5_STEPS "$model")
		if [ -n "$steps" ]; then grid="--steps $steps --check"; else grid="--tol $TOL"; fi
		picard_row "$model" "$n" dp5 "$grid"
		[ "$n" -le "${CVODE_MAX:-8192}" ] || continue
		[ -x bin/bench-cvode ] || continue
		rtol=$(awk -v t="$TOL" 'BEGIN { print t / 10 }')
		echo "== bench-cvode $model --traj $n --rtol $rtol" >> "$out/run.log"
		timeout "${ROW_TIMEOUT:-300}" bin/bench-cvode "$model" --traj "$n" --rtol "$rtol" \
			--repeats "$R" > "$out/row.txt" 2>&1
		echo "exit $?" >> "$out/row.txt"
		cat "$out/row.txt" >> "$out/run.log"
		cvode_row "$model" "$n" < "$out/row.txt" | tee -a "$csv"
	done
done
rm -f "$out/row.txt"
column -s, -t < "$csv" 2>/dev/null || cat "$csv"
