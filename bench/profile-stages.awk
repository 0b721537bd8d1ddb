# profile-stages.awk - fold Nsight Compute's SASS source page (ncu -i REP
# --page source --print-source sass --csv) into where the warps spent
# their time, by the kind of instruction a stall sample landed on:
#   shuffle  SHFL (the mat-vec's and the scan's exchanges)
#   vote     VOTE, the convergence test's group vote
#   barrier  BAR, WARPSYNC (block and warp barriers)
#   shared   LDS, STS (tables, the paper layout's states)
#   global   LDG, STG, LD, ST, ATOM, RED (states, records)
#   math     FP32/FP64/integer arithmetic (right-hand side, mat-vec FMAs)
#   convert  F2F, I2F, F2I (float <-> double)
#   control  branches, compares, moves, the rest
# Columns are found by name in the header ("Source", "Warp Stall Sampling
# (All Samples)", "Instructions Executed"), so a reordered page still
# reads. Prints samples and their share per class.
BEGIN { FS = "\",\""; src = stall = exec = 0 }

function strip(s) { gsub(/^"|"$/, "", s); return s }
function num(s) { s = strip(s); gsub(/,/, "", s); return s + 0 } # "1,234"

function class_of(op) {
	if (op ~ /^SHFL/) return "shuffle"
	if (op ~ /^VOTE/) return "vote"
	if (op ~ /^(BAR|WARPSYNC|BSYNC|BSSY)/) return "barrier"
	if (op ~ /^(LDS|STS)/) return "shared"
	if (op ~ /^(LDG|STG|LD|ST|ATOM|RED|LDC)/) return "global"
	if (op ~ /^(F2F|I2F|F2I|FRND)/) return "convert"
	if (op ~ /^(FFMA|FADD|FMUL|FMNMX|DFMA|DADD|DMUL|DSETP|FSETP|MUFU|HFMA|IMAD|IADD|LOP|SHF|FCHK)/)
		return "math"
	return "control"
}

!src {
	for (i = 1; i <= NF; i++) {
		name = strip($i)
		if (name == "Source") src = i
		if (name ~ /^Warp Stall Sampling \(All/) stall = i
		if (name == "Instructions Executed") exec = i
	}
	next
}

{
	line = strip($src)
	sub(/^[ \t]*(@!?U?P[0-9T]+[ \t]+)?/, "", line) # predicate
	split(line, word, /[ .]/)
	c = class_of(word[1])
	samples[c] += num($stall)
	if (exec) executed[c] += num($exec)
	total += num($stall)
}

END {
	if (!src || !stall) {
		print "profile-stages.awk: no Source / Warp Stall Sampling columns" > "/dev/stderr"
		exit 1
	}
	printf "%-8s %10s %7s %14s\n", "class", "samples", "share", "instr. executed"
	for (c in samples)
		printf "%-8s %10d %6.1f%% %14d\n", c, samples[c],
		       total ? 100 * samples[c] / total : 0, executed[c]
}
