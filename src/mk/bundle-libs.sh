#!/bin/sh
# bundle-libs.sh DIR [BINARY...] - copy into DIR the shared libraries that
# BINARY (default: picard-run, picard-tests and ../lib/libpicard.so beside
# DIR) needs and a bare
# GPU machine lacks, so the binaries can be carried there and run.
#
# The GPU machine (Ubuntu 24.04, glibc 2.39, CUDA 13 toolkit, no apt, no
# network) has glibc and the CUDA libraries but no GSL and no Criterion.
# The binaries carry RPATH '$ORIGIN/lib:$ORIGIN/../lib:...' (RPATH, not
# RUNPATH, so it also serves the bundled libraries' own dependencies), so
# whatever lies in DIR is found before the system's copies.
#
# The closure is walked through DT_NEEDED (readelf) and each SONAME resolved
# through the system's loader cache (ldconfig -p), never through DIR, so a
# stale DIR cannot hide a library. The libraries come from the packages the
# binaries were linked against here (libgsl27, libgslcblas0, libcriterion3
# and their dependencies: libgit2, libnanomsg, mbedtls, krb5, ...): the same
# bytes as their .deb files, without a download.
#
# Left out: glibc (libc, libm, ld.so, ...: the target's 2.39 runs binaries
# built against Debian 12's 2.36), libgcc_s and libstdc++ (in every Ubuntu
# base image: apt needs them), and everything under CUDA_HOME (the target's
# toolkit has libcurand). Quiet and idempotent: DIR ends up holding exactly
# the needed files, named by SONAME; one summary line is printed.
set -eu

die() {
	echo "bundle-libs.sh: $*" >&2
	exit 1
}

[ $# -ge 1 ] || die "usage: bundle-libs.sh DIR [BINARY...]"
dir=$1
shift
if [ $# -eq 0 ]; then
	bindir=$(dirname "$dir")
	set -- "$bindir/picard-run" "$bindir/picard-tests" "$bindir/../lib/libpicard.so"
fi
for bin in "$@"; do
	[ -f "$bin" ] || die "$bin: no such binary (run make first)"
done
command -v readelf >/dev/null || die "readelf not found (apt-get install binutils)"
cuda=$(readlink -f "${CUDA_HOME:-/usr/local/cuda}")

# True for libraries the target machine has itself.
provided_by_target() {
	case $1 in
	ld-linux*.so* | libc.so.* | libm.so.* | libdl.so.* | libpthread.so.* | \
	librt.so.* | libresolv.so.* | libutil.so.* | libmvec.so.* | \
	libanl.so.* | libgcc_s.so.* | libstdc++.so.*)
		return 0 ;;
	libpicard.so) # picard's own, carried in lib/ beside bin/
		return 0 ;;
	esac
	return 1
}

# Path of SONAME $1 in the loader cache (x86-64 entries only), or nothing.
resolve() {
	ldconfig -p | awk -v so="$1" '$1 == so && /x86-64/ { print $NF; exit }'
}

needed() {
	readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
: >"$work/seen"
: >"$work/bundle"
for bin in "$@"; do
	needed "$bin" >>"$work/queue"
done

# Breadth-first walk of the dependency closure.
while [ -s "$work/queue" ]; do
	so=$(head -n 1 "$work/queue")
	sed -i 1d "$work/queue"
	grep -qxF "$so" "$work/seen" && continue
	echo "$so" >>"$work/seen"
	provided_by_target "$so" && continue
	path=$(resolve "$so")
	[ -n "$path" ] || die "$so: not in the loader cache (is its package installed?)"
	case $(readlink -f "$path") in
	"$cuda"/*) continue ;;
	esac
	echo "$so $path" >>"$work/bundle"
	needed "$path" >>"$work/queue"
done

mkdir -p "$dir"
# Drop what an earlier run left and is no longer needed.
for old in "$dir"/lib*.so*; do
	[ -e "$old" ] || continue
	awk -v so="$(basename "$old")" '$1 == so { found = 1 } END { exit !found }' \
		"$work/bundle" || rm -f "$old"
done
# Copy (resolving symlinks) only what changed, keeping the SONAME as name.
while read -r so path; do
	cmp -s "$path" "$dir/$so" || cp -L "$path" "$dir/$so"
	chmod 0644 "$dir/$so"
done <"$work/bundle"

# Check that the loader now takes every bundled library from DIR (RPATH
# before the system's directories): ldd's "SONAME => PATH" lines. A
# library is left out: the programs' RPATH serves its dependencies.
dir_abs=$(cd "$dir" && pwd -P)
for bin in "$@"; do
	case $bin in *.so) continue ;; esac
	ldd "$bin" | awk '$2 == "=>" { print $1, $3 }' | while read -r so path; do
		awk -v so="$so" '$1 == so { found = 1 } END { exit !found }' "$work/bundle" || continue
		[ "$(dirname "$(readlink -f "$path")")" = "$dir_abs" ] ||
			die "$bin: $so resolves to $path, not to $dir (RPATH missing?)"
	done
done

count=$(wc -l <"$work/bundle")
size=$(du -sk "$dir" | cut -f1)
echo "  BUNDLE  $dir: $count libraries, $((size / 1024)) MiB"
