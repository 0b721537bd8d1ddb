#!/bin/sh
# compile-model.sh OUT SRC CHECKER CXX-COMMAND... - compile a model file's host side,
# and when that fails, say which rule of the model contract (src/
# model/picard_model.cuh, docs/models.md) it breaks instead of a cascade of
# template errors.
# Before compiling, the rules a compiler cannot see (CHECKER, build/
# model-check): the names, and what a right-hand side must not do (it runs
# in a GPU kernel, thousands at once).
out=$1 src=$2 checker=$3
shift 3
name=$(basename "$src" .cu)
hint='hint: docs/models.md, section "The contract"'

rule() {
	echo "error: $src: $1" >&2
	echo "$hint" >&2
	exit 1
}
echo "$name" | grep -Eq '^[a-z][a-z0-9_]*$' ||
	rule "the file name must be a C identifier in lower case (models/NAME.cu, NAME = [a-z][a-z0-9_]*)"
# The rules no compiler sees (src/model/model_check.c, as picard_model_load
# checks a file elsewhere).
"$checker" "$src" || { echo "$hint" >&2; exit 1; }

log=$out.log
if "$@" -c "$src" -o "$out" 2>"$log"; then
	cat "$log" >&2
	rm -f "$log"
	exit 0
fi
# The contract alone, each rule a static_assert of its own: its messages
# when one is broken, else nvcc's own (an error in the right-hand side).
"$@" -DPICARD_MODEL_CONTRACT_ONLY -c "$src" -o "$out.contract.o" >"$log.contract" 2>&1
broken=$(grep -o "model $name: [^\"]*" "$log.contract" | sed "s|^model $name: ||" | awk '!seen[$0]++')
if [ -n "$broken" ]; then
	echo "$broken" | sed "s|^|error: $src: |" >&2
else
	cat "$log" >&2
fi
rm -f "$out.contract.o" "$log" "$log.contract"
exit 1
