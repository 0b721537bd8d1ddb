#!/bin/sh
# check-rules.sh [MAKEFILE] - every rule of the Makefile that compiles a
# source (a recipe with "-c $<", or a model through compile-model.sh) must
# wait for the package install: an order-only "| deps" (or "| fuzz-cc"
# for the clang targets). Without it make -j on a fresh machine races
# apt-get and fails on a missing header. Prints the rules that lack it;
# exits 1 if any does.
awk '
/^[^\t#].*:/ { rule = $0; while (rule ~ /\\$/ && (getline more) > 0) rule = rule " " more }
/^\t.*(-c \$<|compile-model)/ && rule !~ /\| *(deps|fuzz-cc)/ { print "no | deps: " rule; bad = 1 }
END { exit bad }
' "${1:-Makefile}"
