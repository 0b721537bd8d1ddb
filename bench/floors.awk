# floors.awk - the napkin maths next to the time (issue 8): for each row of
# a bench CSV of lotka (bench/compare/README.md's columns; run-suite.sh
# --only matrix writes matrix.csv), the H100's floors for that work and the
# fraction of the measured time the largest of them is.
#
#   awk -F, -f bench/floors.awk DIR/matrix.csv
#
# The floors are estimates, from these constants (H100 SXM, counted by
# hand; bench/results/README.md "Napkin maths"):
#   launch   LAUNCH_US, an empty kernel's launch
#   compute  ntraj x rhs evals x flops per eval / peak (FP32 or FP64
#            without tensor cores), flops per eval = the right-hand side
#            (RHS_FLOPS) + the scheme's combination per component: picard
#            lobatto's mat-vec row, 2 m; dp8's stage sums, ~14
#   chain    one trajectory's dependent path: picard, its sweeps (evals /
#            m) x SWEEP_US, the measured latency of one sweep at one
#            trajectory (H100, m = 8, 2026-11-23); dp8, its steps x
#            STEP_US (13 dependent stages)
# The floor is the largest; fraction = floor / measured time (1: at the
# floor). Rows of other methods or models are passed over.
BEGIN {
	LAUNCH_US = 5; PEAK32 = 67e12; PEAK64 = 34e12
	RHS_FLOPS = 12; N = 2            # lotka
	SWEEP_US = 0.17; STEP_US = 0.1
	printf "%-8s %-15s %-6s %10s %9s %9s %9s %9s %8s\n", "ntraj", "method", "prec",
	       "error", "time_us", "launch", "compute", "chain", "fraction"
}
/^#/ || $1 == "device" || $4 != "lotka" { next }
{
	ntraj = $5; method = $6; prec = $7; config = $8; steps = $9
	error = $11; time = $13; evals = $16
	peak = prec == "double" ? PEAK64 : PEAK32
	if (method ~ /^picard-lobatto/) {
		m = config; sub(/^m=/, "", m); sub(/ .*/, "", m)
		per_eval = RHS_FLOPS + 2 * m * N
		chain = evals / m * SWEEP_US
	} else if (method == "dp8") {
		per_eval = RHS_FLOPS + 14 * N
		chain = steps * STEP_US
	} else
		next
	compute = ntraj * evals * per_eval / peak * 1e6
	floor = LAUNCH_US
	if (compute > floor) floor = compute
	if (chain > floor) floor = chain
	printf "%-8d %-15s %-6s %10.2e %9.1f %9.1f %9.2f %9.1f %8.2f\n", ntraj, method, prec,
	       error, time, LAUNCH_US, compute, chain, floor / time
}
