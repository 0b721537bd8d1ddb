#!/bin/sh
# ensure-deps.sh [plots] - check the system packages the build and its
# tests (and with "plots", make plots) need; install the missing ones with
# apt-get when run as root, else print the command to run.
cuda=${CUDA_HOME:-/usr/local/cuda}
if [ ! -x "$cuda/bin/nvcc" ] || [ ! -f "$cuda/include/curand.h" ]; then
	echo "error: no CUDA toolkit (nvcc, cuRAND) under $cuda" >&2
	echo "hint: install the CUDA Toolkit, or run  make CUDA_HOME=/path/to/cuda" >&2
	exit 1
fi
need=""
[ -f /usr/include/gsl/gsl_odeiv2.h ] || need="$need libgsl-dev"
[ -f /usr/include/criterion/criterion.h ] || need="$need libcriterion-dev"
# the chemistry converter (tools/mech2picard), which make test runs, and
# the Python package and its tests (python/, tests/python), under Debian's
# python3 (the Makefile's PYTHON)
py=${PYTHON:-python3}
python3 -c 'import yaml' 2>/dev/null || need="$need python3-yaml"
$py -c 'import numpy' 2>/dev/null || need="$need python3-numpy"
$py -c 'import pytest' 2>/dev/null || need="$need python3-pytest"
# make plots asks for gnuplot too (ensure-deps.sh plots)
[ "$1" = plots ] && ! command -v gnuplot >/dev/null && need="$need gnuplot-nox"
[ -z "$need" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	echo "  DEPS    installing:$need"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need >/dev/null || {
		echo "error: apt-get install -y$need failed" >&2; exit 1; }
else
	echo "error: missing packages:$need" >&2
	echo "hint: run  sudo apt-get install -y$need  then make again" >&2
	exit 1
fi
