#!/bin/sh
# gpu-profile.sh - on the GPU machine, with the bin/ of `make gpu-bundle`:
# where the time of the kernels that miss issue 8's targets goes (the
# profile the issue asks for with each miss). Nsight Compute on one launch
# of each, after warm-up launches:
#   lobatto lotka float m = 6, 15 windows, 1 and 8192 trajectories (1e-4);
#   lobatto lotka double m = 8, 19 windows, 8192 trajectories (1e-8);
#   lobatto kepler double m = 16, 64 trajectories (1e-10);
#   lobatto, thread layout, lotka float m = 6, 1M trajectories;
#   trapezoid, thread layout, lotka float m = 6, 1M trajectories.
# Clocks are left alone (--clock-control none, METHOD.md). Per kernel: the
# details page (occupancy, and the warp state statistics: what the warps
# wait on: shuffles and votes, math, memory, barriers) and, where this ncu
# can print it, the SASS source page with per-instruction stall samples
# (bench/profile-stages.awk folds those into the sweep's stages). ncu reads
# counters on the Firecracker runtime only (KINDS.md): on gVisor this
# writes the error and stops. Everything into ${OUT:-.}/profile.tar.gz.
# Arguments name the profiles to take (e.g. lotka-lobatto-double-8192);
# none takes them all.
only="$*"
out=${OUT:-.}/profile
mkdir -p "$out"
ncu --version | tail -1
date -u

# profile NAME KERNEL-REGEX COMMAND...: the 3rd launch of the kernel
profile() {
	name=$1 kernel=$2
	shift 2
	[ -n "$only" ] && case " $only " in *" $name "*) ;; *) return ;; esac
	echo "== $name: $*"
	if ! ncu --clock-control none -k "regex:$kernel" --launch-skip 2 --launch-count 1 \
		--set full --import-source yes -f -o "$out/$name" "$@" \
		> "$out/$name.run.log" 2>&1; then
		tail -5 "$out/$name.run.log"
		return
	fi
	ncu -i "$out/$name.ncu-rep" --page details > "$out/$name.details.txt" 2>&1
	ncu -i "$out/$name.ncu-rep" --page source --print-source sass --csv \
		> "$out/$name.sass.csv" 2> "$out/$name.sass.err" ||
		echo "  (no source page: $(head -1 "$out/$name.sass.err"))"
	grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Warp Cycles Per Issued|Stall" \
		"$out/$name.details.txt" | head -20
}

profile lotka-lobatto-1 picard_lobatto_kernel \
	bin/bench-picard lotka --precision float --traj 1 --m 6 --windows 15 --iter-rtol 1e-6 --repeats 3
profile lotka-lobatto-8192 picard_lobatto_kernel \
	bin/bench-picard lotka --precision float --traj 8192 --m 6 --windows 15 --iter-rtol 1e-6 --repeats 3
profile lotka-lobatto-double-8192 picard_lobatto_kernel \
	bin/bench-picard lotka --precision double --traj 8192 --m 8 --windows 19 --iter-rtol 1e-13 --repeats 3
profile kepler-lobatto-64 picard_lobatto_kernel \
	bin/bench-picard kepler --precision double --traj 64 --spread 0.01 --m 16 --windows 2832 --iter-rtol 1e-12 --repeats 3
profile lotka-lobatto-thread-1M picard_lobatto_thread_kernel \
	bin/bench-picard lotka --precision float --traj 1048576 --m 6 --windows 15 --iter-rtol 1e-6 --layout thread --repeats 3
profile lotka-thread-1M picard_thread_kernel \
	bin/bench-picard lotka --scheme trapezoid --layout thread --precision float --traj 1048576 --m 6 --K 3 --windows 400 --repeats 3
for f in "$out"/*.sass.csv; do
	[ -s "$f" ] && awk -f bench/profile-stages.awk "$f" > "${f%.sass.csv}.stages.txt" &&
		{ echo "== $(basename "$f" .sass.csv) by stage"; cat "${f%.sass.csv}.stages.txt"; }
done
rm -f "$out"/*.ncu-rep.tmp
tar -C "${OUT:-.}" -czf "${OUT:-.}/profile.tar.gz" profile
