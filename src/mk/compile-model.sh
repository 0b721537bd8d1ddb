#!/bin/sh
# compile-model.sh OUT SRC NVCC-COMMAND... - compile a model file, and when
# that fails, say which rule of the model contract (kernels/picard_model.cuh,
# docs/models.md) it breaks instead of nvcc's cascade of template errors.
out=$1 src=$2
shift 2
name=$(basename "$src" .cu)

rule() {
	echo "$src: $1" >&2
	echo "hint: docs/models.md, section \"The contract\"" >&2
	exit 1
}
# Checked before compiling: these would surface as link errors far away.
echo "$name" | grep -Eq '^[a-z][a-z0-9_]*$' ||
	rule "the file name must be a C identifier in lower case (models/NAME.cu, NAME = [a-z][a-z0-9_]*)"
grep -q "PICARD_REGISTER_MODEL($name)" "$src" ||
	rule "the file must end with PICARD_REGISTER_MODEL($name): the model struct is named after the file"
[ "$(grep -c 'PICARD_REGISTER_MODEL(' "$src")" = 1 ] ||
	rule "one model per file: PICARD_REGISTER_MODEL appears more than once"

log=$out.log
if "$@" -c "$src" -o "$out" 2>"$log"; then
	cat "$log" >&2
	rm -f "$log"
	exit 0
fi
# The contract alone, each rule a static_assert of its own: its messages
# when one is broken, else nvcc's own (an error in the right-hand side).
"$@" -DPICARD_MODEL_CONTRACT_ONLY -c "$src" -o "$out.contract.o" >"$log.contract" 2>&1
broken=$(grep -o 'models/[a-z0-9_]*\.cu: [^"]*' "$log.contract" | awk '!seen[$0]++')
if [ -n "$broken" ]; then
	echo "$broken" | sed "s|^|error: |" >&2
	echo "hint: docs/models.md, section \"The contract\"" >&2
else
	cat "$log" >&2
fi
rm -f "$out.contract.o" "$log" "$log.contract"
exit 1
