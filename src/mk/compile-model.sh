#!/bin/sh
# compile-model.sh OUT SRC CXX-COMMAND... - compile a model file's host side,
# and when that fails, say which rule of the model contract (kernels/
# picard_model.cuh, docs/models.md) it breaks instead of a cascade of
# template errors.
# Before compiling, the rules a compiler cannot see: the names, and what a
# right-hand side must not do (it runs in a GPU kernel, thousands at once).
out=$1 src=$2
shift 2
name=$(basename "$src" .cu)
hint='hint: docs/models.md, section "The contract"'

rule() {
	echo "error: $src: $1" >&2
	echo "$hint" >&2
	exit 1
}
echo "$name" | grep -Eq '^[a-z][a-z0-9_]*$' ||
	rule "the file name must be a C identifier in lower case (models/NAME.cu, NAME = [a-z][a-z0-9_]*)"
grep -q "PICARD_REGISTER_MODEL($name)" "$src" ||
	rule "the file must end with PICARD_REGISTER_MODEL($name): the model struct is named after the file"
[ "$(grep -c 'PICARD_REGISTER_MODEL(' "$src")" = 1 ] ||
	rule "one model per file: PICARD_REGISTER_MODEL appears more than once"
grep -Eq "struct[[:space:]]+$name([[:space:]{]|\$)" "$src" ||
	rule "no struct $name: the model struct is named after the file"

# The body of rhs: no I/O, allocation, static state or exceptions.
forbidden=$(awk '
	!inside && /static[ \t]+void[ \t]+rhs[ \t]*\(/ { inside = 1; sub(/.*rhs[ \t]*\(/, "") }
	inside {
		print
		n = gsub(/\{/, "{"); depth += n; opened += n
		depth -= gsub(/\}/, "}")
		if (opened && depth == 0) exit
	}' "$src" | sed 's|//.*||' |
	grep -Eo '\b(printf|fprintf|puts|fopen|malloc|calloc|realloc|free|new|delete|static|throw|std::cout|exit)\b' |
	sort -u | tr '\n' ' ')
[ -z "$forbidden" ] ||
	rule "rhs must be a pure function of (t, x, p): it uses ${forbidden}(no I/O, allocation, static state or exceptions: it runs in the GPU kernel)"

# The kernels call rhs: the host compiler would not see a missing qualifier.
awk '/static[ \t]+void[ \t]+rhs[ \t]*\(/ { print prev " " $0; exit } { prev = $0 }' "$src" |
	grep -q '__host__[ \t]*__device__\|__device__[ \t]*__host__' ||
	rule "rhs must be declared template <typename real> __host__ __device__: the GPU kernel calls it"

# Members the contract does not know: most likely a misspelt optional one
# (defualt_h), which would otherwise be ignored without a word.
known=' dim nparams param_names param_defaults x0 t0 t1 summary reference default_h ninvariants invariant_names rhs jacobian exact initial invariants '
for member in $(sed -n 's/^[ \t]*static[ \t]\{1,\}\(constexpr[ \t]\{1,\}\)\{0,1\}[A-Za-z_:<> \t*]*[ \t*]\([a-z_][A-Za-z0-9_]*\)[ \t]*\(\[[^]]*\]\)\{0,1\}[ \t]*[=(;,].*/\2/p' "$src" | sort -u); do
	case "$known" in
	*" $member "*) ;;
	*) echo "warning: $src: member '$member' is not part of the model contract (misspelt? known:$known)" >&2 ;;
	esac
done

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
