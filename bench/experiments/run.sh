#!/bin/sh
# run.sh - build bin/exp-pipeline and run every case of README.md into
# bench/experiments/pipeline-results.csv (about 30 s on one core).
set -e
cd "$(dirname "$0")/../.."
mkdir -p bin
gcc -O2 -std=c11 -Wall -Wextra -Iinclude -Isrc bench/experiments/pipeline.c \
	src/schemes/lobatto/lobatto.c src/common/errors.c -lm -o bin/exp-pipeline
P=bin/exp-pipeline
{
	$P lotka --m 6 --windows 15 --rtol 1e-6 --bands 1,2,4,8,16,32 --header
	$P lotka --m 6 --windows 15 --rtol 1e-6 --bands 2,4,8 --retire strict
	$P lotka --m 6 --windows 15 --rtol 1e-6 --bands 2,4,8,16,32 --gate 1e3
	$P lotka --m 6 --windows 15 --rtol 1e-6 --bands 1,2,4,8,16,32 --init const
	$P lotka --m 6 --windows 15 --rtol 1e-6 --bands 8,16 --skip --loose 10
	$P lotka --m 6 --windows 15 --rtol 1e-6 --bands 1,4 --retire start
	$P lotka --m 8 --windows 25 --rtol 1e-8 --bands 1,2,4,8,16,32
	$P lotka --m 8 --windows 25 --rtol 1e-8 --bands 2,4,8,16,32 --gate 1e3
	$P lotka --m 12 --windows 15 --rtol 1e-8 --bands 1,2,4,8,16,32
	$P lotka --m 12 --windows 15 --rtol 1e-8 --bands 2,4,8,16,32 --gate 1e3
	for R in 1e-12 1e-13 1e-14; do
		$P kepler --m 16 --windows 2832 --rtol $R --bands 1,2,4,8,16,32,64
	done
	$P kepler --m 16 --windows 2832 --rtol 1e-12 --bands 2,4,8 --retire strict
	$P kepler --m 16 --windows 2832 --rtol 1e-12 --bands 64 --gate 1e4
	$P kepler --m 16 --windows 2832 --rtol 1e-12 --bands 64 --gate 1e2
	$P kepler --m 16 --windows 2832 --rtol 1e-12 --bands 1,4,16,64 --init const
	$P kepler --m 16 --windows 2832 --rtol 1e-12 --bands 64 --skip
	$P kepler --m 16 --windows 2832 --rtol 1e-12 --bands 64 --skip --loose 10
	$P kepler --m 16 --windows 2832 --rtol 1e-12 --bands 64 --skip --loose 100
	$P kepler --m 16 --windows 2832 --rtol 1e-12 --bands 1,4 --retire start
} > bench/experiments/pipeline-results.csv 2> bench/experiments/pipeline-results.log
cat bench/experiments/pipeline-results.log
